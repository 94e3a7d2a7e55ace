"""Makes the generated stores of `scripts/conformance zarr-foreign`: small Zarr stores
written by zarr-python 3, numcodecs and xarray (never by nctools), one directory
NAME.zarr per store in DIR.

    zarr_foreign_make.py DIR

Prints one line per store: `made NAME` or `skipped NAME: REASON` (a store this
zarr-python cannot write, e.g. for want of an optional package). Run by the harness
with .venv/bin/python3; every store is a few KB.
"""

import json
import os
import shutil
import sys
import traceback

import numpy as np
import zarr

OUT = sys.argv[1]
STORES = []


def store(fn):
    STORES.append(fn)
    return fn


def path(name):
    return os.path.join(OUT, name + ".zarr")


def ints(shape, dtype="int32"):
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n) * 3 - 7).astype(dtype).reshape(shape)


def floats(shape, dtype="float64"):
    n = int(np.prod(shape)) if shape else 1
    return (np.sin(np.arange(n) * 0.37) * 100.0).astype(dtype).reshape(shape)


def arr(name, data, zarr_format, **kw):
    kw.setdefault("chunks", tuple(max(1, (s + 1) // 2) for s in data.shape))
    kw.setdefault("dimension_names", None) if zarr_format == 3 else None
    if zarr_format == 2:
        kw.pop("dimension_names", None)
    a = zarr.create_array(
        store=path(name), shape=data.shape, dtype=data.dtype, zarr_format=zarr_format, **kw
    )
    a[...] = data
    return a


def grouped(name, zarr_format, arrays, consolidated=False, attrs=None, **kw):
    """A root group holding ARRAYS: {path: (data, dims, extra kwargs)}."""
    g = zarr.open_group(path(name), mode="w", zarr_format=zarr_format)
    if attrs:
        g.attrs.update(attrs)
    for p, (data, dims, extra) in arrays.items():
        parent = g
        parts = p.split("/")
        for part in parts[:-1]:
            parent = parent.require_group(part)
        kws = dict(kw)
        kws.update(extra)
        kws.setdefault("chunks", tuple(max(1, (s + 1) // 2) for s in data.shape))
        attributes = dict(kws.pop("attributes", {}))
        dtype = kws.pop("dtype", data.dtype)
        if zarr_format == 3 and dims is not None:
            kws["dimension_names"] = dims
        elif zarr_format == 2 and dims is not None:
            attributes["_ARRAY_DIMENSIONS"] = list(dims)
        a = parent.create_array(
            parts[-1], shape=data.shape, dtype=dtype, attributes=attributes, **kws
        )
        a[...] = data
    if consolidated:
        zarr.consolidate_metadata(path(name), zarr_format=zarr_format)


# --- root arrays ---------------------------------------------------------------------


@store
def root_save_v3():
    zarr.save(path("root_save_v3"), ints((3, 4)), zarr_format=3)


@store
def root_save_v2():
    zarr.save(path("root_save_v2"), floats((5,)), zarr_format=2)


@store
def root_open_array_v3():
    a = zarr.open_array(path("root_open_array_v3"), mode="w", shape=(4, 3), chunks=(2, 2),
                        dtype="int16", zarr_format=3, dimension_names=["y", "x"])
    a[...] = ints((4, 3), "int16")
    a.attrs["units"] = "m"


@store
def root_open_array_v2():
    a = zarr.open_array(path("root_open_array_v2"), mode="w", shape=(6,), chunks=(4,),
                        dtype="uint16", zarr_format=2)
    a[...] = np.arange(6, dtype="uint16") * 1000


# --- v3 codecs -------------------------------------------------------------------------


def v3_codec(name, **kw):
    grouped(name, 3, {"v": (floats((6, 5), "float32"), ["y", "x"], kw)})


@store
def v3_gzip():
    v3_codec("v3_gzip", compressors=[zarr.codecs.GzipCodec(level=5)])


@store
def v3_zstd():
    v3_codec("v3_zstd", compressors=[zarr.codecs.ZstdCodec(level=3, checksum=True)])


@store
def v3_blosc():
    v3_codec("v3_blosc", compressors=[zarr.codecs.BloscCodec(cname="lz4", clevel=5,
                                                             shuffle="shuffle", typesize=4)])


@store
def v3_crc32c():
    v3_codec("v3_crc32c", compressors=[zarr.codecs.Crc32cCodec()])


@store
def v3_transpose():
    v3_codec("v3_transpose", filters=[zarr.codecs.TransposeCodec(order=(1, 0))])


@store
def v3_sharding():
    grouped("v3_sharding", 3, {"v": (ints((8, 6)), ["y", "x"],
                                      {"chunks": (2, 3), "shards": (4, 6)})})


@store
def v3_sharding_partial():
    # The array's shape is not a multiple of the shard's: edge shards are partial.
    grouped("v3_sharding_partial", 3, {"v": (floats((7, 5)), ["y", "x"],
                                              {"chunks": (2, 2), "shards": (4, 4)})})


@store
def v3_bytes_big_endian():
    v3_codec("v3_bytes_big_endian", serializer=zarr.codecs.BytesCodec(endian="big"),
             compressors=None)


@store
def v3_uncompressed():
    v3_codec("v3_uncompressed", compressors=None)


@store
def v3_numcodecs_shuffle_zlib():
    # zarr-python's numcodecs.* names in v3 metadata.
    from zarr.codecs import numcodecs as znc
    v3_codec("v3_numcodecs_shuffle_zlib",
             compressors=[znc.Shuffle(elementsize=4), znc.Zlib(level=1)])


@store
def v3_all_int_types():
    arrays = {}
    for t in ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]:
        info = np.iinfo(t)
        data = np.array([info.min, -1 if info.min < 0 else 1, 0, 7, info.max], dtype=t)
        arrays[t] = (data, ["n"], {"fill_value": 0})
    arrays["float32"] = (np.array([-1.5, 0, 3.25e-5, 1e30, np.float32(np.pi)], "float32"),
                         ["n"], {"fill_value": 0})
    arrays["float64"] = (np.array([-1.5, 0, 3.25e-300, 1e300, np.pi]), ["n"],
                         {"fill_value": 0})
    grouped("v3_all_int_types", 3, arrays)


@store
def v3_nan_inf():
    data = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0])
    grouped("v3_nan_inf", 3, {"f8": (data, ["n"], {}),
                              "f4": (data.astype("float32"), ["n"], {})})


# --- v2 codecs (numcodecs) -------------------------------------------------------------


def v2_codec(name, data=None, **kw):
    if data is None:
        data = floats((6, 5))
    grouped(name, 2, {"v": (data, ["y", "x"], kw)})


@store
def v2_zlib():
    import numcodecs
    v2_codec("v2_zlib", compressors=numcodecs.Zlib(level=4))


@store
def v2_gzip():
    import numcodecs
    v2_codec("v2_gzip", compressors=numcodecs.GZip(level=4))


@store
def v2_bz2():
    import numcodecs
    v2_codec("v2_bz2", compressors=numcodecs.BZ2(level=5))


@store
def v2_lz4():
    import numcodecs
    v2_codec("v2_lz4", compressors=numcodecs.LZ4())


@store
def v2_zstd():
    import numcodecs
    v2_codec("v2_zstd", compressors=numcodecs.Zstd(level=3))


@store
def v2_blosc():
    import numcodecs
    v2_codec("v2_blosc", compressors=numcodecs.Blosc(cname="zstd", clevel=3,
                                                     shuffle=numcodecs.Blosc.BITSHUFFLE))


@store
def v2_shuffle():
    import numcodecs
    v2_codec("v2_shuffle", filters=[numcodecs.Shuffle(elementsize=8)],
             compressors=numcodecs.Zlib(level=1))


@store
def v2_delta():
    import numcodecs
    v2_codec("v2_delta", data=ints((6, 5)), filters=[numcodecs.Delta(dtype="int32")],
             compressors=None)


@store
def v2_adler32():
    import numcodecs
    v2_codec("v2_adler32", filters=[numcodecs.Adler32()], compressors=None)


@store
def v2_fletcher32():
    import numcodecs
    v2_codec("v2_fletcher32", filters=[numcodecs.Fletcher32()], compressors=None)


@store
def v2_fixedscaleoffset():
    import numcodecs
    v2_codec("v2_fixedscaleoffset", filters=[numcodecs.FixedScaleOffset(
        offset=0, scale=10, dtype="float64", astype="int16")], compressors=None)


@store
def v2_bitround():
    import numcodecs
    v2_codec("v2_bitround", data=floats((6, 5), "float32"),
             filters=[numcodecs.BitRound(keepbits=6)], compressors=numcodecs.Zlib())


@store
def v2_quantize():
    import numcodecs
    v2_codec("v2_quantize", filters=[numcodecs.Quantize(digits=2, dtype="float64")],
             compressors=numcodecs.Zlib())


@store
def v2_no_compressor():
    v2_codec("v2_no_compressor", compressors=None)


@store
def v2_big_endian():
    grouped("v2_big_endian", 2, {"v": (ints((4, 3)).astype(">i4"), ["y", "x"], {}),
                                 "f": (floats((4, 3)).astype(">f8"), ["y", "x"], {})})


# --- layouts ---------------------------------------------------------------------------


@store
def v2_consolidated():
    grouped("v2_consolidated", 2, {"a": (ints((4,)), ["n"], {}),
                                   "g/b": (floats((2, 3)), ["y", "x"], {})},
            consolidated=True, attrs={"title": "consolidated v2"})


@store
def v3_consolidated():
    grouped("v3_consolidated", 3, {"a": (ints((4,)), ["n"], {}),
                                   "g/b": (floats((2, 3)), ["y", "x"], {})},
            consolidated=True, attrs={"title": "consolidated v3"})


@store
def v2_not_consolidated():
    grouped("v2_not_consolidated", 2, {"a": (ints((4,)), ["n"], {})},
            attrs={"title": "plain v2"})


@store
def v2_dimension_separator_slash():
    grouped("v2_dimension_separator_slash", 2, {"v": (ints((4, 6)), ["y", "x"], {
        "chunk_key_encoding": {"name": "v2", "separator": "/"}})})


@store
def v3_chunk_key_v2_dot():
    grouped("v3_chunk_key_v2_dot", 3, {"v": (ints((4, 6)), ["y", "x"], {
        "chunk_key_encoding": {"name": "v2", "separator": "."}})})


@store
def v3_chunk_key_default_dot():
    grouped("v3_chunk_key_default_dot", 3, {"v": (ints((4, 6)), ["y", "x"], {
        "chunk_key_encoding": {"name": "default", "separator": "."}})})


@store
def v3_groups_three_levels():
    grouped("v3_groups_three_levels", 3, {
        "top": (ints((2,)), ["n"], {}),
        "g1/a": (ints((3,)), ["m"], {}),
        "g1/g2/b": (floats((2, 2)), ["y", "x"], {}),
        "g1/g2/g3/c": (ints((5,), "int64"), ["k"], {"attributes": {"deep": 3}}),
    }, attrs={"level": 0})


@store
def v2_groups_three_levels():
    grouped("v2_groups_three_levels", 2, {
        "top": (ints((2,)), ["n"], {}),
        "g1/a": (ints((3,)), ["m"], {}),
        "g1/g2/b": (floats((2, 2)), ["y", "x"], {}),
        "g1/g2/g3/c": (ints((5,), "int64"), ["k"], {"attributes": {"deep": 3}}),
    })


@store
def v3_zero_d():
    grouped("v3_zero_d", 3, {"s": (np.array(42.5), [], {}),
                             "i": (np.array(-3, dtype="int16"), [], {})})


@store
def v2_zero_d():
    grouped("v2_zero_d", 2, {"s": (np.array(42.5), [], {}),
                             "i": (np.array(-3, dtype="int16"), [], {})})


@store
def v3_no_dimension_names():
    grouped("v3_no_dimension_names", 3, {"a": (ints((3, 4)), None, {}),
                                         "b": (floats((4,)), None, {})})


@store
def v2_no_dimension_names():
    grouped("v2_no_dimension_names", 2, {"a": (ints((3, 4)), None, {}),
                                         "b": (floats((4,)), None, {})})


@store
def v2_order_f():
    grouped("v2_order_f", 2, {"v": (ints((4, 5)), ["y", "x"], {"order": "F"}),
                              "w": (floats((3, 4, 2)), ["a", "b", "c"],
                                    {"order": "F", "chunks": (2, 3, 2)})})


@store
def v2_fill_values():
    grouped("v2_fill_values", 2, {
        "i": (np.array([1, -99, 3, -99], "int32"), ["n"], {"fill_value": -99}),
        "f": (np.array([1.5, np.nan, 2.5, 9.0]), ["n"], {"fill_value": np.nan}),
        "g": (np.array([1.5, 9.0, 2.5, 9.0]), ["n"], {"fill_value": 9.0}),
    })


@store
def v2_unwritten_chunks():
    g = zarr.open_group(path("v2_unwritten_chunks"), mode="w", zarr_format=2)
    a = g.create_array("v", shape=(6,), chunks=(2,), dtype="int32", fill_value=-5,
                       attributes={"_ARRAY_DIMENSIONS": ["n"]})
    a[0:2] = [1, 2]


@store
def v3_unwritten_chunks():
    g = zarr.open_group(path("v3_unwritten_chunks"), mode="w", zarr_format=3)
    a = g.create_array("v", shape=(6,), chunks=(2,), dtype="float32", fill_value=0.5,
                       dimension_names=["n"])
    a[4:6] = [7, 8]


@store
def v3_attributes():
    grouped("v3_attributes", 3, {"v": (ints((3,)), ["n"], {"attributes": {
        "units": "K", "scale": 0.5, "count": 7, "list": [1, 2, 3],
        "flist": [0.25, 1.5], "text_list": ["a", "bc"], "flag": True,
        "nested": {"k": 1}}})}, attrs={"history": "made by zarr-python", "version": 3})


@store
def v3_float16():
    grouped("v3_float16", 3, {"h": (np.array([0.5, -2.0, 65504.0, 1e-3], "float16"),
                                    ["n"], {})})


@store
def v2_float16():
    grouped("v2_float16", 2, {"h": (np.array([0.5, -2.0, 65504.0, 1e-3], "float16"),
                                    ["n"], {})})


@store
def v3_bool():
    grouped("v3_bool", 3, {"b": (np.array([True, False, True]), ["n"], {})})


@store
def v2_bool():
    grouped("v2_bool", 2, {"b": (np.array([True, False, True]), ["n"], {})})


# --- strings ---------------------------------------------------------------------------


@store
def v3_vlen_strings():
    grouped("v3_vlen_strings", 3, {"s": (np.array(["a", "bcd", "", "héllo"], dtype=object),
                                         ["n"], {"dtype": str})})


@store
def v2_vlen_strings():
    grouped("v2_vlen_strings", 2, {"s": (np.array(["a", "bcd", "", "héllo"], dtype=object),
                                         ["n"], {"dtype": str})})


@store
def v2_fixed_bytes():
    grouped("v2_fixed_bytes", 2, {"s": (np.array([b"ab", b"cdefg", b""], dtype="S5"),
                                        ["n"], {})})


@store
def v3_fixed_bytes():
    grouped("v3_fixed_bytes", 3, {"s": (np.array([b"ab", b"cdefg", b""], dtype="S5"),
                                        ["n"], {})})


@store
def v2_fixed_unicode():
    grouped("v2_fixed_unicode", 2, {"s": (np.array(["ab", "cdé", ""], dtype="U4"),
                                          ["n"], {})})


@store
def v3_fixed_unicode():
    grouped("v3_fixed_unicode", 3, {"s": (np.array(["ab", "cdé", ""], dtype="U4"),
                                          ["n"], {})})


# --- what netCDF cannot hold -----------------------------------------------------------


@store
def v3_complex():
    grouped("v3_complex", 3, {"c": (np.array([1 + 2j, -3j], "complex128"), ["n"], {}),
                              "ok": (ints((2,)), ["n"], {})})


@store
def v2_complex():
    grouped("v2_complex", 2, {"c": (np.array([1 + 2j, -3j], "complex64"), ["n"], {}),
                              "ok": (ints((2,)), ["n"], {})})


@store
def v2_structured():
    dt = np.dtype([("a", "<i4"), ("b", "<f8")])
    grouped("v2_structured", 2, {"rec": (np.array([(1, 2.5), (3, -1.0)], dtype=dt),
                                         ["n"], {}),
                                 "ok": (ints((2,)), ["n"], {})})


@store
def v3_datetime64_raw():
    grouped("v3_datetime64_raw", 3, {"t": (np.array(["2020-01-01", "2021-06-30"],
                                                    dtype="datetime64[D]"), ["n"], {})})


@store
def v2_datetime64_raw():
    grouped("v2_datetime64_raw", 2, {"t": (np.array(["2020-01-01T00:00", "2021-06-30T12:00"],
                                                    dtype="datetime64[s]"), ["n"], {})})


# --- xarray ----------------------------------------------------------------------------


def xr_dataset():
    import pandas as pd
    import xarray as xr
    time = pd.date_range("2000-01-01", periods=4, freq="6h")
    ds = xr.Dataset(
        {
            "temp": (("time", "x"), np.array([[1.5, np.nan, 3.0], [4.0, 5.5, np.nan],
                                               [7.0, 8.0, 9.0], [np.nan, 11.0, 12.5]]),
                     {"units": "degC", "long_name": "temperature"}),
            "count": (("x",), np.array([1, 2, 3], "int16")),
            "duration": (("time",), pd.to_timedelta([1, 2, 3, 36], unit="h").values),
        },
        coords={"time": time, "x": [10.0, 20.0, 30.0]},
        attrs={"title": "xarray default", "Conventions": "CF-1.8"},
    )
    return ds


@store
def xarray_default():
    xr_dataset().to_zarr(path("xarray_default"), mode="w")


@store
def xarray_v2():
    xr_dataset().to_zarr(path("xarray_v2"), mode="w", zarr_format=2)


@store
def xarray_v2_not_consolidated():
    xr_dataset().to_zarr(path("xarray_v2_not_consolidated"), mode="w", zarr_format=2,
                         consolidated=False)


@store
def xarray_fill_value_int():
    ds = xr_dataset()
    ds["count"].encoding["_FillValue"] = -1
    ds["count"].values[1] = -1
    ds.to_zarr(path("xarray_fill_value_int"), mode="w", zarr_format=2)


@store
def xarray_packed():
    ds = xr_dataset()
    ds["temp"].encoding.update({"dtype": "int16", "scale_factor": 0.1, "add_offset": 5.0,
                                "_FillValue": -32767})
    ds.to_zarr(path("xarray_packed"), mode="w", zarr_format=2)


@store
def xarray_strings():
    import xarray as xr
    ds = xr.Dataset({"name": (("n",), np.array(["ab", "cde", "f"], dtype=object)),
                     "code": (("n",), np.array([b"x", b"yz", b"w"], dtype="S2"))})
    ds.to_zarr(path("xarray_strings"), mode="w", zarr_format=2)


@store
def xarray_groups():
    import xarray as xr
    p = path("xarray_groups")
    xr.Dataset({"a": (("n",), np.arange(3))}).to_zarr(p, mode="w", zarr_format=2)
    xr.Dataset({"b": (("m",), np.arange(2.0))}).to_zarr(p, group="sub", mode="a",
                                                         zarr_format=2)


def main():
    os.makedirs(OUT, exist_ok=True)
    only = set(sys.argv[2:])
    for fn in STORES:
        name = fn.__name__
        if only and name not in only:
            continue
        p = path(name)
        shutil.rmtree(p, ignore_errors=True)
        try:
            fn()
            print(f"made {name}", flush=True)
        except Exception as e:  # a store this zarr-python cannot write
            shutil.rmtree(p, ignore_errors=True)
            msg = f"{type(e).__name__}: {e}".replace("\n", " ")[:200]
            print(f"skipped {name}: {msg}", flush=True)
            if os.environ.get("ZARR_FOREIGN_DEBUG"):
                traceback.print_exc()


if __name__ == "__main__":
    import warnings
    warnings.simplefilter("ignore")
    main()
