"""Interop with zarr-python, both ways, through the zarr_array example.

1. zarr-python writes arrays of every data type, in both byte orders, with partial edge
   chunks, a missing chunk and both chunk key separators; the example reads each, and its
   checksum of the values must equal the one computed here from zarr-python's reading.
2. The example writes big- and little-endian copies; zarr-python reads them back and
   they must equal the originals bit for bit.
3. The same for the extension data types zarr-python writes (datetimes, timedeltas,
   fixed-length strings, byte strings, raw bytes and nested structs), each with a
   non-default fill value and a missing chunk, which reads as it: the example's
   checksum, its copies and their fill values must agree with zarr-python.
4. Bad input (an unknown codec, a truncated chunk, malformed zarr.json) must fail with a
   message naming the file and field, and never a panic.

Usage: python .ci/interop.py PATH_TO_zarr_array_BINARY
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import warnings

import numpy as np
import zarr
from zarr.codecs import BloscCodec, BytesCodec

BINARY = sys.argv[1]
# zarr-python warns that the extension data types have no spec of their own yet.
warnings.filterwarnings("ignore", message=".*does not have a Zarr V3 specification.*")
passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}", flush=True)


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def little_endian_bytes(a: np.ndarray) -> bytes:
    a = np.ascontiguousarray(a)
    return a.astype(a.dtype.newbyteorder("<")).tobytes()


def values(dtype: str, shape, rng) -> np.ndarray:
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        v[:2] = [info.min, info.max]
        return v.reshape(shape)
    if dt.kind == "f":
        v = rng.standard_normal(n).astype(dt) * 1000
        special = np.array([np.nan, -0.0, np.inf, -np.inf], dtype=dt)
        v[: len(special)] = special
        # A NaN with a payload, a bit pattern the peers must carry through.
        u = v.view(f"u{dt.itemsize}")
        u[4] = {2: 0x7C01, 4: 0x7FC00123, 8: 0x7FF8000000000123}[dt.itemsize]
        return v.reshape(shape)
    if dt.kind == "c":
        part = np.float32 if dt.itemsize == 8 else np.float64
        v = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
        v[0] = complex(np.nan, -0.0)
        return v.reshape(shape)
    raise ValueError(dtype)


def endian_applies(dt: np.dtype) -> bool:
    """Whether the bytes codec's endian changes this numpy dtype's bytes."""
    if dt.names:
        return any(endian_applies(dt.fields[n][0]) for n in dt.names)
    if dt.kind in "SVb":
        return False
    if dt.kind == "U":
        return True
    return dt.itemsize > 1


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal bit for bit (NaN payloads too), compared as little-endian bytes."""
    return a.shape == b.shape and little_endian_bytes(a) == little_endian_bytes(b)


# numpy dtypes of the extension data types, each with a fill value.
STRUCT = np.dtype([
    ("i", "<i4"), ("f", "<f8"), ("c", "<c8"), ("t", "<M8[ms]"), ("u", "<U3"), ("s", "S4"),
    ("v", "V2"), ("b", "?"), ("n", [("x", "<u2"), ("y", "<f4")]),
])


def struct_fill():
    fill = np.zeros((), STRUCT)
    fill["i"], fill["f"], fill["c"], fill["t"] = -7, 2.5, 1 - 2j, np.datetime64(12, "ms")
    fill["u"], fill["s"], fill["v"], fill["b"] = "x\U0001F600", b"a\x00b", b"\x01\xff", True
    fill["n"]["x"], fill["n"]["y"] = 65535, -0.5
    return fill[()]


EXTENSIONS = [
    ("<M8[s]", np.datetime64(17, "s")),
    ("<M8[10s]", np.datetime64("NaT", "10s")),
    ("<m8[ns]", np.timedelta64(-5, "ns")),
    ("<U5", "x\U0001F600"),
    ("S6", b"ab"),
    ("V4", np.void(b"\x01\x00\xff\x80")),
    (STRUCT, struct_fill()),
]


