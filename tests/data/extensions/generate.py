#!/usr/bin/env python3
"""Generate `bytes` codec fixtures for Zarr v3 extension data types.

For every case this script

  1. builds the element values from explicit bit patterns, code points and
     byte strings (so NaN payloads, NaT, embedded NULs are exact),
  2. writes a one-chunk Zarr v3 array whose only codec is `bytes` with the
     writer that supports the data type (zarr-python 3.4.x, zarr-python 3.1.x
     for the legacy `structured` form, tensorstore), or, where no writer
     supports the type, computes the chunk and a canonical `zarr.json` itself,
  3. copies the raw chunk file to `<case>.bin` and the writer's `zarr.json`
     verbatim to `<case>.zarr.json`,
  4. checks
       - that the writer reads its own array (and its fill value) back with the
         same bit patterns,
       - that the file equals bytes computed here independently, in plain
         Python, from the values and the stored `data_type`,
       - that decoding the file in plain Python gives the values back, and
         that the big- and little-endian files of a case hold the same values,
  5. writes `manifest.json` describing every case and `minifloat.json`, the
     conversion tables of every ml_dtypes minifloat type.

Requirements (see README.md beside this file for the exact versions):

  - Python 3.12 with zarr 3.4.x, numpy, tensorstore and ml_dtypes,
  - a second Python with zarr 3.1.x and numpy (zarr 3.1 is the last release
    that writes the legacy `structured` data type form by default).

Run:

    python tests/data/extensions/generate.py --legacy-python /path/to/python

(`--legacy-python` defaults to the environment variable ZARR_LEGACY_PYTHON.)
The generated files in this directory (`*.bin`, `*.zarr.json`,
`manifest.json`, `minifloat.json`) are replaced on every run; the output is
deterministic.
"""

from __future__ import annotations

import argparse
import base64
import importlib.metadata
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

OUT_DIR = Path(__file__).resolve().parent
GENERATED_PATTERNS = ("*.bin", "*.zarr.json", "manifest.json", "minifloat.json")

ZARR_PYTHON = "zarr-python"
ZARR_PYTHON_LEGACY = "zarr-python-3.1"
TENSORSTORE = "tensorstore"
COMPUTED = "generate.py"

WRITER_TAGS = {ZARR_PYTHON: "zp", ZARR_PYTHON_LEGACY: "zp31", TENSORSTORE: "ts", COMPUTED: "computed"}

ENDIANS = ("little", "big")

I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1
NAT = I64_MIN

