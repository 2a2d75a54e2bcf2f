#!/usr/bin/env bash
# How long the library takes to build, as every user builds it, beside ndarray in the
# same run: `cargo build --release --lib` and `cargo build --lib` (CARGO_INCREMENTAL=0)
# from a clean target directory, each crate's own time from cargo's timings, and the size
# of the debug rlib. Prints one Markdown table; progress goes to stderr.
#
#     benches/build_time.sh            # target/build-time, removed first
#     BUILD_TIME_RUNS=3 benches/build_time.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${BUILD_TIME_RUNS:-1}
dir=target/build-time

# The seconds cargo's timings give `crate` (its lib unit) in the report `html`.
seconds() {
    python3 - "$1" "$2" <<'PY'
import json, re, sys
html, crate = open(sys.argv[1]).read(), sys.argv[2]
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);", html, re.S).group(1))
lib = (u for u in units if u["name"] == crate and u["target"].strip() in ("", "(lib)"))
print(f"{next(lib)['duration']:.1f}")
PY
}

# One clean build in `profile` (release or dev): "crate seconds, ndarray seconds".
build() {
    local profile=$1 flag=""
    [ "$profile" = release ] && flag=--release
    rm -rf "$dir"
    CARGO_INCREMENTAL=0 cargo build $flag --lib --quiet --timings --target-dir "$dir" >&2
    local report
    report=$(ls -t "$dir"/cargo-timings/cargo-timing-*.html | head -1)
    echo "$(seconds "$report" zarr-bytes) $(seconds "$report" ndarray)"
}

rows=()
for _ in $(seq "$runs"); do
    echo "release build..." >&2
    read -r ours_release theirs_release < <(build release)
    echo "debug build..." >&2
    read -r ours_debug theirs_debug < <(build dev)
    ours_rlib=$(stat -c %s "$dir"/debug/deps/libzarr_bytes-*.rlib)
    theirs_rlib=$(stat -c %s "$dir"/debug/deps/libndarray-*.rlib)
    rows+=("$ours_release $theirs_release $ours_debug $theirs_debug $ours_rlib $theirs_rlib")
done
rm -rf "$dir"

echo "| run | \`cargo build --release --lib\`: zarr-bytes / ndarray (s) | \`cargo build --lib\`, no incremental: zarr-bytes / ndarray (s) | debug rlib: zarr-bytes / ndarray (MB) |"
echo "|---:|---:|---:|---:|"
i=0
for row in "${rows[@]}"; do
    read -r a b c d e f <<<"$row"
    i=$((i + 1))
    awk -v i="$i" -v a="$a" -v b="$b" -v c="$c" -v d="$d" -v e="$e" -v f="$f" 'BEGIN {
        printf "| %d | %s / %s (%.1f ×) | %s / %s (%.1f ×) | %.1f / %.1f |\n", i, a, b, a / b, c, d, c / d, e / 1e6, f / 1e6
    }'
done
echo
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(rustc --version)"
