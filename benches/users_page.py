"""The tables and the chart of benches/README.md, from one run of benches/users.sh.

Reads the run's files in DIR (default target/users): `peers.jsonl` (the peers project's
lines: this crate, the naive code, zarrs and memcpy), `numpy.jsonl` (numpy_baseline.py
--json), `end_to_end.md` (peers_grid.py's table) and `build.json` (users.sh's build and
size figures). Rewrites each block of benches/README.md between `<!-- NAME -->` and
`<!-- /NAME -->` and draws benches/chart.svg (matplotlib).

    .venv/bin/python benches/users_page.py [DIR]
"""

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "benches" / "README.md"
CHART = ROOT / "benches" / "chart.svg"

CRATE_1 = "zarr-bytes 1 core"
CRATE_POOL = "zarr-bytes pool"
WHOLE_COLUMNS = [
    (CRATE_1, "zarr-bytes, 1 core"),
    (CRATE_POOL, "zarr-bytes, pool"),
    ("naive per element", "naive, per element"),
    ("naive byteorder", "naive, byteorder"),
    ("zarrs 0.23", "zarrs 0.23"),
    ("numpy", "numpy"),
]
GRID_COLUMNS = [
    (CRATE_1, "zarr-bytes, 1 core"),
    (CRATE_POOL, "zarr-bytes, pool"),
    ("naive byteorder", "naive, byteorder"),
    ("zarrs 0.23", "zarrs 0.23"),
]
LAYOUT_NAMES = {"standard": "C order", "fortran": "Fortran", "3d-swapped": "3-D, last axes swapped"}
GRID_ROWS = [
    ("many chunks", "encode", "256 MiB in 2 MiB chunks, every chunk encoded"),
    ("many chunks", "decode", "256 MiB from 2 MiB chunks, into the array"),
    ("sparse", "encode", "90 % of the chunks fill value, left out"),
    ("sparse", "decode", "90 % of the chunks missing, filled"),
    ("subset", "decode", "a quarter of the array, half a chunk off the grid, read into an array"),
    ("subset", "encode", "the same box written into the stored chunks"),
]


