"""Retypes the first modification-time message (0x12) of the version 1 object header of
`/v` as a LINK message (0x06), in place (red team s33b HH6: nctools took an object with a
link message for a group, and skipped its type's checks; libhdf5 takes an object for a
group only by a link info or symbol table message).

Usage: link_message.py IN OUT
"""
import struct
import sys

import h5py

source, target = sys.argv[1], sys.argv[2]
with h5py.File(source, "r") as f:
    header = h5py.h5o.get_info(f["v"].id).addr
data = bytearray(open(source, "rb").read())
assert data[header] == 1, "not a version 1 header"
size = struct.unpack_from("<I", data, header + 8)[0]
at = header + 16
while at < header + 16 + size:
    kind, length = struct.unpack_from("<HH", data, at)
    if kind in (0x12, 0x0E):
        struct.pack_into("<H", data, at, 0x06)
        break
    at += 8 + length
else:
    sys.exit("no modification time message")
open(target, "wb").write(bytes(data))
