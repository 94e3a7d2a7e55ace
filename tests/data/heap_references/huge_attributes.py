"""A netCDF-4 file whose dataset `/x` has N dense attributes kept as fractal-heap "huge"
objects, all patched to about SIZE bytes of values that overlap each other and the end of
the file (red team s32c HF3).

Usage: huge_attributes.py OUT N SIZE

h5py (libver latest) writes N float64 attributes of 8,500 values each, which HDF5 keeps
as huge objects of the attribute heap. Each attribute's dataspace is patched to SIZE / 8
values, and each huge object's length in the heap's B-tree leaf to match (its checksum
recomputed with HDF5's own lookup3, through ctypes); the file is then made long enough,
with real zero bytes (no holes), and the superblock's end of file moved. Every attribute
names the same stored bytes: libnetcdf reads each whole.
"""
import ctypes
import glob
import os
import struct
import sys

import h5py
import numpy as np

out, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
library = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(h5py.__file__), "..", "h5py.libs", "libhdf5-*.so*"))[0])
library.H5_checksum_lookup3.restype = ctypes.c_uint32


def lookup3(data):
    return library.H5_checksum_lookup3(ctypes.c_char_p(bytes(data)), ctypes.c_size_t(len(data)), ctypes.c_uint32(0))


values = 8500
with h5py.File(out, "w", libver="latest") as f:
    x = f.create_dataset("x", data=np.arange(3, dtype="i4"))
    for i in range(n):
        x.attrs[f"a{i:02d}"] = np.full(values, i, "f8")
data = bytearray(open(out, "rb").read())
stated = size // 8
at = data.find(struct.pack("<Q", values))
while at >= 0:
    struct.pack_into("<Q", data, at, stated)
    at = data.find(struct.pack("<Q", values), at + 8)
leaf = data.find(b"BTLF\x00\x01")
assert leaf >= 0, "no leaf of huge objects"
first = leaf + 6
for id_size in (8, 7, 4, 2, 1):
    width = 16 + id_size
    records = [struct.unpack_from("<QQ", data, first + r * width) for r in range(n)]
    if all(values * 8 <= length < values * 8 + 200 for _, length in records):
        break
else:
    sys.exit("huge object records not found")
for r, (_, length) in enumerate(records):
    struct.pack_into("<Q", data, first + r * width + 8, length - values * 8 + stated * 8)
end = first + n * width
struct.pack_into("<I", data, end, lookup3(data[leaf:end]))
last = max(address for address, _ in records) + stated * 8 + 4096
# Superblock version 3: end of file at 28, checksum at 44.
struct.pack_into("<Q", data, 28, last)
struct.pack_into("<I", data, 44, lookup3(data[:44]))
data.extend(bytes(last - len(data)))
open(out, "wb").write(bytes(data))
