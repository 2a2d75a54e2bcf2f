#!/usr/bin/env python3
"""Generate regular-chunk-grid fixtures for the `bytes` codec with zarr-python.

Each case is a Zarr v3 array cut into chunks by the regular chunk grid, with
codecs exactly `[{"name": "bytes", "configuration": {"endian": E}}]` and no
compressor, so every chunk file is the raw `bytes` stream of one full chunk
(edge chunks are padded with the fill value).  Chunks whose every element,
padding included, equals the fill value are not written by zarr-python, which
gives cases with missing chunks.

For every case this script

  1. builds the element values from explicit bit patterns,
  2. writes the array with `zarr.create_array` into a LocalStore in a temp dir,
  3. checks
     - zarr-python reads the same values back (bit for bit),
     - every chunk file equals the chunk computed here with numpy (the
       array's part padded with the fill value to the chunk shape, cast to
       the endian dtype, `tobytes()`),
     - the missing chunks are exactly those whose part and padding are all
       fill (compared bit for bit) and exactly those the case meant to blank,
     - tensorstore (when importable) reads the same values,
  4. copies the array directory to `<case name>/` next to this script and
     writes `<case name>/full.bin` (all values in C order, little endian),
  5. writes `manifest.json`.

Run from the repository root:

    .venv/bin/python tests/data/grid/generate.py

Case directories and `manifest.json` are replaced on every run; the output
is deterministic.
"""

from __future__ import annotations

import importlib.metadata
import itertools
import json
import shutil
import struct
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import BytesCodec
from zarr.storage import LocalStore

try:
    import tensorstore as ts
except ImportError:  # optional cross-check
    ts = None

OUT_DIR = Path(__file__).resolve().parent
KEEP = {"generate.py", "README.md"}

# Explicit float bit patterns used as overrides.
F64 = {
    "qnan_payload": 0x7FF8000000000123,
    "nan": 0x7FF8000000000000,  # numpy's np.nan, what a "NaN" fill becomes
    "neg_zero": 0x8000000000000000,
    "pos_inf": 0x7FF0000000000000,
    "neg_inf": 0xFFF0000000000000,
    "one": 0x3FF0000000000000,
    "minus_two": 0xC000000000000000,
    "one_and_half": 0x3FF8000000000000,
    "pi": 0x400921FB54442D18,  # every byte different
}
F32 = {
    "qnan_payload": 0x7FC00123,
    "snan": 0x7F800001,
    "neg_zero": 0x80000000,
    "pos_inf": 0x7F800000,
}


@dataclass
class Case:
    data_type: str  # Zarr v3 name == numpy name for the types used here
    endian: str
    shape: tuple[int, ...]
    chunks: tuple[int, ...]
    fill: object  # Python value passed to zarr.create_array
    description: str
    # chunk indices whose part is set to the fill value ("all": every chunk)
    blank: list[tuple[int, ...]] | str = field(default_factory=list)
    # chunk indices whose part is set to one bit pattern (all elements)
    set_chunks: dict[tuple[int, ...], int] = field(default_factory=dict)
    # flat C-order element index -> bit pattern (complex: (real, imag))
    overrides: dict[int, object] = field(default_factory=dict)

    @property
    def name(self) -> str:
        def dims(s):
            return "x".join(map(str, s))

        if self.shape == ():
            return f"{self.data_type}_{self.endian}_scalar"
        return f"{self.data_type}_{self.endian}_{dims(self.shape)}_c{dims(self.chunks)}"

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.data_type)


