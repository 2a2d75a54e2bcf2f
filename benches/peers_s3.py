"""Reading and writing a box of a Zarr v3 array on an S3 server on this machine (moto's).

The array and the box are those of `peers_grid.py`'s `subset` rows: zarr-python's default
`float32` array of 1 GiB (16384 x 16384) in chunks of 4 MiB, `[bytes, zstd]`, written into
a bucket of moto's S3 server by zarr-python; the box is half of each axis (256 MiB), half a
chunk off the grid, so it touches 81 chunks, 32 of them in part. Each row reads the box,
then writes other values (the box's plus 0.25) into it in a fresh copy of the array in the
bucket (copied by the server before the timer starts):

- zarr-python over obstore (`zarr.storage.ObjectStore(obstore.store.S3Store)`), with
  `async.concurrency` = `--in-flight`: `arr[sel]`, `arr[sel] = x`;
- tensorstore, its `s3` driver with the server as `endpoint` and
  `s3_request_concurrency` = `--in-flight`: `ts.open(spec)[sel].read()`, `[sel].write(x)`;
- each `--example LABEL=PATH`: `PATH s3://... --subset A:B,C:D --in-flight N --time` and
  `PATH X --write-into s3://... --at A,C --in-flight N --time` (`X`, an array on disk
  holding `x`, written once by zarr-python); the example times its own S3 part;
- GETs, the server's ceiling: obstore fetches the box's 81 chunk objects whole, as many
  in flight, and nothing else; for the write, each partly covered chunk is fetched and every
  chunk object put back (the same bytes), as many in flight.

moto's server is Python (Werkzeug, one process, the GIL): on 2 cores it, not the readers,
may be the bound. The `server CPU s` column is the server process's CPU time during each
timed run (`/proc/PID/stat`), beside the run's wall time. Rounds run every row once in
turn; each row reports the min and the median of `--runs`.

    cargo build --release -p zarr-array --features s3
    .venv/bin/python benches/peers_s3.py --example zarr-array=target/release/zarr-array

`--check` (with small sizes: `--size-mib 64 --runs 1 --check`) compares every read with
the data and reads every write back with zarr-python. The Markdown table goes to stdout,
progress to stderr. GB = 10^9 bytes of the box.
"""

import argparse
import asyncio
import importlib.metadata
import math
import os
import platform
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import boto3
import numpy as np
import obstore
import obstore.store
import tensorstore as ts
import zarr
import zarr.storage

from peers_grid import (ITEM, Row, RunError, cell, cpu_model, example_run, field, log, measure, mib, shapes,
                        shown)

BUCKET = "bench"


# --- the server ------------------------------------------------------------------------------


def start_moto():
    """moto's S3 server on a free port of 127.0.0.1 (it takes any keys), and its endpoint."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    binary = os.path.join(os.path.dirname(sys.executable), "moto_server")
    server = subprocess.Popen([binary, "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return server, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("moto_server did not start")


def cpu_seconds(pid):
    """User + system CPU time of a process so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def s3_store(prefix):
    return obstore.store.S3Store(BUCKET, prefix=prefix)


def zarr_store(prefix):
    return zarr.storage.ObjectStore(s3_store(prefix))


def ts_spec(prefix, endpoint, in_flight):
    return {"driver": "zarr3",
            "kvstore": {"driver": "s3", "bucket": BUCKET, "path": prefix + "/", "endpoint": endpoint,
                        "aws_region": "us-east-1", "aws_credentials": {"type": "environment"}},
            "context": {"s3_request_concurrency": {"limit": in_flight}}}


def keys_of(store):
    return sorted(o["path"] for batch in obstore.list(store) for o in batch)


async def bounded(jobs, in_flight):
    """Runs the coroutine functions `jobs`, at most `in_flight` at once."""
    gate = asyncio.Semaphore(in_flight)

    async def one(job):
        async with gate:
            return await job()

    return await asyncio.gather(*(one(job) for job in jobs))


def copy_array(src, dst, in_flight):
    """A fresh copy of the array at `src` under `dst`, copied by the server."""
    store = s3_store("")
    old = keys_of(s3_store(dst))

    async def go():
        await bounded([lambda k=k: obstore.delete_async(store, f"{dst}/{k}") for k in old], in_flight)
        await bounded([lambda k=k: obstore.copy_async(store, f"{src}/{k}", f"{dst}/{k}")
                       for k in keys_of(s3_store(src))], in_flight)

    asyncio.run(go())


# --- the rows ---------------------------------------------------------------------------------


