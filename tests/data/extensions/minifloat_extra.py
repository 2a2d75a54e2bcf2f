#!/usr/bin/env python3
"""Write `minifloat_extra.json`: ml_dtypes facts beside `minifloat.json`.

- `complex`: each complex minifloat type of the zarr-extensions registry and
  its component type. The component's table in `minifloat.json` (`to_f32` of
  every code, `from_f32`) is the conversion of each part: ml_dtypes has no
  complex minifloat types, a complex value is two independent components.
  The script checks that every table in `minifloat.json` is what the installed
  ml_dtypes gives (using `generate.py`'s own table builder), so the mapping
  points at current data.
- `nan`: for every real minifloat type, ml_dtypes' code for NaN
  (`ml_dtypes.<type>(float("nan"))` viewed as uint8, and the same through a
  float32 array cast), for a negative NaN, and every code that is NaN.
- `byte_to_f32`: for the 4- and 6-bit types, the float32 bits ml_dtypes gives
  for every byte 0-255 viewed as the type, bits above the code included.

Run (Python 3.12 with numpy and ml_dtypes, versions in README.md):

    python tests/data/extensions/minifloat_extra.py

The output is deterministic.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
import warnings
from pathlib import Path

import numpy as np

import ml_dtypes

OUT_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(OUT_DIR))
sys.dont_write_bytecode = True
import generate  # noqa: E402  (the same table builder as minifloat.json)

COMPLEX = {
    "complex_float4_e2m1fn": "float4_e2m1fn",
    "complex_float6_e2m3fn": "float6_e2m3fn",
    "complex_float6_e3m2fn": "float6_e3m2fn",
    "complex_float8_e3m4": "float8_e3m4",
    "complex_float8_e4m3": "float8_e4m3",
    "complex_float8_e4m3b11fnuz": "float8_e4m3b11fnuz",
    "complex_float8_e4m3fnuz": "float8_e4m3fnuz",
    "complex_float8_e5m2": "float8_e5m2",
    "complex_float8_e5m2fnuz": "float8_e5m2fnuz",
    "complex_float8_e8m0fnu": "float8_e8m0fnu",
}


def u8(x) -> int:
    return int(np.asarray(x).reshape(1).view(np.uint8)[0])


def nan_record(name: str, bits: int) -> dict:
    t = getattr(ml_dtypes, name)
    scalar = u8(t(float("nan")))
    cast = u8(np.array([np.nan], np.float32).astype(t))
    assert scalar == cast, (name, scalar, cast)
    negative = u8(np.array([-np.nan], np.float32).astype(t))
    codes = np.arange(1 << bits, dtype=np.uint16).astype(np.uint8)
    nan_codes = [int(c) for c, f in zip(codes, codes.view(t).astype(np.float32)) if np.isnan(f)]
    has_nan = bool(nan_codes)
    if has_nan:
        assert scalar in nan_codes and negative in nan_codes, name
    return {"has_nan": has_nan, "nan": scalar, "negative_nan": negative, "nan_codes": nan_codes}


def byte_view(name: str) -> list[int]:
    t = getattr(ml_dtypes, name)
    data = np.arange(256, dtype=np.uint16).astype(np.uint8)
    return [int(b) for b in data.view(t).astype(np.float32).view(np.uint32)]


def main() -> None:
    warnings.simplefilter("ignore", RuntimeWarning)  # overflowing casts are part of the tables
    tables = json.loads((OUT_DIR / "minifloat.json").read_text())
    assert set(tables) == set(generate.MINIFLOATS), sorted(tables)
    for name, bits in generate.MINIFLOATS.items():
        assert tables[name] == generate.minifloat_table(name, bits), \
            f"minifloat.json's {name} table is not what ml_dtypes {ml_dtypes.__version__} gives: rerun generate.py"

    complex_map = {}
    for name, component in COMPLEX.items():
        assert component in tables, component
        complex_map[name] = {"component": component, "bits": tables[component]["bits"],
                             "table": f"minifloat.json#{component}"}

    nan = {name: nan_record(name, bits) for name, bits in generate.MINIFLOATS.items()}
    views = {name: byte_view(name) for name, bits in generate.MINIFLOATS.items() if bits < 8}

    pkgs = ("numpy", "ml_dtypes")
    generator = {"python": sys.version.split()[0], **{p: importlib.metadata.version(p) for p in pkgs}}
    parts = [
        f'"generator": {json.dumps(generator)}',
        '"complex": {\n' + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in complex_map.items()) + "\n}",
        '"nan": {\n' + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in nan.items()) + "\n}",
        '"byte_to_f32": {\n' + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in views.items()) + "\n}",
    ]
    text = "{\n" + ",\n".join(parts) + "\n}\n"
    json.loads(text)
    (OUT_DIR / "minifloat_extra.json").write_text(text)
    for name, r in nan.items():
        print(f"{name:20s} nan {r['nan']:#04x} negative {r['negative_nan']:#04x} "
              f"({len(r['nan_codes'])} NaN codes)")


if __name__ == "__main__":
    main()
