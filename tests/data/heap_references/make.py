"""netCDF-4 files whose variable-length values all name one stored value.

Usage: make.py KIND OUT N L

KIND is one of
  strings    a string variable `s` of N elements, each a reference to one stored
             string of L bytes (h5py writes the string once, in dataset `a`, and the
             chunk of `s` is N copies of its 16-byte heap reference);
  fill       a string variable `s` of N elements, nothing written, whose HDF5 fill
             value is a string of L bytes (62 KB of file whatever N is);
  attribute  a global string attribute `t` of N elements, each patched to reference
             one stored string of L bytes;
  vlen       a netCDF vlen variable `s` (type `ragged`, int) of N elements, each a
             reference to one stored sequence of L ints (written by netCDF4-python);
  compound   a global attribute `c` of a committed compound type `T {string s}` of N
             elements, each patched to reference one stored string of L bytes;
  sparse     `strings`, then made 3 GB long with holes (truncate): 70 KB stored;
  linked     a group `g` with a string attribute of N elements of L bytes, hard-linked
             from the root ten more times (libnetcdf reads it once per link);
  short-attribute, short-string, short-vlen
             a global string attribute `a`, a string variable `s`, a vlen (int)
             variable `s`, of N elements (N >= 2), whose first element's stored length
             says 1 while its heap object holds L bytes (L ints): libhdf5 1.10 copies
             the whole object into a buffer of the stored length (red team s31b HB10);
  short-fill a string variable `v` of N elements whose HDF5 fill value (a string of L
             bytes) has its stored length, in both fill value messages, patched to 1
             (libnetcdf reads the fill value while opening the file: red team s32 HE1);
  lengths-4  an ordinary file with 4-byte lengths (HDF5's `sizeof_size`, set with
             h5py's low-level API): a global string attribute of L bytes and a string
             variable of N elements (nctools walked its heaps from the wrong byte: s32 HE2).

Made for nctools' tests of the memory rule (red team s30 H6); with small N and L the
files are ordinary and read like any other.
"""
import os
import struct
import sys
import zlib

import h5py
import numpy as np

kind, out, n, length = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
strings = h5py.string_dtype()


def first_reference(dataset):
    """The 16-byte heap reference of element 0 of a gzip-chunked dataset."""
    return zlib.decompress(dataset.id.read_direct_chunk((0,))[1])[:16]


if kind in ("strings", "sparse"):
    with h5py.File(out, "w") as f:
        a = f.create_dataset("a", shape=(1,), chunks=(1,), dtype=strings, compression="gzip")
        a[0] = "x" * length
        s = f.create_dataset("s", shape=(n,), chunks=(n,), dtype=strings, compression="gzip")
        s.id.write_direct_chunk((0,), zlib.compress(first_reference(a) * n, 9))
    if kind == "sparse":
        os.truncate(out, 3_000_000_000)
elif kind == "compound":
    compound = np.dtype([("s", strings)])
    values = np.empty(n, dtype=compound)
    values["s"][0] = "B" * length
    for i in range(1, n):
        values["s"][i] = "x"
    with h5py.File(out, "w", libver="earliest") as f:
        f["T"] = compound
        f.attrs.create("c", values, dtype=f["T"])
        f.create_dataset("v", data=np.arange(3, dtype="i4"))
    data = bytearray(open(out, "rb").read())
    # The first reference (length L) followed by one of length 1: the attribute's values.
    big, one = struct.pack("<I", length), struct.pack("<I", 1)
    at = data.find(big)
    while at >= 0 and data[at + 16:at + 20] != one:
        at = data.find(big, at + 1)
    reference = bytes(data[at:at + 16])
    for i in range(1, n):
        data[at + 16 * i:at + 16 * i + 16] = reference
    open(out, "wb").write(bytes(data))
elif kind == "linked":
    with h5py.File(out, "w") as f:
        g = f.create_group("g")
        g.attrs.create("a", np.array(["x" * length] * n, dtype=object), dtype=strings)
        for k in range(10):
            f[f"g{k}"] = g
elif kind == "fill":
    with h5py.File(out, "w") as f:
        f.create_dataset("s", shape=(n,), chunks=(min(n, 1024),), dtype=strings,
                         fillvalue="x" * length)
