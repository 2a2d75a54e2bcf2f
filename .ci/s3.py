"""The zarr-array binary against a real S3 API: moto's server, started here on 127.0.0.1.

1. Copies: zarr-python writes arrays to local directories (a missing chunk, zstd, sharded
   with empty inner chunks and a missing shard, sparse with chunks of only the fill
   value); the binary copies each into the bucket, and zarr-python, reading the bucket
   through obstore, finds exactly the keys it writes itself for the same array in the
   same bucket, the same values bit for bit, and, without compression, the same bytes.
2. Reads: the binary reads what zarr-python wrote into the bucket, whole and by
   `--subset`, with zarr-python's checksum of `arr[sel]`; and the local arrays served
   over plain HTTP (`http://`), the same way.
3. Writes into a box: `--write-into s3://... --at ...` of a local array leaves the keys,
   values and uncompressed bytes that zarr-python's `dst[sel] = src` leaves in a second
   copy in the same bucket, chunks and shards covered in part, whole, and erased.
4. Failures, each a non-zero exit, a message naming the store and key, no panic and no key
   written: a bucket that does not exist, refused credentials (moto checks them), a
   stopped server, a server that does not answer (`--timeout`, not a hang), a key that is
   not a Zarr array, and a chunk that fails to decompress.

Usage: python .ci/s3.py PATH_TO_zarr-array_BINARY (built with --features s3)
"""

import functools
import http.server
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings

import boto3
import numpy as np
import obstore.store
import zarr
import zarr.storage
from zarr.codecs import BytesCodec, ShardingCodec, ZstdCodec

import common
from common import Checks, fnv1a64, little_endian_bytes

BINARY = sys.argv[1]
BUCKET = "arrays"
warnings.filterwarnings("ignore", message=".*sharding_indexed. codec disables partial reads.*")
check = Checks("s3")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_moto():
    """moto's S3 server on a free port, checking credentials once the first requests (ours,
    which make the user whose keys the checks use) have been served."""
    port = free_port()
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT="4")
    server = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable), "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    endpoint = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return server, endpoint
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("moto_server did not start")


def make_user(endpoint):
    """A user allowed everything, its keys in the environment the binary and obstore read."""
    boot = dict(endpoint_url=endpoint, region_name="us-east-1",
                aws_access_key_id="boot", aws_secret_access_key="boot")
    iam = boto3.client("iam", **boot)
    iam.create_user(UserName="ci")
    key = iam.create_access_key(UserName="ci")["AccessKey"]
    iam.put_user_policy(UserName="ci", PolicyName="all", PolicyDocument=(
        '{"Version": "2012-10-17", "Statement": '
        '[{"Effect": "Allow", "Action": "*", "Resource": "*"}]}'))
    os.environ.update(AWS_ACCESS_KEY_ID=key["AccessKeyId"], AWS_SECRET_ACCESS_KEY=key["SecretAccessKey"],
                      AWS_REGION="us-east-1", AWS_ENDPOINT=endpoint, AWS_ALLOW_HTTP="true")
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    s3.create_bucket(Bucket=BUCKET)
    return s3


def bucket_store(prefix):
    return zarr.storage.ObjectStore(obstore.store.S3Store(BUCKET, prefix=prefix))


def keys(s3, prefix):
    """The keys below `prefix`, relative to it."""
    found = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix + "/"):
        found += [o["Key"][len(prefix) + 1:] for o in page.get("Contents", [])]
    return sorted(found)


def get(s3, key):
    return s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()


def checksum_of(stdout):
    found = re.search(r"checksum\s+(0x[0-9a-f]+)", stdout)
    return int(found.group(1), 16) if found else None


# name: (shape, chunks or (shards, inner), dtype, fill, codecs, values)
def cases(rng):
    grid = np.arange(20 * 30).reshape(20, 30)
    sparse = np.full((20, 30), 3.0, dtype="float64")
    sparse[2:9, 10:17] = rng.standard_normal((7, 7))
    sparse[15, 29] = -0.0
    return {
        "plain": dict(shape=(20, 30), chunks=(8, 7), dtype=">i2", fill=5, compressors=None,
                      values=(grid % 3000).astype(">i2"), missing=(slice(0, 8), slice(0, 7))),
        "zstd": dict(shape=(20, 30), chunks=(8, 7), dtype="<f4", fill=0.0, compressors=ZstdCodec(level=3),
                     values=rng.standard_normal((20, 30)).astype("<f4"), missing=None),
        "sharded": dict(shape=(20, 30), chunks=(4, 6), shards=(8, 12), dtype="<i4", fill=-1,
                        compressors=None, values=grid.astype("<i4"), missing=(slice(0, 4), slice(6, 12))),
        "sparse": dict(shape=(20, 30), chunks=(8, 7), dtype="<f8", fill=3.0, compressors=None,
                       values=sparse, missing=None),
    }


