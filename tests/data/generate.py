#!/usr/bin/env python3
"""Generate `bytes` codec chunk fixtures with zarr-python and tensorstore.

For every (data type, endian, shape) case this script

  1. builds the element values from explicit bit patterns (so NaN payloads
     and signalling NaNs are exact),
  2. writes a one-chunk Zarr v3 array whose only codec is
     `{"name": "bytes", "configuration": {"endian": E}}` with each writer,
  3. copies the raw chunk file to `chunks/<case>.<writer>.bin`,
  4. checks those bytes against bytes computed here independently from the
     bit patterns with `int.to_bytes`, checks that the writers agree with each
     other, and checks that each writer reads its own chunk back unchanged,
  5. writes `chunks/manifest.json` describing every case.

Requirements: zarr (3.x), numpy, tensorstore, ml_dtypes.  Run:

    python tests/data/generate.py

The output directory is replaced on every run.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.metadata
import json
import shutil
import struct
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
import tensorstore as ts
import zarr
from zarr.codecs import BytesCodec
from zarr.core.array_spec import ArrayConfig, ArraySpec
from zarr.core.buffer import default_buffer_prototype
from zarr.core.dtype import parse_dtype

OUT_DIR = Path(__file__).resolve().parent / "chunks"

ZARR_PYTHON = "zarr-python"
TENSORSTORE = "tensorstore"

ENDIANS = ("little", "big")
SHAPES = [(), (0,), (3, 0), (7,), (2, 3), (2, 3, 4), (2, 1, 3, 2)]


# --------------------------------------------------------------------------
# Data types
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class DType:
    name: str  # Zarr v3 data type name
    kind: str  # "bool", "int", "uint", "float", "complex" or "raw"
    comp_size: int  # bytes per component (raw: 1, each byte is a component)
    ncomp: int  # components per element
    numpy: np.dtype | None  # native numpy dtype (None for raw bits)

    @property
    def item_size(self) -> int:
        return self.comp_size * self.ncomp


DTYPES = [
    DType("bool", "bool", 1, 1, np.dtype(bool)),
    DType("int8", "int", 1, 1, np.dtype("int8")),
    DType("int16", "int", 2, 1, np.dtype("int16")),
    DType("int32", "int", 4, 1, np.dtype("int32")),
    DType("int64", "int", 8, 1, np.dtype("int64")),
    DType("uint8", "uint", 1, 1, np.dtype("uint8")),
    DType("uint16", "uint", 2, 1, np.dtype("uint16")),
    DType("uint32", "uint", 4, 1, np.dtype("uint32")),
    DType("uint64", "uint", 8, 1, np.dtype("uint64")),
    DType("float16", "float", 2, 1, np.dtype("float16")),
    DType("float32", "float", 4, 1, np.dtype("float32")),
    DType("float64", "float", 8, 1, np.dtype("float64")),
    DType("complex64", "complex", 4, 2, np.dtype("complex64")),
    DType("complex128", "complex", 8, 2, np.dtype("complex128")),
    DType("bfloat16", "float", 2, 1, np.dtype(ml_dtypes.bfloat16)),
    DType("r16", "raw", 1, 2, None),
    DType("r24", "raw", 1, 3, None),
]


# --------------------------------------------------------------------------
# Values (all as unsigned bit patterns)
# --------------------------------------------------------------------------

# Float specials, in this order:
#   quiet NaN with payload, signalling NaN, negative NaN (with payload),
#   -0.0, +0.0, +inf, -inf, smallest subnormal, largest subnormal,
#   max finite, min finite, 1.0, -2.5
FLOAT_SPECIALS = {
    # fmt: off
    8: [0x7FF8000000000123, 0x7FF0000000000001, 0xFFF8000000000456,
        0x8000000000000000, 0x0000000000000000, 0x7FF0000000000000,
        0xFFF0000000000000, 0x0000000000000001, 0x000FFFFFFFFFFFFF,
        0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x3FF0000000000000,
        0xC004000000000000],
    4: [0x7FC00123, 0x7F800001, 0xFFC00456, 0x80000000, 0x00000000,
        0x7F800000, 0xFF800000, 0x00000001, 0x007FFFFF, 0x7F7FFFFF,
        0xFF7FFFFF, 0x3F800000, 0xC0200000],
    2: [0x7E23, 0x7C01, 0xFE45, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x0001,
        0x03FF, 0x7BFF, 0xFBFF, 0x3C00, 0xC100],
    "bfloat16": [0x7FC3, 0x7F81, 0xFFC5, 0x8000, 0x0000, 0x7F80, 0xFF80,
                 0x0001, 0x007F, 0x7F7F, 0xFF7F, 0x3F80, 0xC020],
    # fmt: on
}


def float_specials(dt: DType) -> list[int]:
    return FLOAT_SPECIALS["bfloat16" if dt.name == "bfloat16" else dt.comp_size]


def float_sequence_bits(dt: DType, k: int) -> int:
    """k-th regular float: (-1)^k * (k + 1) * 1.1^k, rounded to the type."""
    v = (-1) ** k * (k + 1) * 1.1**k
    if dt.name == "bfloat16":
        # upper half of the float32 pattern (truncation)
        return struct.unpack(">I", struct.pack(">f", v))[0] >> 16
    fmt = {2: ("e", "H"), 4: ("f", "I"), 8: ("d", "Q")}[dt.comp_size]
    return struct.unpack(">" + fmt[1], struct.pack(">" + fmt[0], v))[0]


def hash_bits(k: int, nbits: int) -> int:
    """Deterministic well-mixed nbits-wide pattern (golden-ratio hash)."""
    h = (0x9E3779B97F4A7C15 * (k + 1) + 0x0123456789ABCDEF) % (1 << 64)
    return h >> (64 - nbits)


def int_specials(dt: DType) -> list[int]:
    nbits = 8 * dt.comp_size
    mask = (1 << nbits) - 1
    distinct_pos = 0x0102030405060708 >> (64 - nbits)  # every byte different
    distinct_neg = 0xF1E2D3C4B5A69788 >> (64 - nbits)  # high bit set
    if dt.kind == "int":
        lo, hi = 1 << (nbits - 1), (1 << (nbits - 1)) - 1  # min, max as bits
        return [lo, hi, mask, 0, 1, distinct_pos, distinct_neg]
    return [0, mask, 1, distinct_pos, distinct_neg, 1 << (nbits - 1)]


def element_bits(dt: DType, n: int) -> list[list[int]]:
    """Bit patterns of the first n elements (C order), one list per element."""
    if dt.kind == "bool":
        specials = [[1], [0]]
        seq = lambda k: [hash_bits(k, 1)]  # noqa: E731
    elif dt.kind in ("int", "uint"):
        specials = [[b] for b in int_specials(dt)]
        seq = lambda k: [hash_bits(k, 8 * dt.comp_size)]  # noqa: E731
    elif dt.kind == "float":
        specials = [[b] for b in float_specials(dt)]
        seq = lambda k: [float_sequence_bits(dt, k)]  # noqa: E731
    elif dt.kind == "complex":
        # Real and imaginary parts take different specials, so a swapped or
        # mis-ordered part shows up: (qNaN, -0.0), (sNaN, +0.0), ...
        s = float_specials(dt)
        specials = [[s[i], s[(i + 3) % len(s)]] for i in range(len(s))]
        seq = lambda k: [float_sequence_bits(dt, 2 * k), float_sequence_bits(dt, 2 * k + 1)]  # noqa: E731
    elif dt.kind == "raw":
        # Every byte of the chunk different: byte i is (0x11 + 37 i) mod 256.
        return [[(0x11 + 37 * (e * dt.ncomp + j)) % 256 for j in range(dt.ncomp)] for e in range(n)]
    else:
        raise AssertionError(dt)
    out = specials[:n]
    out += [seq(k) for k in range(n - len(out))]
    return out


def expected_chunk(dt: DType, bits: list[list[int]], endian: str) -> bytes:
    """Encoded chunk computed independently of numpy and the writers."""
    out = bytearray()
    for element in bits:
        for comp in element:  # complex: real part, then imaginary part
            out += comp.to_bytes(dt.comp_size, endian if dt.kind != "raw" else "big")
    return bytes(out)


def to_numpy(dt: DType, bits: list[list[int]], shape: tuple[int, ...]) -> np.ndarray:
    """Native numpy array with exactly these bit patterns (via .view).

    Raw bits types get an extra trailing dimension of bytes (uint8)."""
    flat = [c for element in bits for c in element]
    if dt.kind == "raw":
        return np.array(flat, dtype=np.uint8).reshape(shape + (dt.item_size,))
    u = np.array(flat, dtype=f"=u{dt.comp_size}")
    return u.view(dt.numpy).reshape(shape)


def to_bits(dt: DType, arr: np.ndarray) -> list[list[int]]:
    """Inverse of to_numpy: bit patterns of an array read back by a writer."""
    if dt.kind == "raw":
        return np.asarray(arr, dtype=np.uint8).reshape(-1, dt.item_size).tolist()
    u = np.ascontiguousarray(arr, dtype=dt.numpy).reshape(-1).view(f"=u{dt.comp_size}")
    return u.reshape(-1, dt.ncomp).tolist()


def self_check_specials() -> None:
    """Sanity-check a few float bit patterns against Python's own floats."""
    f64 = lambda b: struct.unpack(">d", b.to_bytes(8, "big"))[0]  # noqa: E731
    f32 = lambda b: struct.unpack(">f", b.to_bytes(4, "big"))[0]  # noqa: E731
    f16 = lambda b: struct.unpack(">e", b.to_bytes(2, "big"))[0]  # noqa: E731
    bf16 = lambda b: f32(b << 16)  # noqa: E731
    for conv, s in [(f64, FLOAT_SPECIALS[8]), (f32, FLOAT_SPECIALS[4]),
                    (f16, FLOAT_SPECIALS[2]), (bf16, FLOAT_SPECIALS["bfloat16"])]:
        v = [conv(b) for b in s]
        assert all(x != x for x in v[:3]), "first three must be NaN"
        assert str(v[3]) == "-0.0" and str(v[4]) == "0.0"
        assert v[5] == float("inf") and v[6] == float("-inf")
        assert 0 < v[7] < v[8] and v[9] == -v[10] and v[9] > 1e4
        assert v[11] == 1.0 and v[12] == -2.5
    assert f64(FLOAT_SPECIALS[8][9]) == sys.float_info.max
    assert f16(FLOAT_SPECIALS[2][9]) == 65504.0


