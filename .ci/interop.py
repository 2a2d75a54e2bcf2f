"""Interop with zarr-python, both ways, through the zarr-array example.

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
5. Codec chains: zarr-python writes arrays with its default chain [bytes, zstd], with
   zstd's level and checksum, gzip, crc32c, transposes of 2 and 3 axes, and
   sharding_indexed with its index at either end, a transpose inside or outside, and
   compression inside; some have a missing chunk, a missing shard or an empty inner
   chunk. The example reads each (its checksum must match zarr-python's reading) and
   writes a copy in the other byte order, which zarr-python reads back equal bit for
   bit, with the same codec chain in its zarr.json but for the bytes codec's endian.
6. Corrupt chains (a bad crc32c in a chunk and in a shard index, a short shard index, a
   truncated or oversized zstd frame, a wrong decoded length, unknown codecs) must fail
   with a message naming the chunk file or the codec, and never a panic. zstd frames that
   state no size and chunks of two frames are streamed and read right; a streamed frame
   longer than its chunk fails.
7. The same as 5 for arrays tensorstore writes, when tensorstore is installed; tensorstore
   reads the copies back too.
8. Sparse arrays (edge chunks, a non-zero fill value, -0.0 chunks beside a 0.0 fill value,
   a NaN fill value, a transpose, shards with empty inner chunks and inner chunks past the
   edge, several chunks and a whole shard of only the fill value): the example's copy has
   exactly the chunk files zarr-python writes, with the same bytes (decompressed), or
   the same empty inner chunks for shards, and zarr-python reads it back equal bit for
   bit. The example copies zarr-python's copy of every chunk (write_empty_chunks=True),
   over a dense copy, whose files of fill-only chunks it must erase. With
   --write-empty-chunks it writes every chunk file of the sparse array, as
   write_empty_chunks=True does. A chunk of NaNs with a payload is the one known
   difference: zarr-python takes it for the NaN fill value and leaves it out, the example
   keeps its bits.
9. Subsets (edge chunks, a missing chunk, a non-zero fill value, a transpose, shards with
   their index at the end, empty inner chunks and a missing shard): `--subset` reads of
   a box inside one chunk, across chunks, at the edge, half a chunk off, with open ends,
   empty and whole have zarr-python's checksum of `arr[sel]`, and name only the chunks
   (and inner chunks) the box touches; with every other chunk file (and inner chunk)
   corrupted they still read. `--write-into DST --at ...` of a source array (whole or a
   `--subset`) into a copy of an array leaves the chunk files, their decompressed bytes,
   and in shards each inner chunk's bytes and which are empty, as zarr-python's
   `dst[sel] = src` leaves another copy: across chunks, into a missing chunk or shard,
   over whole chunks and shards, and writes of the fill value that erase a chunk and
   leave a shard with no data; with --write-empty-chunks as write_empty_chunks=True.
   Bad ranges, origins and data types fail with a message, never a panic.

Usage: python .ci/interop.py PATH_TO_zarr-array_BINARY
"""

import itertools
import json
import os
import re
import shutil
import sys
import tempfile

import warnings

import common
from common import Checks, fnv1a64, little_endian_bytes
import google_crc32c  # installed with zarr, for its crc32c codec
import numcodecs
import numpy as np
import zarr
from zarr.codecs import (
    BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec, TransposeCodec, ZstdCodec,
)

try:
    import tensorstore
except ImportError:
    tensorstore = None

BINARY = sys.argv[1]
# zarr-python warns that the extension data types have no spec of their own yet.
warnings.filterwarnings("ignore", message=".*does not have a Zarr V3 specification.*")
# A codec around sharding_indexed (the transpose_shard case) is meant.
warnings.filterwarnings("ignore", message=".*sharding_indexed. codec disables partial reads.*")
check = Checks("interop")


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
    return common.run(BINARY, args)


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


def any_values(dtype, shape, rng) -> np.ndarray:
    dt = np.dtype(dtype)
    return values(dt, shape, rng) if dt.kind in "biufc" else ext_values(dt, shape, rng)


def bytes_endian(codecs):
    """The byte order of the array's bytes codec, inside a sharding codec too."""
    for c in codecs:
        if c["name"] == "bytes":
            return c.get("configuration", {}).get("endian")
        if c["name"] == "sharding_indexed":
            return bytes_endian(c["configuration"]["codecs"])
    return None


def with_endian(codecs, endian, applies):
    """The codec list with the array's bytes codecs (not a shard index's) in `endian`."""
    out = []
    for c in json.loads(json.dumps(codecs)):
        if c["name"] == "bytes" and applies:
            c.setdefault("configuration", {})["endian"] = endian
        elif c["name"] == "sharding_indexed":
            c["configuration"]["codecs"] = with_endian(c["configuration"]["codecs"], endian, applies)
        out.append(c)
    return out


def chunk_files(path):
    return sorted(os.path.relpath(os.path.join(d, f), path) for d, _, files in os.walk(path)
                  for f in files if f != "zarr.json")


def check_frames(name, copy, codecs):
    """The copy's chunks are encoded as its zarr.json says: a zstd frame carries a
    checksum exactly when configured, a gzip member's XFL byte tells levels 1 and 9, and
    a trailing crc32c holds. Shards are left to the readers."""
    last = codecs[-1]
    files = chunk_files(copy)
    if not files:
        return
    data = open(os.path.join(copy, files[0]), "rb").read()
    config = last.get("configuration", {})
    if last["name"] == "zstd":
        check(data[:4] == b"\x28\xb5\x2f\xfd", f"{name}: copy chunk is not a zstd frame")
        has_checksum = bool(data[4] & 0x04)
        check(has_checksum == config.get("checksum", False), f"{name}: copy zstd checksum flag {has_checksum}")
    elif last["name"] == "gzip":
        check(data[:2] == b"\x1f\x8b", f"{name}: copy chunk is not gzip")
        xfl = {1: 4, 9: 2}.get(config["level"])
        if xfl is not None:
            check(data[8] == xfl, f"{name}: copy gzip XFL {data[8]} for level {config['level']}")
    elif last["name"] == "crc32c":
        check(google_crc32c.value(data[:-4]).to_bytes(4, "little") == data[-4:],
              f"{name}: copy crc32c")


