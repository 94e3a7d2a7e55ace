#!/usr/bin/env python3
"""Writes a netCDF-3 (64-bit offset) file of float and double variables for scripts/bench.

    gen_bench_data.py OUT.nc SIZE_MB

The file holds `temp` (float) and `pres` (double), both (time, lat, lon), with smooth,
varied values (so that compressors see realistic data), sized to about SIZE_MB in total.
Written directly in the classic format so that no netCDF library is needed; the bench
converts it to netCDF-4 with the reference nccopy.
"""
import struct
import sys

try:
    import numpy as np
except ImportError:  # the project venv has numpy (hdf5plugin needs it)
    np = None

NC_DIMENSION, NC_VARIABLE = 10, 11
NC_FLOAT, NC_DOUBLE = 5, 6


def name(text):
    raw = text.encode()
    return struct.pack(">i", len(raw)) + raw + b"\0" * (-len(raw) % 4)


def main():
    out, size_mb = sys.argv[1], float(sys.argv[2])
    lat, lon = 180, 360
    per_step = lat * lon * (4 + 8)
    nt = max(1, int(size_mb * 1e6 / per_step))
    dims = [("time", nt), ("lat", lat), ("lon", lon)]
    variables = [("temp", NC_FLOAT, 4), ("pres", NC_DOUBLE, 8)]
    header = b"CDF\x02" + struct.pack(">i", 0)
    header += struct.pack(">ii", NC_DIMENSION, len(dims))
    for dim, n in dims:
        header += name(dim) + struct.pack(">i", n)
    header += struct.pack(">ii", 0, 0)  # no global attributes
    var_header_len = sum(
        len(name(v)) + 4 + 3 * 4 + 8 + 4 + 4 + 8 for v, _, _ in variables
    )
    begin = len(header) + 8 + var_header_len
    sizes = [nt * lat * lon * size for _, _, size in variables]
    header += struct.pack(">ii", NC_VARIABLE, len(variables))
    offset = begin
    for (var, nc_type, _), vsize in zip(variables, sizes):
        header += name(var) + struct.pack(">i", 3) + struct.pack(">iii", 0, 1, 2)
        header += struct.pack(">ii", 0, 0)  # no attributes
        header += struct.pack(">iiq", nc_type, min(vsize, 2**32 - 4), offset)
        offset += vsize
    assert len(header) == begin, (len(header), begin)
    with open(out, "wb") as f:
        f.write(header)
        for (var, nc_type, _), vsize in zip(variables, sizes):
            dtype = ">f4" if nc_type == NC_FLOAT else ">f8"
            for t in range(nt):
                if np is not None:
                    y, x = np.mgrid[0:lat, 0:lon]
                    field = 280 + 20 * np.sin(y / 17.0 + t / 5.0) * np.cos(x / 23.0)
                    field = field + (x * 7 + y * 13 + t) % 11 / 100.0
                    f.write(field.astype(dtype).tobytes())
                else:
                    fmt = ">%d%s" % (lat * lon, "f" if nc_type == NC_FLOAT else "d")
                    values = [280.0 + ((i * 7 + t) % 1000) / 10.0 for i in range(lat * lon)]
                    f.write(struct.pack(fmt, *values))


if __name__ == "__main__":
    main()