# --------------------------------------------------------------------------
# Writers
# --------------------------------------------------------------------------


def codecs_json(endian: str) -> list[dict]:
    return [{"name": "bytes", "configuration": {"endian": endian}}]


def read_single_chunk(path: Path) -> tuple[str, bytes]:
    """The one chunk file of an array directory: (key, bytes)."""
    files = [p for p in path.rglob("*") if p.is_file() and p.name != "zarr.json"]
    assert len(files) == 1, f"expected exactly one chunk file in {path}, got {files}"
    return files[0].relative_to(path).as_posix(), files[0].read_bytes()


def stored_metadata(path: Path) -> dict:
    meta = json.loads((path / "zarr.json").read_text())
    return {"data_type": meta["data_type"], "codecs": meta["codecs"]}


# zarr-python 3.x matches numpy dtypes to Zarr data types; ml_dtypes.bfloat16
# matches none ("No Zarr data type found that matches dtype").
ZARR_PYTHON_UNSUPPORTED = {"bfloat16": "zarr-python has no bfloat16 data type"}


def zarr_python_dtype(dt: DType) -> np.dtype:
    # zarr-python has no r<N> data type; its `raw_bytes` extension type
    # (numpy void) stores the same bytes.
    return np.dtype(f"V{dt.item_size}") if dt.kind == "raw" else dt.numpy


