"""netCDF-4 files whose stored parameters or types declare gigabytes (red team s32 HD4,
HD5), made with h5py.

Usage: declared_sizes.py KIND OUT SIZE

KIND is one of
  nbit         int v(8), chunks of 4, HDF5's nbit filter alone, each chunk 16 raw bytes;
               its stored parameters patched to say "compressed" and SIZE elements a
               chunk (HDF5 1.10 allocates SIZE x 4 bytes and reads past the chunk);
  scaleoffset  int v(8), chunks of 4, HDF5's scaleoffset filter, written by HDF5; its
               stored element count patched to SIZE;
  opaque       a committed type `opaque(SIZE) T`, `T v(2)`, nothing written;
  compound     a committed compound of SIZE bytes (one int at its end), `v(2)`, nothing
               written;
  array-member a committed compound `{int x; int a(1913)}`, `v(2)` never written, the
               array member's dimension patched to SIZE / 4 (the compound's own size field
               still says 7,656 bytes; HDF5 takes the members' extent);
  root-header  the root group's (version 1) object header stating SIZE bytes, the file
               made long enough with a hole and the superblock's end of address moved
               (libhdf5 loads the root header while opening the file);
  collection   a global string attribute whose global heap collection (the file's last
               object) says SIZE bytes, the superblock's end of address moved past it and
               the file made that long with a hole (libhdf5 loads a collection whole);
  overlapping-blocks
               a new version 1 root group header (its symbol table message, then a
               continuation) at the end of the file, followed by 250 continuation blocks
               32 bytes apart, each a continuation to the next and a NIL message over the
               others' starts, all running to the same end over SIZE / 1000 bytes of real
               zeros (no holes): libhdf5 loads every block of the root header while
               opening the file (red team s33 HG1);
  nil-messages the same with one block: SIZE / 1000 bytes of NIL messages (libhdf5 keeps
               a record per message: s33b MH1).
"""
import os
import struct
import sys

import h5py
import numpy as np
from h5py import h5d, h5p, h5s, h5t

kind, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])


def patch(pattern, at, word):
    """Replaces the 4-byte word `at` bytes into the one place `pattern` is found."""
    data = bytearray(open(out, "rb").read())
    found = data.find(pattern)
    assert found > 0 and data.find(pattern, found + 1) < 0, kind
    data[found + at:found + at + 4] = struct.pack("<I", word)
    open(out, "wb").write(bytes(data))


if kind == "nbit":
    with h5py.File(out, "w", libver="earliest") as f:
        dcpl = h5p.create(h5p.DATASET_CREATE)
        dcpl.set_chunk((4,))
        dcpl.set_filter(5, 0, ())
        dataset = h5d.create(f.id, b"v", h5t.STD_I32LE, h5s.create_simple((8,)), dcpl=dcpl)
        for c in range(2):
            dataset.write_direct_chunk((c * 4,), np.arange(4, dtype="<i4").tobytes())
    # The stored parameters (8 words): count, need-not-compress, elements, class, size...
    data = bytearray(open(out, "rb").read())
    words = struct.pack("<3I", 8, 1, 4)
    at = data.find(words)
    assert at > 0, kind
    data[at + 4:at + 12] = struct.pack("<2I", 0, size)
    open(out, "wb").write(bytes(data))
elif kind == "scaleoffset":
    with h5py.File(out, "w", libver="earliest") as f:
        dcpl = h5p.create(h5p.DATASET_CREATE)
        dcpl.set_chunk((4,))
        dcpl.set_scaleoffset(2, 0)
        dataset = h5d.create(f.id, b"v", h5t.STD_I32LE, h5s.create_simple((8,)), dcpl=dcpl)
        dataset.write(h5s.ALL, h5s.ALL, np.arange(8, dtype="<i4"))
    # scale type, scale factor, elements, class, size.
    patch(struct.pack("<5I", 2, 0, 4, 0, 4), 8, size)
