# The zarr-python side of `cargo xtask bench zarr` (run with `python -c`):
#   write IN.nc OUT.zarr   h5py reads IN one chunk at a time; zarr-python writes Zarr v2
#                          with Zstd(level=3) and the same chunks (the job of our
#                          `nccopy -F '*,zstd,3' IN.nc OUT.zarr`)
#   write-shards IN.nc OUT.zarr
#                          the same into Zarr v3 with shards of the chunks holding at most
#                          64 MB of values, as many records as fit (the job of our
#                          `nccopy -F '*,zstd,3' --shards '*:64M' IN.nc OUT#mode=zarr,v3`
#                          on this input, whose chunks are whole records)
#   read STORE OUT.nc      zarr-python reads every chunk of every array; h5py writes them
#                          unfiltered with the same chunks (the job of `nccopy STORE OUT.nc`)
import sys, warnings
warnings.simplefilter("ignore")
import h5py, numcodecs, numpy as np, zarr
if sys.argv[1] == "write-shards":
    src, dst = sys.argv[2], sys.argv[3]
    g = zarr.open_group(dst, mode="w", zarr_format=3)
    with h5py.File(src, "r") as f:
        for name in ("lat", "lon", "time", "tas", "pr"):
            d = f[name]
            chunks = d.chunks or d.shape
            per = max(1, 64_000_000 // (int(np.prod(chunks)) * d.dtype.itemsize))
            whole = -(-d.shape[0] // chunks[0]) * chunks[0]
            shards = (min(per * chunks[0], whole),) + tuple(chunks[1:])
            dims = ["time", "lat", "lon"][3 - d.ndim:] if name in ("tas", "pr") else [name]
            a = g.create_array(name, shape=d.shape, chunks=chunks, shards=shards,
                               dtype=d.dtype, compressors=zarr.codecs.ZstdCodec(level=3),
                               dimension_names=dims)
            for i in range(0, d.shape[0], shards[0]):
                a[i:i + shards[0]] = d[i:i + shards[0]]
elif sys.argv[1] == "write":
    src, dst = sys.argv[2], sys.argv[3]
    g = zarr.open_group(dst, mode="w", zarr_format=2)
    with h5py.File(src, "r") as f:
        for name in ("lat", "lon", "time", "tas", "pr"):
            d = f[name]
            chunks = d.chunks or d.shape
            a = g.create_array(name, shape=d.shape, chunks=chunks, dtype=d.dtype,
                               compressor=numcodecs.Zstd(level=3), fill_value=None)
            a.attrs["_ARRAY_DIMENSIONS"] = ["time", "lat", "lon"][3 - d.ndim:] if name in ("tas", "pr") else [name]
            step = chunks[0]
            for i in range(0, d.shape[0], step):
                a[i:i + step] = d[i:i + step]
else:
    g = zarr.open_group(sys.argv[2], mode="r")
    with h5py.File(sys.argv[3], "w") as f:
        for name, a in g.arrays():
            d = f.create_dataset(name, shape=a.shape, chunks=a.chunks, dtype=a.dtype)
            step = a.chunks[0]
            for i in range(0, a.shape[0], step):
                d[i:i + step] = a[i:i + step]