CASES = [
    Case("uint8", "little", (5, 7), (2, 3), 0xAB,
         "uint8, fill 0xAB, edge chunks on both axes, chunk (0,1) missing",
         blank=[(0, 1)]),
    Case("bool", "big", (10,), (4,), True,
         "bool, fill true (edge chunk padded with 0x01), chunk 1 missing",
         blank=[(1,)]),
    Case("int16", "little", (5, 7), (2, 3), -7,
         "int16 little, fill -7, the 1-element corner edge chunk (2,2) missing",
         blank=[(2, 2)]),
    Case("int16", "big", (3, 4, 5), (2, 3, 2), 0,
         "int16 big, rank 3, edge chunks on every axis, chunks (0,1,2) and (1,0,0) missing",
         blank=[(0, 1, 2), (1, 0, 0)]),
    Case("int16", "big", (), (), -7,
         "int16 big, 0-d, value equals fill -7, so its only chunk `c` is missing",
         blank="all"),
    Case("uint16", "big", (7,), (3,), 0xFFFF,
         "uint16 big, rank 1, fill 65535, last chunk has 1 element + 2 padding",
         blank=[]),
    Case("uint16", "little", (4, 6), (3, 4), 0xBEEF,
         "uint16 little, every element is the fill 0xBEEF: no chunk file at all",
         blank="all"),
    Case("float32", "little", (3, 4, 5), (2, 3, 2), 0.0,
         "float32 little, rank 3, fill 0.0; chunk (1,0,0) all +0.0 is missing, "
         "chunk (0,0,1) all -0.0 is present (zarr-python compares zero fills bitwise)",
         blank=[(1, 0, 0)],
         set_chunks={(0, 0, 1): F32["neg_zero"]},
         overrides={0: F32["qnan_payload"], 5: F32["neg_zero"], 59: F32["pos_inf"]}),
    Case("float32", "big", (3, 2), (4, 5), 0.25,
         "float32 big, chunk larger than the array: one chunk, 6 values + 14 padding",
         overrides={2: F32["neg_zero"], 5: F32["snan"]}),
    Case("float64", "little", (5, 7), (2, 3), 1.5,
         "float64 little, fill 1.5, chunk (1,1) missing; present chunk (0,2) holds a 1.5",
         blank=[(1, 1)],
         overrides={1: F64["neg_zero"], 9: F64["qnan_payload"], 13: F64["one_and_half"],
                    34: F64["pos_inf"]}),
    Case("float64", "big", (5, 7), (2, 3), float("nan"),
         "float64 big, fill NaN (edge padding is 0x7ff8000000000000), "
         "chunks (0,2) and (2,0) missing",
         blank=[(0, 2), (2, 0)],
         overrides={0: F64["neg_zero"], 10: F64["qnan_payload"], 20: F64["neg_inf"],
                    32: F64["nan"]}),
    Case("float64", "big", (), (), 0.0,
         "float64 big, 0-d, value pi, chunk key `c`",
         overrides={0: F64["pi"]}),
    Case("complex128", "little", (4, 5), (3, 2), complex(1.0, -2.0),
         "complex128 little, fill [1.0, -2.0], chunk (0,1) missing; "
         "present chunk (0,2) holds a 1-2j",
         blank=[(0, 1)],
         overrides={0: (F64["neg_zero"], F64["qnan_payload"]),
                    16: (F64["pos_inf"], F64["neg_zero"]),
                    9: (F64["one"], F64["minus_two"])}),
    Case("complex64", "big", (5,), (2,), complex(0.0, 0.0),
         "complex64 big, rank 1, last chunk 1 element + 1 padding",
         overrides={4: (F32["qnan_payload"], F32["neg_zero"])}),
    Case("int32", "big", (3, 4, 5, 3), (2, 3, 2, 2), 0,
         "int32 big, rank 4, edge chunks on every axis, chunks (0,0,1,0) and "
         "(1,1,2,1) (1 element) missing",
         blank=[(0, 0, 1, 0), (1, 1, 2, 1)]),
]


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------


def uint_dtype(nbytes: int) -> np.dtype:
    return np.dtype(f"=u{nbytes}")


def float_sequence_bits(nbytes: int, k: int) -> int:
    """k-th regular float (-1)^k (k+1) 1.1^k as a bit pattern (all distinct)."""
    v = (-1) ** k * (k + 1) * 1.1**k
    f, u = {4: ("f", "I"), 8: ("d", "Q")}[nbytes]
    return struct.unpack(">" + u, struct.pack(">" + f, v))[0]


def base_values(case: Case) -> np.ndarray:
    """Deterministic native-endian values, distinct where the type allows."""
    n = int(np.prod(case.shape, dtype=np.int64))
    dt = case.dtype
    i = np.arange(n, dtype=np.uint64)
    if dt.kind == "b":
        flat = (np.arange(n) % 3) != 0
    elif dt.kind in "iu":
        # (odd * i + c) mod 2^bits: distinct for i < 2^bits, bytes well mixed
        bits = 8 * dt.itemsize
        mul = 0x9E3779B97F4A7C15 & ((1 << bits) - 1)
        add = 0x0123456789ABCDEF & ((1 << bits) - 1)
        with np.errstate(over="ignore"):
            u = i * np.uint64(mul) + np.uint64(add)
        flat = (u & np.uint64((1 << bits) - 1)).astype(uint_dtype(dt.itemsize)).view(dt)
    elif dt.kind == "f":
        u = [float_sequence_bits(dt.itemsize, k) for k in range(n)]
        flat = np.array(u, dtype=uint_dtype(dt.itemsize)).view(dt)
    elif dt.kind == "c":
        half = dt.itemsize // 2
        u = [float_sequence_bits(half, k) for k in range(2 * n)]  # re, im, re, im
        flat = np.array(u, dtype=uint_dtype(half)).view(dt)
    else:
        raise AssertionError(dt)
    arr = np.array(flat, dtype=dt).reshape(case.shape)
    # explicit bit-pattern overrides
    for idx, bits in case.overrides.items():
        arr.reshape(-1)[idx] = bits_to_scalar(dt, bits)
    return arr


