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
               to name v's own header;
  chunk-tree   `int v(100)` in one chunk of 100 (a version 1 B-tree of one leaf); the
               leaf made a node of level 1 whose one child is itself (HG7);
  group-tree   the same file; the root group's B-tree node made a node of level 1 whose
               one child is itself (HG7, in `ncdump -h`);
  free-list    the same file; the first free block of the root group's local heap made
               to name itself as the next (HG10: libhdf5 allocates without end);
  shared-attribute-type-0
               as shared-attribute, the shared message's type byte 0 (libhdf5 1.10 takes
               every version 2 shared message for a header's address: s33b HH1);
  btree-k      the chunk-tree file with the superblock's group leaf K made 65,535
               (libhdf5 reads every B-tree node at the size K gives it: s33b HH3);
  unlinked-scale
               `v` with the dimension scale `x` attached, and a copy of x's header at the
               end of the file, which no link names; v's DIMENSION_LIST reference made to
               name the copy (libnetcdf opens what it names: s33b HH2, where such a copy
               holding a self-naming shared type crashed libhdf5);
  integer-dimension-list
               `v` with a DIMENSION_LIST that is a plain 64-bit integer attribute [[1, 0]]
               (libhdf5 reads it into an hvl_t and follows its "pointer": s33c NH1);
  long-dimension-list
               `v` of one dimension with a DIMENSION_LIST of two object references
               (libhdf5 reads it into one hvl_t per dimension: s33c NH2);
  shared-attribute-v3-type-0
               as shared-attribute, in the version 3 form with type byte 0 (libhdf5 takes
               every version 3 type but 1 for a header's address: s33c NH3).
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
    elif kind in ("shared-attribute", "shared-attribute-type-0", "shared-attribute-v3-type-0"):
        x = f.create_dataset("x", data=np.arange(3, dtype="i4"))
        x.attrs["a"] = np.int32(1)
        headers = [h5py.h5o.get_info(x.id).addr]
    elif kind == "shared-type":
        f["T"] = np.dtype([("a", "i4"), ("b", "f8")])
        v = f.create_dataset("v", shape=(1,), dtype=f["T"])
        headers = [h5py.h5o.get_info(v.id).addr]
    elif kind in ("integer-dimension-list", "long-dimension-list"):
        x = f.create_dataset("x", data=np.arange(3, dtype="i4"))
        x.make_scale("x")
        v = f.create_dataset("v", data=np.arange(3, dtype="i4"))
        if kind == "integer-dimension-list":
            v.attrs.create("DIMENSION_LIST", np.array([[1, 0]], dtype="u8"))
        else:
            refs = np.empty(2, dtype=object)
            refs[0] = np.array([x.ref], dtype=h5py.ref_dtype)
            refs[1] = np.array([x.ref], dtype=h5py.ref_dtype)
            v.attrs.create("DIMENSION_LIST", refs, dtype=h5py.vlen_dtype(h5py.ref_dtype))
        headers = []
    elif kind == "unlinked-scale":
        x = f.create_dataset("x", data=np.arange(3, dtype="i4"))
        x.make_scale("x")
        v = f.create_dataset("v", data=np.arange(3, dtype="i4"))
        v.dims[0].attach_scale(x)
        headers = [h5py.h5o.get_info(x.id).addr]
    elif kind in ("chunk-tree", "group-tree", "free-list", "btree-k"):
        v = f.create_dataset("v", data=np.arange(100, dtype="i4"), chunks=(100,))
        headers = [h5py.h5o.get_info(f["/"].id).addr, h5py.h5o.get_info(v.id).addr]
    else:
        sys.exit(f"unknown kind {kind}")
data = bytearray(open(out, "rb").read())


def make_own_child(node):
    """Makes the version 1 B-tree node at `node` of level 1, its first child itself."""
    assert data[node:node + 4] == b"TREE", node
    data[node + 5] = 1
    # Signature, type, level, entries (8), siblings (16), the first key: 8 bytes for a
    # group's, 8 + 8 x dimensionality (2 here) for a chunk's.
    key = 8 if data[node + 4] == 0 else 24
    struct.pack_into("<Q", data, node + 24 + key, node)


if kind == "unlinked-scale":
    scale = headers[0]
    size = struct.unpack_from("<I", data, scale + 8)[0]
    copy = bytearray(data[scale:scale + 16 + size])
    for kind_of, _, _, at in messages(data, scale):
        if kind_of == 0x10:
            # Its continuation made a NIL message (the copy keeps its first block).
            struct.pack_into("<H", copy, at - scale, 0)
    while len(data) % 8:
        data.append(0)
    moved = len(data)
    data += copy + bytes(64)
    # Every reference to x in the global heap collections made to name the copy.
    at = data.find(b"GCOL")
    while at >= 0:
        length = struct.unpack_from("<Q", data, at + 8)[0]
        found = data.find(struct.pack("<Q", scale), at, at + length)
        while found >= 0:
            struct.pack_into("<Q", data, found, moved)
            found = data.find(struct.pack("<Q", scale), found + 8, at + length)
        at = data.find(b"GCOL", at + 4)
    # Superblock version 0: the end of file at 40.
    struct.pack_into("<Q", data, 40, len(data))
    open(out, "wb").write(bytes(data))
    sys.exit()
if kind == "btree-k":
    # Superblock version 0: the group leaf K at 16.
    struct.pack_into("<H", data, 16, 65535)
    open(out, "wb").write(bytes(data))
    sys.exit()
if kind in ("chunk-tree", "group-tree", "free-list"):
    root, dataset = headers
    if kind == "chunk-tree":
        _, _, _, at = next(m for m in messages(data, dataset) if m[0] == 0x08)
        assert data[at + 8] == 3 and data[at + 9] == 2, "not a version 3 chunked layout"
        make_own_child(struct.unpack_from("<Q", data, at + 8 + 3)[0])
    else:
        _, _, _, at = next(m for m in messages(data, root) if m[0] == 0x11)
        tree, heap = struct.unpack_from("<QQ", data, at + 8)
        if kind == "group-tree":
            make_own_child(tree)
        else:
            assert data[heap:heap + 4] == b"HEAP", heap
            free, segment = struct.unpack_from("<QQ", data, heap + 16)
            assert free != 1, "the root's local heap has no free block"
            struct.pack_into("<Q", data, segment + free, free)
    open(out, "wb").write(bytes(data))
    sys.exit()
if kind in ("relinked", "self-link"):
    for header in headers:
        assert struct.unpack_from("<I", data, header + 4)[0] == 2, header
        struct.pack_into("<I", data, header + 4, 1)
elif kind in ("integer-dimension-list", "long-dimension-list"):
    pass
elif kind in ("shared-attribute", "shared-attribute-type-0", "shared-attribute-v3-type-0"):
    header = headers[0]
    kind_of, _, flags, at = next(m for m in messages(data, header) if m[0] == 0x0C)
    data[at + 4] = flags | 0x02
    form = {"shared-attribute": [2, 2], "shared-attribute-type-0": [2, 0]}.get(kind, [3, 0])
    data[at + 8:at + 10] = bytes(form)
    struct.pack_into("<Q", data, at + 10, header)
else:
    header = headers[0]
    _, _, flags, at = next(m for m in messages(data, header) if m[0] == 0x03)
    assert flags & 2 and data[at + 8] in (2, 3), "the datatype message is not shared"
    struct.pack_into("<Q", data, at + 10, header)
open(out, "wb").write(bytes(data))
