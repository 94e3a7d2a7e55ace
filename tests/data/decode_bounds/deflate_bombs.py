"""netCDF-4 files whose chunks are zlib(zlib(SIZE zero bytes)) under deflate,deflate,
made with h5py's low-level API (red team s31 H1, H2, H3, H6, H7).

Usage: deflate_bombs.py KIND OUT SIZE

KIND is one of
  big     float v(70,000,000) in one chunk of 280 MB, larger than the chunk limit;
  nbit    float v(8), chunks of one, deflate,deflate,nbit, nbit skipped by every chunk
          (filter mask 4);
  holes   float v(12), chunks of one, the first 4 never written;
  fixed   8-byte fixed-length strings s(8), chunks of one;
  vlen    variable-length UTF-8 strings s(8), chunks of one;
  fletcher  float v(8), deflate,deflate,fletcher32, each checksum in the form HDF5 before
          1.6.3 wrote (its little-endian bytes c0 c1 c2 c3 stored c1 c0 c3 c2), which
          HDF5 accepts (red team s31b HB1);
  decoy   float v(8) (deflate,deflate,nbit, nbit skipped) created first, then a plain
          dataset `_nc4_non_coord_v` holding 8 ints (red team s31b HB3);
  claim   float v(2), chunks of one, one deflate, whose chunk index (a version 1 B-tree)
          claims stored sizes of 0xFFFFFFF0 bytes (red team s31c HC1);
  softlink  float v(8) as `nbit`, and groups `g` and `loop`, `loop` a soft link to `/g`
          (red team s31c HC3, HC4);
  twice   float v(100), chunks of one, deflate,deflate, whose version 1 B-tree (a root
          and two leaves) holds two entries for chunk 0: the second leaf's first entry
          and the root key above it are patched to name chunk 0, stored as 100,000
          random bytes at the end of the file. HDF5's iteration
          (H5Dget_chunk_info_by_coord) finds the first entry, its descent (H5Dread_chunk,
          H5Dread) the second (red team s32 HD1);
  sparse  `claim` with a claimed size of 1 GiB, the superblock's end of address and the
          file's length 3,000,000,000 bytes, all holes past the data (red team s32 HD2).
"""
import os
import struct
import sys
import zlib

import numpy as np

import h5py
from h5py import h5d, h5p, h5s, h5t

kind, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])


def zeros_stream(total):
    """zlib of `total` zero bytes, fed 16 MiB at a time."""
    compressor = zlib.compressobj(9)
    stream = bytearray()
    block = bytes(1 << 24)
    left = total
    while left > 0:
        n = min(left, len(block))
        stream += compressor.compress(block[:n])
        left -= n
    return bytes(stream + compressor.flush())


if kind == "twice":
    ok = zlib.compress(zlib.compress(bytes(4), 9), 9)
    with h5py.File(out, "w", libver="earliest") as f:
        dcpl = h5p.create(h5p.DATASET_CREATE)
        dcpl.set_chunk((1,))
        dcpl.set_deflate(9)
        dcpl.set_deflate(9)
        dataset = h5d.create(f.id, b"v", h5t.IEEE_F32LE, h5s.create_simple((100,)), dcpl=dcpl)
        for i in range(100):
            dataset.write_direct_chunk((i,), ok)
    data = bytearray(open(out, "rb").read())
    nodes = []  # (offset, level, keys' chunk offsets) of each raw-data B-tree node
    at = data.find(b"TREE")
    while at >= 0:
        node_type, level, entries = data[at + 4], data[at + 5], struct.unpack_from("<H", data, at + 6)[0]
        if node_type == 1:
            keys = [struct.unpack_from("<IIQQ", data, at + 24 + k * 32)[2] for k in range(entries + 1)]
            nodes.append((at, level, keys))
        at = data.find(b"TREE", at + 1)
    root = next(n for n in nodes if n[1] == 1)
    second = next(n for n in nodes if n[1] == 0 and n[2][0] == root[2][1])
    end = len(data)
    data += os.urandom(100_000)
    # The second leaf's first key and child: chunk 0, 100,000 bytes at the end.
    struct.pack_into("<IIQQ", data, second[0] + 24, 100_000, 0, 0, 0)
    struct.pack_into("<Q", data, second[0] + 48, end)
    # The root's key above it names chunk 0 too.
    struct.pack_into("<IIQQ", data, root[0] + 56, 100_000, 0, 0, 0)
    # The superblock's end of file address (version 0: at byte 40).
    struct.pack_into("<Q", data, 40, len(data))
    open(out, "wb").write(bytes(data))
    sys.exit(0)
frame = zlib.compress(zeros_stream(size), 9)
if kind in ("claim", "sparse"):
    frame = zlib.compress(bytes(4), 9)
    with h5py.File(out, "w", libver="earliest") as f:
        dcpl = h5p.create(h5p.DATASET_CREATE)
        dcpl.set_chunk((1,))
        dcpl.set_deflate(9)
        dataset = h5d.create(f.id, b"v", h5t.IEEE_F32LE, h5s.create_simple((2,)), dcpl=dcpl)
        for i in range(2):
            dataset.write_direct_chunk((i,), frame)
    data = bytearray(open(out, "rb").read())
    key = struct.pack("<IIQQ", len(frame), 0, 0, 0)
    claimed = 0xFFFFFFF0 if kind == "claim" else 1 << 30
    at = data.find(key)
    while at >= 0:
        data[at:at + 4] = struct.pack("<I", claimed)
        at = data.find(key, at + 1)
    if kind == "sparse":
        struct.pack_into("<Q", data, 40, 3_000_000_000)
    open(out, "wb").write(bytes(data))
    if kind == "sparse":
        os.truncate(out, 3_000_000_000)
    sys.exit(0)
shape, chunk, name, dtype, mask, holes = (8,), (1,), b"v", h5t.IEEE_F32LE, 0, 0
if kind == "big":
    shape = chunk = (70_000_000,)
elif kind == "holes":
    shape, holes = (12,), 4
elif kind == "nbit":
    mask = 4
elif kind == "fixed":
    name, dtype = b"s", h5t.C_S1.copy()
    dtype.set_size(8)
elif kind == "fletcher":
    import numcodecs

    checked = bytes(numcodecs.Fletcher32().encode(np.frombuffer(frame, dtype="u1")))
    body, c = checked[:-4], checked[-4:]
    frame = body + bytes([c[1], c[0], c[3], c[2]])
elif kind in ("decoy", "softlink"):
    mask = 4
elif kind == "vlen":
    name, dtype = b"s", h5t.C_S1.copy()
    dtype.set_size(h5t.VARIABLE)
    dtype.set_cset(h5t.CSET_UTF8)
else:
    sys.exit(f"unknown kind {kind}")

with h5py.File(out, "w", track_order=True) as f:
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_chunk(chunk)
    dcpl.set_deflate(9)
    dcpl.set_deflate(9)
    if kind in ("nbit", "decoy", "softlink"):
        dcpl.set_filter(5)
    if kind == "fletcher":
        dcpl.set_fletcher32()
    dataset = h5d.create(f.id, name, dtype, h5s.create_simple(shape), dcpl=dcpl)
    for i in range(holes, shape[0] // chunk[0]):
        dataset.write_direct_chunk((i,), frame, filter_mask=mask)
    if kind == "decoy":
        f.create_dataset("_nc4_non_coord_v", data=np.arange(8, dtype="<i4"), chunks=(1,))
    if kind == "softlink":
        f.create_group("g")
        f["loop"] = h5py.SoftLink("/g")
