"""numpy's copies of the perf_table arrays to and from C order, against memcpy.

What `encode_zarr_bytes_into` does for an array that is not in C order, numpy does with
`np.copyto(c_order_destination, array)`, and what `decode_zarr_bytes_into` does, with
`np.copyto(array, c_order_source)`: this times both for the arrays of
`benches/perf_table.rs` (same shapes, same layouts, same cold caches), so the two tables
can be read side by side. The byte order of the C-order side gives the encoding: native
(little-endian on x86-64), or big-endian, which numpy swaps as it copies.

    python3 -m venv .venv && .venv/bin/pip install numpy
    .venv/bin/python benches/numpy_baseline.py [--runs N] [--size-mib M]
        [--types f64,u8] [--evict-mib M] [--planes N]

Each row is the median of N runs (default 7), each timed after an untimed read of twice
the largest cache (`--evict-mib` to choose the size, 0 for none); rounds run every row
once in turn, as in perf_table. GB/s is 10^9 bytes per second.

`--json` times instead what a numpy user does for the users' table of benches/README.md,
one JSON line per row (impl `numpy`, the keys of the peers project's lines), for the
layouts `standard`, `fortran` and `3d-swapped` and big-endian bytes: encoding is
`np.array(a, dtype=">f4", order="C")`, one new C-order array in the stream's byte order
(its memory is the encoded bytes); decoding is `np.array(np.frombuffer(b, ">f4")
.reshape(shape), dtype="<f4")` for the C-order result, and `np.copyto(a, ...)` of the same
big-endian view into the existing array of the other layouts. Both allocate inside the
timed run where the crate's `to_zarr_bytes` and `from_zarr_bytes` do.
"""
import json

import argparse
import glob
import sys
import time

import numpy as np

TYPES = {
    "f64": "f8",
    "f32": "f4",
    "u16": "u2",
    "complex128": "c16",
    "u8": "u1",
    "bool": "?",
}
LAYOUTS = ("fortran", "transposed", "3d-swapped")
USERS_TYPES = ("u8", "u16", "f32", "f64")
USERS_LAYOUTS = ("standard", "fortran", "3d-swapped")


def largest_cache():
    """Bytes of the largest cache of CPU 0, as Linux reports it; None if it does not."""
    sizes = []
    for path in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*/size"):
        text = open(path).read().strip()
        unit = {"K": 10, "M": 20, "G": 30}.get(text[-1:])
        if unit is not None and text[:-1].isdigit():
            sizes.append(int(text[:-1]) << unit)
    return max(sizes, default=None)


def shape2(n):
    """perf_table's 2-D shape of n elements: the widest power-of-two rows, half as many."""
    cols = 1
    while cols * cols * 4 <= n and n % (cols * 2) == 0:
        cols *= 2
    return n // cols, cols


