"""The kerchunk cases' helper (run as `python -c SCRIPT MODE ARGS...`).

split IN.nc N K OUT.nc   writes the K-th of N time slices of IN.nc (netCDF4-python; the
                         input's chunks, deflate level 1) as OUT.nc
refs OUT.json IN.nc...   kerchunk's references: SingleHdf5ToZarr of each file, combined
                         along time by MultiZarrToZarr when there are several (no chunk
                         inlined, as nccopy --kerchunk inlines none)
"""
import json
import sys

mode = sys.argv[1]
if mode == "split":
    import netCDF4
    src, n, k, out = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    with netCDF4.Dataset(src) as a, netCDF4.Dataset(out, "w") as b:
        nt = len(a.dimensions["time"])
        lo, hi = nt * k // n, nt * (k + 1) // n
        b.setncatts({name: a.getncattr(name) for name in a.ncattrs()})
        for name, dim in a.dimensions.items():
            b.createDimension(name, None if dim.isunlimited() else len(dim))
        for name, var in a.variables.items():
            chunks = var.chunking()
            v = b.createVariable(name, var.dtype, var.dimensions, zlib=True, complevel=1,
                                 chunksizes=None if chunks == "contiguous" else chunks)
            v.setncatts({att: var.getncattr(att) for att in var.ncattrs()})
            if var.dimensions and var.dimensions[0] == "time":
                for t in range(lo, hi):
                    v[t - lo] = var[t]
            else:
                v[...] = var[...]
elif mode == "refs":
    from kerchunk.hdf import SingleHdf5ToZarr
    from kerchunk.combine import MultiZarrToZarr
    out, files = sys.argv[2], sys.argv[3:]
    singles = [SingleHdf5ToZarr(f, f, inline_threshold=0).translate() for f in files]
    if len(singles) == 1:
        refs = singles[0]
    else:
        refs = MultiZarrToZarr(singles, concat_dims=["time"], identical_dims=["lat", "lon"],
                               inline_threshold=0).translate()
    with open(out, "w") as f:
        json.dump(refs, f)
else:
    sys.exit(f"unknown mode {mode}")