def lines(path):
    """The JSON objects of a file of JSON lines."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def fmt(x):
    return "–" if x is None else f"{x:.2f}"


def rate(rows, impl, direction, ty, layout):
    for r in rows:
        if (r.get("impl"), r.get("direction"), r.get("type"), r.get("layout")) == (
            impl, direction, ty, layout):
            return r["gbps"]
    return None


def whole_table(rows):
    def bound(impl):
        return {r["type"]: r["gbps"] for r in rows if r.get("impl") == impl and r.get("layout") == "contiguous"}
    memcpy, fresh = bound("memcpy"), bound("memcpy fresh")
    head = "| direction | layout | type | " + " | ".join(n for _, n in WHOLE_COLUMNS) + " | memcpy: new, into |"
    out = [head, "|---|---|---|" + "---:|" * (len(WHOLE_COLUMNS) + 1)]
    for direction in ("encode", "decode"):
        for layout in ("standard", "fortran", "3d-swapped"):
            for ty in ("u8", "u16", "f32", "f64"):
                cells = [rate(rows, impl, direction, ty, layout) for impl, _ in WHOLE_COLUMNS]
                # The best of the peers in bold: what the crate is up against.
                peers = [c for c in cells[2:] if c is not None]
                best = max(peers) if peers else None
                shown = [fmt(c) for c in cells[:2]] + [
                    f"**{fmt(c)}**" if c is not None and c == best else fmt(c) for c in cells[2:]]
                out.append(f"| {direction} | {LAYOUT_NAMES[layout]} | {ty} | " + " | ".join(shown)
                           + f" | {fmt(fresh.get(ty))}, {fmt(memcpy.get(ty))} |")
    return out


def grid_table(rows):
    memcpy = next((r["gbps"] for r in rows if r.get("impl") == "memcpy" and r.get("layout") == "many chunks"), None)
    out = ["| f32, big endian | " + " | ".join(n for _, n in GRID_COLUMNS) + " | memcpy |",
           "|---|" + "---:|" * (len(GRID_COLUMNS) + 1)]
    for layout, direction, what in GRID_ROWS:
        cells = [rate(rows, impl, direction, "f32", layout) for impl, _ in GRID_COLUMNS]
        bound = rate(rows, "memcpy", direction, "f32", layout) or memcpy
        out.append(f"| {what} | " + " | ".join(fmt(c) for c in cells) + f" | {fmt(bound)} |")
    return out


def build_table(build):
    b = build
    return [
        "| | zarr-bytes | ndarray, same build |",
        "|---|---:|---:|",
        f"| `cargo build --release`, clean target (s) | {b['crate_s']:.1f} | {b['ndarray_s']:.1f} |",
        "",
        "| release binary (bytes) | size | added by the crate |",
        "|---|---:|---:|",
        f"| writes an `f32` array's bytes by hand | {b['baseline_bytes']:,} | |",
        f"| the same with `to_zarr_bytes` | {b['encode_bytes']:,} | {b['encode_bytes'] - b['baseline_bytes']:,} |",
    ]


def machine(rows, build):
    first = next((r for r in rows if "machine" in r), {})
    return [f"Machine: {first.get('machine', 'unknown')}; {build.get('rustc', '')}; "
            f"zarrs {first.get('zarrs', '?')}; {build.get('numpy', 'numpy ?')}; run {build.get('date', '')}."]


def replace(page, name, body):
    pattern = re.compile(rf"(<!-- {name} -->\n).*?(<!-- /{name} -->)", re.S)
    if not pattern.search(page):
        sys.exit(f"users_page.py: benches/README.md has no <!-- {name} --> block")
    return pattern.sub(lambda m: m.group(1) + "\n".join(body) + "\n" + m.group(2), page)


def chart(rows):
    import matplotlib
    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    impls = [(CRATE_1, "zarr-bytes, 1 core"), (CRATE_POOL, "zarr-bytes, pool"),
             ("naive byteorder", "naive (byteorder)"), ("zarrs 0.23", "zarrs 0.23"),
             ("numpy", "numpy")]
    layouts = ["standard", "fortran", "3d-swapped"]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    width = 0.8 / len(impls)
    memcpy = rate(rows, "memcpy", "n/a", "f32", "contiguous")
    fresh = rate(rows, "memcpy fresh", "n/a", "f32", "contiguous")
    for ax, direction in zip(axes, ("encode", "decode")):
        for k, (impl, label) in enumerate(impls):
            values = [rate(rows, impl, direction, "f32", layout) or 0 for layout in layouts]
            xs = [i + (k - (len(impls) - 1) / 2) * width for i in range(len(layouts))]
            ax.bar(xs, values, width, label=label)
        if memcpy:
            ax.axhline(memcpy, color="black", linestyle="--", linewidth=1, label="memcpy into")
        if fresh:
            ax.axhline(fresh, color="gray", linestyle=":", linewidth=1, label="memcpy to a new Vec")
        ax.set_xticks(range(len(layouts)), [LAYOUT_NAMES[l] for l in layouts], fontsize=8)
        ax.set_title(f"{direction}, f32 big endian, 64 MiB", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("GB/s")
    axes[1].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(CHART, metadata={"Date": None})


# Lines of the end-to-end reports that are the scripts' own checks (compressed sizes, the
# page cache emptied) or say what the scripts' docs say (each example's commands): kept
# in the run's files, left off the page.
LEFT_OFF = (": compressed size on disk", ", page cache: ", "- zarr-bytes: `", "- zarr-bytes, pool: `")


def brief(report):
    return [line for line in report.read_text().strip().splitlines()
            if not any(part in line for part in LEFT_OFF)]


def main():
    run = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target" / "users"
    rows = lines(run / "peers.jsonl") + lines(run / "numpy.jsonl")
    build = json.loads((run / "build.json").read_text())
    numpy = next((r["numpy"] for r in rows if "numpy" in r and r.get("impl") == "numpy"), None)
    if numpy:
        build["numpy"] = f"numpy {numpy}"
    page = PAGE.read_text()
    page = replace(page, "machine", machine(rows, build))
    page = replace(page, "whole", whole_table(rows))
    page = replace(page, "grid", grid_table(rows))
    page = replace(page, "end-to-end", brief(run / "end_to_end.md"))
    page = replace(page, "s3", brief(run / "s3.md"))
    page = replace(page, "build", build_table(build))
    PAGE.write_text(page)
    chart(rows)
    print(f"users_page.py: wrote {PAGE.relative_to(ROOT)} and {CHART.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