MINIFLOATS = {
    # name: bits
    "float8_e3m4": 8,
    "float8_e4m3": 8,
    "float8_e4m3fn": 8,
    "float8_e4m3fnuz": 8,
    "float8_e4m3b11fnuz": 8,
    "float8_e5m2": 8,
    "float8_e5m2fnuz": 8,
    "float8_e8m0fnu": 8,
    "float6_e2m3fn": 6,
    "float6_e3m2fn": 6,
    "float4_e2m1fn": 4,
}
SUBBYTE_INTS = {"int2": (2, True), "int4": (4, True), "uint2": (2, False), "uint4": (4, False)}
CORE_INTS = {f"{p}int{b}": (b // 8, p == "") for p in ("", "u") for b in (8, 16, 32, 64)}
CORE_FLOATS = {"float16": 2, "float32": 4, "float64": 8, "bfloat16": 2}
COMPLEX = {"complex64": 4, "complex128": 8, "complex_float16": 2, "complex_bfloat16": 2}
FLOAT_OF_COMPLEX = {"complex64": "float32", "complex128": "float64",
                    "complex_float16": "float16", "complex_bfloat16": "bfloat16"}


def mld():
    """ml_dtypes, imported lazily (the zarr 3.1 helper process does not need it)."""
    import ml_dtypes

    return ml_dtypes


# --------------------------------------------------------------------------
# Data types, parsed from the data_type JSON (independent of the writers)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class T:
    """A Zarr data type as far as the `bytes` codec and the values care.

    kind: "bool", "int", "subint", "float", "complex", "minifloat",
          "time", "utf32", "ntbytes", "raw", "struct"
    size: bytes per element
    """

    kind: str
    size: int
    name: str
    signed: bool = False
    bits: int = 0  # subint / minifloat: number of value bits
    comp: int = 0  # float / complex: bytes per component
    length: int = 0  # utf32: characters; ntbytes/raw: bytes
    fields: tuple = ()  # struct: ((name, T), ...)


def parse_type(dt) -> T:
    if isinstance(dt, str):
        if dt == "bool":
            return T("bool", 1, dt)
        if dt in CORE_INTS:
            size, signed = CORE_INTS[dt]
            return T("int", size, dt, signed=signed)
        if dt in SUBBYTE_INTS:
            bits, signed = SUBBYTE_INTS[dt]
            return T("subint", 1, dt, signed=signed, bits=bits)
        if dt in CORE_FLOATS:
            return T("float", CORE_FLOATS[dt], dt, comp=CORE_FLOATS[dt])
        if dt in COMPLEX:
            return T("complex", 2 * COMPLEX[dt], dt, comp=COMPLEX[dt])
        if dt in MINIFLOATS:
            return T("minifloat", 1, dt, bits=MINIFLOATS[dt])
        raise ValueError(f"unknown data type {dt!r}")
    name, conf = dt["name"], dt.get("configuration", {})
    if name in ("numpy.datetime64", "numpy.timedelta64"):
        assert set(conf) == {"unit", "scale_factor"}, dt
        return T("time", 8, name, signed=True)
    if name == "fixed_length_utf32":
        assert conf["length_bytes"] % 4 == 0
        return T("utf32", conf["length_bytes"], name, length=conf["length_bytes"] // 4)
    if name == "null_terminated_bytes":
        return T("ntbytes", conf["length_bytes"], name, length=conf["length_bytes"])
    if name == "raw_bytes":
        return T("raw", conf["length_bytes"], name, length=conf["length_bytes"])
    if name in ("struct", "structured"):
        fields = []
        for f in conf["fields"]:
            if name == "struct":
                assert isinstance(f, dict) and set(f) == {"name", "data_type"}, f
                fields.append((f["name"], parse_type(f["data_type"])))
            else:  # legacy form: [name, data_type]
                assert isinstance(f, list) and len(f) == 2, f
                fields.append((f[0], parse_type(f[1])))
        return T("struct", sum(t.size for _, t in fields), name, fields=tuple(fields))
    raise ValueError(f"unknown data type {dt!r}")


def codec_endian(codecs: list) -> str | None:
    assert len(codecs) == 1 and codecs[0]["name"] == "bytes", codecs
    return codecs[0].get("configuration", {}).get("endian")


# --------------------------------------------------------------------------
# Values: plain-Python encode / decode (the independent reference)
#
# Element representation ("values" in the manifest):
#   bool -> true/false; int*/uint*/int2/int4/uint2/uint4 -> the integer;
#   float16/32/64, bfloat16 -> unsigned bit pattern; complex -> [re, im]
#   bit patterns; minifloats -> the code (low bits); datetime/timedelta ->
#   the int64 (NaT = -2**63); fixed_length_utf32 -> str as numpy gives it
#   back (trailing NULs stripped); null_terminated_bytes -> base64 of the
#   bytes numpy gives back (trailing NULs stripped); raw_bytes -> base64 of
#   all bytes; struct -> {field: element}.
# A case's "values" is column form for structs ({field: [elements]},
# recursively) and a flat list (C order) otherwise.
# --------------------------------------------------------------------------


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def encode_element(t: T, v, endian: str) -> bytes:
    if t.kind == "bool":
        assert v in (True, False)
        return bytes([1 if v else 0])
    if t.kind in ("int", "time"):
        return v.to_bytes(t.size, endian, signed=t.signed)
    if t.kind == "subint":
        lo, hi = (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if t.signed else (0, (1 << t.bits) - 1)
        assert lo <= v <= hi, (t, v)
        return bytes([v & ((1 << t.bits) - 1)])  # upper bits zero
    if t.kind == "minifloat":
        assert 0 <= v < (1 << t.bits), (t, v)
        return bytes([v])
    if t.kind == "float":
        return v.to_bytes(t.comp, endian)
    if t.kind == "complex":
        re, im = v
        return re.to_bytes(t.comp, endian) + im.to_bytes(t.comp, endian)
    if t.kind == "utf32":
        cps = [ord(c) for c in v]
        assert len(cps) <= t.length and (not cps or cps[-1] != 0), (t, v)
        cps += [0] * (t.length - len(cps))
        return b"".join(c.to_bytes(4, endian) for c in cps)
    if t.kind == "ntbytes":
        data = unb64(v)
        assert len(data) <= t.length and not data.endswith(b"\0"), (t, v)
        return data + bytes(t.length - len(data))
    if t.kind == "raw":
        data = unb64(v)
        assert len(data) == t.length, (t, v)
        return data
    if t.kind == "struct":
        assert list(v) == [n for n, _ in t.fields], (list(v), t.fields)
        return b"".join(encode_element(ft, v[n], endian) for n, ft in t.fields)
    raise AssertionError(t)


def decode_element(t: T, data: bytes, endian: str):
    assert len(data) == t.size
    if t.kind == "bool":
        assert data[0] in (0, 1), data
        return data[0] == 1
    if t.kind in ("int", "time"):
        return int.from_bytes(data, endian, signed=t.signed)
    if t.kind == "subint":
        low = data[0] & ((1 << t.bits) - 1)  # upper bits are ignored
        if t.signed and low >= 1 << (t.bits - 1):
            low -= 1 << t.bits
        return low
    if t.kind == "minifloat":
        return data[0] & ((1 << t.bits) - 1)
    if t.kind == "float":
        return int.from_bytes(data, endian)
    if t.kind == "complex":
        return [int.from_bytes(data[: t.comp], endian), int.from_bytes(data[t.comp :], endian)]
    if t.kind == "utf32":
        cps = [int.from_bytes(data[i : i + 4], endian) for i in range(0, t.size, 4)]
        while cps and cps[-1] == 0:
            cps.pop()
        return "".join(map(chr, cps))
    if t.kind == "ntbytes":
        return b64(data.rstrip(b"\0"))
    if t.kind == "raw":
        return b64(data)
    if t.kind == "struct":
        out, pos = {}, 0
        for n, ft in t.fields:
            out[n] = decode_element(ft, data[pos : pos + ft.size], endian)
            pos += ft.size
        return out
    raise AssertionError(t)


def count(t: T, values) -> int:
    if t.kind == "struct":
        counts = {count(ft, values[n]) for n, ft in t.fields}
        assert len(counts) == 1, counts
        return counts.pop()
    return len(values)


def element_at(t: T, values, i: int):
    if t.kind == "struct":
        return {n: element_at(ft, values[n], i) for n, ft in t.fields}
    return values[i]


def to_columns(t: T, elements: list):
    if t.kind == "struct":
        return {n: to_columns(ft, [e[n] for e in elements]) for n, ft in t.fields}
    return list(elements)


def encode_chunk(t: T, values, endian: str, overrides: dict | None = None) -> bytes:
    out = bytearray()
    for i in range(count(t, values)):
        if overrides and i in overrides:
            out += bytes([overrides[i]])
        else:
            out += encode_element(t, element_at(t, values, i), endian)
    return bytes(out)


def decode_chunk(t: T, data: bytes, endian: str):
    assert len(data) % t.size == 0
    n = len(data) // t.size
    return to_columns(t, [decode_element(t, data[i * t.size : (i + 1) * t.size], endian) for i in range(n)])


# --------------------------------------------------------------------------
# Fill values: JSON -> element representation (independent of the writers)
# --------------------------------------------------------------------------

FLOAT_NAN = {2: 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}
BF16_NAN = 0x7FC0


def float_bits_from_json(name: str, v) -> int:
    size = CORE_FLOATS[name]
    if isinstance(v, str) and v.startswith("0x"):
        bits = int(v, 16)
        assert bits < 1 << (8 * size)
        return bits
    if v == "NaN":
        return BF16_NAN if name == "bfloat16" else FLOAT_NAN[size]
    x = {"Infinity": math.inf, "-Infinity": -math.inf}.get(v, v)
    assert isinstance(x, (int, float)) and not isinstance(x, bool), v
    if name == "bfloat16":
        bits32 = struct.unpack("<I", struct.pack("<f", x))[0]
        assert bits32 & 0xFFFF == 0, f"{v} is not exact in bfloat16"
        return bits32 >> 16
    fmt = {2: "e", 4: "f", 8: "d"}[size]
    bits = int.from_bytes(struct.pack("<" + fmt, x), "little")
    assert struct.unpack("<" + fmt, bits.to_bytes(size, "little"))[0] == x, f"{v} not exact"
    return bits


def minifloat_code_from_json(name: str, v) -> int:
    if isinstance(v, str) and v.startswith("0x"):
        return int(v, 16)  # as given (tensorstore keeps the upper bits, see README)
    x = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(v, v)
    code = int(np.array([x], np.float32).astype(getattr(mld(), name)).view(np.uint8)[0])
    return code


def fill_from_json(t: T, v):
    if t.kind == "bool":
        assert isinstance(v, bool)
        return v
    if t.kind in ("int", "subint"):
        assert isinstance(v, int) and not isinstance(v, bool)
        return v
    if t.kind == "time":
        return NAT if v == "NaT" else v
    if t.kind == "float":
        return float_bits_from_json(t.name, v)
    if t.kind == "complex":
        fname = FLOAT_OF_COMPLEX[t.name]
        return [float_bits_from_json(fname, v[0]), float_bits_from_json(fname, v[1])]
    if t.kind == "minifloat":
        return minifloat_code_from_json(t.name, v)
    if t.kind == "utf32":
        return v.rstrip("\0")
    if t.kind == "ntbytes":
        return b64(unb64(v).rstrip(b"\0"))
    if t.kind == "raw":
        assert len(unb64(v)) == t.length
        return v
    if t.kind == "struct":
        if isinstance(v, str):
            # base64 of one element; zarr-python reads Zarr v3 struct fill bytes
            # as little-endian (see README)
            return decode_element(t, unb64(v), "little")
        assert set(v) == {n for n, _ in t.fields}, (v, t.fields)
        return {n: fill_from_json(ft, v[n]) for n, ft in t.fields}
    raise AssertionError(t)


# --------------------------------------------------------------------------
# numpy conversions (the writers' side)
# --------------------------------------------------------------------------


def np_float_dtype(name: str) -> np.dtype:
    return np.dtype(mld().bfloat16) if name == "bfloat16" else np.dtype(name)


def to_numpy(t: T, values, dtype: np.dtype) -> np.ndarray:
    """Flat numpy array of `dtype` (native or little byte order) with these values.

    Built with numpy's own constructors (not from encode_chunk), so that the
    writers' files can be compared against the plain-Python encoding."""
    if t.kind == "struct":
        n = count(t, values)
        arr = np.zeros(n, dtype)
        for name, ft in t.fields:
            arr[name] = to_numpy(ft, values[name], dtype.fields[name][0])
        return arr
    if t.kind in ("bool", "int"):
        return np.array(values, dtype)
    if t.kind == "time":
        return np.array(values, np.int64).view(dtype)
    if t.kind == "subint":
        return np.array(values, np.int64).astype(dtype)
    if t.kind == "minifloat":
        return np.array(values, np.uint8).view(dtype)
    if t.kind == "float":
        return np.array(values, f"u{t.comp}").view(dtype)
    if t.kind == "complex":
        return np.array(values, f"u{t.comp}").reshape(-1, 2).view(dtype).reshape(-1)
    if t.kind == "utf32":
        return np.array(values, dtype)
    if t.kind in ("ntbytes", "raw"):
        return np.array([unb64(v) for v in values], dtype)
    raise AssertionError(t)


def from_numpy(t: T, arr: np.ndarray):
    """Element representation of a flat numpy array (e.g. read back by a writer)."""
    arr = np.asarray(arr).reshape(-1)
    if t.kind == "struct":
        return {name: from_numpy(ft, arr[name]) for name, ft in t.fields}
    if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and sys.byteorder == "big"):
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    arr = np.ascontiguousarray(arr)  # struct fields are strided views
    if t.kind == "bool":
        return [bool(x) for x in arr.tolist()]
    if t.kind == "int":
        return [int(x) for x in arr.tolist()]
    if t.kind == "time":
        return arr.view(np.int64).tolist()
    if t.kind == "subint":
        return arr.astype(np.int64).tolist()
    if t.kind == "minifloat":
        return (arr.view(np.uint8) & ((1 << t.bits) - 1)).tolist()
    if t.kind == "float":
        return arr.view(f"u{t.comp}").tolist()
    if t.kind == "complex":
        return arr.view(f"u{t.comp}").reshape(-1, 2).tolist()
    if t.kind == "utf32":
        return [str(x) for x in arr.tolist()]
    if t.kind == "ntbytes":
        return [b64(x) for x in arr.tolist()]
    if t.kind == "raw":
        return [b64(x.tobytes()) for x in arr]
    raise AssertionError(t)


def scalar_of(t: T, element, dtype: np.dtype):
    """numpy scalar for one element (a fill value to hand to a writer)."""
    return to_numpy(t, to_columns(t, [element]), dtype)[0]


# --------------------------------------------------------------------------
# Case values
# --------------------------------------------------------------------------

# int64 counts for numpy.datetime64 / numpy.timedelta64 (shape 3x3)
TIME_VALUES = [NAT, NAT + 1, I64_MAX, -1, 0, 1, 1_700_000_000, -31_536_000, 0x0102030405060708]

# fixed_length_utf32, U5 (shape 3x3): empty, full length, astral, embedded
# NUL, leading NUL, non-ASCII BMP, the largest code point
UTF32_U5 = ["", "a", "hello", "\U0001F600\U0001D11E", "a\x00b", "\u00c5\u00e9\u03a9\u20ac\u4e2d",
            "\x00x", "\U0001F600" * 5, "\U0010FFFF\uFFFD"]
# U2 with fill "😀" (shape 2x3)
UTF32_U2 = ["\U0001F600", "", "\u00e9", "ab", "\x00a", "\U0001D11E\U0001F600"]

# null_terminated_bytes, S6 (shape 3x3)
NTB_S6 = [b"", b"a", b"abcdef", b"a\x00b", b"\x00\x00x", b"\x80\xff\xfe", b"\xff" * 6,
          b"\x01\x02\x03\x04\x05\x06", b"\x00\x00\x00\x00\x00\x01"]
NTB_S4 = [b"a\x00\xff", b"", b"\xfe\xfd\xfc\xfb", b"\x00z"]

# raw_bytes V4 (shape 9x8): the first 64 elements hold every byte value once,
# then trailing / leading zeros
RAW_V4 = [bytes((0x11 + 37 * (4 * e + j)) % 256 for j in range(4)) for e in range(64)] + [
    b"\x00\x00\x00\x00", b"\x01\x00\x00\x00", b"\xff\x00\x00\x00", b"\x00\x00\x00\x01",
    b"\xff\xff\xff\xff", b"\x80\x00\x00\x00", b"ab\x00\x00", b"\x00ab\x00"]
RAW_V1 = [bytes([(0x11 + 37 * e) % 256]) for e in range(256)]

# A struct with every kind of field, including a nested struct (5 elements)
RICH_NUMPY = [("i8", "i1"), ("i32", "<i4"), ("f64", "<f8"), ("c128", "<c16"), ("dt", "<M8[ms]"),
              ("u3", "<U3"), ("s4", "S4"), ("v2", "V2"), ("b", "?"),
              ("nested", [("c", "<c8"), ("u", "<u2")])]
RICH_VALUES = {
    "i8": [-128, 127, -1, 0, 5],
    "i32": [-(1 << 31), (1 << 31) - 1, 0x01020304, -2, 0],
    # quiet NaN with payload, signalling NaN, -0.0, +inf, 1.5
    "f64": [0x7FF8000000000123, 0x7FF0000000000001, 0x8000000000000000, 0x7FF0000000000000,
            0x3FF8000000000000],
    "c128": [[0xFFF8000000000456, 0x8000000000000000], [0x3FF0000000000000, 0xC004000000000000],
             [0x0000000000000001, 0x7FEFFFFFFFFFFFFF], [0, 0], [0x7FF8000000000123, 0x3FF0000000000000]],
    "dt": [NAT, -1, 0, 1_700_000_000_000, I64_MAX],
    "u3": ["\U0001F600", "", "a\x00b", "abc", "\u00e9\U0001D11E"],
    "s4": [b64(x) for x in (b"", b"\xff\x00\x01", b"abcd", b"a\x00b", b"\x80")],
    "v2": [b64(x) for x in (b"\x00\x00", b"\x01\x00", b"\xff\xfe", b"\x00\x01", b"\x12\x34")],
    "b": [True, False, True, False, False],
    "nested": {
        "c": [[0x7FC00123, 0x80000000], [0x7F800001, 0x3F800000], [0, 0], [0xFF800000, 0x00000001],
              [0x3FC00000, 0xC0200000]],
        "u": [0, 65535, 0x0102, 1, 0x8000],
    },
}
# Fill: every field non-zero; the float64 NaN carries a payload (the
# per-field JSON form cannot keep it, the legacy base64 form does)
RICH_FILL = {
    "i8": -3, "i32": 7, "f64": 0x7FF8000000000123, "c128": [0x3FF0000000000000, 0x4000000000000000],
    "dt": NAT, "u3": "x\U0001F600", "s4": b64(b"a\x00b"), "v2": b64(b"\x01\xff"), "b": True,
    "nested": {"c": [0x40400000, 0xBF800000], "u": 65535},
}

SMALL_NUMPY = [("a", "i1"), ("b", "u1"), ("c", "?")]
SMALL_VALUES = {"a": [-128, 127, -1, 0], "b": [0, 255, 1, 128], "c": [True, False, True, False]}

# tensorstore struct: flat, fields of core and tensorstore's named types
TS_STRUCT_FIELDS = [("i8", "int8"), ("i32", "int32"), ("f64", "float64"), ("c64", "complex64"),
                    ("b", "bool"), ("u16", "uint16"), ("bf16", "bfloat16"), ("f8", "float8_e4m3fn"),
                    ("i4", "int4"), ("f4", "float4_e2m1fn")]
TS_STRUCT_VALUES = {
    "i8": [-128, 127, -1, 0, 5],
    "i32": [-(1 << 31), (1 << 31) - 1, 0x01020304, -2, 0],
    "f64": [0x7FF8000000000123, 0x7FF0000000000001, 0x8000000000000000, 0x7FF0000000000000,
            0x3FF8000000000000],
    "c64": [[0x7FC00123, 0x80000000], [0x7F800001, 0x3F800000], [0, 0], [0xFF800000, 0x00000001],
            [0x3FC00000, 0xC0200000]],
    "b": [True, False, True, False, False],
    "u16": [0, 65535, 0x0102, 1, 0x8000],
    "bf16": [0x7FC3, 0x7F81, 0x8000, 0x3F80, 0xFF80],
    "f8": [0x7F, 0xFF, 0x80, 0x38, 0x01],
    "i4": [-8, -1, 0, 7, 3],
    "f4": [0, 15, 8, 7, 1],
}
TS_STRUCT_FILL_JSON = {"i8": -3, "i32": 7, "f64": "NaN", "c64": [1.0, "-Infinity"], "b": True,
                       "u16": 65535, "bf16": 1.5, "f8": "NaN", "i4": -1, "f4": -6.0}
TS_SMALL_FIELDS = [("x", "uint8"), ("y", "bool"), ("z", "float8_e5m2"), ("w", "int4")]
TS_SMALL_VALUES = {"x": [0, 255, 1, 128], "y": [True, False, True, False], "z": [0x7C, 0xFE, 0x80, 0x01],
                   "w": [-8, -1, 0, 7]}

# Fill values tensorstore gets for the minifloat / sub-byte integer cases
TS_FILLS = {
    "int2": -1, "int4": 7, "float8_e3m4": 0.5, "float8_e4m3fn": "NaN", "float8_e4m3fnuz": -0.0,
    "float8_e4m3b11fnuz": "NaN", "float8_e5m2": "-Infinity", "float8_e5m2fnuz": 1.5,
    "float8_e8m0fnu": "NaN", "float4_e2m1fn": 0.5,
}

# Half-precision complex specials (real, imag) bit patterns, 16 elements
F16_SPECIALS = [0x7E23, 0x7C01, 0xFE45, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x0001, 0x03FF, 0x7BFF,
                0xFBFF, 0x3C00, 0xC100]
BF16_SPECIALS = [0x7FC3, 0x7F81, 0xFFC5, 0x8000, 0x0000, 0x7F80, 0xFF80, 0x0001, 0x007F, 0x7F7F,
                 0xFF7F, 0x3F80, 0xC020]


def complex_half_values(specials: list[int], extra: list[list[int]]) -> list[list[int]]:
    n = len(specials)
    return [[specials[i], specials[(i + 3) % n]] for i in range(n)] + extra


COMPLEX_F16_VALUES = complex_half_values(F16_SPECIALS, [[0x3E00, 0xB400], [0x5BF0, 0x0200], [0x3555, 0xC155]])
COMPLEX_BF16_VALUES = complex_half_values(BF16_SPECIALS, [[0x3FC0, 0xBE80], [0x4B80, 0x0040], [0x3EAB, 0xC0A9]])


# --------------------------------------------------------------------------
# Output records
# --------------------------------------------------------------------------


@dataclass
class Written:
    """What one writer produced for one requested endian."""

    zarr_json: bytes
    chunk: bytes
    chunk_key: str
    readback_values: object = None  # element representation, None when not read back
    readback_fill: object = None


@dataclass
class Case:
    base: str  # name without writer tag and endian
    writer: str
    shape: tuple
    values: object  # manifest values (column form for structs)
    results: dict  # requested endian -> Written
    overrides: dict = field(default_factory=dict)  # element index -> stored byte (fill elements)
    fill_readback_known: object = None  # (expected writer fill, reason) when it deviates
    note: str | None = None


def read_single_chunk(path: Path) -> tuple[str, bytes]:
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.name != "zarr.json")
    assert len(files) == 1, f"expected exactly one chunk file in {path}, got {files}"
    return files[0].relative_to(path).as_posix(), files[0].read_bytes()


# --------------------------------------------------------------------------
# zarr-python
# --------------------------------------------------------------------------


def zarr_python_write(t_expected: T | None, dtype, values, shape, fill, endian: str, path: Path) -> Written:
    """One-chunk array with zarr-python; `dtype` is a numpy dtype or a ZDType."""
    import zarr
    from zarr.codecs import BytesCodec

    kw = {} if fill is None else {"fill_value": fill}
    a = zarr.create_array(
        store=str(path), shape=shape, chunks=shape, dtype=dtype,
        serializer=BytesCodec(endian=endian), compressors=None, filters=None,
        zarr_format=3, config={"write_empty_chunks": True}, **kw,
    )
    np_dtype = a.dtype if isinstance(a.dtype, np.dtype) else a.dtype.to_native_dtype()
    meta = json.loads((path / "zarr.json").read_text())
    t = parse_type(meta["data_type"])
    if t_expected is not None:
        assert (t.kind, t.size) == (t_expected.kind, t_expected.size), (t, t_expected)
    a[...] = to_numpy(t, values, np_dtype).reshape(shape)
    key, chunk = read_single_chunk(path)
    back = zarr.open_array(str(path), mode="r")
    return Written((path / "zarr.json").read_bytes(), chunk, key,
                   from_numpy(t, back[...]), element_at(t, from_numpy(t, np.asarray(back.fill_value)), 0))


def zarr_python_cases(tmp: Path) -> list[Case]:
    cases = []

    def run(base, dtype, values, shape, fill_element=None, note=None):
        np_dtype = dtype if isinstance(dtype, np.dtype) else dtype.to_native_dtype()
        results = {}
        for endian in ENDIANS:
            t_probe = type_of_numpy(np_dtype)
            # the fill scalar is built from the same representation as the values
            fill = None if fill_element is None else scalar_of(t_probe, fill_element, np_dtype)
            results[endian] = zarr_python_write(t_probe, dtype, values, shape, fill, endian,
                                                tmp / f"zp_{base}_{endian}")
        cases.append(Case(base, ZARR_PYTHON, shape, values, results, note=note))

    # (unit, fill) per kind; None keeps zarr-python's default fill (NaT)
    time_fills = {"datetime64": [("s", None), ("ns", 0), ("D", 19_000), ("10s", NAT), ("generic", None)],
                  "timedelta64": [("s", None), ("ns", -5), ("D", 1), ("10s", NAT)]}
    for kind, letter in (("datetime64", "M"), ("timedelta64", "m")):
        for unit, fill in time_fills[kind]:
            dtype = np.dtype(f"{letter}8" if unit == "generic" else f"{letter}8[{unit}]")
            run(f"{kind}_{unit}", dtype, TIME_VALUES, (3, 3), fill)

    run("fixed_length_utf32_u5", np.dtype("<U5"), UTF32_U5, (3, 3))
    run("fixed_length_utf32_u2", np.dtype("<U2"), UTF32_U2, (2, 3), "\U0001F600")
    run("null_terminated_bytes_s6", np.dtype("S6"), [b64(x) for x in NTB_S6], (3, 3))
    run("null_terminated_bytes_s4", np.dtype("S4"), [b64(x) for x in NTB_S4], (2, 2), b64(b"a\x00\xff"))
    run("raw_bytes_v4", np.dtype("V4"), [b64(x) for x in RAW_V4], (9, 8), b64(b"\x01\x00\xff\x80"))
    run("raw_bytes_v1", np.dtype("V1"), [b64(x) for x in RAW_V1], (16, 16))
    run("struct_rich", np.dtype(RICH_NUMPY), RICH_VALUES, (5,), RICH_FILL)
    run("struct_small", np.dtype(SMALL_NUMPY), SMALL_VALUES, (4,))

    # The legacy `structured` data type class still exists in zarr-python 3.4
    # (it reads and writes the `[name, data_type]` field form); it is not
    # registered for numpy structured dtypes, so it is passed explicitly.
    from zarr.core.dtype import Structured

    run("structured_rich", Structured.from_native_dtype(np.dtype(RICH_NUMPY)), RICH_VALUES, (5,), RICH_FILL,
        note="written with the zarr.core.dtype.Structured class (legacy form) passed as dtype")
    return cases


def type_of_numpy(dtype: np.dtype) -> T:
    """T for a numpy dtype as zarr-python maps it (used only for fill scalars)."""
    if dtype.names is not None:
        return T("struct", dtype.itemsize, "struct",
                 fields=tuple((n, type_of_numpy(dtype.fields[n][0])) for n in dtype.names))
    k = dtype.kind
    if k == "b":
        return T("bool", 1, "bool")
    if k in "iu":
        return parse_type(f"{'u' if k == 'u' else ''}int{8 * dtype.itemsize}")
    if k == "f":
        return parse_type(f"float{8 * dtype.itemsize}")
    if k == "c":
        return parse_type(f"complex{8 * dtype.itemsize}")
    if k in "Mm":
        return T("time", 8, "numpy.datetime64" if k == "M" else "numpy.timedelta64", signed=True)
    if k == "U":
        return T("utf32", dtype.itemsize, "fixed_length_utf32", length=dtype.itemsize // 4)
    if k == "S":
        return T("ntbytes", dtype.itemsize, "null_terminated_bytes", length=dtype.itemsize)
    if k == "V":
        return T("raw", dtype.itemsize, "raw_bytes", length=dtype.itemsize)
    raise AssertionError(dtype)


def zarr_python_refusals() -> dict:
    """What zarr-python 3.4 says for ml_dtypes dtypes and their names."""
    import zarr

    out = {}
    for name in ("int2", "int4", "uint2", "uint4", "bfloat16", *MINIFLOATS):
        try:
            zarr.create_array(store={}, shape=(2,), dtype=np.dtype(getattr(mld(), name)), zarr_format=3)
            out[name] = "accepted"
        except Exception as e:  # noqa: BLE001 - the message is the record
            out[name] = f"{type(e).__name__}: {e}"
    return out


# --------------------------------------------------------------------------
# zarr-python 3.1 (legacy `structured` form), run in a second interpreter
# --------------------------------------------------------------------------


def legacy_worker(out: Path) -> None:
    """Runs under zarr 3.1.x: write the rich struct for both endians."""
    import zarr
    from zarr.codecs import BytesCodec

    warnings.simplefilter("ignore")
    np_dtype = np.dtype(RICH_NUMPY)
    t = type_of_numpy(np_dtype)
    result = {"versions": {"python": sys.version.split()[0], "zarr": importlib.metadata.version("zarr"),
                           "numpy": importlib.metadata.version("numpy")}, "written": {}}
    for endian in ENDIANS:
        path = out / endian
        w = zarr_python_write(None, np_dtype, RICH_VALUES, (5,), scalar_of(t, RICH_FILL, np_dtype), endian, path)
        result["written"][endian] = {"chunk_key": w.chunk_key, "readback_values": w.readback_values,
                                     "readback_fill": w.readback_fill}
    # Not a fixture: what zarr 3.1 does with a numpy struct in big-endian byte order
    be = np.dtype([("a", ">i4"), ("b", ">u2")])
    a = zarr.create_array(store=str(out / "be"), shape=(1,), chunks=(1,), dtype=be,
                          serializer=BytesCodec(endian="big"), compressors=None, filters=None, zarr_format=3)
    a[...] = np.array([(0x01020304, 0x0506)], be)
    meta = json.loads((out / "be" / "zarr.json").read_text())
    back = zarr.open_array(str(out / "be"), mode="r")[...]
    result["big_endian_numpy_struct"] = {
        "numpy dtype": str(be), "written": "(0x01020304, 0x0506)", "requested endian": "big",
        "codecs": meta["codecs"], "chunk": read_single_chunk(out / "be")[1].hex(),
        "read back": f"({int(back['a'][0]):#010x}, {int(back['b'][0]):#06x})",
    }
    print(json.dumps(result))


def zarr_python_legacy_cases(tmp: Path, python: str) -> tuple[list[Case], dict]:
    out = tmp / "zp31"
    out.mkdir()
    proc = subprocess.run([python, str(Path(__file__).resolve()), "--zarr31-worker", str(out)],
                          check=True, capture_output=True, text=True)
    result = json.loads(proc.stdout)
    versions = result["versions"]
    assert versions["zarr"].startswith("3.1."), versions
    results = {}
    for endian in ENDIANS:
        info = result["written"][endian]
        key, chunk = read_single_chunk(out / endian)
        assert key == info["chunk_key"]
        results[endian] = Written((out / endian / "zarr.json").read_bytes(), chunk, key,
                                  info["readback_values"], info["readback_fill"])
        # zarr-python 3.4 reads the legacy array the same (it assumes little
        # endian for a struct whose bytes codec has no configuration)
        import zarr

        t = parse_type(json.loads(results[endian].zarr_json)["data_type"])
        back = zarr.open_array(str(out / endian), mode="r")
        assert from_numpy(t, back[...]) == info["readback_values"], "zarr 3.4 reads the 3.1 file differently"
        assert element_at(t, from_numpy(t, np.asarray(back.fill_value)), 0) == info["readback_fill"]
    versions["observed"] = {"big_endian_numpy_struct": result["big_endian_numpy_struct"]}
    return [Case("structured_rich", ZARR_PYTHON_LEGACY, (5,), RICH_VALUES, results)], versions


# --------------------------------------------------------------------------
# tensorstore
# --------------------------------------------------------------------------


def ts_open(path: Path, **kw):
    import tensorstore as ts

    return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}, **kw}).result()


