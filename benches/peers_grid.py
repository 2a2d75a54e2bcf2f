"""Reading and writing one Zarr v3 array with zarr-python, tensorstore and `zarr-array`.

The array is the one zarr-python 3 creates by default for `float32`: 1 GiB (16384 x 16384)
in chunks of 4 MiB (1024 x 1024), codecs `[bytes, zstd]` as zarr-python stores them (the
zstd level and checksum are read back from its zarr.json and used by every writer). Each
row reads that array whole into memory and writes a copy of it (the `subset` rows, below,
read and write a box of it):

- zarr-python: `zarr.open_array(src)[...]`; `zarr.create_array(dst, ...)` with the same
  shape, chunks, serializer and compressors, then `arr[...] = data`;
- tensorstore: `ts.open(zarr3 spec).result().read().result()`; `ts.open(...)` with
  zarr-python's metadata and `create=True`, then `.write(data).result()`;
- each `--example LABEL=PATH`: `PATH SRC --write DST --endian little --time`, a run of the
  project's `zarr-array` example, which times its own read and write and prints
  `time       read 1.234 s, write 2.345 s`.

Every timed run starts after `sync` and `echo 3 > /proc/sys/vm/drop_caches` (so reads come
from the disk, and a write does not wait on the previous one's dirty pages); where that is
refused, every file of the work directory is dropped with `posix_fadvise(DONTNEED)`
instead. The output says which was used and how much of the source stayed resident
(`mincore`). Writes are timed to the page cache, without an fsync, as `zarr-array` does.
Rounds run every row once in turn; each row reports the min and the median of `--runs`.

    cargo build --release -p zarr-array
    .venv/bin/python benches/peers_grid.py --example plain=target/release/zarr-array

    cargo build --release -p zarr-array --features rayon --target-dir target/rayon
    .venv/bin/python benches/peers_grid.py \
        --example plain=target/release/zarr-array \
        --example rayon=target/rayon/release/zarr-array

The data is a smooth field rounded to 1/64 (`--quantize`), which zstd compresses about
2.3 times; unrounded, zstd stores float32 chunks almost raw. `--size-mib`, `--chunk-mib`
and `--runs` change the array and the runs; sizes that make no square-ish whole grid of
chunks get a square array with edge chunks.

Three cases are timed, each in its own rows (`--case` picks them): `dense`, the array
above; `subset`, a box of it of a quarter of its size (half of each axis: 256 MiB of the
1 GiB array), half a chunk off the grid along each axis, so that it touches chunks in part
all around; and `sparse`, the array with 90 % of its chunks (all but every tenth in C
order) set to the fill value 0, which every writer leaves out by default (zarr-python's
`write_empty_chunks=False`, tensorstore's `store_data_equal_to_fill_value=false`,
`zarr-array`'s default): a read fills the missing chunks, a write finds them all fill
value and stores nothing for them. GB/s of the sparse array count its whole size too.

The `subset` rows read the box from the array and write other values (the box's plus 0.25)
into it, in a fresh copy of the array made before each write (untimed): the chunks the box
covers in part are read, updated and written back, those it covers whole are written.

- zarr-python: `arr[sel]`; `zarr.open_array(dst, mode="r+")[sel] = x`;
- tensorstore: `ts.open(spec).result()[sel].read().result()`; `...[sel].write(x).result()`;
- each `--example`: `PATH SRC --subset A:B,C:D --time` for the read, and
  `PATH X --write-into DST --at A,C --time` for the write, where `X` is an array holding
  `x` (written once by zarr-python, untimed); each times its own part.

`--check` (with small sizes: `--size-mib 64 --runs 1 --check`) reads every writer's output
back with zarr-python and compares its chunk files, decompressed, with the source's and
with the data: the compressed bytes may differ between writers, the decompressed may not,
and every writer must store the same chunk files (for the sparse array, the tenth).
The Markdown table goes to stdout, progress to stderr. GB = 10^9 bytes of the array.
"""

import argparse
import ctypes
import importlib.metadata
import json
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numcodecs
import numpy as np
import tensorstore as ts
import zarr