def example_reads(name, path, expected, expect=()):
    """The example reads `path`; its checksum must be that of `expected`. With "missing"
    in `expect` it must have found a missing chunk or shard, with "empty" an empty inner
    chunk."""
    out = run([path])
    check(out.returncode == 0, f"{name}: example failed: {out.stderr}")
    m = re.search(r"checksum\s+(0x[0-9a-f]+)", out.stdout)
    want = fnv1a64(little_endian_bytes(expected))
    got = int(m.group(1), 16) if m else None
    check(got == want, f"{name}: checksum {got} != {want}")
    if "empty" in expect:
        m = re.search(r"(\d+) empty", out.stdout)
        check(m is not None and int(m.group(1)) > 0, f"{name}: no empty inner chunk read: {out.stdout[:600]}")
    if "missing" in expect:
        m = re.search(r"(\d+) missing", out.stdout)
        check(m is not None and int(m.group(1)) > 0, f"{name}: no missing chunk read: {out.stdout[:600]}")


def copies_read_back(name, path, expected, readers):
    """The example copies `path` in the other byte order; every reader reads the copy back
    equal bit for bit, and its codecs are the source's but for the bytes codec's endian."""
    codecs = json.load(open(os.path.join(path, "zarr.json")))["codecs"]
    applies = endian_applies(np.dtype(expected.dtype))
    source = bytes_endian(codecs)
    other = "little" if source == "big" else "big"
    copy = path + f".{other}.copy"
    out = run([path, "--write", copy, "--endian", other])
    check(out.returncode == 0, f"{name}: --write {other} failed: {out.stderr}")
    copied = json.load(open(os.path.join(copy, "zarr.json")))["codecs"]
    want = with_endian(codecs, other, applies)
    check(copied == want, f"{name}: copy codecs {copied} != {want}")
    for reader, read in readers:
        try:
            back = read(copy)
        except Exception as e:  # noqa: BLE001 - any reader failure is a failed check
            check(False, f"{name}: {reader} cannot read the {other} copy: {e}")
            continue
        check(same(np.asarray(back), expected), f"{name}: {reader} reads a different {other} copy")
    check_frames(name, copy, codecs)
    example_reads(f"{name} ({other} copy)", copy, expected)


def zarr_read(path):
    return zarr.open_array(path, mode="r")[...]


def tensorstore_read(path):
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": path}}
    return tensorstore.open(spec).result().read().result()


def chain_cases(root, rng):
    """Section 5: the codec chains zarr-python writes."""
    t2 = [TransposeCodec(order=(1, 0))]
    # name, dtype, shape, chunks, create_array options, regions set to the fill value
    # before writing, chunk keys removed after writing (with their regions), and what the
    # example must find: a missing chunk or shard, an empty inner chunk.
    cases = [
        ("default_u16", "uint16", (100, 100), (50, 50), {}, [], [], ()),
        ("default_f64", "float64", (30, 20), (8, 6), {"fill_value": -2.5}, [],
         [("c/1/1", np.s_[8:16, 6:12])], {"missing"}),
        ("zstd_checksum", "int32", (17, 9), (5, 4),
         {"compressors": ZstdCodec(level=9, checksum=True), "serializer": BytesCodec(endian="big")},
         [], [], ()),
        ("zstd_negative", "complex64", (6, 7), (4, 4), {"compressors": ZstdCodec(level=-3)}, [], [], ()),
        ("gzip1", "float32", (13, 7), (4, 3), {"compressors": GzipCodec(level=1)}, [], [], ()),
        ("gzip9", "complex128", (5, 4, 6), (2, 3, 4),
         {"compressors": GzipCodec(level=9), "serializer": BytesCodec(endian="big")}, [], [], ()),
        ("crc32c", "int16", (13, 7), (4, 3), {"compressors": Crc32cCodec(), "fill_value": 7}, [],
         [("c/0/2", np.s_[0:4, 6:7])], {"missing"}),
        ("gzip_crc32c", "uint64", (9, 9), (4, 4),
         {"compressors": [GzipCodec(level=5), Crc32cCodec()], "serializer": BytesCodec(endian="big")},
         [], [], ()),
        ("transpose2", "float32", (13, 7), (4, 3),
         {"filters": t2, "serializer": BytesCodec(endian="big"), "compressors": None}, [], [], ()),
        ("transpose3_zstd", "int64", (5, 4, 6), (2, 3, 4),
         {"filters": [TransposeCodec(order=(2, 0, 1))]}, [], [], ()),
        ("transpose3_u8", "uint8", (5, 4, 6), (3, 2, 4),
         {"filters": [TransposeCodec(order=(1, 2, 0))], "compressors": None}, [], [], ()),
        ("transpose_struct", STRUCT, (5, 4), (2, 3),
         {"filters": t2, "fill_value": struct_fill(), "compressors": ZstdCodec(level=3)}, [], [], ()),
        # Sharding: index at the end, a transpose inside, zstd; shard c/1/1 is all fill
        # value (not written) and inner chunk (0, 0) of shard c/0/1 too (an empty entry).
        ("shard_end", "float64", (10, 12), (2, 3),
         {"shards": (4, 6), "filters": t2, "fill_value": -1.0},
         [np.s_[4:8, 6:12], np.s_[0:2, 6:9]], [], {"missing", "empty"}),
        # Index at the start, crc32c inside, big endian; shard c/0/0 removed.
        ("shard_start", "int16", (9, 13), (2, 3),
         {"shards": {"shape": (4, 6), "index_location": "start"}, "filters": t2,
          "serializer": BytesCodec(endian="big"), "compressors": Crc32cCodec(), "fill_value": 3},
         [np.s_[4:6, 0:3]], [("c/0/0", np.s_[0:4, 0:6])], {"missing", "empty"}),
        ("shard_3d_gzip", "uint32", (6, 5, 8), (2, 2, 2),
         {"shards": (4, 4, 4), "filters": [TransposeCodec(order=(2, 0, 1))], "compressors": GzipCodec(level=4)},
         [np.s_[0:2, 0:2, 0:2]], [], {"empty"}),
        # A transpose outside the sharding codec, gzip inside it, index at the start.
        ("transpose_shard", "int32", (7, 13), (4, 6),
         {"filters": t2, "compressors": None,
          "serializer": ShardingCodec(chunk_shape=(2, 2), codecs=[BytesCodec(endian="big"), GzipCodec(level=2)],
                                      index_location="start")},
         [np.s_[0:2, 0:4]], [], {"empty"}),
        ("shard_bool", "bool", (8, 8), (2, 2), {"shards": (4, 4), "compressors": None},
         [np.s_[0:2, 0:2]], [], {"empty"}),
        ("shard_utf32", "<U3", (6, 6), (2, 3),
         {"shards": (4, 6), "fill_value": "ab", "compressors": ZstdCodec(level=1, checksum=True)},
         [np.s_[2:4, 0:3]], [], {"empty"}),
    ]
    for name, dtype, shape, chunks, options, fills, removed, expect in cases:
        path = os.path.join(root, f"chain_{name}.zarr")
        data = any_values(dtype, shape, rng)
        arr = zarr.create_array(store=path, shape=shape, chunks=chunks, dtype=data.dtype, **options)
        fill = arr.fill_value
        for region in fills:
            data[region] = fill
        arr[...] = data
        for key, region in removed:
            os.remove(os.path.join(path, *key.split("/")))
            data[region] = fill
        expected = zarr_read(path)
        check(same(expected, data), f"{name}: zarr-python reads its own data back")
        example_reads(name, path, expected, expect)
        copies_read_back(name, path, expected, [("zarr-python", zarr_read)])