elif kind in ("opaque", "compound"):
    if kind == "opaque":
        dtype = np.dtype(f"V{size}")
    else:
        dtype = np.dtype({"names": ["a"], "formats": ["<i4"], "offsets": [size - 4], "itemsize": size})
    with h5py.File(out, "w") as f:
        f["T"] = dtype
        f.create_dataset("v", shape=(2,), dtype=f["T"])
elif kind == "array-member":
    with h5py.File(out, "w", libver="earliest") as f:
        f["T"] = np.dtype([("x", "<i4"), ("a", "<i4", (1913,))])
        f.create_dataset("v", shape=(2,), dtype=f["T"])
    data = bytearray(open(out, "rb").read())
    at = data.find(struct.pack("<I", 1913))
    assert at > 0 and data.find(struct.pack("<I", 1913), at + 1) < 0, kind
    data[at:at + 4] = struct.pack("<I", size // 4)
    open(out, "wb").write(bytes(data))
elif kind == "root-header":
    with h5py.File(out, "w", libver="earliest") as f:
        f.create_dataset("x", data=np.arange(3, dtype="i4"))
        root = h5py.h5o.get_info(f["/"].id).addr
    data = bytearray(open(out, "rb").read())
    struct.pack_into("<I", data, root + 8, size)
    end = root + 16 + size + 4096
    struct.pack_into("<Q", data, 40, end)
    open(out, "wb").write(bytes(data))
    os.truncate(out, end)
elif kind == "collection":
    with h5py.File(out, "w", libver="earliest") as f:
        f.attrs.create("s", ["hello"], dtype=h5py.string_dtype())
    data = bytearray(open(out, "rb").read())
    at = data.find(b"GCOL")
    assert at > 0 and at + struct.unpack_from("<Q", data, at + 8)[0] == len(data), kind
    data[at + 8:at + 16] = struct.pack("<Q", size)
    # Superblock version 0: the end of address at byte 40.
    struct.pack_into("<Q", data, 40, at + size)
    open(out, "wb").write(bytes(data))
    os.truncate(out, at + size)
elif kind in ("overlapping-blocks", "nil-messages"):
    with h5py.File(out, "w", libver="earliest") as f:
        f.create_dataset("x", data=np.arange(3, dtype="i4"))
    data = bytearray(open(out, "rb").read())
    # Superblock version 0: the root group's header address at 64.
    root = struct.unpack_from("<Q", data, 64)[0]
    messages, end = root + 16, root + 16 + struct.unpack_from("<I", data, root + 8)[0]
    symbol_table = None
    while messages < end:
        kind_of, length = struct.unpack_from("<HH", data, messages)
        if kind_of == 0x11:
            symbol_table = bytes(data[messages + 8:messages + 8 + length])
        messages += 8 + length
    assert symbol_table is not None, kind
    while len(data) % 8:
        data.append(0)

    def continuation(address, length):
        return struct.pack("<HHB3x", 0x10, 16, 0) + struct.pack("<QQ", address, length)

    blocks_count, zeros = (250 if kind == "overlapping-blocks" else 1), size // 1000
    new_root = len(data)
    blocks = new_root + 16 + 24 + 24
    last = blocks + 32 * blocks_count + zeros
    data += struct.pack("<BBHII4x", 1, 0, 2, 1, 48) + struct.pack("<HHB3x", 0x11, 16, 0)
    data += symbol_table + continuation(blocks, last - blocks)
    for k in range(blocks_count):
        start = blocks + 32 * k
        if k < blocks_count - 1:
            data += continuation(start + 32, last - (start + 32))
        else:
            data += struct.pack("<HHB3x", 0, 16, 0) + bytes(16)
        data += struct.pack("<HHB3x", 0, 32 * (blocks_count - k - 1), 0)
    data += bytes(zeros)
    struct.pack_into("<Q", data, 64, new_root)
    struct.pack_into("<Q", data, 40, len(data))
    open(out, "wb").write(bytes(data))
else:
    sys.exit(f"unknown kind {kind}")
