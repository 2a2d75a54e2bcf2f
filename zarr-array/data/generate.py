#!/usr/bin/env python3
"""Write the example Zarr v3 arrays in this directory with zarr-python.

  temperature.zarr  float32 [10, 7], chunks [4, 3], "/" chunk keys,
                    bytes codec (little endian), fill value -999.0,
                    value(i, j) = -10 + 2.5 i + 0.125 j,
                    chunk c/1/1 deleted afterwards (reads as fill value).
  counts_dot.zarr   int16 [5, 6], chunks [2, 4], "." chunk keys,
                    bytes codec (big endian), fill value -1,
                    value(i, j) = 1021 (6 i + j) - 12345.
  default_zstd.zarr uint16 [12, 10], chunks [5, 4], zarr-python's defaults:
                    codecs [bytes (little endian), zstd (level 0)], fill value 0,
                    value(i, j) = 257 (10 i + j) + 3.
  sharded.zarr      int32 [10, 12], shards [4, 6] of inner chunks [2, 3],
                    inner codecs [transpose [1, 0], bytes (little), crc32c],
                    index [bytes (little), crc32c] at the end, fill value -1,
                    value(i, j) = 100 i + j, except the fill value in shard c/1/1
                    (not written: a missing shard) and in inner chunk (0, 0) of
                    shard c/0/1 (an empty index entry).

The zarr.json files are exactly as zarr-python wrote them.  After writing,
the arrays are read back with zarr-python and tensorstore and compared with
the expected values.  Requirements: zarr (3.x), numpy, tensorstore.  Run:

    python zarr-array/data/generate.py
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import google_crc32c  # installed with zarr, for its crc32c codec
import numpy as np
import tensorstore as ts
import zarr
from zarr.codecs import BytesCodec, Crc32cCodec, TransposeCodec

HERE = Path(__file__).resolve().parent

TEMPERATURE_FILL = -999.0
MISSING_CHUNK = (1, 1)  # the only chunk not touching an array edge
COUNTS_FILL = -1
SHARDED_FILL = -1
MISSING_SHARD = (1, 1)
EMPTY_INNER = (0, 1), (0, 0)  # shard, inner chunk within it


def temperature_values() -> np.ndarray:
    i, j = np.indices((10, 7))
    return (-10.0 + 2.5 * i + 0.125 * j).astype(np.float32)  # all exact in f32


def counts_values() -> np.ndarray:
    i, j = np.indices((5, 6))
    return (1021 * (6 * i + j) - 12345).astype(np.int16)  # both bytes vary


def write_temperature(path: Path) -> np.ndarray:
    a = zarr.create_array(
        store=str(path),
        shape=(10, 7),
        chunks=(4, 3),
        dtype="float32",
        fill_value=TEMPERATURE_FILL,
        chunk_key_encoding={"name": "default", "separator": "/"},
        serializer=BytesCodec(endian="little"),
        compressors=None,
        filters=None,
        dimension_names=["y", "x"],
        zarr_format=3,
    )
    a[...] = temperature_values()

    # Remove one interior chunk: a reader must return the fill value there.
    missing = path / "c" / str(MISSING_CHUNK[0]) / str(MISSING_CHUNK[1])
    assert missing.is_file()
    missing.unlink()

    expected = temperature_values()
    rows = slice(4 * MISSING_CHUNK[0], 4 * MISSING_CHUNK[0] + 4)
    cols = slice(3 * MISSING_CHUNK[1], 3 * MISSING_CHUNK[1] + 3)
    expected[rows, cols] = TEMPERATURE_FILL
    return expected


def write_counts(path: Path) -> np.ndarray:
    a = zarr.create_array(
        store=str(path),
        shape=(5, 6),
        chunks=(2, 4),
        dtype="int16",
        fill_value=COUNTS_FILL,
        chunk_key_encoding={"name": "default", "separator": "."},
        serializer=BytesCodec(endian="big"),
        compressors=None,
        filters=None,
        zarr_format=3,
    )
    a[...] = counts_values()
    return counts_values()


def write_default_zstd(path: Path) -> np.ndarray:
    i, j = np.indices((12, 10))
    values = (257 * (10 * i + j) + 3).astype(np.uint16)  # both bytes vary
    a = zarr.create_array(store=str(path), shape=(12, 10), chunks=(5, 4), dtype="uint16")
    a[...] = values
    codecs = [c["name"] for c in json.loads((path / "zarr.json").read_text())["codecs"]]
    assert codecs == ["bytes", "zstd"], codecs
    return values


def shard_index(path: Path, inner_chunks: int) -> np.ndarray:
    """The (offset, length) pairs of a shard whose index is at the end, encoded with
    [bytes (little), crc32c]; the checksum is checked."""
    data = path.read_bytes()
    n = 16 * inner_chunks
    index, crc = data[-n - 4 : -4], data[-4:]
    assert google_crc32c.value(index).to_bytes(4, "little") == crc, path
    return np.frombuffer(index, "<u8").reshape(-1, 2)


def write_sharded(path: Path) -> np.ndarray:
    i, j = np.indices((10, 12))
    values = (100 * i + j).astype(np.int32)
    values[4:8, 6:12] = SHARDED_FILL  # shard MISSING_SHARD
    values[0:2, 6:9] = SHARDED_FILL  # inner chunk (0, 0) of shard (0, 1)
    a = zarr.create_array(
        store=str(path),
        shape=(10, 12),
        shards=(4, 6),
        chunks=(2, 3),
        dtype="int32",
        fill_value=SHARDED_FILL,
        filters=[TransposeCodec(order=(1, 0))],
        serializer=BytesCodec(endian="little"),
        compressors=[Crc32cCodec()],
        zarr_format=3,
    )
    a[...] = values
    shard = path / "c" / str(MISSING_SHARD[0]) / str(MISSING_SHARD[1])
    assert not shard.exists(), "zarr-python writes no shard of fill values"
    (si, sj), inner = EMPTY_INNER
    index = shard_index(path / "c" / str(si) / str(sj), 4)
    assert tuple(index[inner[0] * 2 + inner[1]]) == (2**64 - 1, 2**64 - 1), index
    return values


def check(path: Path, expected: np.ndarray) -> None:
    """Read back with both zarr-python and tensorstore."""
    got = zarr.open_array(str(path), mode="r")[...]
    assert got.dtype == expected.dtype and np.array_equal(got, expected), path
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}).result()
    got = t.read().result()
    assert got.dtype == expected.dtype and np.array_equal(got, expected), path


def summary(name: str, expected: np.ndarray) -> None:
    chunks = sorted(p.relative_to(HERE / name).as_posix() for p in (HERE / name).rglob("*")
                    if p.is_file() and p.name != "zarr.json")
    print(f"{name}: dtype {expected.dtype}, shape {list(expected.shape)}")
    print(f"  chunk files: {chunks}")
    print(f"  sum (float64): {expected.astype(np.float64).sum()!r}")
    print(f"  min {expected.min()!r}, max {expected.max()!r}")
    print(f"  values:\n{expected}")


def main() -> None:
    for name, writer in [
        ("temperature.zarr", write_temperature),
        ("counts_dot.zarr", write_counts),
        ("default_zstd.zarr", write_default_zstd),
        ("sharded.zarr", write_sharded),
    ]:
        path = HERE / name
        if path.exists():
            shutil.rmtree(path)
        expected = writer(path)
        check(path, expected)
        summary(name, expected)


if __name__ == "__main__":
    main()