def ext_values(dt: np.dtype, shape, rng) -> np.ndarray:
    """Values of an extension dtype: edge values first (NaT, astral characters, empty and
    embedded NULs, every byte), then random ones."""
    n = int(np.prod(shape))
    if dt.names:
        out = np.zeros(n, dt)
        for name in dt.names:
            out[name] = ext_values(dt.fields[name][0], (n,), rng)
        return out.reshape(shape)
    if dt.kind in "mM":
        v = rng.integers(-(2**62), 2**62, n, dtype=np.int64)
        v[:3] = [np.iinfo(np.int64).min, np.iinfo(np.int64).max, -1]
        return v.view(dt).reshape(shape)
    if dt.kind == "U":
        k = dt.itemsize // 4
        pool = ["", "a", "\U0001F600", "a\x00b", "\u00e9\U0001D11E", "\U0010FFFF", "hello"]
        return np.array([pool[i % len(pool)][:k] if i < len(pool) else
                         "".join(chr(c) for c in rng.integers(0x20, 0x2FFF, rng.integers(0, k + 1)))
                         for i in range(n)], dtype=dt).reshape(shape)
    if dt.kind == "S":
        k = dt.itemsize
        pool = [b"", b"a\x00b", b"\xff" * k, b"\x00x"]
        return np.array([pool[i] if i < len(pool) else bytes(rng.integers(1, 256, rng.integers(0, k + 1)).astype(np.uint8))
                         for i in range(n)], dtype=dt).reshape(shape)
    if dt.kind == "V":
        return rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).view(dt).reshape(shape)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    return values(dt.newbyteorder("="), shape, rng)


def run(args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True)


def write_zarr(path, data, chunks, endian, fill, separator="/", key="default"):
    arr = zarr.create_array(
        store=path,
        shape=data.shape,
        chunks=chunks,
        dtype=data.dtype,
        fill_value=fill,
        serializer=BytesCodec(endian=endian),
        compressors=None,
        filters=None,
        chunk_key_encoding={"name": key, "separator": separator},
        zarr_format=3,
    )
    arr[...] = data
    return arr


DTYPES = [
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
]