def tensorstore_write(data_type, shape, fill_json, endian, path: Path, fields_values=None, values=None,
                      written=None) -> Written:
    """One-chunk array with tensorstore.

    For a struct, `fields_values` maps field name -> flat values and every
    field is opened and written on its own (tensorstore exposes struct fields
    one at a time).  `written` limits the write to the first elements, so
    the rest of the chunk holds tensorstore's fill bytes."""
    metadata = {
        "shape": list(shape), "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(shape)}},
        "codecs": [{"name": "bytes", "configuration": {"endian": endian}}],
    }
    if fill_json is not None:
        metadata["fill_value"] = fill_json
    t = parse_type(data_type)
    common = {"store_data_equal_to_fill_value": True}
    if t.kind == "struct":
        first = t.fields[0][0]
        ts_open(path, metadata=metadata, create=True, field=first, **common)
        for name, ft in t.fields:
            arr = to_numpy(ft, fields_values[name], ts_dtype(ft)).reshape(shape)
            ts_open(path, field=name, **common).write(arr).result()
        back = {name: from_numpy(ft, ts_open(path, field=name).read().result()) for name, ft in t.fields}
        fill = {name: from_numpy(ft, np.asarray(ts_open(path, field=name).fill_value))[0]
                for name, ft in t.fields}
    else:
        store = ts_open(path, metadata=metadata, create=True, **common)
        arr = to_numpy(t, values, ts_dtype(t))
        if written is None:
            store.write(arr.reshape(shape)).result()
        else:
            assert len(shape) == 1
            store[:written].write(arr[:written]).result()
        reopened = ts_open(path)
        back = from_numpy(t, reopened.read().result())
        fill = from_numpy(t, np.asarray(reopened.fill_value))[0]
    key, chunk = read_single_chunk(path)
    return Written((path / "zarr.json").read_bytes(), chunk, key, back, fill)