def zarr_python_data(dt: DType, arr: np.ndarray) -> np.ndarray:
    if dt.kind == "raw":
        return np.ascontiguousarray(arr).view(f"V{dt.item_size}")[..., 0]
    return arr


def zarr_python_codec_encode(dt: DType, arr: np.ndarray, endian: str) -> bytes:
    """Encode one chunk with zarr-python's BytesCodec directly (no store)."""
    zdtype = parse_dtype(zarr_python_dtype(dt), zarr_format=3)
    proto = default_buffer_prototype()
    spec = ArraySpec(
        shape=arr.shape[: arr.ndim - (dt.kind == "raw")],
        dtype=zdtype,
        fill_value=zdtype.default_scalar(),
        config=ArrayConfig(order="C", write_empty_chunks=True),
        prototype=proto,
    )
    codec = BytesCodec(endian=endian).evolve_from_array_spec(spec)
    nd = proto.nd_buffer.from_numpy_array(zarr_python_data(dt, arr))
    (buf,) = asyncio.run(codec.encode([(nd, spec)]))
    return buf.to_bytes()


def zarr_python_write(dt: DType, arr: np.ndarray, shape, endian: str, path: Path) -> dict:
    """Write a one-chunk array with zarr-python; return chunk bytes and info."""
    zdtype = zarr_python_dtype(dt)
    a = zarr.create_array(
        store=str(path),
        shape=shape,
        chunks=shape,
        dtype=zdtype,
        fill_value=np.zeros((), zdtype)[()] if dt.kind != "raw" else bytes(dt.item_size),
        serializer=BytesCodec(endian=endian),
        compressors=None,
        filters=None,
        zarr_format=3,
        config={"write_empty_chunks": True},
    )
    a[...] = zarr_python_data(dt, arr)
    key, data = read_single_chunk(path)
    # Read back through zarr-python: the values must survive the round trip.
    back = zarr.open_array(str(path), mode="r")[...]
    if dt.kind == "raw":
        back = np.frombuffer(np.ascontiguousarray(back).tobytes(), np.uint8)
    assert to_bits(dt, back) == to_bits(dt, arr), f"zarr-python read-back differs at {path}"
    # The codec alone must give the same bytes as the array path.
    assert zarr_python_codec_encode(dt, arr, endian) == data
    info = {"route": "array", "chunk_key": key, **stored_metadata(path)}
    if dt.kind == "raw":
        info["note"] = f"no r<N> type in zarr-python; written as raw_bytes (length_bytes {dt.item_size})"
    return {"bytes": data, "info": info}


