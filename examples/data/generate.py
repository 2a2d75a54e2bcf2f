#!/usr/bin/env python3
"""Write the example Zarr v3 arrays in this directory with zarr-python.

  temperature.zarr  float32 [10, 7], chunks [4, 3], "/" chunk keys,
                    bytes codec (little endian), fill value -999.0,
                    value(i, j) = -10 + 2.5 i + 0.125 j,
                    chunk c/1/1 deleted afterwards (reads as fill value).
  counts_dot.zarr   int16 [5, 6], chunks [2, 4], "." chunk keys,
                    bytes codec (big endian), fill value -1,
                    value(i, j) = 1021 (6 i + j) - 12345.

The zarr.json files are exactly as zarr-python wrote them.  After writing,
both arrays are read back with zarr-python and tensorstore and compared with
the expected values.  Requirements: zarr (3.x), numpy, tensorstore.  Run:

    python examples/data/generate.py
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import tensorstore as ts
import zarr
from zarr.codecs import BytesCodec

HERE = Path(__file__).resolve().parent

TEMPERATURE_FILL = -999.0
MISSING_CHUNK = (1, 1)  # the only chunk not touching an array edge
COUNTS_FILL = -1


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
    for name, writer in [("temperature.zarr", write_temperature), ("counts_dot.zarr", write_counts)]:
        path = HERE / name
        if path.exists():
            shutil.rmtree(path)
        expected = writer(path)
        check(path, expected)
        summary(name, expected)


if __name__ == "__main__":
    main()