root = tempfile.mkdtemp(prefix="zarr-interop-")
rng = np.random.default_rng(20261121)
try:
    cases = []
    for i, dtype in enumerate(DTYPES):
        for endian in ["little", "big"]:
            shape, chunks = ((13, 7), (4, 3)) if i % 2 == 0 else ((5, 4, 6), (2, 3, 4))
            separator = "/" if (i + (endian == "big")) % 2 == 0 else "."
            data = values(dtype, shape, rng)
            fill = False if dtype == "bool" else 0
            path = os.path.join(root, f"{dtype}_{endian}.zarr")
            write_zarr(path, data, chunks, endian, fill, separator)
            cases.append((path, dtype, endian, data))
    # A missing chunk reads as the fill value; a 0-d array; the v2 chunk key encoding.
    data = values("float64", (9, 9), rng)
    path = os.path.join(root, "missing.zarr")
    write_zarr(path, data, (4, 4), "big", -7.5)
    os.remove(os.path.join(path, "c", "1", "1"))
    data[4:8, 4:8] = -7.5
    cases.append((path, "float64", "big", data))
    path = os.path.join(root, "scalar.zarr")
    data = np.array(3.25, dtype="<f4")
    write_zarr(path, data, (), "little", 0.0)
    cases.append((path, "float32", "little", data))
    path = os.path.join(root, "v2keys.zarr")
    data = values("uint16", (6, 5), rng)
    write_zarr(path, data, (4, 4), "big", 0, ".", "v2")
    cases.append((path, "uint16", "big", data))

    # Extension data types zarr-python writes through the bytes codec: datetimes, strings,
    # bytes and structs; one chunk of each is removed, so it reads as the fill value.
    for dtype, fill in EXTENSIONS:
        dt = np.dtype(dtype)
        for endian in (["little", "big"] if endian_applies(dt) else ["little"]):
            data = ext_values(dt, (5, 4), rng)
            tag = re.sub(r"[^a-z0-9]+", "_", str(dtype).lower()).strip("_")[:40]
            path = os.path.join(root, f"ext_{tag}_{endian}.zarr")
            write_zarr(path, data, (2, 3), endian, fill)
            os.remove(os.path.join(path, "c", "0", "0"))
            data[0:2, 0:3] = fill
            cases.append((path, dtype, endian, data))

    for path, dtype, endian, data in cases:
        name = os.path.basename(path)
        meta = json.load(open(os.path.join(path, "zarr.json")))
        codecs = [c["name"] for c in meta["codecs"]]
        check(codecs == ["bytes"], f"{name}: zarr-python wrote codecs {codecs}")
        expected = zarr.open_array(path, mode="r")[...]
        check(same(expected, data), f"{name}: zarr-python reads its own data back")
        out = run([path])
        check(out.returncode == 0, f"{name}: example failed: {out.stderr}")
        m = re.search(r"checksum\s+(0x[0-9a-f]+)", out.stdout)
        want = fnv1a64(little_endian_bytes(expected))
        got = int(m.group(1), 16) if m else None
        check(got == want, f"{name}: checksum {got} != {want}")
        written = meta["data_type"]
        shown = written if isinstance(written, str) else json.dumps(written, separators=(",", ":"))
        check(f"data type  {shown} " in out.stdout, f"{name}: data type line: {out.stdout[:300]}")

        for copy_endian in ["big", "little"]:
            copy = os.path.join(root, f"{name}.{copy_endian}.copy")
            out = run([path, "--write", copy, "--endian", copy_endian])
            check(out.returncode == 0, f"{name}: --write {copy_endian} failed: {out.stderr}")
            back = zarr.open_array(copy, mode="r")
            check(same(back[...], expected), f"{name}: {copy_endian} copy differs")
            check(same(np.asarray(back.fill_value), np.asarray(zarr.open_array(path, mode="r").fill_value)),
                  f"{name}: {copy_endian} copy fill value {back.fill_value}")
            codec = json.load(open(os.path.join(copy, "zarr.json")))["codecs"]
            if endian_applies(np.dtype(expected.dtype)):
                want_codec = [{"name": "bytes", "configuration": {"endian": copy_endian}}]
            else:
                want_codec = [{"name": "bytes"}]
            check(codec == want_codec, f"{name}: copy codecs {codec}")
            check(np.dtype(back.dtype) == np.dtype(expected.dtype).newbyteorder("=")
                  or back.dtype == expected.dtype, f"{name}: copy dtype {back.dtype}")

    # Bad input: a clear message naming the file and field; never a panic.
    blosc = os.path.join(root, "blosc.zarr")
    zarr.create_array(store=blosc, shape=(4,), chunks=(2,), dtype="int32", compressors=BloscCodec())[...] = 1
    bad_json = os.path.join(root, "bad_json.zarr")
    shutil.copytree(cases[0][0], bad_json)
    with open(os.path.join(bad_json, "zarr.json"), "w") as f:
        f.write('{"zarr_format": 3,')
    truncated = os.path.join(root, "truncated.zarr")
    shutil.copytree(os.path.join(root, "missing.zarr"), truncated)
    with open(os.path.join(truncated, "c", "0", "0"), "r+b") as f:
        f.truncate(5)
    bad_endian = os.path.join(root, "bad_endian.zarr")
    shutil.copytree(os.path.join(root, "int16_big.zarr"), bad_endian)
    meta = json.load(open(os.path.join(bad_endian, "zarr.json")))
    meta["codecs"][0]["configuration"]["endian"] = "native"
    json.dump(meta, open(os.path.join(bad_endian, "zarr.json"), "w"))
    for path, needles in [
        (blosc, ["zarr.json", "codecs", "blosc"]),
        (bad_json, ["zarr.json", "malformed JSON"]),
        (truncated, [os.path.join("c", "0", "0"), "byte length mismatch", "5"]),
        (bad_endian, ["zarr.json", "codecs", "native"]),
    ]:
        out = run([path])
        name = os.path.basename(path)
        check(out.returncode == 1, f"{name}: exit code {out.returncode}")
        check("panicked" not in out.stderr, f"{name}: panicked: {out.stderr}")
        for needle in needles:
            check(needle in out.stderr, f"{name}: message lacks {needle!r}: {out.stderr}")
finally:
    shutil.rmtree(root, ignore_errors=True)

print(f"interop: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