def chunk_keys(sel, shape, chunks):
    """The keys of the chunks the box touches, each with whether the box covers the chunk's
    region of the array whole."""
    spans = [range(s.start // c, (s.stop - 1) // c + 1) for s, c in zip(sel, chunks)]
    out = []
    for index in np.ndindex(*map(len, spans)):
        k = [span[i] for span, i in zip(spans, index)]
        whole = all(s.start <= j * c and min((j + 1) * c, n) <= s.stop
                    for s, j, c, n in zip(sel, k, chunks, shape))
        out.append(("c/" + "/".join(map(str, k)), whole))
    return out


def ceiling_read(prefix, keys, in_flight):
    store = s3_store(prefix)

    async def get(key):
        return len(await (await obstore.get_async(store, key)).bytes_async())

    t0 = time.perf_counter()
    got = asyncio.run(bounded([lambda k=k: get(k) for k, _ in keys], in_flight))
    return time.perf_counter() - t0, sum(got)


def ceiling_write(prefix, keys, in_flight):
    """Each partly covered chunk fetched, then every chunk put back: a writer's requests."""
    store = s3_store(prefix)
    held = {k: bytes(obstore.get(store, k).bytes()) for k, _ in keys}  # the bytes to put

    async def update(key, whole):
        if not whole:
            await (await obstore.get_async(store, key)).bytes_async()
        await obstore.put_async(store, key, held[key])

    t0 = time.perf_counter()
    asyncio.run(bounded([lambda k=k, w=w: update(k, w) for k, w in keys], in_flight))
    return time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=1024, help="array size (default 1024)")
    parser.add_argument("--chunk-mib", type=int, default=4, help="chunk size (default 4)")
    parser.add_argument("--runs", type=int, default=3, help="runs per row (default 3)")
    parser.add_argument("--in-flight", type=int, default=32, help="requests in flight (default 32)")
    parser.add_argument("--example", action="append", default=[], metavar="LABEL=PATH",
                        help="a zarr-array binary built with `s3` (repeatable)")
    parser.add_argument("--quantize", type=int, default=64, metavar="N",
                        help="round the data to multiples of 1/N (default 64; 0: not rounded)")
    parser.add_argument("--check", action="store_true", help="compare every read and write with the data")
    args = parser.parse_args()
    if min(args.size_mib, args.chunk_mib, args.runs, args.in_flight) < 1:
        parser.error("--size-mib, --chunk-mib, --runs and --in-flight must be positive")
    examples = {}
    for value in args.example:
        label, sep, path = value.partition("=")
        if not sep:
            label, path = os.path.basename(value), value
        if label in examples or label in ("zarr-python", "tensorstore", "GETs"):
            parser.error(f"--example label {label!r} used twice")
        examples[label] = os.path.abspath(path)

    server, endpoint = start_moto()
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_REGION="us-east-1",
                      AWS_DEFAULT_REGION="us-east-1", AWS_ENDPOINT=endpoint, AWS_ALLOW_HTTP="true")
    work = tempfile.mkdtemp(prefix="peers_s3-", dir="/tmp")
    try:
        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
        n = args.in_flight
        zarr.config.set({"async.concurrency": n})
        shape, chunks = shapes(args.size_mib, args.chunk_mib)
        log(f"generating {shape} float32 ({mib(math.prod(shape) * ITEM)}), writing it to the bucket")
        data = field(shape, args.quantize)
        sel = tuple(slice(min(c // 2, s - s // 2), min(c // 2, s - s // 2) + s // 2)
                    for s, c in zip(shape, chunks))
        box_bytes = math.prod(r.stop - r.start for r in sel) * ITEM
        zarr.create_array(zarr_store("src.zarr"), shape=shape, chunks=chunks, dtype="float32")[...] = data
        x = data[sel] + np.float32(0.25)
        x_src = os.path.join(work, "x.zarr")
        zarr.create_array(x_src, shape=x.shape, chunks=chunks, dtype="float32")[...] = x
        expected = data.copy()
        expected[sel] = x
        keys = chunk_keys(sel, shape, chunks)
        stored = sum(o["size"] for batch in obstore.list(s3_store("src.zarr")) for o in batch)
        box = ",".join(f"{s.start}:{s.stop}" for s in sel)
        at = ",".join(str(s.start) for s in sel)
        # Each library's code paths loaded once, untimed.
        zarr.open_array(zarr_store("src.zarr"), mode="r")[: chunks[0], : chunks[1]]
        ts.open(ts_spec("src.zarr", endpoint, n)).result()[: chunks[0], : chunks[1]].read().result()

        def checked(what, got, want):
            if args.check and not np.array_equal(got, want):
                raise RunError(f"{what}: values differ from the data")

        def zarr_row(dst):
            t0 = time.perf_counter()
            got = zarr.open_array(zarr_store("src.zarr"), mode="r")[sel]
            read_s = time.perf_counter() - t0
            checked("read", got, data[sel])
            return read_s, lambda: zarr_write(dst)

        def zarr_write(dst):
            t0 = time.perf_counter()
            zarr.open_array(zarr_store(dst), mode="r+")[sel] = x
            return time.perf_counter() - t0

        def ts_row(dst):
            t0 = time.perf_counter()
            got = ts.open(ts_spec("src.zarr", endpoint, n)).result()[sel].read().result()
            read_s = time.perf_counter() - t0
            checked("read", got, data[sel])

            def write():
                t0 = time.perf_counter()
                ts.open(ts_spec(dst, endpoint, n)).result()[sel].write(x).result()
                return time.perf_counter() - t0
            return read_s, write

        def ceiling_row(dst):
            read_s, got = ceiling_read("src.zarr", keys, n)
            if got == 0:
                raise RunError("no bytes read")
            return read_s, lambda: ceiling_write(dst, keys, n)

        def example_row(program):
            def row(dst):
                read_s, _ = example_run(program, f"s3://{BUCKET}/src.zarr", "--subset", box, "--in-flight", n)
                return read_s, lambda: example_run(program, x_src, "--write-into", f"s3://{BUCKET}/{dst}",
                                                   "--at", at, "--in-flight", n)[1]
            return row

        runners = {"zarr-python": zarr_row, "tensorstore": ts_row}
        runners.update((name, example_row(p)) for name, p in examples.items())
        runners["GETs"] = ceiling_row

        def timed(runner):
            """A round of `measure`: a fresh copy, the read, the write, the server's CPU time."""
            def round_(row):
                copy_array("src.zarr", row.dst, n)
                cpu0 = cpu_seconds(server.pid)
                read_s, write = runner(row.dst)
                cpu1 = cpu_seconds(server.pid)
                write_s = write()
                cpu2 = cpu_seconds(server.pid)
                if args.check and row.name != "GETs":
                    checked("write", zarr.open_array(zarr_store(row.dst), mode="r")[...], expected)
                row.cpu_read.append(cpu1 - cpu0)
                row.cpu_write.append(cpu2 - cpu1)
                log(f"  server CPU {cpu1 - cpu0:.2f} s reading, {cpu2 - cpu1:.2f} s writing")
                return read_s, write_s
            return round_

        rows = []
        for name in runners:
            row = Row("s3", name, os.path.join(work, "none"))  # every output is in the bucket
            row.dst = "dst-" + "".join(ch if ch.isalnum() else "-" for ch in name) + ".zarr"
            row.cpu_read, row.cpu_write = [], []
            rows.append(row)
        measure(rows, {name: timed(runner) for name, runner in runners.items()}, args.runs)

        versions = ", ".join(f"{name} {importlib.metadata.version(name)}"
                             for name in ("zarr", "numpy", "tensorstore", "obstore", "moto"))
        whole = sum(w for _, w in keys)
        print(f"A box of {mib(box_bytes)} ({box}) of a Zarr v3 `float32` array {shape} in chunks of {chunks} "
              f"({mib(math.prod(chunks) * ITEM)}, `[bytes, zstd]`, {mib(stored)} stored), on moto's S3 server "
              f"on 127.0.0.1; {len(keys)} chunks touched ({whole} whole, {len(keys) - whole} in part); "
              f"{n} requests in flight; {args.runs} run{'s' if args.runs > 1 else ''} per row, min / median; "
              f"GB/s of the median, GB = 10^9 bytes of the box; server CPU s: the server's CPU time "
              f"during the run (median).")
        print()
        print("| reader/writer | read s (min / median) | server CPU s | write s (min / median) | server CPU s "
              "| read GB/s | write GB/s |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for row in rows:
            if row.error and not row.reads:
                print(f"| {row.name} | error: {row.error} | | | | | |")
                continue
            read_m, write_m = statistics.median(row.reads), statistics.median(row.writes)
            print(f"| {row.name} | {cell(row.reads)} | {statistics.median(row.cpu_read):.2f} | "
                  f"{cell(row.writes)} | {statistics.median(row.cpu_write):.2f} | "
                  f"{box_bytes / read_m / 1e9:.2f} | {box_bytes / write_m / 1e9:.2f} |")
            if row.error:
                print(f"| {row.name} (later run) | error: {row.error} | | | | | |")
        print()
        print(f"- command: `{shlex.join([shown(sys.executable), *sys.argv])}`")
        print(f"- versions: python {platform.python_version()}, {versions}")
        print(f"- CPU: {cpu_model()}, os.cpu_count() = {os.cpu_count()}")
        for name, path in examples.items():
            print(f"- {name}: `{shown(path)} s3://{BUCKET}/src.zarr --subset {box} --in-flight {n} --time`; "
                  f"`{shown(path)} X --write-into s3://{BUCKET}/DST --at {at} --in-flight {n} --time`")
        if args.check:
            bad = [r.name for r in rows if r.error]
            print("- check: " + ("every read equals the data and every write reads back as expected"
                                 if not bad else f"ERRORS in {', '.join(bad)}"))
        return 1 if any(r.error for r in rows) else 0
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