def bits_to_scalar(dt: np.dtype, bits) -> np.ndarray:
    """0-d array of dtype dt holding exactly these bits."""
    if dt.kind == "c":
        re, im = bits
        return np.array([re, im], dtype=uint_dtype(dt.itemsize // 2)).view(dt).reshape(())
    return np.array(bits, dtype=uint_dtype(dt.itemsize)).view(dt).reshape(())


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return (a.dtype == b.dtype and a.shape == b.shape
            and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes())


# --------------------------------------------------------------------------
# Grid
# --------------------------------------------------------------------------


def grid_shape(case: Case) -> tuple[int, ...]:
    return tuple(-(-s // c) for s, c in zip(case.shape, case.chunks))


def chunk_indices(case: Case) -> list[tuple[int, ...]]:
    """All chunk indices in C order (one empty index for a 0-d array)."""
    return list(itertools.product(*(range(g) for g in grid_shape(case))))


def chunk_region(case: Case, idx: tuple[int, ...]) -> tuple[slice, ...]:
    return tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, case.chunks, case.shape))


def chunk_key(idx: tuple[int, ...]) -> str:
    """zarr-python default chunk key encoding (separator "/")."""
    return "/".join(["c", *map(str, idx)])


def endian_dtype(dt: np.dtype, endian: str) -> np.dtype:
    return dt.newbyteorder("<" if endian == "little" else ">")


def expected_chunk(case: Case, arr: np.ndarray, idx: tuple[int, ...]) -> bytes:
    """The `bytes` codec stream of one full chunk, padded with the fill value."""
    region = chunk_region(case, idx)
    buf = np.full(case.chunks, case.fill, dtype=case.dtype)
    buf[tuple(slice(0, r.stop - r.start) for r in region)] = arr[region]
    return buf.astype(endian_dtype(case.dtype, case.endian)).tobytes()


def fill_chunk(case: Case) -> bytes:
    return np.full(case.chunks, case.fill, dtype=case.dtype).astype(
        endian_dtype(case.dtype, case.endian)).tobytes()


# --------------------------------------------------------------------------
# One case
# --------------------------------------------------------------------------


def build_values(case: Case) -> np.ndarray:
    arr = base_values(case)
    for idx, bits in case.set_chunks.items():
        arr[chunk_region(case, idx)] = bits_to_scalar(case.dtype, bits)
    blank = chunk_indices(case) if case.blank == "all" else case.blank
    for idx in blank:
        arr[chunk_region(case, idx)] = case.fill
    # overrides must survive blanking (they are meant to be in present chunks)
    for idx, bits in case.overrides.items():
        if case.blank != "all":
            assert same_bits(arr.reshape(-1)[idx], bits_to_scalar(case.dtype, bits)), (
                f"{case.name}: override at {idx} lies in a blanked chunk")
    return arr


def chunk_files(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes()
            for p in sorted(path.rglob("*")) if p.is_file() and p.name != "zarr.json"}


def tensorstore_check(case: Case, path: Path, arr: np.ndarray) -> str:
    if ts is None:
        return "not run (tensorstore not importable)"
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}},
                open=True, read=True).result()
    back = np.asarray(t.read().result())
    assert back.dtype == case.dtype, f"{case.name}: tensorstore dtype {back.dtype}"
    assert same_bits(back, arr), f"{case.name}: tensorstore read different values"
    return "same values (bitwise)"


