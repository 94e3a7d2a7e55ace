"""Honest HDF5 files of user-defined types whose values take far more decoded than stored
(red team s33 HG3, HG3b, HG4, HG5), written by h5py, nothing patched.

Usage: make.py KIND OUT N [DEPTH WIDTH]

KIND is one of
  attribute  a global attribute of N values of W: a compound of WIDTH members, each a
             one-byte compound nested DEPTH deep (each level a committed type), zeros;
  variable   `v(N)` of a committed one-byte compound, in chunks of 1,000,000, deflated
             (level 9), zeros;
  nested     `v(N)` of W (as for attribute), in one chunk, deflated, zeros;
  one-value  `v(1)` of a compound whose one member is an array of N one-byte compounds
             nested DEPTH deep, deflated, zeros (s33b HH8: one value under the value
             limit stored, gigabytes decoded);
  sequences  `v(50000)` of a sequence (vlen) of one-byte compounds, contiguous, its
             first element N zeros, then every element's stored reference made the
             first's (s33b HH7: 806 KB, no holes, 5.5 GB decoded);
  sequence-attribute
             the same as a global attribute of 50,000 values.
"""
import struct
import sys

import h5py
import numpy as np

kind, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
depth, width = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else (1, 1)
with h5py.File(out, "w", libver=("v108", "v110")) as f:
    inner = np.dtype([("a", "i1")])
    f["T0"] = inner
    for level in range(1, depth):
        inner = np.dtype([("a", inner)])
        f[f"T{level}"] = inner
    outer = np.dtype([(f"m{j}", inner) for j in range(width)])
    f["W"] = outer
    if kind == "attribute":
        f.attrs.create("u", np.zeros(n, outer), dtype=f["W"])
    elif kind == "variable":
        chunk = min(n, 1_000_000)
        v = f.create_dataset("v", shape=(n,), dtype=f["T0"], chunks=(chunk,),
                             compression="gzip", compression_opts=9)
        zeros = np.zeros(chunk, dtype=f["T0"].dtype)
        for at in range(0, n, chunk):
            v[at:at + chunk] = zeros[:min(chunk, n - at)]
    elif kind == "nested":
        f.create_dataset("v", data=np.zeros(n, outer), dtype=f["W"], chunks=(n,),
                         compression="gzip", compression_opts=9)
    elif kind in ("sequences", "sequence-attribute"):
        f["V"] = h5py.vlen_dtype(f["T0"].dtype)
        values = np.empty(50000, dtype=object)
        values[:] = [np.zeros(0, inner)] * 50000
        values[0] = np.zeros(n, inner)
        if kind == "sequences":
            v = f.create_dataset("v", shape=(50000,), dtype=f["V"])
            v[:] = values
            where = v.id.get_offset()
        else:
            f.attrs.create("u", values, dtype=f["V"])
            where = None
    elif kind == "one-value":
        wide = np.dtype([("a", inner, (n,))])
        f["V"] = wide
        f.create_dataset("v", shape=(1,), dtype=f["V"], chunks=(1,), compression="gzip")
    else:
        sys.exit(f"unknown kind {kind}")
if kind in ("sequences", "sequence-attribute"):
    # Each stored element: its length (4 bytes), its collection's address (8), its
    # index (4). Every element made the first.
    data = bytearray(open(out, "rb").read())
    first = struct.pack("<I", n)
    at = data.find(first + b"") if where is None else where
    assert at >= 0 and data[at:at + 4] == first, "the first element is not where expected"
    element = bytes(data[at:at + 16])
    for k in range(1, 50000):
        data[at + 16 * k:at + 16 * k + 16] = element
    open(out, "wb").write(bytes(data))
