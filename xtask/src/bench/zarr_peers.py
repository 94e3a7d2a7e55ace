# The peers' side of `cargo xtask bench zarr` (run with `python -c SCRIPT TOOL MODE SRC DST`).
#
# TOOL is zarr-python, zarrs (zarr-python with zarrs-python's ZarrsCodecPipeline, the
# zarrs Rust crate doing the chunks' encoding, decoding and local I/O) or tensorstore.
# A store is a directory, or s3://BUCKET/PREFIX on the server AWS_ENDPOINT_URL names
# (credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY): zarr-python and zarrs
# through fsspec's s3fs, tensorstore through its own s3 kvstore driver.
#
#   write IN.nc OUT        h5py reads IN; the tool writes Zarr v2 with Zstd(level=3) and
#                          IN's chunks (the job of our `nccopy -F '*,zstd,3' IN.nc OUT`)
#   write-shards IN.nc OUT the same into Zarr v3 with shards of the chunks holding at
#                          most 64 MB of values, as many records as fit (the job of our
#                          `nccopy -F '*,zstd,3' --shards '*:64M' IN.nc OUT#mode=zarr,v3`
#                          on this input, whose chunks are whole records)
#   read STORE OUT.nc      the tool reads and decodes every chunk of every array; h5py
#                          writes them unfiltered with the same chunks (the job of our
#                          `nccopy -F none STORE OUT.nc`)
#   upload DIR OUT         (no TOOL: `-`) copies a local store's files as they are to
#                          s3://BUCKET/PREFIX OUT
#   delete - OUT           removes every object under s3://BUCKET/PREFIX OUT
#
# Every tool moves whole records, as many as fit in 64 MB at a time (a slab), so that it
# can encode, decode and do its I/O on several chunks at once, as it would for a user.
import os, sys, warnings
warnings.simplefilter("ignore")

SLAB_BYTES = 64_000_000
NAMES = ("lat", "lon", "time", "tas", "pr")
tool, mode, src, dst = sys.argv[1:5]


def s3_parts(url):
    bucket, _, prefix = url[len("s3://"):].partition("/")
    return bucket, prefix.strip("/")


def boto():
    import boto3
    return boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                        region_name=os.environ.get("AWS_REGION", "us-east-1"))


if mode == "upload":
    client, (bucket, prefix) = boto(), s3_parts(dst)
    for top, _, files in os.walk(src):
        for name in files:
            path = os.path.join(top, name)
            key = prefix + "/" + os.path.relpath(path, src)
            client.upload_file(path, bucket, key)
    sys.exit(0)
if mode == "delete":
    client, (bucket, prefix) = boto(), s3_parts(dst)
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/"):
        keys = [{"Key": o["Key"]} for o in page.get("Contents", [])]
        if keys:
            client.delete_objects(Bucket=bucket, Delete={"Objects": keys})
    sys.exit(0)

import h5py, numpy as np