MIB = 1 << 20
ITEM = 4  # bytes of a float32
TIME_LINE = re.compile(r"read ([0-9.]+) s, write ([0-9.]+) s")


def shown(path):
    """A path as the page prints it: relative to the checkout, not the machine's."""
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else os.path.basename(path)


def log(message):
    print(message, file=sys.stderr, flush=True)


# --- shapes and data ---------------------------------------------------------------------


def square_ish(n):
    """n = a * b with a <= b and a as large as possible."""
    a = math.isqrt(n)
    while n % a:
        a -= 1
    return a, n // a


def shapes(size_mib, chunk_mib):
    """(array shape, chunk shape): a whole, square-ish grid of chunks when the size allows
    one (the default: 16 x 16 chunks of 1024 x 1024), otherwise a square of about the size
    whose last row and column of chunks are edges."""
    chunk_elems = chunk_mib * MIB // ITEM
    chunk = square_ish(chunk_elems)
    elems = size_mib * MIB // ITEM
    if elems % chunk_elems == 0:
        rows, cols = square_ish(elems // chunk_elems)
        if cols <= 4 * rows:  # not a strip of chunks
            return (rows * chunk[0], cols * chunk[1]), chunk
    side = math.isqrt(elems)
    return (elems // side, side), chunk


def field(shape, quantize, block_rows=256):
    """A smooth field with a little texture, rounded to multiples of 1/quantize (0: not
    rounded), computed a block of rows at a time so the float64 temporaries stay small.

    Unrounded, the low mantissa bits of float32 are noise to zstd, which then stores the
    chunks almost raw (ratio 1.1); rounded to 1/64, as scaled sensor data would be, the
    low bits are zeros and zstd compresses the chunks moderately (ratio 2.3)."""
    out = np.empty(shape, np.float32)
    j = np.arange(shape[1], dtype=np.int64)
    wave_j = np.cos(j / 131.0) * 100
    for r0 in range(0, shape[0], block_rows):
        i = np.arange(r0, min(r0 + block_rows, shape[0]), dtype=np.int64)[:, None]
        block = np.sin(i / 97.0) * wave_j + (i * j % 7) * 0.01
        if quantize:
            block = np.round(block * quantize) / quantize
        out[r0 : r0 + len(i)] = block
    return out


def sparsify(data, chunks, fill=0.0, keep_every=10):
    """Set all chunks but every `keep_every`-th (in C order) of `data` to `fill`, in place;
    the number of chunks kept and of chunks in all."""
    grid = [math.ceil(s / c) for s, c in zip(data.shape, chunks)]
    kept = 0
    for n, index in enumerate(np.ndindex(*grid)):
        if n % keep_every == 0:
            kept += 1
            continue
        data[tuple(slice(k * c, (k + 1) * c) for k, c in zip(index, chunks))] = fill
    return kept, math.prod(grid)


# --- files and the page cache -----------------------------------------------------------


def chunk_files(array_dir):
    """Relative path -> size of every file of an array but its zarr.json."""
    files = {}
    for root, _, names in os.walk(array_dir):
        for name in names:
            path = Path(root, name)
            rel = path.relative_to(array_dir).as_posix()
            if rel != "zarr.json":
                files[rel] = path.stat().st_size
    return files


class Evictor:
    """Empties the page cache before each timed run, and records how well it did."""

    def __init__(self, work, probe_dir):
        self.work = Path(work)
        self.probe_dir = Path(probe_dir)  # the source, whose residency is measured
        self.drops = 0
        self.fadvised = 0
        self.drop_error = None
        self.resident = []  # fraction of the source's pages in memory after each eviction
        self.page = os.sysconf("SC_PAGE_SIZE")
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mmap.restype = ctypes.c_void_p
            libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                  ctypes.c_int, ctypes.c_int, ctypes.c_long]
            libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
            libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
            self.libc = libc
        except (OSError, AttributeError):
            self.libc = None

    def __call__(self):
        os.sync()
        try:
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("3\n")
            self.drops += 1
        except OSError as e:
            # Not allowed here: drop this benchmark's own files, which any user may do.
            self.drop_error = str(e)
            for root, _, names in os.walk(self.work):
                for name in names:
                    try:
                        fd = os.open(os.path.join(root, name), os.O_RDONLY)
                    except OSError:
                        continue
                    try:
                        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    finally:
                        os.close(fd)
            self.fadvised += 1
        fraction = self.resident_fraction()
        if fraction is not None:
            self.resident.append(fraction)

    def resident_fraction(self):
        """Share of the source's chunk file pages in the page cache (mincore), or None."""
        if self.libc is None or not self.probe_dir.exists():
            return None
        total = present = 0
        for rel, size in chunk_files(self.probe_dir).items():
            if size == 0:
                continue
            fd = os.open(self.probe_dir / rel, os.O_RDONLY)
            try:
                addr = self.libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
                if addr is None or addr == ctypes.c_void_p(-1).value:
                    return None
                pages = (size + self.page - 1) // self.page
                vec = (ctypes.c_ubyte * pages)()
                ok = self.libc.mincore(addr, size, vec) == 0
                self.libc.munmap(addr, size)
                if not ok:
                    return None
                present += int((np.frombuffer(vec, np.uint8) & 1).sum())
                total += pages
            finally:
                os.close(fd)
        return present / total if total else None

    def summary(self):
        runs = self.drops + self.fadvised
        if self.drops == runs:
            how = f"`sync; echo 3 > /proc/sys/vm/drop_caches` succeeded before all {runs} timed reads and writes"
        elif self.drops == 0:
            how = (f"`echo 3 > /proc/sys/vm/drop_caches` failed ({self.drop_error}); "
                   f"the work directory's files were dropped with posix_fadvise(DONTNEED) "
                   f"before each of the {runs} timed reads and writes instead")
        else:
            how = (f"drop_caches succeeded before {self.drops} of {runs} timed reads and writes, "
                   f"posix_fadvise(DONTNEED) before the other {self.fadvised} ({self.drop_error})")
        if self.resident:
            how += (f"; afterwards at most {100 * max(self.resident):.1f}% of the source's "
                    f"pages were still in the page cache (mincore)")
        return how


# --- the readers and writers ------------------------------------------------------------


class RunError(Exception):
    pass


def zarr_read(src):
    t0 = time.perf_counter()
    out = zarr.open_array(src, mode="r")[...]
    return time.perf_counter() - t0, out


def zarr_write(dst, data, src):
    like = zarr.open_array(src, mode="r")  # its metadata only, read before the timer
    t0 = time.perf_counter()
    arr = zarr.create_array(dst, shape=like.shape, chunks=like.chunks, dtype=like.dtype,
                            serializer=like.serializer, compressors=like.compressors,
                            filters=like.filters, fill_value=like.fill_value)
    arr[...] = data
    return time.perf_counter() - t0


def ts_spec(path):
    return {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}


def ts_read(src):
    t0 = time.perf_counter()
    out = ts.open(ts_spec(src)).result().read().result()
    return time.perf_counter() - t0, out


def ts_write(dst, data, meta):
    spec = dict(ts_spec(dst), metadata=meta)  # zarr-python's zarr.json, zstd level and all
    t0 = time.perf_counter()
    store = ts.open(spec, create=True, delete_existing=True).result()
    store.write(data).result()
    return time.perf_counter() - t0


def zarr_read_subset(src, sel):
    t0 = time.perf_counter()
    out = zarr.open_array(src, mode="r")[sel]
    return time.perf_counter() - t0, out


def zarr_write_subset(dst, sel, x):
    t0 = time.perf_counter()
    zarr.open_array(dst, mode="r+")[sel] = x
    return time.perf_counter() - t0


def ts_read_subset(src, sel):
    t0 = time.perf_counter()
    out = ts.open(ts_spec(src)).result()[sel].read().result()
    return time.perf_counter() - t0, out


def ts_write_subset(dst, sel, x):
    t0 = time.perf_counter()
    ts.open(ts_spec(dst)).result()[sel].write(x).result()
    return time.perf_counter() - t0


def example_run(program, *args):
    """(read s, write s) as the program reports them, run on `args`."""
    if not os.path.isfile(program) or not os.access(program, os.X_OK):
        raise RunError(f"no executable at {program}")
    cmd = [program, *map(str, args), "--time"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise RunError(f"exit status {proc.returncode}: {tail}")
    match = TIME_LINE.search(proc.stdout)
    if match is None:
        raise RunError("no `read N s, write N s` line in its output")
    return float(match[1]), float(match[2])


class Row:
    def __init__(self, case, name, out_dir):
        self.case = case
        self.name = name
        self.out = out_dir
        self.reads = []
        self.writes = []
        self.error = None


def whole_rounds(examples, data, src, meta, evict, check):
    """Each row's round on a whole array: read it, then write a copy of it."""
    def peer(reader, writer):
        def round_(row):
            evict()
            read_s, out = reader(src)
            if check and not np.array_equal(out, data):
                raise RunError("read values differ from the data")
            del out
            evict()
            return read_s, writer(row.out)
        return round_

    def example(program):
        def round_(row):
            evict()
            return example_run(program, src, "--write", row.out, "--endian", "little")
        return round_

    rounds = {"zarr-python": peer(zarr_read, lambda out: zarr_write(out, data, src)),
              "tensorstore": peer(ts_read, lambda out: ts_write(out, data, meta))}
    rounds.update((name, example(program)) for name, program in examples.items())
    return rounds


def subset_rounds(examples, data, src, evict, check, sel, x, x_src):
    """Each row's round on a box `sel` of an array: read it, then write `x` into it in a
    copy of the array (`x_src`: an array holding `x`, for the examples)."""
    origin = ",".join(str(s.start) for s in sel)
    ranges = ",".join(f"{s.start}:{s.stop}" for s in sel)

    def fresh(out):
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(src, out)
        evict()

    def peer(reader, writer):
        def round_(row):
            evict()
            read_s, out = reader(src, sel)
            if check and not np.array_equal(out, data[sel]):
                raise RunError("read values differ from the data")
            del out
            fresh(row.out)
            return read_s, writer(row.out, sel, x)
        return round_

    def example(program):
        def round_(row):
            evict()
            read_s, _ = example_run(program, src, "--subset", ranges)
            fresh(row.out)
            _, write_s = example_run(program, x_src, "--write-into", row.out, "--at", origin)
            return read_s, write_s
        return round_

    rounds = {"zarr-python": peer(zarr_read_subset, zarr_write_subset),
              "tensorstore": peer(ts_read_subset, ts_write_subset)}
    rounds.update((name, example(program)) for name, program in examples.items())
    return rounds


def measure(rows, rounds, runs):
    for r in range(runs):
        for row in rows:
            if row.error:
                continue
            log(f"run {r + 1}/{runs}: {row.case}, {row.name}")
            try:
                shutil.rmtree(row.out, ignore_errors=True)
                read_s, write_s = rounds[row.name](row)
            except Exception as e:  # one row's failure leaves the others' figures
                row.error = str(e) if isinstance(e, RunError) else f"{type(e).__name__}: {e}"
                log(f"  error: {row.error}")
                continue
            row.reads.append(read_s)
            row.writes.append(write_s)
            log(f"  read {read_s:.3f} s, write {write_s:.3f} s")


# --- the --check comparison ---------------------------------------------------------------


def check_outputs(data, meta, src, rows, src_name="zarr-python (source)", against="source"):
    """One line per writer: read back, codecs, and chunk files decompressed against the
    reference's (`src`, the source or the output of another writer) and against the data."""
    zstd = numcodecs.Zstd()
    chunk = meta["chunk_grid"]["configuration"]["chunk_shape"]
    fill = meta["fill_value"]
    reference = {rel: zstd.decode((src / rel).read_bytes()) for rel in chunk_files(src)}
    lines = []
    problems = 0
    outs = [(r.name, r.out) for r in rows if not r.error and r.out != src]
    for name, out in [(src_name, src)] + outs:
        notes = []
        back = zarr.open_array(out, mode="r")[...]
        equal = back.dtype == data.dtype and back.shape == data.shape and np.array_equal(back, data)
        del back
        notes.append("reads back equal" if equal else "READS BACK DIFFERENT")
        codecs = json.loads((out / "zarr.json").read_text())["codecs"]
        notes.append("same codecs" if codecs == meta["codecs"] else f"CODECS {json.dumps(codecs)}")
        files = chunk_files(out)
        if set(files) != set(reference):
            notes.append(f"CHUNK FILES DIFFER ({len(set(files) ^ set(reference))} names)")
        same_raw = same_packed = values_ok = padding = 0
        for rel in sorted(set(files) & set(reference)):
            packed = (out / rel).read_bytes()
            raw = zstd.decode(packed)
            same_raw += raw == reference[rel]
            same_packed += packed == (src / rel).read_bytes()
            # The chunk's values against the data; an edge chunk's padding apart.
            index = [int(k) for k in rel.split("/")[1:]]
            part = data[tuple(slice(k * c, (k + 1) * c) for k, c in zip(index, chunk))]
            got = np.frombuffer(raw, "<f4")
            if got.size == math.prod(chunk):
                got = got.reshape(chunk)
                inside = tuple(slice(0, n) for n in part.shape)
                values_ok += np.array_equal(got[inside], part)
                outside = np.ones(chunk, bool)
                outside[inside] = False
                padding += bool(np.any(got[outside] != fill))
        n = len(files)
        notes.append(f"{n} chunk files, decompressed same as {against} {same_raw}/{n}, "
                     f"values equal to the data {values_ok}/{n}, compressed bytes same {same_packed}/{n}")
        if padding:
            notes.append(f"{padding} edge chunks padded with other than the fill value")
        problems += (not equal) + (codecs != meta["codecs"]) + (set(files) != set(reference)) \
            + (same_raw != n) + (values_ok != n)
        lines.append(f"- {name}: " + "; ".join(notes))
    return lines, problems


# --- report --------------------------------------------------------------------------------


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cell(times):
    return f"{min(times):.3f} / {statistics.median(times):.3f}"


def table(rows, sizes):
    """The rows' figures; GB/s of `sizes[case]` bytes."""
    out = ["| array | reader/writer | read s (min / median) | write s (min / median) | read GB/s | write GB/s |",
           "|---|---|---:|---:|---:|---:|"]
    for row in rows:
        nbytes = sizes[row.case]
        if row.error and not row.reads:
            out.append(f"| {row.case} | {row.name} | error: {row.error} | | | |")
            continue
        read_m, write_m = statistics.median(row.reads), statistics.median(row.writes)
        out.append(f"| {row.case} | {row.name} | {cell(row.reads)} | {cell(row.writes)} | "
                   f"{nbytes / read_m / 1e9:.2f} | {nbytes / write_m / 1e9:.2f} |")
        if row.error:  # it failed after some runs: say so under its figures
            out.append(f"| {row.case} | {row.name} (later run) | error: {row.error} | | | |")
    return out


def mib(n):
    return f"{n / MIB:.1f} MiB"


class Case:
    """One array timed: its source, its rows, and what the runs found."""

    def __init__(self, name, work, names):
        self.name = name
        self.src = work / f"source-{name}.zarr"
        self.rows = [Row(name, n, work / f"out-{name}-{re.sub(r'[^A-Za-z0-9_.-]', '_', n)}.zarr")
                     for n in names]
        self.evict = None
        self.check_lines, self.problems = [], 0
        self.stored, self.packed, self.sizes = {}, 0, {}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=1024, help="array size (default 1024)")
    parser.add_argument("--chunk-mib", type=int, default=4, help="chunk size (default 4)")
    parser.add_argument("--runs", type=int, default=3, help="runs per row (default 3)")
    parser.add_argument("--dir", help="work directory (default: a fresh one under /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the arrays written")
    parser.add_argument("--example", action="append", default=[], metavar="LABEL=PATH",
                        help="a zarr-array binary to run (repeatable)")
    parser.add_argument("--quantize", type=int, default=64, metavar="N",
                        help="round the data to multiples of 1/N (default 64; 0: not rounded)")
    parser.add_argument("--case", action="append", choices=["dense", "subset", "sparse"],
                        help="the array to time (repeatable; default all three)")
    parser.add_argument("--check", action="store_true",
                        help="verify every writer's output against the data")
    args = parser.parse_args()
    if args.size_mib < 1 or args.chunk_mib < 1 or args.runs < 1:
        parser.error("--size-mib, --chunk-mib and --runs must be positive")
    # Dense first: the sparse array is made from the dense one in place.
    every = ("dense", "subset", "sparse")
    case_names = [c for c in every if c in (args.case or every)]

    examples = {}
    for value in args.example:
        label, sep, path = value.partition("=")
        if not sep:
            label, path = Path(value).name, value
        if label in examples or label in ("zarr-python", "tensorstore"):
            parser.error(f"--example label {label!r} used twice")
        examples[label] = os.path.abspath(path)

    fresh = args.dir is None
    work = Path(tempfile.mkdtemp(prefix="peers_grid-", dir="/tmp") if fresh else args.dir).resolve()
    work.mkdir(parents=True, exist_ok=True)
    names = ["zarr-python", "tensorstore", *examples]
    cases = [Case(name, work, names) for name in case_names]
    try:
        shape, chunks = shapes(args.size_mib, args.chunk_mib)
        nbytes = math.prod(shape) * ITEM
        free = shutil.disk_usage(work).free
        if free < nbytes * (len(names) + 1):
            log(f"warning: {mib(free)} free in {work}, the arrays may need up to "
                f"{mib(nbytes * (len(names) + 1))}")

        log(f"generating {shape} float32 ({mib(nbytes)})")
        data = field(shape, args.quantize)
        grid = [math.ceil(s / c) for s, c in zip(shape, chunks)]
        # The box: half of each axis, half a chunk off the grid.
        sel = tuple(slice(min(c // 2, s - s // 2), min(c // 2, s - s // 2) + s // 2)
                    for s, c in zip(shape, chunks))
        sizes = {"dense": nbytes, "sparse": nbytes,
                 "subset": math.prod(r.stop - r.start for r in sel) * ITEM}
        sparse_text = ""
        meta = None
        for case in cases:
            if case.name == "sparse":
                kept, total = sparsify(data, chunks)
                sparse_text = (f"; the sparse array is the same with {total - kept} of its {total} chunks "
                               f"({100 * (total - kept) / total:.0f} %, all but every tenth) the fill value 0")
            log(f"{case.name}: writing {case.src} with zarr-python")
            shutil.rmtree(case.src, ignore_errors=True)
            arr = zarr.create_array(case.src, shape=shape, chunks=chunks, dtype="float32")
            arr[...] = data
            meta = json.loads((case.src / "zarr.json").read_text())
            case.stored = chunk_files(case.src)
            case.packed = sum(case.stored.values())

            # Load each library's code paths once, untimed, before the first timed run.
            zarr.open_array(case.src, mode="r")[: chunks[0], : chunks[1]]
            ts.open(ts_spec(case.src)).result()[: chunks[0], : chunks[1]].read().result()

            case.evict = Evictor(work, case.src)
            if case.name == "subset":
                x = data[sel] + np.float32(0.25)
                x_src = work / "subset-values.zarr"
                shutil.rmtree(x_src, ignore_errors=True)
                zarr.create_array(x_src, shape=x.shape, chunks=chunks, dtype="float32")[...] = x
                rounds = subset_rounds(examples, data, case.src, case.evict, args.check, sel, x, x_src)
            else:
                rounds = whole_rounds(examples, data, case.src, meta, case.evict, args.check)
            measure(case.rows, rounds, args.runs)
            if args.check and case.name == "subset":
                # Against zarr-python's write, and the data with the box's new values.
                expected = data.copy()
                expected[sel] = x
                reference = case.rows[0]
                if not reference.error:
                    case.check_lines, case.problems = check_outputs(
                        expected, meta, reference.out, case.rows, "zarr-python's write", "zarr-python's")
                del expected
            elif args.check:
                case.check_lines, case.problems = check_outputs(data, meta, case.src, case.rows)
            case.sizes = {r.name: sum(chunk_files(r.out).values())
                          for r in case.rows if r.out.exists() and not r.error}

        rows = [row for case in cases for row in case.rows]
        data_text = ("sin(i/97) * cos(j/131) * 100 + (i*j % 7) * 0.01"
                     + (f", rounded to 1/{args.quantize}" if args.quantize else ""))
        edge = " (edge chunks on the last row and column)" if any(s % c for s, c in zip(shape, chunks)) else ""
        versions = ", ".join(f"{name} {importlib.metadata.version(name)}"
                             for name in ("zarr", "numpy", "tensorstore", "numcodecs"))
        print(f"Zarr v3 `float32` array {shape} in chunks of {chunks} "
              f"({grid[0]} x {grid[1]} = {math.prod(grid)} chunks of {mib(math.prod(chunks) * ITEM)}){edge}, "
              f"{mib(nbytes)}; data {data_text}{sparse_text}; {args.runs} run{'s' if args.runs > 1 else ''} "
              f"per row, min / median; GB/s of the median, GB = 10^9 bytes of the uncompressed array "
              f"(of the box in the subset rows).")
        print()
        print("\n".join(table(rows, sizes)))
        print()
        print(f"- command: `{shlex.join([shown(sys.executable), *sys.argv])}`")
        print(f"- versions: python {platform.python_version()}, {versions}")
        print(f"- CPU: {cpu_model()}, os.cpu_count() = {os.cpu_count()}; zarr async.concurrency = "
              f"{zarr.config.get('async.concurrency')}, threading.max_workers = "
              f"{zarr.config.get('threading.max_workers')}; tensorstore's default context")
        print(f"- shape {shape}, chunk shape {chunks}, codecs {json.dumps(meta['codecs'])} "
              f"(as zarr-python stored them)")
        for case in cases:
            print(f"- {case.name}: compressed size on disk {mib(case.packed)} in {len(case.stored)} chunk files, "
                  f"ratio {nbytes / case.packed:.2f} (zarr-python's source); the writers' copies: "
                  + ", ".join(f"{name} {mib(size)}" for name, size in case.sizes.items()))
            print(f"- {case.name}, page cache: {case.evict.summary()}")
        box = ", ".join(f"{r.start}:{r.stop}" for r in sel)
        if "subset" in case_names:
            print(f"- subset: the box [{box}] ({mib(sizes['subset'])}), half a chunk off the grid; "
                  f"written with its values plus 0.25 into a fresh copy of the array")
        origin = ",".join(str(r.start) for r in sel)
        for name, path in examples.items():
            runs = []
            if set(case_names) - {"subset"}:
                path = shown(path)
                runs.append(f"`{path} SRC --write DST --endian little --time`")
            if "subset" in case_names:
                runs += [f"`{path} SRC --subset {box.replace(' ', '')} --time`",
                         f"`{path} X --write-into DST --at {origin} --time`"]
            print(f"- {name}: " + "; ".join(runs))
        problems = sum(case.problems for case in cases)
        if args.check:
            verdict = "all outputs agree" if problems == 0 else f"{problems} PROBLEMS"
            if any(r.error for r in rows):
                verdict += " (rows with errors not checked)"
            print(f"- check: {verdict}")
            for case in cases:
                print("\n".join(f"  - {case.name}, {line[2:]}" for line in case.check_lines))
        return 1 if problems or any(r.error for r in rows) else 0
    finally:
        if args.keep:
            log(f"kept {work}")
        elif fresh:
            shutil.rmtree(work, ignore_errors=True)
        else:  # a directory given by --dir: remove only what this script wrote in it
            for case in cases:
                for path in [case.src, *(r.out for r in case.rows)]:
                    shutil.rmtree(path, ignore_errors=True)
            shutil.rmtree(work / "subset-values.zarr", ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