elif kind == "attribute":
    with h5py.File(out, "w", libver=("v110", "v110")) as f:
        a = f.create_dataset("a", shape=(2,), chunks=(1,), dtype=strings, compression="gzip")
        a[0] = "x" * length
        a[1] = "y"
        f.flush()
        reference = first_reference(a)
        f.attrs.create("t", np.array(["Q"] * n, dtype=object), dtype=strings)
    data = bytearray(open(out, "rb").read())
    # The attribute's N references of length 1 lie 16 bytes apart.
    one = struct.pack("<I", 1)
    start = next(
        at for at in range(len(data) - 16 * n + 1)
        if all(data[at + 16 * k:at + 16 * k + 4] == one for k in range(0, n, max(1, n // 50)))
    )
    for k in range(n):
        data[start + 16 * k:start + 16 * k + 16] = reference
    open(out, "wb").write(bytes(data))
elif kind == "vlen":
    import netCDF4

    with netCDF4.Dataset(out, "w") as d:
        ragged = d.createVLType(np.int32, "ragged")
        d.createDimension("one", 1)
        d.createDimension("n", n)
        a = d.createVariable("a", ragged, ("one",), zlib=True, shuffle=False, chunksizes=(1,))
        s = d.createVariable("s", ragged, ("n",), zlib=True, shuffle=False, chunksizes=(n,))
        a[0] = np.arange(length, dtype=np.int32)
        s[0] = np.arange(1, dtype=np.int32)
    with h5py.File(out, "r+") as f:
        f["s"].id.write_direct_chunk((0,), zlib.compress(first_reference(f["a"]) * n, 9))
elif kind in ("short-attribute", "short-string"):
    values = np.array(["B" * length] + ["x"] * (n - 1), dtype=object)
    with h5py.File(out, "w", libver="earliest") as f:
        if kind == "short-attribute":
            f.attrs.create("a", values, dtype=strings)
        else:
            f.create_dataset("s", data=values, dtype=strings)
    data = bytearray(open(out, "rb").read())
    # The first reference (length L) is followed by one of length 1.
    big, one = struct.pack("<I", length), struct.pack("<I", 1)
    at = data.find(big)
    while at >= 0 and data[at + 16:at + 20] != one:
        at = data.find(big, at + 1)
    data[at:at + 4] = one
    open(out, "wb").write(bytes(data))
elif kind == "short-vlen":
    import netCDF4

    with netCDF4.Dataset(out, "w") as d:
        ragged = d.createVLType(np.int32, "ragged")
        d.createDimension("n", n)
        s = d.createVariable("s", ragged, ("n",), zlib=True, shuffle=False, chunksizes=(n,))
        for i in range(n):
            s[i] = np.arange(length if i == 0 else 1, dtype=np.int32)
    with h5py.File(out, "r+") as f:
        chunk = bytearray(zlib.decompress(f["s"].id.read_direct_chunk((0,))[1]))
        chunk[0:4] = struct.pack("<I", 1)
        f["s"].id.write_direct_chunk((0,), zlib.compress(bytes(chunk), 9))
elif kind == "short-fill":
    with h5py.File(out, "w", libver="earliest") as f:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_fill_value(np.array([b"F" * length], dtype=h5py.string_dtype("ascii")))
        variable = h5py.h5t.C_S1.copy()
        variable.set_size(h5py.h5t.VARIABLE)
        h5py.h5d.create(f.id, b"v", variable, h5py.h5s.create_simple((n,)), dcpl=dcpl)
        f["v"][: n // 2] = np.array(["a"] * (n // 2), dtype=object)
    data = bytearray(open(out, "rb").read())
    # The fill value's references: length L, then the address of the heap collection
    # that holds the fill string (the first one; the file has no user block).
    reference = struct.pack("<IQ", length, data.find(b"GCOL"))
    at = data.find(reference)
    assert at > 0, kind
    while at >= 0:
        data[at:at + 4] = struct.pack("<I", 1)
        at = data.find(reference, at + 1)
    open(out, "wb").write(bytes(data))
elif kind == "lengths-4":
    create = h5py.h5p.create(h5py.h5p.FILE_CREATE)
    create.set_sizes(8, 4)
    access = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    access.set_libver_bounds(h5py.h5f.LIBVER_EARLIEST, h5py.h5f.LIBVER_V18)
    made = h5py.h5f.create(out.encode(), h5py.h5f.ACC_TRUNC, fcpl=create, fapl=access)
    with h5py.File(made) as f:
        f.attrs.create("s", data="S" * length, dtype=h5py.string_dtype("ascii"))
        f.create_dataset("t", data=np.array([f"t{i}" for i in range(n)], dtype=object), dtype=strings)
else:
    sys.exit(f"unknown kind {kind}")