def ts_dtype(t: T) -> np.dtype:
    if t.kind in ("subint", "minifloat"):
        return np.dtype(getattr(mld(), t.name))
    if t.kind == "float":
        return np_float_dtype(t.name)
    if t.kind == "complex":
        return np.dtype(t.name)
    if t.kind == "bool":
        return np.dtype(bool)
    if t.kind == "int":
        return np.dtype(t.name)
    raise AssertionError(t)


def tensorstore_cases(tmp: Path) -> list[Case]:
    cases = []

    def run(base, data_type, shape, fill_json, values=None, fields_values=None, written=None,
            overrides=None, fill_readback_known=None, note=None):
        results = {e: tensorstore_write(data_type, shape, fill_json, e, tmp / f"ts_{base}_{e}",
                                        fields_values=fields_values, values=values, written=written)
                   for e in ENDIANS}
        cases.append(Case(base, TENSORSTORE, shape, values if values is not None else fields_values, results,
                          overrides=overrides or {}, fill_readback_known=fill_readback_known, note=note))

    run("int2", "int2", (4,), TS_FILLS["int2"], values=[-2, -1, 0, 1])
    run("int4", "int4", (4, 4), TS_FILLS["int4"], values=list(range(-8, 8)))
    for name, bits in MINIFLOATS.items():
        if name not in TS_FILLS:
            continue
        shape = (16, 16) if bits == 8 else (4, 4)
        run(name, name, shape, TS_FILLS[name], values=list(range(1 << bits)))

    # Partly written chunks: the unwritten elements hold tensorstore's fill
    # byte, which keeps upper bits that numpy/ml_dtypes values never have.
    run("int2_fill", "int2", (4,), -2, values=[1, -2, -2, -2], written=1, overrides={1: 0xFE, 2: 0xFE, 3: 0xFE},
        note="only element 0 written; the fill -2 is stored sign-extended as 0xfe")
    run("int4_fill", "int4", (4,), -1, values=[7, -8, -1, -1], written=2, overrides={2: 0xFF, 3: 0xFF},
        note="elements 0-1 written; the fill -1 is stored sign-extended as 0xff, a written -1 as 0x0f")
    run("float4_e2m1fn_fill", "float4_e2m1fn", (4,), "0xff", values=[1, 9, 15, 15], written=2,
        overrides={2: 0xFF, 3: 0xFF},
        note='fill_value "0xff" is stored in zarr.json as -6.0 but the fill elements are written as 0xff')
    run("float8_e4m3fn_fill", "float8_e4m3fn", (4,), "0xff", values=[0x38, 0x7F, 0xFF, 0xFF], written=2,
        note='fill_value "0xff" (negative NaN) is kept as a hex string')
    e8m0_ts_code = 0x3E
    run("float8_e8m0fnu_fill", "float8_e8m0fnu", (4,), 0.5, values=[0x7F, 0x7E, e8m0_ts_code, e8m0_ts_code],
        written=2, fill_readback_known=(e8m0_ts_code, "tensorstore's own float8_e8m0fnu conversion"),
        note="tensorstore converts the fill 0.5 to code 0x3e (its conversion is 2**(code-63), not "
             "2**(code-127)); elements 0-1 (codes 0x7f = 1.0 and 0x7e = 0.5) written from ml_dtypes")

    struct_type = {"name": "struct", "configuration": {"fields": [{"name": n, "data_type": d}
                                                                  for n, d in TS_STRUCT_FIELDS]}}
    run("struct", struct_type, (5,), TS_STRUCT_FILL_JSON, fields_values=TS_STRUCT_VALUES)
    small_type = {"name": "struct", "configuration": {"fields": [{"name": n, "data_type": d}
                                                                 for n, d in TS_SMALL_FIELDS]}}
    run("struct_small", small_type, (4,), None, fields_values=TS_SMALL_VALUES)
    return cases


