#!/usr/bin/env bash
# Every table and the chart of benches/README.md, the users' page, from one run on this
# machine: the whole arrays and the grid rows against the naive code, zarrs and memcpy (the
# peers project), numpy (numpy_baseline.py --json), the 1 GiB array end to end against
# zarr-python and tensorstore (peers_grid.py) and a box of it on a local S3 server
# (peers_s3.py, moto's), and the build time and binary size (the size
# project, built from a clean target). Writes the run's files to target/users, then the
# page's tables and benches/chart.svg (users_page.py). Each step prints its time.
#
#     benches/users.sh                 # about 10 minutes, builds done; the first run also
#                                      # builds zarrs and the examples (about 6 minutes)
#     RUNS=3 E2E_RUNS=1 benches/users.sh
#
# RUNS: timed runs per row of the peers and numpy (median; default 5); E2E_RUNS: runs per
# row of the end-to-end and S3 tables (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
e2e_runs=${E2E_RUNS:-3}
out=target/users
mkdir -p "$out"
export CARGO_TERM_COLOR=never

durations=()
step() {
    local name=$1
    shift
    echo "::: $name" >&2
    local start=$SECONDS
    "$@"
    durations+=("$(printf '%5d s  %s' $((SECONDS - start)) "$name")")
}
report() {
    printf '%s\n' "${durations[@]}" >&2
    echo "$(printf '%5d s' "$SECONDS")  in all" >&2
}
trap report EXIT

# The Python of .ci/run (zarr-python 3.4 needs 3.11 or newer), with matplotlib for the chart.
python=""
# pyenv's installs count too where none is selected: its shims then refuse to run them.
pyenv_pythons=$(ls -d "$(pyenv root 2>/dev/null)"/versions/3.1[2-9]*/bin/python3 2>/dev/null || true)
for candidate in python3.13 python3.12 $pyenv_pythons python3; do
    if "$candidate" -c 'import sys; assert sys.version_info >= (3, 11)' >/dev/null 2>&1; then
        python=$candidate
        break
    fi
done
[ -n "$python" ] || { echo "users.sh: no python3 (3.11 or newer) found" >&2; exit 1; }
venv() {
    [ -x .venv/bin/python ] || "$python" -m venv .venv
    .venv/bin/python -m pip install --quiet --disable-pip-version-check \
        "zarr>=3.1,<4" numpy tensorstore matplotlib "moto[server]" obstore
}
step "python venv" venv

build() {
    cargo build --release --quiet --manifest-path benches/peers/Cargo.toml
    cargo build --release --quiet -p zarr-array --features s3
    cargo build --release --quiet -p zarr-array --features rayon --target-dir target/rayon
}
step "builds" build

step "peers" sh -c "benches/peers/target/release/peers --runs $runs > $out/peers.jsonl"
step "numpy" sh -c ".venv/bin/python benches/numpy_baseline.py --json --runs $runs > $out/numpy.jsonl"
step "end to end" sh -c ".venv/bin/python benches/peers_grid.py --runs $e2e_runs \
    --example zarr-bytes=target/release/zarr-array \
    --example 'zarr-bytes, pool'=target/rayon/release/zarr-array > $out/end_to_end.md"
step "s3" sh -c ".venv/bin/python benches/peers_s3.py --runs $e2e_runs \
    --example zarr-bytes=target/release/zarr-array > $out/s3.md"

# The library built as a user's project builds it, from a clean target: cargo's own timing
# of each crate, and the two binaries' sizes.
size() {
    local dir=target/size
    rm -rf "$dir"
    cargo build --release --quiet --timings --manifest-path benches/size/Cargo.toml --target-dir "$dir"
    local report
    report=$(ls -t "$dir"/cargo-timings/cargo-timing-*.html | head -1)
    "$python" - "$report" "$dir/release" "$(rustc --version)" >"$out/build.json" <<'PY'
import json, os, re, sys, time
html, bins, rustc = sys.argv[1], sys.argv[2], sys.argv[3]
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);", open(html).read(), re.S).group(1))
def seconds(crate):
    return next(u["duration"] for u in units if u["name"] == crate and u["target"].strip() in ("", "(lib)"))
print(json.dumps({
    "crate_s": seconds("zarr-bytes"), "ndarray_s": seconds("ndarray"),
    "encode_bytes": os.path.getsize(f"{bins}/encode"),
    "baseline_bytes": os.path.getsize(f"{bins}/baseline"),
    "rustc": rustc, "date": time.strftime("%Y-%m-%d"),
}))
PY
}
step "build and size" size

step "page and chart" .venv/bin/python benches/users_page.py "$out"