def create(store, case, values=None):
    """The case's array in `store` as zarr-python writes it, with `values` (its own by
    default), the missing region written as the fill value (so left out)."""
    kw = dict(shape=case["shape"], chunks=case["chunks"], dtype=case["dtype"], fill_value=case["fill"],
              compressors=case["compressors"], zarr_format=3, serializer=BytesCodec(endian="little"))
    if "shards" in case:
        kw["shards"] = case["shards"]
    arr = zarr.create_array(store=store, **kw)
    data = np.array(case["values"] if values is None else values)
    if case["missing"] is not None:
        data[case["missing"]] = case["fill"]
    arr[...] = data
    return arr, data


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def copies_and_reads(s3, root, rng):
    for name, case in cases(rng).items():
        local = os.path.join(root, f"{name}.zarr")
        _, data = create(local, case)
        create(bucket_store(f"zp/{name}.zarr"), case)
        out = common.run(BINARY, [local, "--write", f"s3://{BUCKET}/ex/{name}.zarr"])
        check(out.returncode == 0, f"{name}: copy into the bucket: {out.stderr}")
        ours, theirs = keys(s3, f"ex/{name}.zarr"), keys(s3, f"zp/{name}.zarr")
        check(ours == theirs, f"{name}: keys {ours} against zarr-python's {theirs}")
        back = zarr.open_array(bucket_store(f"ex/{name}.zarr"), mode="r")[...]
        check(same(back, np.asarray(data, dtype=back.dtype)), f"{name}: zarr-python reads the copy otherwise")
        # Shards hold the same inner chunks, in an order of their own: the values say it.
        if case["compressors"] is None and "shards" not in case and ours == theirs:
            differ = [k for k in ours if k.startswith("c") and
                      get(s3, f"ex/{name}.zarr/{k}") != get(s3, f"zp/{name}.zarr/{k}")]
            check(not differ, f"{name}: chunk bytes differ from zarr-python's: {differ}")

        # What zarr-python wrote, read by the binary: whole and in boxes.
        arr = zarr.open_array(bucket_store(f"zp/{name}.zarr"), mode="r")
        for sel in [None, (slice(3, 11), slice(5, 19)), (slice(0, 20), slice(29, 30)), (slice(16, 20), slice(0, 9))]:
            args = [f"s3://{BUCKET}/zp/{name}.zarr", "--in-flight", "8"]
            if sel is not None:
                args += ["--subset", ",".join(f"{s.start}:{s.stop}" for s in sel)]
            out = common.run(BINARY, args)
            want = fnv1a64(little_endian_bytes(arr[...] if sel is None else arr[sel]))
            check(out.returncode == 0 and checksum_of(out.stdout) == want,
                  f"{name} {sel}: read {out.returncode} {checksum_of(out.stdout)} against {want}: {out.stderr}")


def writes_into(s3, root, rng):
    all_cases = cases(rng)
    for name, at, box in [
        ("plain", (3, 5), (10, 9)),      # across chunks, over the missing one
        ("plain", (8, 7), (8, 7)),       # one chunk whole
        ("sharded", (2, 1), (9, 13)),    # shards in part and an inner chunk whole
        ("sharded", (0, 0), (8, 12)),    # a shard whole
        ("sparse", (8, 14), (8, 7)),     # writes of the fill value: a chunk erased
        ("zstd", (5, 25), (15, 5)),      # the edge chunks
    ]:
        case = all_cases[name]
        tag = f"{name}_{at[0]}_{at[1]}"
        src = np.full(box, case["fill"], dtype=case["dtype"]) if name == "sparse" else \
            (rng.integers(0, 100, box) + 1000).astype(case["dtype"])
        local = os.path.join(root, f"src_{tag}.zarr")
        zarr.create_array(store=local, shape=box, chunks=box, dtype=case["dtype"], fill_value=case["fill"],
                          zarr_format=3)[...] = src
        create(bucket_store(f"into/ex/{tag}.zarr"), case)
        assigned, _ = create(bucket_store(f"into/zp/{tag}.zarr"), case)
        assigned[at[0]:at[0] + box[0], at[1]:at[1] + box[1]] = src
        out = common.run(BINARY, [local, "--write-into", f"s3://{BUCKET}/into/ex/{tag}.zarr",
                                  "--at", f"{at[0]},{at[1]}"])
        check(out.returncode == 0, f"{tag}: write into the bucket: {out.stderr}")
        ours, theirs = keys(s3, f"into/ex/{tag}.zarr"), keys(s3, f"into/zp/{tag}.zarr")
        check(ours == theirs, f"{tag}: keys {ours} against zarr-python's {theirs}")
        a, b = (zarr.open_array(bucket_store(f"into/{w}/{tag}.zarr"), mode="r")[...] for w in ["ex", "zp"])
        check(same(a, b), f"{tag}: values differ from zarr-python's assignment")
        if case["compressors"] is None and "shards" not in case and ours == theirs:
            differ = [k for k in ours if get(s3, f"into/ex/{tag}.zarr/{k}") != get(s3, f"into/zp/{tag}.zarr/{k}")]
            check(not differ, f"{tag}: bytes differ from zarr-python's: {differ}")