def tensorstore_fill_observations(tmp: Path) -> list:
    """How tensorstore stores and converts some fill values (not fixtures)."""
    trials = [("float4_e2m1fn", "NaN"), ("float4_e2m1fn", "Infinity"), ("float4_e2m1fn", 100),
              ("float4_e2m1fn", "0xff"), ("float8_e4m3fn", "Infinity"), ("float8_e4m3fn", "0x7f"),
              ("float8_e4m3fn", "0xff"), ("float8_e4m3fnuz", -0.0), ("float8_e5m2fnuz", "-Infinity"),
              ("float8_e5m2", "0x7e"), ("float8_e8m0fnu", 0.5), ("float8_e8m0fnu", 1.0),
              ("float8_e8m0fnu", 2.0), ("int4", -1), ("int4", 8), ("int2", -2)]
    out = []
    for i, (dt, fill) in enumerate(trials):
        path = tmp / f"ts_fill_{i}"
        rec = {"data_type": dt, "fill_value given": fill}
        try:
            t = ts_open(path, create=True, metadata={"shape": [1], "data_type": dt, "fill_value": fill,
                                                     "codecs": [{"name": "bytes"}]})
        except Exception as e:  # noqa: BLE001 - the message is the record
            rec["refused"] = re.sub(r'Error parsing object member "\w+": ', "", str(e).split(" [tensorstore_spec=")[0])
            out.append(rec)
            continue
        rec["fill_value stored"] = json.loads((path / "zarr.json").read_text())["fill_value"]
        rec["fill byte"] = int(np.asarray(t.fill_value).reshape(1).view(np.uint8)[0])
        rec["ml_dtypes code"] = (minifloat_code_from_json(dt, fill) if dt in MINIFLOATS else
                                 int(np.array([fill]).astype(getattr(mld(), dt)).view(np.uint8)[0]))
        out.append(rec)
    return out


