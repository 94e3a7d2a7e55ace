"""Honest HDF5 files of user-defined types whose values take far more decoded than stored
(red team s33 HG3, HG3b, HG4, HG5), written by h5py, nothing patched.

Usage: make.py KIND OUT N [DEPTH WIDTH]

KIND is one of
  attribute  a global attribute of N values of W: a compound of WIDTH members, each a
             one-byte compound nested DEPTH deep (each level a committed type), zeros;
  variable   `v(N)` of a committed one-byte compound, in chunks of 1,000,000, deflated
             (level 9), zeros;
  nested     `v(N)` of W (as for attribute), in one chunk, deflated, zeros.
"""
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
    else:
        sys.exit(f"unknown kind {kind}")
