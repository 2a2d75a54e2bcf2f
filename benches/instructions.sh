#!/usr/bin/env bash
# Instructions per byte of the tiled conversions, counted by callgrind: one markdown row
# per direction, layout, type and endian, each conversion of a 2 MiB array run once by
# `perf_table --count` and counted alone (`--toggle-collect` of `perf_table::counted`).
# Counts do not move with the machine's load, so they compare builds where GB/s cannot.
#
#   benches/instructions.sh                      # every row of the table in benches/NOTES.md
#   LAYOUTS=fortran TYPES=u8:big benches/instructions.sh
#
# LAYOUTS: perf_table layouts (default fortran, transposed, 3d-swapped); TYPES: TYPE:ENDIAN
# pairs (1-byte types ignore the endian); SIZE_MIB: bytes per array (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
layouts=${LAYOUTS:-fortran transposed 3d-swapped}
types=${TYPES:-u8:big i8:big bool:big u16:little u16:big f32:big f64:big complex128:big}
size_mib=${SIZE_MIB:-2}
perf_table=$(cargo bench --no-run --quiet --bench perf_table --message-format=json |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -n "$perf_table" ] || { echo "no perf_table binary built" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| direction | layout | type | endian | instructions | per byte |"
echo "|---|---|---|---|---:|---:|"
for direction in encode decode; do
    for layout in $layouts; do
        for te in $types; do
            ty=${te%%:*}
            endian=${te##*:}
            file="$out/$direction-$layout-$ty-$endian"
            valgrind --tool=callgrind --toggle-collect='perf_table::counted' --callgrind-out-file="$file" \
                "$perf_table" --size-mib "$size_mib" \
                --count "$direction:$layout:$ty:$endian" >"$file.log" 2>&1 || {
                echo "instructions.sh: $direction:$layout:$ty:$endian failed:" >&2
                cat "$file.log" >&2
                exit 1
            }
            total=$(awk '/^summary:/ { print $2 }' "$file")
            case $ty in u8 | i8 | bool) shown=n/a ;; *) shown=$endian ;; esac
            awk -v d="$direction" -v l="$layout" -v t="$ty" -v e="$shown" -v n="$total" \
                -v b="$((size_mib << 20))" \
                'BEGIN { printf "| %s | %s | %s | %s | %d | %.3f |\n", d, l, t, e, n, n / b }'
        done
    done
done