def tensorstore_e8m0_cast() -> list:
    """tensorstore's own float8_e8m0fnu -> float32 conversion next to ml_dtypes'."""
    import tensorstore as ts

    codes = np.array([0, 1, 62, 63, 64, 126, 127, 128, 190, 191, 192, 254, 255], np.uint8)
    arr = codes.view(mld().float8_e8m0fnu)
    by_ts = ts.cast(ts.array(arr), ts.float32).read().result()
    by_ml = arr.astype(np.float32)
    return [{"code": int(c), "tensorstore": repr(float(a)), "ml_dtypes": repr(float(b))}
            for c, a, b in zip(codes, by_ts, by_ml)]


def tensorstore_refusals() -> dict:
    import tensorstore as ts

    out = {}
    trials = [(n, n) for n in ("uint2", "uint4", "float8_e4m3", "float6_e2m3fn", "float6_e3m2fn",
                               "complex_float16", "complex_bfloat16")]
    trials += [
        ("numpy.datetime64", {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}}),
        ("nested struct", {"name": "struct", "configuration": {"fields": [
            {"name": "a", "data_type": {"name": "struct", "configuration": {
                "fields": [{"name": "b", "data_type": "int8"}]}}}]}}),
    ]
    trials += [("struct with a base64 fill_value",
                {"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "int8"},
                                                                 {"name": "b", "data_type": "int16"}]}}, "AQID")]
    for label, dt, *fill in trials:
        spec = {"driver": "zarr3", "kvstore": {"driver": "memory"}, "create": True,
                "metadata": {"shape": [2], "data_type": dt}}
        if fill:
            spec["metadata"]["fill_value"] = fill[0]
        try:
            ts.open(spec).result()
            out[label] = "accepted"
        except Exception as e:  # noqa: BLE001 - the message is the record
            msg = str(e).split(" [tensorstore_spec=")[0]
            msg = re.sub(r'Error parsing (object member "\w+"|value at position \d+): ', "", msg)
            if " data type is not one of the supported data types: " in msg:
                msg, supported = msg.split(": ", 1)
                out["supported data types"] = supported
            out[label] = msg
    return out


