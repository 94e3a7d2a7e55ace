"""Chunks encoded by numcodecs, the golden files of tests/numcodecs.rs.

Run with the project's virtualenv (scripts/setup installs numcodecs):
    .venv/bin/python crates/codecs/tests/data/numcodecs/gen.py
The input is 1000 float32 values of a smooth function, little-endian (input.bin).
"""
import pathlib

import numcodecs
import numpy as np

here = pathlib.Path(__file__).parent
data = (np.sin(np.arange(1000, dtype="<f4") / 50) * 100).astype("<f4")
(here / "input.bin").write_bytes(data.tobytes())
codecs = {
    "zlib5": numcodecs.Zlib(level=5),
    "bz2_9": numcodecs.BZ2(level=9),
    "zstd3": numcodecs.Zstd(level=3),
    "lz4": numcodecs.LZ4(),
    "shuffle4": numcodecs.Shuffle(elementsize=4),
    "fletcher32": numcodecs.Fletcher32(),
    "blosc_lz4_5_shuffle": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1),
    "blosc_zstd_3_noshuffle": numcodecs.Blosc(cname="zstd", clevel=3, shuffle=0),
}
for name, codec in codecs.items():
    (here / f"{name}.bin").write_bytes(bytes(codec.encode(data)))
print("numcodecs", numcodecs.__version__)