def http_reads(root, rng):
    """The local copies served over plain HTTP (Python's server), read by the binary."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        for name in cases(rng):
            arr = zarr.open_array(os.path.join(root, f"{name}.zarr"), mode="r")
            for sel in [None, (slice(3, 11), slice(5, 19))]:
                args = [f"{url}/{name}.zarr"] + ([] if sel is None else ["--subset", "3:11,5:19"])
                out = common.run(BINARY, args)
                want = fnv1a64(little_endian_bytes(arr[...] if sel is None else arr[sel]))
                check(out.returncode == 0 and checksum_of(out.stdout) == want,
                      f"http {name} {sel}: read {out.returncode} {checksum_of(out.stdout)} against {want}: {out.stderr}")
        out = common.run(BINARY, [f"{url}/nothing.zarr"])
        check(out.returncode == 1 and f"{url}/nothing.zarr/zarr.json: not found" in out.stderr,
              f"http, not an array: {out.returncode} {out.stderr}")
    finally:
        server.shutdown()


def silent_server():
    """A server that takes connections and never answers."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    return s


def failures(s3, root, endpoint):
    local = os.path.join(root, "plain.zarr")

    def fails(what, args, needles, env=None, unwritten=None):
        start = time.monotonic()
        out = common.run(BINARY, args, env=None if env is None else dict(os.environ, **env), timeout=60)
        took = time.monotonic() - start
        print(f"{what} ({took:.1f} s): {out.stderr.strip()}", flush=True)
        check(out.returncode == 1, f"{what}: exit code {out.returncode}: {out.stdout} {out.stderr}")
        check("panicked" not in out.stderr, f"{what}: panicked: {out.stderr}")
        for needle in needles:
            check(needle in out.stderr, f"{what}: message lacks {needle!r}: {out.stderr}")
        if unwritten is not None:
            check(keys(s3, unwritten) == [], f"{what}: keys written under {unwritten}: {keys(s3, unwritten)}")
        check(took < 30, f"{what}: took {took:.1f} s")

    fails("missing bucket, read", ["s3://no-such-bucket/a.zarr"],
          ["s3://no-such-bucket/a.zarr/zarr.json", "NoSuchBucket"])
    fails("missing bucket, write", [local, "--write", "s3://no-such-bucket/a.zarr"],
          ["s3://no-such-bucket/a.zarr/", "NoSuchBucket"])
    wrong = {"AWS_SECRET_ACCESS_KEY": "not-the-key"}
    fails("refused credentials, read", [f"s3://{BUCKET}/zp/plain.zarr"],
          [f"s3://{BUCKET}/zp/plain.zarr/zarr.json", "SignatureDoesNotMatch"], env=wrong)
    fails("refused credentials, write", [local, "--write", f"s3://{BUCKET}/denied.zarr"],
          [f"s3://{BUCKET}/denied.zarr/", "SignatureDoesNotMatch"], env=wrong, unwritten="denied.zarr")
    fails("unknown access key", [f"s3://{BUCKET}/zp/plain.zarr"],
          ["InvalidAccessKeyId"], env={"AWS_ACCESS_KEY_ID": "AKIANOTAKEY"})
    stopped = f"http://127.0.0.1:{free_port()}"
    fails("stopped server", [f"s3://{BUCKET}/zp/plain.zarr"],
          [f"s3://{BUCKET}/zp/plain.zarr/zarr.json", "onnection refused"], env={"AWS_ENDPOINT": stopped})
    silent = silent_server()
    try:
        mute = f"http://127.0.0.1:{silent.getsockname()[1]}"
        fails("server that does not answer", [f"s3://{BUCKET}/zp/plain.zarr", "--timeout", "1"],
              [f"s3://{BUCKET}/zp/plain.zarr/zarr.json", "timed out"], env={"AWS_ENDPOINT": mute})
    finally:
        silent.close()
    fails("not a Zarr array", [f"s3://{BUCKET}/nothing.zarr"],
          [f"s3://{BUCKET}/nothing.zarr/zarr.json", "not a Zarr v3 array"])
    # A chunk that fails to decompress: its read names it, and a copy of it writes nothing.
    s3.put_object(Bucket=BUCKET, Key="ex/zstd.zarr/c/1/1", Body=b"\x28\xb5\x2f\xfd not zstd")
    fails("corrupt chunk, read", [f"s3://{BUCKET}/ex/zstd.zarr"], [f"s3://{BUCKET}/ex/zstd.zarr/c/1/1", "zstd"])
    fails("corrupt chunk, copied", [f"s3://{BUCKET}/ex/zstd.zarr", "--write", f"s3://{BUCKET}/never.zarr"],
          [f"s3://{BUCKET}/ex/zstd.zarr/c/1/1"], unwritten="never.zarr")


server, endpoint = start_moto()
root = tempfile.mkdtemp(prefix="zarr-s3-")
try:
    s3 = make_user(endpoint)
    rng = np.random.default_rng(7)
    copies_and_reads(s3, root, rng)
    http_reads(root, rng)
    writes_into(s3, root, rng)
    failures(s3, root, endpoint)
finally:
    server.terminate()
    server.wait(timeout=10)
    shutil.rmtree(root, ignore_errors=True)
check.exit()
