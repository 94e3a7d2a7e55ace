"""How blosc2-zeros-2e9.cframe was made (python-blosc2 4.14.1; run once, kept as data).

A Blosc2 contiguous frame (cframe) of one chunk whose whole content is the special value
zero: 172 bytes that say they decode to 2,000,000,000. hdf5plugin's Blosc2 filter (HDF5
id 32026) allocates that before it decodes anything.

    python3 blosc2_frame.py blosc2-zeros-2e9.cframe 2000000000
"""

import sys

import blosc2

size = int(sys.argv[2])
chunked = blosc2.SChunk(chunksize=size, cparams={"typesize": 4})
chunked.fill_special(size // 4, blosc2.SpecialValue.ZERO)
frame = chunked.to_cframe()
with open(sys.argv[1], "wb") as out:
    out.write(frame)
print(len(frame), chunked.nbytes, chunked.nchunks)