# --------------------------------------------------------------------------
# Computed cases (no writer supports the type)
# --------------------------------------------------------------------------


def computed_zarr_json(data_type, shape, fill_json, endian: str | None) -> bytes:
    codec = {"name": "bytes"}
    if endian is not None:
        codec["configuration"] = {"endian": endian}
    meta = {
        "zarr_format": 3,
        "node_type": "array",
        "shape": list(shape),
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(shape)}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill_json,
        "codecs": [codec],
        "attributes": {},
    }
    return (json.dumps(meta, indent=2) + "\n").encode()


def numpy_reference_chunk(t: T, values, endian: str) -> bytes:
    """The same chunk computed through numpy / ml_dtypes (cross-check)."""
    bo = "<" if endian == "little" else ">"
    if t.kind == "subint":
        return np.array(values, np.int64).astype(getattr(mld(), t.name)).view(np.uint8).tobytes()
    if t.kind == "minifloat":
        codes = np.array(values, np.uint8)
        # every non-NaN code survives a round trip through float32
        ml = getattr(mld(), t.name)
        f = codes.view(ml).astype(np.float32)
        ok = ~np.isnan(f)
        assert (f[ok].astype(ml).view(np.uint8) == codes[ok]).all(), t.name
        return codes.tobytes()
    if t.kind == "complex":
        parts = np.array(values, np.uint16).reshape(-1)
        if t.name == "complex_float16":
            return parts.view(np.float16).astype(bo + "f2").tobytes()
        f32 = parts.view(mld().bfloat16).astype(np.float32).view(np.uint32)
        return (f32 >> 16).astype(bo + "u2").tobytes()
    raise AssertionError(t)


def computed_cases() -> list[Case]:
    cases = []

    def run(base, data_type, shape, fill_json, values, endians):
        t = parse_type(data_type)
        results = {}
        for requested in ENDIANS:
            endian = requested if endians else None
            chunk = encode_chunk(t, values, requested)
            assert chunk == numpy_reference_chunk(t, values, requested), base
            zj = computed_zarr_json(data_type, shape, fill_json, endian)
            results[requested] = Written(zj, chunk, "c/0" + "/0" * (len(shape) - 1))
        cases.append(Case(base, COMPUTED, shape, values, results))

    run("uint2", "uint2", (4,), 3, [0, 1, 2, 3], False)
    run("uint4", "uint4", (4, 4), 15, list(range(16)), False)
    run("float8_e4m3", "float8_e4m3", (16, 16), "-Infinity", list(range(256)), False)
    run("float6_e2m3fn", "float6_e2m3fn", (8, 8), 0.5, list(range(64)), False)
    run("float6_e3m2fn", "float6_e3m2fn", (8, 8), -28.0, list(range(64)), False)
    run("complex_float16", "complex_float16", (4, 4), [0.5, "NaN"], COMPLEX_F16_VALUES, True)
    run("complex_bfloat16", "complex_bfloat16", (4, 4), ["-Infinity", 1.5], COMPLEX_BF16_VALUES, True)
    return cases


# --------------------------------------------------------------------------
# Checks and manifest records
# --------------------------------------------------------------------------


def finish_case(case: Case) -> list[tuple[dict, bytes, bytes]]:
    """Check one case and return (manifest record, chunk, zarr.json) per file."""
    tag = WRITER_TAGS[case.writer]
    per_endian = {}
    for requested, w in case.results.items():
        meta = json.loads(w.zarr_json)
        t = parse_type(meta["data_type"])
        stored = codec_endian(meta["codecs"])
        enc_endian = stored or "little"
        n = count(t, case.values)
        assert n == math.prod(case.shape) and meta["shape"] == list(case.shape), case.base
        # 1. the file equals the plain-Python encoding of the values
        expected = encode_chunk(t, case.values, enc_endian, case.overrides)
        assert w.chunk == expected, f"{case.base} {requested}: {w.chunk.hex()} != {expected.hex()}"
        # 2. decoding the file gives the values
        assert decode_chunk(t, w.chunk, enc_endian) == case.values, case.base
        # 3. the writer read its own array back unchanged
        if w.readback_values is not None:
            assert w.readback_values == case.values, f"{case.base} {requested}: read-back differs"
        # 4. the writer's fill value is what the JSON says
        fill = fill_from_json(t, meta["fill_value"])
        if w.readback_fill is not None:
            if case.fill_readback_known is not None:
                known, _ = case.fill_readback_known
                assert w.readback_fill == known != fill, (case.base, w.readback_fill, fill)
            else:
                assert w.readback_fill == fill, f"{case.base}: fill {w.readback_fill} != {fill}"
        per_endian[requested] = (meta, t, stored, fill, w)

    metas = {r: v[0] for r, v in per_endian.items()}
    dropped = all(v[2] is None for v in per_endian.values())
    if dropped:
        # The writer stored `bytes` without configuration for both requested
        # endians: one file, and both requests must have produced the same.
        (a, b) = (per_endian["little"][4], per_endian["big"][4])
        assert a.chunk == b.chunk and a.zarr_json == b.zarr_json, case.base
        keep = {"little": per_endian["little"]}
    else:
        assert {v[2] for v in per_endian.values()} == set(ENDIANS), case.base
        keep = per_endian
        assert metas["little"]["fill_value"] == metas["big"]["fill_value"]

    out = []
    for requested, (meta, t, stored, fill, w) in keep.items():
        name = f"{tag}_{case.base}" + (f"_{stored}" if stored else "")
        notes = []
        if dropped and case.writer != COMPUTED:
            notes.append('endian "little" and "big" requested; the writer stored the bytes codec '
                         "without configuration for both (identical files)")
        if case.note:
            notes.append(case.note)
        record = {
            "name": name,
            "writer": case.writer,
            "data_type": meta["data_type"],
            "fill_value": meta["fill_value"],
            "fill": fill,
            "endian": stored,
            "shape": list(case.shape),
            "values": case.values,
            "route": "computed" if case.writer == COMPUTED else "array",
            "codecs": meta["codecs"],
            "chunk_key": w.chunk_key,
        }
        if notes:
            record["note"] = "; ".join(notes)
        out.append((record, w.chunk, w.zarr_json))
    return out


