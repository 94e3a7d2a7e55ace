# The zarr-python side of `cargo xtask bench zarr` (run with `python -c`):
#   write IN.nc OUT.zarr   h5py reads IN one chunk at a time; zarr-python writes Zarr v2
#                          with Zstd(level=3) and the same chunks (the job of our
#                          `nccopy -F '*,zstd,3' IN.nc OUT.zarr`)
#   read STORE OUT.nc      zarr-python reads every chunk of every array; h5py writes them
#                          unfiltered with the same chunks (the job of `nccopy STORE OUT.nc`)
import sys, warnings
warnings.simplefilter("ignore")
import h5py, numcodecs, numpy as np, zarr
if sys.argv[1] == "write":
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