def tensorstore_write(dt: DType, arr: np.ndarray, shape, endian: str, path: Path) -> dict:
    """Write a one-chunk array with tensorstore; return chunk bytes and info."""
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}
    if dt.kind == "raw":
        # tensorstore (0.1.86) aborts the process when *creating* an r<N> array
        # (index-domain check failure), but opens one whose zarr.json already
        # exists.  Its parser also requires the r<N> fill_value as a base64
        # string rather than the spec's array of byte values.
        path.mkdir(parents=True)
        meta = {
            "zarr_format": 3,
            "node_type": "array",
            "shape": list(shape),
            "data_type": dt.name,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(shape)}},
            "chunk_key_encoding": {"name": "default"},
            "fill_value": base64.b64encode(bytes(dt.item_size)).decode(),
            "codecs": codecs_json(endian),
        }
        (path / "zarr.json").write_text(json.dumps(meta))
        note = "zarr.json written by this script (creating r<N> arrays aborts tensorstore); chunk by tensorstore"
    else:
        spec.update(
            create=True,
            metadata={
                "shape": list(shape),
                "data_type": dt.name,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(shape)}},
                "codecs": codecs_json(endian),
            },
        )
        note = None
    spec["store_data_equal_to_fill_value"] = True
    t = ts.open(spec).result()
    t.write(arr).result()
    key, data = read_single_chunk(path)
    # Read back through tensorstore (not possible for r<N>: its Python API
    # returns the `byte` type as a zero-size numpy void array).
    if dt.kind != "raw":
        back = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}).result().read().result()
        assert to_bits(dt, back) == to_bits(dt, arr), f"tensorstore read-back differs at {path}"
    info = {"route": "array", "chunk_key": key, **stored_metadata(path)}
    if note:
        info["note"] = note
    return {"bytes": data, "info": info}