# --------------------------------------------------------------------------
# minifloat.json
# --------------------------------------------------------------------------


def f32_bits(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


def f32_from_bits(b: int) -> np.float32:
    return np.array([b], np.uint32).view(np.float32)[0]


def minifloat_table(name: str, bits: int) -> dict:
    ml = getattr(mld(), name)
    codes = np.arange(1 << bits, dtype=np.uint16).astype(np.uint8)
    to_f32 = codes.view(ml).astype(np.float32).view(np.uint32)

    inputs = set(int(b) for b in to_f32)  # every representable value (and the NaN codes)
    finite = sorted({float(f32_from_bits(int(b))) for b in to_f32
                     if np.isfinite(f32_from_bits(int(b)))})
    # -0.0 and 0.0 compare equal: the set keeps one; both are added below
    pos = [x for x in finite if x > 0]
    max_f, min_sub = max(finite), min(pos)
    ladder = finite  # sorted distinct finite values
    for lo, hi in zip(ladder, ladder[1:]):
        mid = (lo + hi) / 2
        m32 = np.float32(mid)
        assert float(m32) == mid, (name, lo, hi)  # midpoints are exact in float32
        inputs.add(f32_bits(mid))
        inputs.add(f32_bits(np.nextafter(m32, np.float32(np.inf))))
        inputs.add(f32_bits(np.nextafter(m32, np.float32(-np.inf))))
    # beyond the largest finite value: the overflow tie point (half a step
    # above max), around it, and far beyond
    step = max_f - ladder[-2]
    over = [max_f + step / 2, max_f + step, 2 * max_f, 1e30, float(np.finfo(np.float32).max)]
    for x in over:
        x32 = np.float32(x)
        for v in (x32, np.nextafter(x32, np.float32(np.inf)), np.nextafter(x32, np.float32(-np.inf))):
            inputs.add(f32_bits(v))
            inputs.add(f32_bits(-v))
    # tiny: around half the smallest positive value, and float32's own tiny values
    for x in (min_sub / 2, min_sub / 4, min_sub * 0.75, 2.0 ** -149, 2.0 ** -126):
        x32 = np.float32(x)
        for v in (x32, np.nextafter(x32, np.float32(np.inf)), np.nextafter(x32, np.float32(0))):
            inputs.add(f32_bits(v))
            inputs.add(f32_bits(-v))
    # signed zeros, infinities, NaNs (quiet, negative, signalling, payload), a few plain values
    inputs.update([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                   0x7FC00123, f32_bits(1.0), f32_bits(-1.0), f32_bits(3.0), f32_bits(-0.5)])

    def order(b):
        x = float(f32_from_bits(b))
        return (math.isnan(x), 0.0 if math.isnan(x) else x, b)

    ins = sorted(inputs, key=order)
    out_codes = np.array(ins, np.uint32).view(np.float32).astype(ml).view(np.uint8)
    assert (out_codes < (1 << bits)).all(), name  # ml_dtypes keeps the upper bits zero
    assert (to_f32.view(np.float32).astype(ml).view(np.uint8)[~np.isnan(to_f32.view(np.float32))]
            == codes[~np.isnan(to_f32.view(np.float32))]).all(), name
    return {"bits": bits, "to_f32": [int(x) for x in to_f32],
            "from_f32": [[int(b), int(c)] for b, c in zip(ins, out_codes)]}


def write_minifloat_json() -> None:
    parts = []
    for name, bits in MINIFLOATS.items():
        parts.append(f"{json.dumps(name)}: {json.dumps(minifloat_table(name, bits))}")
    text = "{\n" + ",\n".join(parts) + "\n}\n"
    json.loads(text)
    (OUT_DIR / "minifloat.json").write_text(text)


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def versions(legacy: dict) -> dict:
    pkgs = ("zarr", "numpy", "tensorstore", "ml_dtypes")
    return {"python": sys.version.split()[0], **{p: importlib.metadata.version(p) for p in pkgs},
            "legacy": legacy}


def main(legacy_python: str) -> None:
    warnings.simplefilter("ignore")  # zarr-python warns about extension data types
    for pattern in GENERATED_PATTERNS:
        for p in OUT_DIR.glob(pattern):
            p.unlink()

    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        cases = zarr_python_cases(tmp)
        legacy_cases, legacy_versions = zarr_python_legacy_cases(tmp, legacy_python)
        cases += legacy_cases
        cases += tensorstore_cases(tmp)
        cases += computed_cases()

        records = []
        names = set()
        for case in cases:
            for record, chunk, zarr_json in finish_case(case):
                assert record["name"] not in names, record["name"]
                names.add(record["name"])
                (OUT_DIR / f"{record['name']}.bin").write_bytes(chunk)
                (OUT_DIR / f"{record['name']}.zarr.json").write_bytes(zarr_json)
                records.append(record)
                print(f"{record['name']:44s} {record['writer']:16s} {record['endian'] or '-'}")

    # big and little files of one case hold the same values
    by_base = {}
    for r in records:
        if r["endian"] is not None:
            by_base.setdefault(r["name"].rsplit("_", 1)[0], []).append(r)
    for base, rs in by_base.items():
        assert sorted(r["endian"] for r in rs) == ["big", "little"], base
        assert rs[0]["values"] == rs[1]["values"] and rs[0]["fill"] == rs[1]["fill"], base

    observed = {ZARR_PYTHON_LEGACY: legacy_versions.pop("observed")}
    with tempfile.TemporaryDirectory() as tmpdir:
        observed[TENSORSTORE] = {"fill_values": tensorstore_fill_observations(Path(tmpdir)),
                                 "float8_e8m0fnu_cast_to_float32": tensorstore_e8m0_cast()}
    generator = versions(legacy_versions)
    refused = {ZARR_PYTHON: zarr_python_refusals(), TENSORSTORE: tensorstore_refusals()}
    lines = ",\n  ".join(json.dumps(r) for r in records)
    text = (f'{{"generator": {json.dumps(generator)},\n "refused": {json.dumps(refused)},\n'
            f' "observed": {json.dumps(observed)},\n "cases": [\n  {lines}\n ]}}\n')
    assert json.loads(text)["cases"] == records
    (OUT_DIR / "manifest.json").write_text(text)

    write_minifloat_json()
    print(f"{len(records)} cases written to {OUT_DIR}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--legacy-python", default=os.environ.get("ZARR_LEGACY_PYTHON"),
                        help="Python interpreter with zarr 3.1.x (default: $ZARR_LEGACY_PYTHON)")
    parser.add_argument("--zarr31-worker", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.zarr31_worker:
        legacy_worker(Path(args.zarr31_worker))
    else:
        if not args.legacy_python:
            parser.error("--legacy-python (or ZARR_LEGACY_PYTHON) is required: a Python with zarr 3.1.x")
        main(args.legacy_python)
