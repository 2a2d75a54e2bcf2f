"""What the checks against the zarr-array binary share: its checksum, and the count of checks."""

import subprocess
import sys

import numpy as np


class Checks:
    """Counts checks; a failed one prints what failed and the run goes on."""

    def __init__(self, name):
        self.name, self.passed, self.failed = name, 0, 0

    def __call__(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {what}", flush=True)

    def exit(self):
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def little_endian_bytes(a: np.ndarray) -> bytes:
    a = np.ascontiguousarray(a)
    return a.astype(a.dtype.newbyteorder("<")).tobytes()


def run(binary, args, env=None, timeout=120):
    return subprocess.run([binary, *args], capture_output=True, text=True, env=env, timeout=timeout)