def corrupt_cases(root, rng):
    """Section 6: corrupt chunks, shards and chains."""
    def make(name, **options):
        path = os.path.join(root, f"corrupt_{name}.zarr")
        zarr.create_array(store=path, shape=(8, 12), chunks=(2, 3), dtype="int32", **options)[...] = \
            np.arange(96, dtype="int32").reshape(8, 12)
        return path

    def edit(path, key, change):
        file = os.path.join(path, *key.split("/"))
        data = open(file, "rb").read()
        open(file, "wb").write(change(data))
        return os.path.join("c", *key.split("/")[1:])

    def flip(at):
        return lambda d: d[:at] + bytes([d[at] ^ 0x10]) + d[at + 1:]

    cases = []
    path = make("crc32c", compressors=Crc32cCodec())
    cases.append((path, [edit(path, "c/1/2", flip(3)), "crc32c", "checksum mismatch"]))
    path = make("shard_index_crc", shards=(4, 6), compressors=None)
    cases.append((path, [edit(path, "c/1/0", flip(-10)), "shard index", "crc32c"]))
    path = make("inner_crc", shards=(4, 6), compressors=Crc32cCodec())
    # zarr-python stores inner chunks in no fixed order: which one byte 5 is in varies.
    cases.append((path, [edit(path, "c/0/1", flip(5)), "inner chunk [", "crc32c"]))
    path = make("short_index", shards=(4, 6), compressors=None)
    cases.append((path, [edit(path, "c/1/1", lambda d: d[-20:]), "shard index", "20 bytes"]))
    path = make("short_index_start", shards={"shape": (4, 6), "index_location": "start"}, compressors=None)
    cases.append((path, [edit(path, "c/0/0", lambda d: d[:30]), "shard index", "30 bytes"]))
    path = make("index_past_end", shards=(4, 6), compressors=None)

    def past_end(d):
        # Inner chunk 0's length grows past the shard; the index's crc32c is made good.
        index = bytearray(d[-68:-4])
        index[8:16] = (10**6).to_bytes(8, "little")
        return d[:-68] + bytes(index) + google_crc32c.value(bytes(index)).to_bytes(4, "little")
    cases.append((path, [edit(path, "c/0/0", past_end), "inner chunk [0, 0]", "reach past"]))
    path = make("truncated_zstd")
    cases.append((path, [edit(path, "c/2/3", lambda d: d[: len(d) // 2]), "zstd"]))
    path = make("zstd_length")
    cases.append((path, [edit(path, "c/0/0", lambda d: numcodecs.Zstd().encode(bytes(20))),
                         "byte length mismatch"]))
    path = make("zstd_bomb")
    cases.append((path, [edit(path, "c/3/1", lambda d: numcodecs.Zstd().encode(bytes(10**7))),
                         "zstd", "decodes to more than"]))
    path = make("gzip_truncated", compressors=GzipCodec())
    cases.append((path, [edit(path, "c/1/1", lambda d: d[:-6]), "gzip"]))
    path = make("unknown", compressors=BloscCodec())
    cases.append((path, ["zarr.json", "codecs", "unsupported codec", "blosc"]))
    path = make("unknown_inner", shards=(4, 6), compressors=BloscCodec())
    cases.append((path, ["zarr.json", "sharding_indexed", "blosc"]))
    path = make("bad_transpose", filters=[TransposeCodec(order=(1, 0))], compressors=None)
    meta = json.load(open(os.path.join(path, "zarr.json")))
    meta["codecs"][0]["configuration"]["order"] = [0, 0]
    json.dump(meta, open(os.path.join(path, "zarr.json"), "w"))
    cases.append((path, ["zarr.json", "transpose", "[0, 0]"]))
    # Random damage to the shards and chunks of sharded and compressed arrays: a flipped
    # bit, a cut or overwritten bytes may read (a value changed in an unchecked frame) or
    # fail, but never panic.
    sources = [make("damage_shard", shards=(4, 6), filters=[TransposeCodec(order=(1, 0))], fill_value=-1),
               make("damage_start", shards={"shape": (4, 6), "index_location": "start"},
                    compressors=[GzipCodec(), Crc32cCodec()]),
               make("damage_zstd")]
    damaged = os.path.join(root, "damaged.zarr")
    for n in range(60):
        shutil.rmtree(damaged, ignore_errors=True)
        shutil.copytree(sources[n % len(sources)], damaged)
        files = chunk_files(damaged)
        key = files[rng.integers(len(files))]
        file = os.path.join(damaged, key)
        data = bytearray(open(file, "rb").read())
        at = int(rng.integers(len(data)))
        how = (n // len(sources)) % 3
        if how == 0:
            data[at] ^= 1 << int(rng.integers(8))
        elif how == 1:
            del data[at:]
        else:
            data[at:at + 8] = rng.integers(0, 256, 8, dtype=np.uint8).tobytes()
        open(file, "wb").write(data)
        out = run([damaged])
        check(out.returncode in (0, 1) and "panicked" not in out.stderr,
              f"damaged {key} of {os.path.basename(sources[n % len(sources)])} ({n}): "
              f"exit code {out.returncode}: {out.stderr}")

    for path, needles in cases:
        name = os.path.basename(path)
        out = run([path])
        check(out.returncode == 1, f"{name}: exit code {out.returncode}: {out.stderr}")
        check("panicked" not in out.stderr, f"{name}: panicked: {out.stderr}")
        for needle in needles:
            check(needle in out.stderr, f"{name}: message lacks {needle!r}: {out.stderr}")


def zstd_raw_frame(data: bytes) -> bytes:
    """A zstd frame of one raw block that states no content size, as a streaming
    compressor writes frames: magic, a header with only a window size, the block."""
    window = max(0, (max(len(data), 1) - 1).bit_length() - 10)
    header = bytes([0x00, window << 3])  # no content size, not single-segment
    block = (1 | (len(data) << 3)).to_bytes(3, "little")  # the last block, raw
    return b"\x28\xb5\x2f\xfd" + header + block + data


def zstd_frame_cases(root):
    """Section 6: zstd frames that state no size, several frames in a chunk."""
    path = os.path.join(root, "zstd_frames.zarr")
    data = np.arange(96, dtype="int32").reshape(8, 12)
    zarr.create_array(store=path, shape=(8, 12), chunks=(2, 3), dtype="int32")[...] = data
    raw = {rel: numcodecs.Zstd().decode(open(os.path.join(path, rel), "rb").read())
           for rel in chunk_files(path)}
    # Every chunk streamed; one in two frames, each stating its size.
    for rel, chunk in raw.items():
        open(os.path.join(path, rel), "wb").write(zstd_raw_frame(chunk))
    split = os.path.join("c", "1", "2")
    zstd = numcodecs.Zstd()
    open(os.path.join(path, split), "wb").write(zstd.encode(raw[split][:10]) + zstd.encode(raw[split][10:]))
    example_reads("zstd_frames", path, data)
    # A streamed frame of more bytes than the chunk can hold.
    open(os.path.join(path, "c", "0", "0"), "wb").write(zstd_raw_frame(bytes(5000)))
    out = run([path])
    check(out.returncode == 1 and "panicked" not in out.stderr, f"zstd_frames: exit code {out.returncode}")
    for needle in [os.path.join("c", "0", "0"), "zstd", "decodes to more than"]:
        check(needle in out.stderr, f"zstd_frames: message lacks {needle!r}: {out.stderr}")


def tensorstore_cases(root, rng):
    """Section 7: the codec chains tensorstore writes."""
    t2 = {"name": "transpose", "configuration": {"order": [1, 0]}}
    crc = {"name": "crc32c"}
    index = [{"name": "bytes", "configuration": {"endian": "little"}}, crc]
    cases = [
        ("ts_gzip", "int16", (10, 12), (4, 6), 0,
         [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 6}}],
         [], ()),
        ("ts_transpose3_crc32c", "float64", (5, 4, 6), (2, 3, 4), 0.5,
         [{"name": "transpose", "configuration": {"order": [2, 0, 1]}},
          {"name": "bytes", "configuration": {"endian": "big"}}, crc], [], ()),
        ("ts_shard_start", "float32", (10, 12), (4, 6), -1.0,
         [{"name": "sharding_indexed", "configuration": {
             "chunk_shape": [2, 3], "index_codecs": index, "index_location": "start",
             "codecs": [t2, {"name": "bytes", "configuration": {"endian": "big"}},
                        {"name": "zstd", "configuration": {"level": 5, "checksum": True}}]}}],
         [np.s_[0:2, 0:3], np.s_[4:8, 6:12]], {"missing", "empty"}),
        ("ts_shard_nested", "uint16", (8, 8), (8, 8), 9,
         [{"name": "sharding_indexed", "configuration": {
             "chunk_shape": [4, 4], "index_codecs": index,
             "codecs": [{"name": "sharding_indexed", "configuration": {
                 "chunk_shape": [2, 2], "index_codecs": index,
                 "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, crc]}}]}}],
         [np.s_[0:2, 0:2]], {"empty"}),
    ]
    for name, dtype, shape, chunks, fill, codecs, fills, expect in cases:
        path = os.path.join(root, f"{name}.zarr")
        spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": path},
                "metadata": {"shape": list(shape), "data_type": dtype, "fill_value": fill,
                             "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
                             "codecs": codecs}}
        try:
            store = tensorstore.open(spec, create=True).result()
        except Exception as e:  # noqa: BLE001 - a chain this tensorstore cannot write
            check(False, f"{name}: tensorstore cannot write it: {e}")
            continue
        data = any_values(dtype, shape, rng)
        for region in fills:
            data[region] = fill
        store[...] = data
        expected = tensorstore_read(path)
        check(same(expected, data), f"{name}: tensorstore reads its own data back")
        example_reads(name, path, expected, expect)
        copies_read_back(name, path, expected, [("tensorstore", tensorstore_read), ("zarr-python", zarr_read)])


def stored_bytes(path, rel):
    """A chunk file's bytes, decompressed if it is a zstd frame."""
    data = open(os.path.join(path, rel), "rb").read()
    return numcodecs.Zstd().decode(data) if data[:4] == b"\x28\xb5\x2f\xfd" else data


def empty_inner(path, rel, per_shard):
    """Which inner chunks of a shard are empty, from its index at the end (the default
    index codecs: little-endian bytes and crc32c)."""
    data = open(os.path.join(path, rel), "rb").read()
    index = np.frombuffer(data[-(16 * per_shard + 4):-4], "<u8").reshape(per_shard, 2)
    return (index == 2**64 - 1).all(axis=1).tolist()


def sparse_cases(root, rng):
    """Section 8: which chunk files the example writes, against zarr-python."""
    def part(shape):
        return lambda dtype: any_values(dtype, shape, rng)

    def nan_bits(bits, shape):
        return np.full(shape, bits, "<u4").view("<f4")

    # name, dtype, shape, chunks, create_array options, fill value, the regions given
    # values (their own, or random ones), and chunk keys the example writes but
    # zarr-python leaves out.
    cases = [
        # Edge chunks, one of them all fill value; a chunk with one element off by an ulp.
        ("f32", "float32", (10, 13), (4, 5), {}, 1.5,
         [(np.s_[0:4, 0:5], part((4, 5))), (np.s_[8:10, 10:13], part((2, 3))),
          (np.s_[5:6, 7:8], lambda dt: np.nextafter(np.float32(1.5), np.float32(2)))], []),
        # -0.0 is not the fill value 0.0: a chunk of it and a chunk with one of it stay.
        ("zero", "float64", (9, 8), (3, 4),
         {"compressors": None, "filters": [TransposeCodec(order=(1, 0))]}, 0.0,
         [(np.s_[0:3, 0:4], lambda dt: -0.0), (np.s_[4:5, 5:6], lambda dt: -0.0),
          (np.s_[6:9, 0:4], part((3, 4)))], []),
        # A NaN fill value: a chunk of NaN is left out; one of a NaN with a payload is kept
        # by the example (bit for bit) and left out by zarr-python (NaN equals NaN).
        ("nan", "float32", (6, 8), (3, 3), {"compressors": Crc32cCodec()}, float("nan"),
         [(np.s_[0:3, 0:3], lambda dt: np.float32("nan")),
          (np.s_[0:3, 3:6], lambda dt: nan_bits(0x7FC00123, (3, 3))),
          (np.s_[3:6, 6:8], part((3, 2)))], ["c/0/1"]),
        # Shards: one with an empty inner chunk, one full, an edge shard with inner chunks
        # past the edge, and whole shards of only the fill value.
        ("shard", "int16", (10, 12), (2, 3), {"shards": (4, 6), "compressors": Crc32cCodec()}, 7,
         [(np.s_[0:2, 0:3], part((2, 3))), (np.s_[4:8, 6:12], part((4, 6))),
          (np.s_[8:10, 3:6], part((2, 3)))], []),
    ]
    for name, dtype, shape, chunks, options, fill, regions, kept in cases:
        data = np.full(shape, fill, dtype)
        for region, make in regions:
            data[region] = make(dtype)
        paths = {kind: os.path.join(root, f"sparse_{name}.{kind}.zarr")
                 for kind in ("source", "full", "dense", "copy", "copy_full")}

        def create(path, values, write_empty=False):
            arr = zarr.create_array(store=path, shape=shape, chunks=chunks, dtype=dtype,
                                    fill_value=fill, config={"write_empty_chunks": write_empty},
                                    **options)
            arr[...] = values
            return arr

        create(paths["source"], data)
        create(paths["full"], data, write_empty=True)
        create(paths["dense"], any_values(dtype, shape, rng))
        expected = zarr_read(paths["source"])
        theirs = set(chunk_files(paths["source"]))
        every = set(chunk_files(paths["full"]))
        check(len(every) - len(theirs) >= 2, f"sparse {name}: zarr-python left out {every - theirs}")
        example_reads(f"sparse {name}", paths["source"], expected, {"missing"})

        # A dense copy, then over it a copy of zarr-python's copy of every chunk, so that
        # the example finds the fill-only chunks itself: their files go.
        for source in ("dense", "full"):
            out = run([paths[source], "--write", paths["copy"]])
            check(out.returncode == 0, f"sparse {name}: --write from {source} failed: {out.stderr}")
        erased = re.search(r"\((\d+) erased\)", out.stdout)
        want = theirs | set(kept)
        check(erased is not None and int(erased.group(1)) == len(every - want),
              f"sparse {name}: erased: {out.stdout[-300:]}")
        ours = set(chunk_files(paths["copy"]))
        check(ours == want, f"sparse {name}: example wrote {sorted(ours ^ want)} unlike zarr-python")
        check(same(zarr_read(paths["copy"]), data),
              f"sparse {name}: zarr-python reads the example's copy differently")

        # Every chunk with --write-empty-chunks, as zarr-python's write_empty_chunks=True,
        # from the sparse source: its missing chunks are written as the fill value.
        out = run([paths["source"], "--write", paths["copy_full"], "--write-empty-chunks"])
        check(out.returncode == 0, f"sparse {name}: --write-empty-chunks failed: {out.stderr}")
        ours_full = set(chunk_files(paths["copy_full"]))
        check(ours_full == every, f"sparse {name}: --write-empty-chunks wrote {sorted(ours_full ^ every)} "
              f"unlike zarr-python")
        check(same(zarr_read(paths["copy_full"]), expected),
              f"sparse {name}: zarr-python reads the --write-empty-chunks copy differently")

        # The files' contents: chunks byte for byte (decompressed), shards by which inner
        # chunks are empty.
        for copy, reference in [("copy", "source"), ("copy_full", "full")]:
            # The source lost the kept chunks' bits: they are the copy's own.
            for rel in sorted(set(chunk_files(paths[copy])) & set(chunk_files(paths[reference])) - set(kept)):
                if "shards" in options:
                    per_shard = int(np.prod(np.array(options["shards"]) // chunks))
                    a, b = (empty_inner(paths[k], rel, per_shard) for k in (copy, reference))
                    check(a == b, f"sparse {name}: {copy} shard {rel}: empty inner chunks {a} != {b}")
                else:
                    check(stored_bytes(paths[copy], rel) == stored_bytes(paths[reference], rel),
                          f"sparse {name}: {copy} chunk {rel} differs from zarr-python's")


def slice_text(sel):
    """A tuple of slices as --subset reads them: `1:3,:`."""
    return ",".join(f"{'' if r.start is None else r.start}:{'' if r.stop is None else r.stop}"
                    for r in sel)


def touched(sel, shape, chunks):
    """The chunk indices a box of an array of `shape` touches, for chunks of `chunks`."""
    axes = []
    for r, n, c in zip(sel, shape, chunks):
        start, stop, _ = r.indices(n)
        axes.append(range(start // c, -(-stop // c)) if stop > start else range(0))
    return list(itertools.product(*axes))


def chunk_key(index):
    return os.path.join("c", *map(str, index))


def shard_chunks(path, rel, per_shard):
    """A shard's inner chunks (its index at the end, of the default index codecs), each
    decompressed if a zstd frame, or None where its entry is empty."""
    data = open(os.path.join(path, rel), "rb").read()
    n = int(np.prod(per_shard))
    index = np.frombuffer(data[-(16 * n + 4):-4], "<u8").reshape(n, 2)
    out = []
    for offset, length in index.tolist():
        if offset == length == 2**64 - 1:
            out.append(None)
            continue
        chunk = data[offset:offset + length]
        out.append(numcodecs.Zstd().decode(chunk) if chunk[:4] == b"\x28\xb5\x2f\xfd" else chunk)
    return out


def inner_chunks_read(sel, shape, inner, outer, present):
    """How many inner chunks a read of `sel` decodes: those it touches in the shards
    `present`, and all of a shard whose part in the array it holds whole (its inner chunks
    past the array's edge are checked too)."""
    box = [r.indices(n)[:2] for r, n in zip(sel, shape)]
    count = 0
    for index in present:
        region = [(i * s, min((i + 1) * s, n)) for i, s, n in zip(index, outer, shape)]
        if all(b0 <= r0 and r1 <= b1 for (b0, b1), (r0, r1) in zip(box, region)):
            count += int(np.prod([s // c for s, c in zip(outer, inner)]))
        else:
            part = tuple(slice(max(b0, r0), min(b1, r1)) for (b0, b1), (r0, r1) in zip(box, region))
            count += len(touched(part, shape, inner))
    return count


def same_files(name, ours, theirs, per_shard):
    """The example's array `ours` has the chunk files of zarr-python's `theirs`, with the
    same bytes decompressed; for shards, the same inner chunks, empty or not."""
    files = set(chunk_files(ours))
    want = set(chunk_files(theirs))
    check(files == want, f"{name}: chunk files {sorted(files ^ want)} differ from zarr-python's")
    for rel in sorted(files & want):
        if per_shard is None:
            a, b = stored_bytes(ours, rel), stored_bytes(theirs, rel)
        else:
            a, b = shard_chunks(ours, rel, per_shard), shard_chunks(theirs, rel, per_shard)
            empty = ([x is None for x in a], [x is None for x in b])
            check(empty[0] == empty[1], f"{name}: shard {rel}: empty inner chunks {empty[0]} != {empty[1]}")
        check(a == b, f"{name}: chunk {rel} differs from zarr-python's (decompressed)")


def subset_cases(root, rng):
    """Section 9: subsets read and written through --subset and --write-into."""
    t2 = [TransposeCodec(order=(1, 0))]
    # name, dtype, shape, create_array options, regions set to the fill value, chunk
    # keys removed; the source's shape; and writes into copies: (what, the source's
    # selection, where it goes, a chunk key it must leave absent or None).
    kinds = [
        ("edges", "float32", (10, 13), {"chunks": (4, 5), "fill_value": 1.5},
         # Chunk c/0/1 holds data only in its corner [0:2, 5:7]; chunk c/1/1 is missing.
         [np.s_[2:4, 5:10], np.s_[0:2, 7:10]], ["c/1/1"], (7, 9),
         [("the fill value over a chunk's data, in part", np.s_[0:2, 0:2], (0, 5), "c/0/1"),
          ("across chunks, half a chunk off", np.s_[:, :], (2, 2), None),
          ("into a missing chunk in part", np.s_[5:7, 6:9], (5, 6), None),
          ("the fill value over a whole chunk", np.s_[0:4, 0:5], (4, 0), "c/1/0"),
          ("edge chunks", np.s_[1:4, 2:6], (7, 9), None)]),
        ("transpose", "float64", (9, 8),
         {"chunks": (3, 4), "fill_value": -2.5, "filters": t2, "compressors": Crc32cCodec()},
         [np.s_[4:6, 4:8], np.s_[3:4, 6:8]], [], (6, 6),
         [("the fill value over a chunk's data, in part", np.s_[0:1, 0:2], (3, 4), "c/1/1"),
          ("across chunks", np.s_[:, :], (1, 1), None),
          ("edge chunks", np.s_[2:6, 3:6], (5, 5), None),
          ("the fill value over a whole chunk", np.s_[0:3, 0:4], (6, 0), "c/2/0")]),
        # Shard c/0/1 holds data only in inner chunk (0, 0); inner chunk (0, 0) of shard
        # c/1/0 is empty, inner chunk (0, 0) of c/2/0 has data only in its first row;
        # shard c/2/1 is missing.
        ("shard", "int16", (10, 12),
         {"chunks": (2, 3), "shards": (4, 6), "fill_value": 7, "compressors": Crc32cCodec()},
         [np.s_[2:4, 6:12], np.s_[0:2, 9:12], np.s_[4:6, 0:3], np.s_[9:10, 0:3]], ["c/2/1"], (6, 7),
         [("the fill value over a shard's data, in part", np.s_[0:2, 0:3], (0, 6), "c/0/1"),
          ("across shards, into a missing shard", np.s_[:, :], (3, 4), None),
          ("a whole shard", np.s_[2:6, 0:6], (4, 0), None),
          ("an inner chunk left with only the fill value", np.s_[0:1, 0:3], (8, 0), None),
          ("an edge shard whole", np.s_[4:6, 1:7], (8, 6), None)]),
        ("shard_transpose", "float32", (9, 13),
         {"chunks": (2, 3), "shards": (4, 6), "fill_value": -1.0, "filters": t2},
         [np.s_[0:2, 0:3]], [], (6, 7),
         [("edge shards, inner chunks past the edge", np.s_[:, :], (3, 6), None),
          ("half a shard off", np.s_[1:5, 2:5], (2, 3), None)]),
    ]
    for name, dtype, shape, options, fills, removed, src_shape, writes in kinds:
        path = os.path.join(root, f"subset_{name}.zarr")
        arr = zarr.create_array(store=path, shape=shape, dtype=dtype, **options)
        fill = arr.fill_value
        data = any_values(dtype, shape, rng)
        for region in fills:
            data[region] = fill
        arr[...] = data
        for key in removed:
            os.remove(os.path.join(path, *key.split("/")))
        inner, outer = arr.chunks, arr.shards or arr.chunks
        per_shard = None if arr.shards is None else tuple(s // c for s, c in zip(outer, inner))
        expected = zarr_read(path)

        # Reads: every box, its checksum and the chunks (and inner chunks) it touches.
        (n0, n1), (c0, c1), (s0, s1) = shape, inner, outer
        boxes = [
            ("inside one chunk", np.s_[1:c0, 1:c1]),
            ("across chunks", np.s_[c0 - 1:min(n0, 2 * c0 + 1), c1 - 1:min(n1, 2 * c1 + 1)]),
            ("half a chunk off", np.s_[s0 // 2:min(n0, s0 // 2 + s0), s1 // 2:min(n1, s1 // 2 + 2 * s1)]),
            ("edge chunks, open ends", np.s_[n0 - 3:, n1 - 4:]),
            ("open start", np.s_[:3, 2:]),
            ("whole", np.s_[:, :]),
            ("empty", np.s_[2:2, :]),
        ]
        for what, sel in boxes:
            label = f"subset {name} [{slice_text(sel)}] ({what})"
            out = run([path, "--subset", slice_text(sel)])
            check(out.returncode == 0, f"{label}: example failed: {out.stderr}")
            m = re.search(r"checksum\s+(0x[0-9a-f]+)", out.stdout)
            want = fnv1a64(little_endian_bytes(expected[sel]))
            check(m is not None and int(m.group(1), 16) == want, f"{label}: checksum differs from arr[sel]'s")
            m = re.search(r"subset .* of shape \[([0-9, ]*)\]: (\d+) chunks, (\d+) read, (\d+) missing", out.stdout)
            shards = touched(sel, shape, outer)
            present = [k for k in shards if os.path.exists(os.path.join(path, chunk_key(k)))]
            got = m and ([int(x) for x in m.group(1).split(",") if x.strip()], *map(int, m.groups()[1:]))
            check(got == (list(expected[sel].shape), len(shards), len(present), len(shards) - len(present)),
                  f"{label}: shape and chunks read {got}, touched {len(shards)}, present {len(present)}: "
                  f"{out.stdout[:400]}")
            if per_shard is not None:
                want = inner_chunks_read(sel, shape, inner, outer, present)
                m = re.search(r"inner\s+(\d+) inner chunks", out.stdout)
                got = int(m.group(1)) if m else 0
                check(got == want, f"{label}: {got} inner chunks read, not {want}")

        # Only the chunks touched are read: every other chunk file, and in the shards read
        # every other inner chunk, is overwritten with bytes no codec reads. The box is in
        # one row of inner chunks, across a column of shards.
        sel = np.s_[s0 + 1:s0 + 2, s1 - 1:s1 + 1]
        spoilt = os.path.join(root, f"subset_{name}.spoilt.zarr")
        shutil.copytree(path, spoilt)
        keep = set(touched(sel, shape, outer))
        keep_inner = set(touched(sel, shape, inner))
        for rel in chunk_files(spoilt):
            index = tuple(int(k) for k in rel.split(os.sep)[1:])
            file = os.path.join(spoilt, rel)
            if index not in keep:
                open(file, "wb").write(b"\xff" * 40)
            elif per_shard is not None:
                shard = bytearray(open(file, "rb").read())
                n = int(np.prod(per_shard))
                entries = np.frombuffer(bytes(shard[-(16 * n + 4):-4]), "<u8").reshape(n, 2)
                for at, (offset, length) in zip(itertools.product(*map(range, per_shard)), entries.tolist()):
                    global_at = tuple(i * p + a for i, p, a in zip(index, per_shard, at))
                    if offset != 2**64 - 1 and global_at not in keep_inner:
                        shard[offset:offset + length] = b"\xff" * length
                open(file, "wb").write(bytes(shard))
        out = run([spoilt, "--subset", slice_text(sel)])
        m = re.search(r"checksum\s+(0x[0-9a-f]+)", out.stdout)
        check(out.returncode == 0 and m is not None
              and int(m.group(1), 16) == fnv1a64(little_endian_bytes(expected[sel])),
              f"subset {name}: a read of [{slice_text(sel)}] touched a chunk outside it: {out.stderr}")
        # The damage is read where it is asked for: the whole array, and the whole of the
        # first shard touched.
        first = tuple(slice(i * s, min((i + 1) * s, n)) for i, s, n in zip(min(keep), outer, shape))
        for args in [[spoilt]] + ([[spoilt, "--subset", slice_text(first)]] if per_shard else []):
            out = run(args)
            check(out.returncode == 1 and "panicked" not in out.stderr,
                  f"subset {name}: spoilt {args[1:]} read: exit code {out.returncode}")

        # Writes into copies, one after another: the example's and zarr-python's copies
        # must agree after each.
        src = os.path.join(root, f"subset_{name}.src.zarr")
        src_data = any_values(dtype, src_shape, rng)
        src_data[0:4, 0:5] = fill
        zarr.create_array(store=src, shape=src_shape, chunks=(3, 4), dtype=dtype, fill_value=fill)[...] = src_data
        for empty in (False, True):
            tag = ".empty" if empty else ""
            ours, theirs = (os.path.join(root, f"subset_{name}.{who}{tag}.zarr") for who in ("ours", "theirs"))
            shutil.copytree(path, ours)
            shutil.copytree(path, theirs)
            dst = zarr.open_array(theirs, mode="r+", config={"write_empty_chunks": empty})
            for what, sel, at, absent in writes:
                label = f"write into {name}{tag} at {at} ({what})"
                values = src_data[sel]
                region = tuple(slice(a, a + n) for a, n in zip(at, values.shape))
                whole = all(r.start is None and r.stop is None for r in sel)
                args = [src] + ([] if whole else ["--subset", slice_text(sel)])
                args += ["--write-into", ours, "--at", ",".join(map(str, at))]
                out = run(args + (["--write-empty-chunks"] if empty else []))
                check(out.returncode == 0, f"{label}: example failed: {out.stderr}")
                before = set(chunk_files(theirs))
                dst[region] = values
                if absent is not None and not empty:
                    key = os.path.join(*absent.split("/"))
                    check(key in before and key not in chunk_files(theirs),
                          f"{label}: zarr-python did not erase {absent}: the case tests nothing")
                    m = re.search(r"\((\d+) erased\)", out.stdout)
                    check(m is not None and int(m.group(1)) >= 1, f"{label}: nothing erased: {out.stdout[-300:]}")
                same_files(label, ours, theirs, per_shard)
                check(same(zarr_read(ours), zarr_read(theirs)), f"{label}: zarr-python reads the copies differently")
        check(json.load(open(os.path.join(ours, "zarr.json"))) == json.load(open(os.path.join(path, "zarr.json"))),
              f"subset {name}: --write-into changed zarr.json")

    # Bad ranges, origins and data types: a message, never a panic.
    path = os.path.join(root, "subset_edges.zarr")
    other = os.path.join(root, "subset_shard.zarr")
    for args, needles in [
        ([path, "--subset", "0:3"], ["--subset", "1 ranges", "2 axes"]),
        ([path, "--subset", "0:11,:"], ["axis 0", "end 11", "10"]),
        ([path, "--subset", "5:2,:"], ["axis 0", "start 5", "end 2"]),
        ([path, "--subset", "1:x,:"], ["axis 0", '"x"']),
        ([path, "--subset", "3,:"], ["axis 0", "start:end"]),
        ([path, "--subset", "-1:2,:"], ["axis 0", '"-1"']),
        ([path, "--write-into", os.path.join(root, "subset_edges.ours.zarr"), "--at", "4,5"],
         ["--at", "[10, 13]"]),
        ([path, "--write-into", os.path.join(root, "subset_edges.ours.zarr"), "--at", "1"], ["--at"]),
        ([path, "--write-into", other, "--at", "0,0"], ["zarr.json", "data type", "int16", "float32"]),
        ([path, "--write-into", other], ["--at"]),
    ]:
        out = run(args)
        label = f"subset error {' '.join(args[1:])}"
        check(out.returncode == 1 and "panicked" not in out.stderr, f"{label}: exit code {out.returncode}: {out.stderr}")
        for needle in needles:
            check(needle in out.stderr, f"{label}: message lacks {needle!r}: {out.stderr}")


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

    chain_cases(root, rng)
    corrupt_cases(root, rng)
    zstd_frame_cases(root)
    sparse_cases(root, rng)
    subset_cases(root, rng)
    if tensorstore is None:
        print("tensorstore is not installed: its cases are skipped", flush=True)
    else:
        tensorstore_cases(root, rng)
finally:
    if os.environ.get("INTEROP_KEEP"):
        print(f"arrays kept in {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)

check.exit()