def arrays(dtype, n, planes):
    """The C-order stream 0, 1, 2, ... as dtype, and each layout of it, as perf_table
    builds them: Fortran order, the transpose of a C-order array, and a 3-D C-order
    array of `planes` planes with its last two axes swapped."""
    stream = np.arange(n).astype(dtype)
    rows, cols = shape2(n)
    d1, d2 = shape2(n // planes)
    standard = stream.reshape(rows, cols)
    return standard, {
        "fortran": np.asfortranarray(standard),
        "transposed": np.ascontiguousarray(standard.T).T,
        "3d-swapped": np.ascontiguousarray(
            stream.reshape(planes, d1, d2).transpose(0, 2, 1)
        ).transpose(0, 2, 1),
    }


def users(options, timed):
    """The users' table rows: numpy's own way to the bytes and back, as JSON lines."""
    for name in options.types:
        dtype = np.dtype(TYPES[name])
        unit = options.planes * 4096
        n = (options.size_mib << 20) // dtype.itemsize // unit * unit
        standard, layouts = arrays(dtype, n, options.planes)
        layouts = {"standard": standard, **layouts}
        big = dtype.newbyteorder(">")
        encoded = standard.astype(big).tobytes()
        cases = []
        for layout in USERS_LAYOUTS:
            a = layouts[layout]
            cases.append(("encode", layout, lambda a=a: np.array(a, dtype=big, order="C")))
            if layout == "standard":
                def decode(shape=a.shape):
                    return np.array(np.frombuffer(encoded, big).reshape(shape), dtype=dtype)
            else:
                def decode(a=a):
                    np.copyto(a, np.frombuffer(encoded, big).reshape(a.shape))
                    return a
            cases.append(("decode", layout, decode))
        # Untimed first round, checked: the bytes of C order, and the array back.
        for direction, layout, run in cases:
            out = run()
            check = f"numpy {direction} {name} {layout}"
            if direction == "encode":
                assert out.tobytes() == encoded, check
            else:
                assert np.array_equal(out.reshape(standard.shape), standard), check
        times = [[] for _ in cases]
        for _ in range(options.runs):
            for (_, _, run), case_times in zip(cases, times):
                case_times.append(timed(run))
        for (direction, layout, _), t in zip(cases, times):
            rate = n * dtype.itemsize / sorted(t)[len(t) // 2] / 1e9
            print(json.dumps({
                "impl": "numpy", "direction": direction, "type": name, "layout": layout,
                "gbps": round(rate, 2), "bytes": n * dtype.itemsize, "runs": options.runs,
                "threads": 1, "numpy": np.__version__,
            }), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--size-mib", type=int, default=64)
    parser.add_argument("--types", default=",".join(TYPES))
    parser.add_argument("--evict-mib", type=int)
    parser.add_argument("--planes", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    if options.json and options.types == ",".join(TYPES):
        options.types = ",".join(USERS_TYPES)
    types = options.types.split(",")
    unknown = [t for t in types if t not in TYPES]
    if unknown or options.runs < 1 or options.size_mib < 1 or options.planes < 1:
        parser.error(f"types are {', '.join(TYPES)}; runs, size and planes at least 1")

    if options.evict_mib is None:
        cache = largest_cache()
        evict_bytes = 2 * cache if cache else 1 << 30
    else:
        evict_bytes = options.evict_mib << 20
    evict = np.ones(evict_bytes, dtype=np.uint8)

    def timed(run):
        if evict_bytes:
            evict.sum(dtype=np.uint64)
        start = time.perf_counter()
        run()
        return time.perf_counter() - start

    if options.json:
        options.types = types
        return users(options, timed)

    start = (
        f"after reading {evict_bytes >> 20} MiB to evict the caches"
        if evict_bytes
        else "in the caches the run before left"
    )
    print(
        f"numpy {np.__version__}, Python {sys.version.split()[0]}; {options.size_mib} MiB "
        f"per array, {options.planes} planes in the 3-D layout; median of {options.runs} "
        f"runs, each {start}; GB/s = 10^9 bytes/s"
    )
    print()
    print("| path | type | endian | layout | GB/s | ratio | baseline |")
    print("|---|---|---|---|---:|---:|---|")
    for name in types:
        dtype = np.dtype(TYPES[name])
        unit = options.planes * 4096
        n = (options.size_mib << 20) // dtype.itemsize // unit * unit
        if n == 0:
            parser.error(f"{options.size_mib} MiB hold fewer than {unit} {name} elements")
        standard, layouts = arrays(dtype, n, options.planes)
        endians = ["little", "big"] if dtype.itemsize > 1 else ["n/a"]
        memcpy_out = np.empty_like(standard)
        cases = [("memcpy-prealloc", "n/a", "contiguous", memcpy_out, standard)]
        for endian in endians:
            encoded = standard.astype(dtype.newbyteorder(">") if endian == "big" else dtype)
            for layout in LAYOUTS:
                out = np.empty(layouts[layout].shape, encoded.dtype)
                cases.append(("encode: np.copyto", endian, layout, out, layouts[layout]))
            for layout in LAYOUTS:
                # A copy in the same memory order (order "K"), to be overwritten.
                out = layouts[layout].copy(order="K")
                assert out.strides == layouts[layout].strides
                source = encoded.reshape(out.shape)
                cases.append(("decode: np.copyto", endian, layout, out, source))
        # An untimed first round faults in every page; then every case must hold the
        # stream, in C order and in its byte order for an encoding.
        for path, endian, layout, out, array in cases:
            out[...] = 0
            np.copyto(out, array)
            check = f"{path} {name} {endian} {layout}"
            assert np.array_equal(out.reshape(standard.shape), standard), check
            if out.flags.c_contiguous:
                assert out.tobytes() == standard.astype(out.dtype).tobytes(), check
        times = [[] for _ in cases]
        for _ in range(options.runs):
            for case, case_times in zip(cases, times):
                out, array = case[3], case[4]
                case_times.append(timed(lambda: np.copyto(out, array)))
        gbps = [n * dtype.itemsize / sorted(t)[len(t) // 2] / 1e9 for t in times]
        for (path, endian, layout, _, _), rate in zip(cases, gbps):
            print(
                f"| {path} | {name} | {endian} | {layout} | {rate:.2f} | "
                f"{rate / gbps[0]:.2f} | memcpy-prealloc |"
            )


if __name__ == "__main__":
    main()