def records(shape, chunks, itemsize):
    """How many records (first-dimension indices) a slab holds: whole chunks, <= 64 MB."""
    per_record = int(np.prod(shape[1:])) * itemsize if len(shape) > 1 else itemsize
    chunk0 = chunks[0] if chunks else max(shape[0], 1)
    n = max(1, SLAB_BYTES // max(per_record * chunk0, 1)) * chunk0
    return max(1, min(n, max(shape[0], 1)))


def dims(name, ndim):
    return ["time", "lat", "lon"][3 - ndim:] if name in ("tas", "pr") else [name]


def zarr_store(url):
    """A zarr-python store for a directory or an s3:// URL."""
    import zarr
    if url.startswith("s3://"):
        opts = {"endpoint_url": os.environ["AWS_ENDPOINT_URL"],
                "key": os.environ["AWS_ACCESS_KEY_ID"],
                "secret": os.environ["AWS_SECRET_ACCESS_KEY"]}
        return zarr.storage.FsspecStore.from_url(url, storage_options=opts, read_only=mode == "read")
    return url


def ts_kvstore(url):
    """A tensorstore kvstore spec for a directory or an s3:// URL."""
    if url.startswith("s3://"):
        bucket, prefix = s3_parts(url)
        return {"driver": "s3", "bucket": bucket, "path": prefix + "/",
                "endpoint": os.environ["AWS_ENDPOINT_URL"],
                "aws_region": os.environ.get("AWS_REGION", "us-east-1")}
    return {"driver": "file", "path": os.path.abspath(url) + "/"}


def zarr_python_write(src, dst, shards):
    import numcodecs, zarr
    g = zarr.open_group(zarr_store(dst), mode="w", zarr_format=3 if shards else 2)
    with h5py.File(src, "r") as f:
        for name in NAMES:
            d = f[name]
            chunks = d.chunks or d.shape
            if shards:
                per = max(1, 64_000_000 // (int(np.prod(chunks)) * d.dtype.itemsize))
                whole = -(-d.shape[0] // chunks[0]) * chunks[0]
                shard = (min(per * chunks[0], whole),) + tuple(chunks[1:])
                a = g.create_array(name, shape=d.shape, chunks=chunks, shards=shard,
                                   dtype=d.dtype, compressors=zarr.codecs.ZstdCodec(level=3),
                                   dimension_names=dims(name, d.ndim))
                step = shard[0]
            else:
                a = g.create_array(name, shape=d.shape, chunks=chunks, dtype=d.dtype,
                                   compressors=numcodecs.Zstd(level=3), fill_value=None)
                a.attrs["_ARRAY_DIMENSIONS"] = dims(name, d.ndim)
                step = records(d.shape, chunks, d.dtype.itemsize)
            for i in range(0, d.shape[0], step):
                a[i:i + step] = d[i:i + step]


def zarr_python_read(src, out):
    import zarr
    g = zarr.open_group(zarr_store(src), mode="r")
    with h5py.File(out, "w") as f:
        for name, a in g.arrays():
            d = f.create_dataset(name, shape=a.shape, chunks=a.chunks, dtype=a.dtype)
            step = records(a.shape, a.chunks, a.dtype.itemsize)
            for i in range(0, a.shape[0], step):
                d[i:i + step] = a[i:i + step]


def tensorstore_write(src, dst):
    import json, tensorstore as ts
    kv = ts_kvstore(dst)
    root = ts.KvStore.open(kv).result()
    root.write(".zgroup", json.dumps({"zarr_format": 2})).result()
    with h5py.File(src, "r") as f:
        for name in NAMES:
            d = f[name]
            chunks = d.chunks or d.shape
            spec = {"driver": "zarr", "kvstore": dict(kv, path=kv["path"] + name + "/"),
                    "metadata": {"shape": list(d.shape), "chunks": list(chunks),
                                 "dtype": d.dtype.str, "fill_value": None,
                                 "compressor": {"id": "zstd", "level": 3}},
                    "create": True, "delete_existing": True}
            a = ts.open(spec).result()
            root.write(name + "/.zattrs",
                       json.dumps({"_ARRAY_DIMENSIONS": dims(name, d.ndim)})).result()
            step = records(d.shape, chunks, d.dtype.itemsize)
            for i in range(0, d.shape[0], step):
                j = min(i + step, d.shape[0])
                a[i:j].write(d[i:j]).result()


def tensorstore_read(src, out):
    import tensorstore as ts
    kv = ts_kvstore(src)
    keys = [k.decode() for k in ts.KvStore.open(kv).result().list().result()]
    names = sorted(k[:-len("/.zarray")] for k in keys if k.endswith("/.zarray"))
    with h5py.File(out, "w") as f:
        for name in names:
            a = ts.open({"driver": "zarr", "kvstore": dict(kv, path=kv["path"] + name + "/")},
                        read=True).result()
            chunks = a.chunk_layout.read_chunk.shape
            d = f.create_dataset(name, shape=a.shape, chunks=tuple(chunks),
                                 dtype=a.dtype.numpy_dtype)
            step = records(a.shape, chunks, a.dtype.numpy_dtype.itemsize)
            for i in range(0, a.shape[0], step):
                j = min(i + step, a.shape[0])
                d[i:j] = a[i:j].read().result()


if tool == "zarrs":
    import zarr, zarrs
    # strict: an array or a store zarrs cannot take fails, instead of running on
    # zarr-python's own pipeline unseen.
    zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                     "codec_pipeline.strict": True})
if tool in ("zarr-python", "zarrs"):
    if mode == "read":
        zarr_python_read(src, dst)
    else:
        zarr_python_write(src, dst, mode == "write-shards")
elif tool == "tensorstore":
    if mode == "read":
        tensorstore_read(src, dst)
    elif mode == "write":
        tensorstore_write(src, dst)
    else:
        sys.exit("tensorstore: %s is not a mode of this script" % mode)
else:
    sys.exit("unknown tool " + tool)