def run_case(case: Case, tmp: Path) -> dict:
    arr = build_values(case)
    path = tmp / case.name
    a = zarr.create_array(
        store=LocalStore(str(path)),
        shape=case.shape,
        chunks=case.chunks,
        dtype=case.dtype,
        fill_value=case.fill,
        serializer=BytesCodec(endian=case.endian),
        compressors=None,
        filters=None,
        zarr_format=3,
    )
    a[...] = arr

    # zarr-python reads back the same bits
    back = np.asarray(zarr.open_array(store=LocalStore(str(path), read_only=True), mode="r")[...])
    assert same_bits(back, arr), f"{case.name}: zarr-python read-back differs"

    meta = json.loads((path / "zarr.json").read_text())
    assert meta["data_type"] == case.data_type
    assert meta["chunk_grid"] == {"name": "regular", "configuration": {"chunk_shape": list(case.chunks)}}
    assert meta["chunk_key_encoding"]["name"] == "default"
    assert meta["chunk_key_encoding"].get("configuration", {}).get("separator", "/") == "/"
    assert [c["name"] for c in meta["codecs"]] == ["bytes"]
    stored_endian = meta["codecs"][0].get("configuration", {}).get("endian")
    # zarr-python drops the endian configuration for single-byte types
    assert stored_endian == (case.endian if case.dtype.itemsize > 1 else None), meta["codecs"]

    files = chunk_files(path)
    blank = set(chunk_indices(case)) if case.blank == "all" else set(case.blank)
    all_fill = fill_chunk(case)
    chunks = []
    for idx in chunk_indices(case):
        key = chunk_key(idx)
        expected = expected_chunk(case, arr, idx)
        is_fill = expected == all_fill  # part and padding all fill, bitwise
        assert is_fill == (idx in blank), f"{case.name}: chunk {idx} all-fill={is_fill}, blanked={idx in blank}"
        if is_fill:
            assert key not in files, f"{case.name}: zarr-python wrote all-fill chunk {key}"
            status = "missing"
        else:
            assert key in files, f"{case.name}: zarr-python did not write chunk {key}"
            assert files[key] == expected, (
                f"{case.name}: chunk {key} is {files[key].hex()}, expected {expected.hex()}")
            status = "present"
        chunks.append({"index": list(idx), "key": key, "status": status})
    extra = set(files) - {c["key"] for c in chunks}
    assert not extra, f"{case.name}: unexpected files {sorted(extra)}"

    ts_result = tensorstore_check(case, path, arr)

    # copy the array directory as written, then add full.bin
    dest = OUT_DIR / case.name
    shutil.copytree(path, dest, copy_function=shutil.copyfile)
    full = arr.astype(endian_dtype(case.dtype, "little")).tobytes()
    assert len(full) == arr.size * case.dtype.itemsize
    (dest / "full.bin").write_bytes(full)

    return {
        "name": case.name,
        "description": case.description,
        "data_type": meta["data_type"],
        "endian": case.endian,
        "shape": list(case.shape),
        "chunk_shape": list(case.chunks),
        "grid_shape": list(grid_shape(case)),
        "fill_value": meta["fill_value"],
        "codecs": meta["codecs"],
        "chunks": chunks,
        "tensorstore": ts_result,
    }


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def versions() -> dict:
    out = {"python": sys.version.split()[0],
           "zarr": importlib.metadata.version("zarr"),
           "numpy": importlib.metadata.version("numpy")}
    out["tensorstore"] = importlib.metadata.version("tensorstore") if ts is not None else None
    return out


def dump_manifest(manifest: dict) -> str:
    """Sorted keys everywhere; each case's fields on one line, one chunk per line."""
    def d(x):
        return json.dumps(x, sort_keys=True)

    case_texts = []
    for c in manifest["cases"]:
        fields = []
        for k in sorted(c):
            if k == "chunks":
                lines = ",\n    ".join(d(ch) for ch in c["chunks"])
                fields.append(f'"chunks": [\n    {lines}\n   ]')
            else:
                fields.append(f"{d(k)}: {d(c[k])}")
        case_texts.append("{" + ",\n   ".join(fields) + "}")
    text = ('{"cases": [\n  ' + ",\n  ".join(case_texts) + '\n ],\n "generator": '
            + d(manifest["generator"]) + "}\n")
    assert json.loads(text) == manifest
    return text


def main() -> None:
    names = [c.name for c in CASES]
    assert len(set(names)) == len(names), "case names must be unique"

    results = []
    with tempfile.TemporaryDirectory() as tmpdir:
        # remove previous output (case directories and manifest only)
        for p in sorted(OUT_DIR.iterdir()):
            if p.name in KEEP:
                continue
            if p.is_dir() and (p / "zarr.json").exists():
                shutil.rmtree(p)
            elif p.name == "manifest.json":
                p.unlink()
            else:
                raise SystemExit(f"refusing to delete unknown {p}")
        for case in CASES:
            r = run_case(case, Path(tmpdir))
            missing = [c["index"] for c in r["chunks"] if c["status"] == "missing"]
            print(f"{case.name:36s} chunks {len(r['chunks']):3d} missing {missing}  tensorstore: {r['tensorstore']}")
            results.append(r)

    manifest = {"generator": versions(), "cases": results}
    (OUT_DIR / "manifest.json").write_text(dump_manifest(manifest))
    print(f"{len(results)} cases written to {OUT_DIR}")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    main()