def empty_case(dt: DType, arr: np.ndarray, shape, endian: str, tmp: Path) -> tuple[dict, dict]:
    """Arrays with a zero-length dimension: neither writer stores a chunk.

    Returns (results, skipped)."""
    results, skipped = {}, {}
    # zarr-python: chunk lengths must be positive, and with any positive chunk
    # shape the grid has no chunks, so nothing is written.  Its BytesCodec is
    # run directly on the empty chunk instead.
    if dt.name in ZARR_PYTHON_UNSUPPORTED:
        skipped[ZARR_PYTHON] = ZARR_PYTHON_UNSUPPORTED[dt.name]
    else:
        try:
            zarr_python_write(dt, arr, shape, endian, tmp / "zp")
            raise AssertionError("zarr-python unexpectedly accepted a zero chunk length")
        except ValueError as e:
            reason = str(e)
        results[ZARR_PYTHON] = {
            "bytes": zarr_python_codec_encode(dt, arr, endian),
            "info": {"route": "codec", "note": f"BytesCodec.encode on the empty chunk; array route fails: {reason}"},
        }
    # tensorstore: rejects a zero chunk length and has no Python codec API.
    try:
        tensorstore_write(dt, arr, shape, endian, tmp / "ts")
        raise AssertionError("tensorstore unexpectedly accepted a zero chunk length")
    except ValueError as e:
        # keep the innermost clause of tensorstore's nested error message
        msg = ": ".join(str(e).split(" [tensorstore_spec=")[0].rsplit(": ", 2)[-2:])
    skipped[TENSORSTORE] = (
        "no chunk file: an array with a zero-length dimension has no chunks, "
        f"tensorstore rejects a zero chunk length ({msg}), "
        "and its Python API exposes no standalone codec"
    )
    return results, skipped


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def shape_name(shape: tuple[int, ...]) -> str:
    return "scalar" if shape == () else "x".join(map(str, shape))


def versions() -> dict:
    pkgs = ("zarr", "numpy", "tensorstore", "ml_dtypes")
    return {"python": sys.version.split()[0], **{p: importlib.metadata.version(p) for p in pkgs}}


def main() -> None:
    self_check_specials()
    if OUT_DIR.exists():
        shutil.rmtree(OUT_DIR)
    OUT_DIR.mkdir(parents=True)

    cases = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for dt in DTYPES:
            for endian in ENDIANS:
                for shape in SHAPES:
                    name = f"{dt.name}_{endian}_{shape_name(shape)}"
                    n = int(np.prod(shape, dtype=np.int64))
                    bits = element_bits(dt, n)
                    arr = to_numpy(dt, bits, shape)
                    assert to_bits(dt, arr) == bits
                    expected = expected_chunk(dt, bits, endian)
                    case_tmp = tmp / name

                    results, skipped = {}, {}
                    if n == 0:
                        results, skipped = empty_case(dt, arr, shape, endian, case_tmp)
                    else:
                        if dt.name in ZARR_PYTHON_UNSUPPORTED:
                            skipped[ZARR_PYTHON] = ZARR_PYTHON_UNSUPPORTED[dt.name]
                        else:
                            results[ZARR_PYTHON] = zarr_python_write(dt, arr, shape, endian, case_tmp / "zp")
                        results[TENSORSTORE] = tensorstore_write(dt, arr, shape, endian, case_tmp / "ts")

                    for writer, r in results.items():
                        assert r["bytes"] == expected, (
                            f"{name}: {writer} wrote {r['bytes'].hex()}, expected {expected.hex()}"
                        )
                        (OUT_DIR / f"{name}.{writer}.bin").write_bytes(r["bytes"])
                    if len(results) == 2:
                        assert results[ZARR_PYTHON]["bytes"] == results[TENSORSTORE]["bytes"]

                    case = {
                        "name": name,
                        "data_type": dt.name,
                        "endian": endian,
                        "shape": list(shape),
                        "writers": [w for w in (ZARR_PYTHON, TENSORSTORE) if w in results],
                        "bits": bits,
                        "sources": {w: r["info"] for w, r in results.items()},
                    }
                    if skipped:
                        case["skipped"] = skipped
                    cases.append(case)
                    print(f"{name:32s} {','.join(case['writers']) or '-'}")

    # One case per line keeps the manifest small and diffable.
    lines = ",\n  ".join(json.dumps(c) for c in cases)
    text = f'{{"generator": {json.dumps(versions())},\n "cases": [\n  {lines}\n ]}}\n'
    assert json.loads(text)["cases"] == cases
    (OUT_DIR / "manifest.json").write_text(text)
    print(f"{len(cases)} cases written to {OUT_DIR}")


if __name__ == "__main__":
    warnings.simplefilter("ignore")  # zarr-python warns about extension data types
    main()
