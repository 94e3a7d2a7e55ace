"""The truth side of `scripts/conformance zarr-foreign`: reads a Zarr store with
zarr-python (`zarr.open`, no decoding: the values as stored, as ncdump prints them) and
compares it with CDL printed by an ncdump (ours on the store, or the reference on our
nccopy's copy).

    zarr_foreign_check.py STORE [LABEL=CDL_FILE ...]

Prints lines the harness reads (xtask/src/conformance/zarr_foreign.rs):

    array PATH                 every array of the store ("" for a root array)
    exotic PATH REASON         an array whose type netCDF has no type for
    truth-error MESSAGE        zarr-python could not read the store (nothing judged)
    verdict LABEL correct|wrong|unjudged DETAIL

How a dump is judged: the CDL is parsed (groups, dimensions, variable declarations,
attributes and the data section; values tokenised with ncdump's quoting); each array of
the store must appear as a variable of the same group path and name (a root array: the
root group's only variable), of the netCDF type that holds its dtype, of the same shape
(a char variable's last dimension is the string length of an S/U dtype), with every
value equal to zarr-python's: integers exactly, floats to the digits ncdump prints
(7 significant for float, 15 for double), NaN as NaN, `_` (ncdump's fill) only where the
value is the variable's fill value, strings after taking off trailing NULs. Every user
attribute of the store's arrays and groups must appear with the same value (numbers to
the same tolerance, strings exactly; dicts, and bools, only present). Extra variables
and attributes in the dump are not differences (netCDF adds _FillValue, NCZarr keys).
"""

import base64
import binascii
import json
import math
import os
import re
import struct
import sys

import numpy as np

IGNORED_ATTRS = {"_ARRAY_DIMENSIONS", "_NCProperties", "_nczarr_attr", "_nczarr_array",
                 "_nczarr_group", "_nczarr_superblock", "_NCZARR_ATTR", "_NCZARR_ARRAY",
                 "_NCZARR_GROUP", "_NCZARR_SUPERBLOCK"}

FILL = object()

# netCDF's default fill values, by CDL type.
DEFAULT_FILL = {
    "byte": -127, "ubyte": 255, "short": -32767, "ushort": 65535, "int": -2147483647,
    "uint": 4294967295, "int64": -9223372036854775806, "uint64": 18446744073709551614,
    "float": 9.96920996838687e36, "double": 9.96920996838687e36, "char": "", "string": "",
}


# --- CDL -------------------------------------------------------------------------------


def unescape(s):
    """A CDL name or string body with ncdump's backslash escapes taken out."""
    out = []
    i = 0
    simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v",
              "a": "\a", "0": "\0"}
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            m = re.match(r"[0-7]{1,3}", s[i + 1:])
            if m and not (n == "0" and len(m.group(0)) == 1):
                out.append(chr(int(m.group(0), 8)))
                i += 1 + len(m.group(0))
                continue
            out.append(simple.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def tokens(text):
    """The values of a CDL list: quoted strings (str), `_` (FILL), bare tokens (raw)."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n,":
            i += 1
            continue
        if c == '"':
            j = i + 1
            buf = []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    buf.append(text[j:j + 2])
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            out.append(("s", unescape("".join(buf))))
            i = j + 1
            continue
        j = i
        while j < n and text[j] not in " \t\r\n,":
            j += 1
        tok = text[i:j]
        out.append(FILL if tok == "_" else ("n", tok))
        i = j
    return out


def number(tok):
    t = tok.lower().rstrip("f") if tok.lower() in ("nanf", "infinityf", "-infinityf") else tok
    low = t.lower()
    if low == "nan":
        return math.nan
    if low in ("infinity", "inf"):
        return math.inf
    if low in ("-infinity", "-inf"):
        return -math.inf
    t = re.sub(r"(ull|ub|us|ll|u|b|s|f|l)$", "", t, flags=re.I)
    try:
        return int(t)
    except ValueError:
        return float(t)


def statements(text):
    """CDL split into statements (ending at `;` outside quotes) and header lines."""
    out = []
    cur = []  # lines of the statement under way
    q_state = False  # whether it ends inside a quoted string
    for line in text.split("\n"):
        if not cur:
            stripped = line.strip()
            if (stripped.endswith("{") or stripped.startswith("}") or stripped.endswith(":")
                    or stripped.startswith("//") or not stripped):
                out.append(("line", stripped))
                continue
        # Find a `;` outside quotes in this line.
        in_q = bool(cur) and q_state
        i, n, end = 0, len(line), -1
        while i < n:
            c = line[i]
            if in_q:
                if c == "\\":
                    i += 2
                    continue
                if c == '"':
                    in_q = False
            elif c == '"':
                in_q = True
            elif c == ";":
                end = i
                break
            i += 1
        if end >= 0:
            cur.append(line[:end])
            out.append(("stmt", "\n".join(cur).strip()))
            cur = []
            q_state = False
        else:
            cur.append(line)
            q_state = in_q
    return out


NAME = r"((?:\\.|[^\s(:\\])+)"


def split_name_value(stmt):
    m = re.match(r"(.*?)\s*=\s*(.*)\Z", stmt, re.S)
    # `=` inside a quoted string is not the separator: names never hold a bare quote.
    return (m.group(1).strip(), m.group(2)) if m else (stmt.strip(), "")


def parse_cdl(text):
    groups = {"": {"dims": {}, "vars": {}, "attrs": {}, "data": {}}}
    stack = []
    section = None
    for kind, s in statements(text):
        if kind == "line":
            if s.startswith("netcdf ") and s.endswith("{"):
                continue
            m = re.match(r"group:\s+(.*?)\s*\{$", s)
            if m:
                stack.append(unescape(m.group(1)))
                groups.setdefault("/".join(stack), {"dims": {}, "vars": {}, "attrs": {},
                                                    "data": {}})
                section = None
                continue
            if s.startswith("}"):
                if stack:
                    stack.pop()
                section = None
                continue
            if s in ("dimensions:", "variables:", "data:", "types:"):
                section = s[:-1]
            continue
        g = groups["/".join(stack)]
        if section == "dimensions":
            for part in re.split(r",\s*(?=\S+\s*=)", s):
                name, value = split_name_value(part)
                value = value.strip()
                if value.startswith("UNLIMITED"):
                    cur = re.search(r"\((\d+) currently\)", value)
                    g["dims"][unescape(name)] = int(cur.group(1)) if cur else 0
                else:
                    try:
                        g["dims"][unescape(name)] = int(value)
                    except ValueError:
                        pass
        elif section == "variables":
            head, value = split_name_value(s)
            if "=" in s and re.search(r"(^|[^\\]):", head):
                # An attribute: [TYPE ]VAR:NAME or [TYPE ]:NAME.
                m = re.match(r"(?:(\w+)\s+)?((?:\\.|[^:\\])*):(.*)\Z", head)
                if not m:
                    continue
                atype, var, aname = m.group(1), unescape(m.group(2).strip()), unescape(m.group(3))
                toks = tokens(value)
                if var:
                    g["vars"].setdefault(var, {"type": "?", "dims": [], "attrs": {}})
                    g["vars"][var]["attrs"][aname] = (atype, toks)
                else:
                    g["attrs"][aname] = (atype, toks)
            else:
                m = re.match(r"(\S+)\s+" + NAME + r"\s*(?:\((.*)\))?\s*\Z", s, re.S)
                if not m:
                    continue
                vtype, vname, dims = m.group(1), unescape(m.group(2)), m.group(3)
                dl = [unescape(d.strip()) for d in dims.split(",")] if dims else []
                old = g["vars"].get(vname, {"attrs": {}})
                g["vars"][vname] = {"type": vtype, "dims": dl, "attrs": old["attrs"]}
        elif section == "data":
            name, value = split_name_value(s)
            g["data"][unescape(name)] = tokens(value)
    return groups


def dim_size(groups, gpath, name):
    parts = gpath.split("/") if gpath else []
    while True:
        g = groups.get("/".join(parts))
        if g is not None and name in g["dims"]:
            return g["dims"][name]
        if not parts:
            return None
        parts.pop()


# --- truth -----------------------------------------------------------------------------


def exotic_reason(dt):
    if dt.kind == "c":
        return f"complex ({dt})"
    if dt.fields is not None:
        return f"structured ({dt})"
    if dt.kind == "V":
        return f"raw bytes ({dt})"
    if dt.kind == "M":
        return f"datetime64 ({dt})"
    if dt.kind == "m":
        return f"timedelta64 ({dt})"
    if dt.kind == "f" and dt.itemsize == 2:
        return "float16"
    if dt.kind == "b":
        return "bool"
    return None


def expected_types(dt):
    k, size = dt.kind, dt.itemsize
    if k == "i":
        return {1: {"byte"}, 2: {"short"}, 4: {"int"}, 8: {"int64"}}[size]
    if k == "u":
        return {1: {"ubyte"}, 2: {"ushort"}, 4: {"uint"}, 8: {"uint64"}}[size]
    if k == "f":
        return {2: {"float", "double"}, 4: {"float"}, 8: {"double"}}[size]
    if k == "b":
        return {"byte", "ubyte"}
    if k in "SU":
        return {"char", "string"}
    if k == "O" or k == "T":
        return {"string"}
    if k in "Mm":
        return {"int64"}
    return None


def walk(node, prefix=""):
    """(path, array) and (path, group) pairs, in path order."""
    import zarr
    arrays, grps = [], []
    if isinstance(node, zarr.Array):
        return [(prefix, node)], []
    grps.append((prefix, node))
    for name, child in sorted(node.members(), key=lambda kv: kv[0]):
        p = f"{prefix}/{name}" if prefix else name
        if isinstance(child, zarr.Array):
            arrays.append((p, child))
        else:
            a, g = walk(child, p)
            arrays += a
            grps += g
    return arrays, grps


def as_text(v):
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    return str(v).rstrip("\0")


def close(a, b, rel):
    if isinstance(a, str) or isinstance(b, str):
        return as_text(a) == as_text(b)
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return True
    if math.isinf(a) or math.isinf(b):
        return False
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-300


def tok_value(tok):
    if tok is FILL:
        return FILL
    k, v = tok
    if k == "s":
        return v
    try:
        return number(v)
    except ValueError:
        return v


def show(v):
    if v is FILL:
        return "_"
    if isinstance(v, float):
        return repr(v)
    return repr(v) if isinstance(v, str) else str(v)


def rel_for(cdl_type, dt):
    if cdl_type == "float" or (dt is not None and dt.kind == "f" and dt.itemsize <= 4):
        return 2e-6
    return 2e-14


def judge_array(groups, path, a, store_name):
    """None when the dump holds the array right, else what differs."""
    gpath, _, name = path.rpartition("/")
    g = groups.get(gpath)
    if g is None:
        return f"{path or store_name}: group /{gpath} missing from the dump"
    var = g["vars"].get(name) if name else None
    label = path or f"(root array of {store_name})"
    if name == "" and var is None:
        real = [v for v in g["vars"] if v in g["data"] or g["vars"][v]["type"] != "?"]
        if len(real) == 1:
            name = real[0]
            var = g["vars"][name]
            label = f"{name} (root array)"
    dt = a.dtype
    dt = getattr(dt, "to_native_dtype", lambda: dt)() if not isinstance(dt, np.dtype) else dt
    dt = np.dtype(dt) if not isinstance(dt, np.dtype) else dt
    reason = exotic_reason(dt)
    if var is None or var["type"] == "?":
        what = f" ({reason}): left out silently" if reason else ": missing from the dump"
        return f"variable {label}{what}"
    vtype = var["type"]
    exp = expected_types(dt)
    if exp is None:
        return None if reason else f"{label}: cannot judge dtype {dt}"
    if vtype not in exp:
        return f"{label}: type {vtype}, expected {'/'.join(sorted(exp))} for dtype {dt}"
    shape = []
    for d in var["dims"]:
        s = dim_size(groups, gpath, d)
        if s is None:
            return f"{label}: dimension {d} not declared"
        shape.append(s)
    want = tuple(a.shape)
    if vtype == "char" and dt.kind in "SU" and len(shape) == len(want) + 1:
        shape = shape[:-1]
    if tuple(shape) != want:
        return f"{label}: shape {tuple(shape)}, expected {want}"
    # Attributes.
    diff = judge_attrs(var["attrs"], dict(a.attrs), label)
    if diff:
        return diff
    data = np.asarray(a[...])
    if dt.kind in "Mm":
        data = data.view("int64")
    flat = data.ravel(order="C")
    toks = g["data"].get(name)
    if toks is None:
        return f"{label}: no data in the dump"
    if vtype == "char" and dt.kind not in "SU":
        return f"{label}: char data for dtype {dt}"
    if len(toks) != flat.size:
        return f"{label}: {len(toks)} values in the dump, expected {flat.size}"
    fills = fill_candidates(var, a, vtype)
    rel = rel_for(vtype, dt)
    for i, (tok, want_v) in enumerate(zip(toks, flat)):
        got = tok_value(tok)
        if dt.kind == "b":
            want_v = int(want_v)
        elif dt.kind in "iu":
            want_v = int(want_v)
        elif dt.kind == "f":
            want_v = float(want_v)
        if got is FILL:
            if any(close(f, want_v, rel) for f in fills):
                continue
        elif isinstance(want_v, int) and isinstance(got, int):
            if got == want_v:
                continue
        elif close(got, want_v, rel):
            continue
        idx = np.unravel_index(i, data.shape) if data.shape else ()
        fmt = "[" + ",".join(str(int(x)) for x in idx) + "]"
        first = f"{label}{fmt}: ours {show(got)}, truth {show(want_v)}"
        bad = sum(1 for t, w in zip(toks, flat) if not same_value(t, w, fills, rel, dt))
        return f"{first} ({bad} of {flat.size} values differ)"
    return None


def same_value(tok, want_v, fills, rel, dt):
    got = tok_value(tok)
    if dt.kind in "biu":
        want_v = int(want_v)
    elif dt.kind == "f":
        want_v = float(want_v)
    if got is FILL:
        return any(close(f, want_v, rel) for f in fills)
    if isinstance(want_v, int) and isinstance(got, int):
        return got == want_v
    try:
        return close(got, want_v, rel)
    except (TypeError, ValueError):
        return False


def fill_candidates(var, a, vtype):
    out = []
    fv = var["attrs"].get("_FillValue")
    if fv and fv[1]:
        v = tok_value(fv[1][0])
        if v is not FILL:
            out.append(v)
    else:
        if vtype in DEFAULT_FILL:
            out.append(DEFAULT_FILL[vtype])
    return out


def xarray_fill(truth):
    """xarray's Zarr v3 form of a float _FillValue (base64 of a little-endian double),
    as the number it stands for; anything else as it is."""
    if not isinstance(truth, str):
        return truth
    try:
        raw = base64.b64decode(truth, validate=True)
    except (ValueError, binascii.Error):
        return truth
    return struct.unpack("<d", raw)[0] if len(raw) == 8 else truth


def attr_value_ok(ours, truth, rel=2e-6, name=None):
    atype, toks = ours
    vals = [tok_value(t) for t in toks]
    if name == "_FillValue" and vals and not isinstance(vals[0], str):
        truth = xarray_fill(truth)
    if isinstance(truth, bool) or isinstance(truth, dict):
        return True
    if isinstance(truth, str):
        if atype == "string" and len(vals) == 1:
            return vals[0] == truth
        return "".join(v for v in vals if isinstance(v, str)) == truth
    if isinstance(truth, (int, float)):
        return len(vals) == 1 and not isinstance(vals[0], str) and vals[0] is not FILL \
            and close(vals[0], truth, rel)
    if isinstance(truth, list):
        if not truth:
            return True
        if any(isinstance(x, (dict, list, bool)) for x in truth):
            return True
        if all(isinstance(x, str) for x in truth):
            if atype == "string":
                return vals == truth
            return True  # a list of strings in a char attribute: presence only
        if len(vals) != len(truth):
            return False
        return all(not isinstance(v, str) and v is not FILL and close(v, t, rel)
                   for v, t in zip(vals, truth))
    return True


def judge_attrs(ours, truth, label):
    for k, v in truth.items():
        if k in IGNORED_ATTRS:
            continue
        if k not in ours:
            return f"{label}: attribute {k} missing (truth {json.dumps(v)[:60]})"
        if not attr_value_ok(ours[k], v, name=k):
            shown = ", ".join(show(tok_value(t)) for t in ours[k][1])[:60]
            return f"{label}: attribute {k} = {shown}, truth {json.dumps(v)[:60]}"
    return None


def judge(cdl_text, arrays, grps, store_name):
    try:
        groups = parse_cdl(cdl_text)
    except Exception as e:  # noqa: BLE001 - a dump we cannot parse is a difference
        return "wrong", f"the dump does not parse: {type(e).__name__}: {e}"
    diffs = []
    unjudged = []
    for gpath, grp in grps:
        g = groups.get(gpath)
        if g is None:
            diffs.append(f"group /{gpath} missing from the dump")
            continue
        d = judge_attrs(g["attrs"], dict(grp.attrs), f"group /{gpath}" if gpath else "global")
        if d:
            diffs.append(d)
    for path, a in arrays:
        d = judge_array(groups, path, a, store_name)
        if d:
            diffs.append(d)
        elif exotic_reason(np.dtype(a.dtype.to_native_dtype()) if hasattr(a.dtype, "to_native_dtype") else a.dtype) \
                and expected_types(np.dtype(a.dtype.to_native_dtype()) if hasattr(a.dtype, "to_native_dtype") else a.dtype) is None:
            unjudged.append(path)
    if diffs:
        more = f" (+{len(diffs) - 3} more)" if len(diffs) > 3 else ""
        return "wrong", "; ".join(diffs[:3]) + more
    if unjudged:
        return "unjudged", "printed arrays of types netCDF has no type for: " + ", ".join(unjudged)
    return "correct", f"{len(arrays)} arrays, {len(grps)} groups match"


def metadata_arrays(store):
    """The arrays of a store by its metadata files alone ("" for a root array)."""
    out = []
    for dirpath, dirnames, files in os.walk(store):
        rel = os.path.relpath(dirpath, store)
        rel = "" if rel == "." else rel.replace(os.sep, "/")
        is_array = ".zarray" in files
        if "zarr.json" in files:
            try:
                with open(os.path.join(dirpath, "zarr.json"), encoding="utf-8") as f:
                    is_array = json.load(f).get("node_type") == "array"
            except (OSError, ValueError):
                pass
        if is_array:
            out.append(rel)
            dirnames[:] = []  # chunks below
        dirnames.sort()
    return out


def judge_presence(cdl_text, paths, why):
    """Where there is no truth: every array must at least be a variable of the dump."""
    try:
        groups = parse_cdl(cdl_text)
    except Exception as e:  # noqa: BLE001
        return "wrong", f"the dump does not parse: {type(e).__name__}: {e}"
    missing = []
    for p in paths:
        gpath, _, name = p.rpartition("/")
        g = groups.get(gpath)
        if g is None:
            missing.append(p)
        elif name and name not in g["vars"]:
            missing.append(p)
        elif not name and not g["vars"]:
            missing.append("(root array)")
    if missing:
        return "wrong", ("exit 0 but arrays left out of the dump silently: "
                         + ", ".join(missing) + f" [no truth: zarr-python: {why[:150]}]")
    return "unjudged", f"no truth: {why}"


def judge_by_cdl(cdl_text, truth_text):
    """The fallback where zarr-python cannot read the store: every variable with data in
    the store's producer's CDL (netCDF-C's ref_*.cdl) must have the same type, shape and
    values in ours."""
    try:
        ours = parse_cdl(cdl_text)
    except Exception as e:  # noqa: BLE001
        return "wrong", f"the dump does not parse: {type(e).__name__}: {e}"
    truth = parse_cdl(truth_text)
    diffs = []
    n = 0
    for gpath, g in sorted(truth.items()):
        for name, toks in g["data"].items():
            n += 1
            label = f"{gpath}/{name}" if gpath else name
            og = ours.get(gpath)
            if og is None or name not in og["vars"]:
                diffs.append(f"variable {label}: missing from the dump")
                continue
            tv, ov = g["vars"].get(name, {}), og["vars"][name]
            if tv.get("type") != ov["type"]:
                diffs.append(f"{label}: type {ov['type']}, the .cdl has {tv.get('type')}")
                continue
            ts = [dim_size(truth, gpath, d) for d in tv.get("dims", [])]
            os_ = [dim_size(ours, gpath, d) for d in ov["dims"]]
            if ts != os_:
                diffs.append(f"{label}: shape {tuple(os_)}, the .cdl has {tuple(ts)}")
                continue
            otoks = og["data"].get(name, [])
            if len(otoks) != len(toks):
                diffs.append(f"{label}: {len(otoks)} values, the .cdl has {len(toks)}")
                continue
            rel = 2e-6 if ov["type"] == "float" else 2e-14
            for i, (a, b) in enumerate(zip(otoks, toks)):
                va, vb = tok_value(a), tok_value(b)
                if va is FILL or vb is FILL:
                    ok = va is vb
                elif isinstance(va, int) and isinstance(vb, int):
                    ok = va == vb
                else:
                    try:
                        ok = close(va, vb, rel)
                    except (TypeError, ValueError):
                        ok = False
                if not ok:
                    diffs.append(f"{label} value {i}: ours {show(va)}, the .cdl has {show(vb)}")
                    break
    if diffs:
        more = f" (+{len(diffs) - 3} more)" if len(diffs) > 3 else ""
        return "wrong", "(against the producer's .cdl) " + "; ".join(diffs[:3]) + more
    if n == 0:
        return "unjudged", "the producer's .cdl has no data"
    return "correct", f"{n} variables match the producer's .cdl (zarr-python cannot read it)"


def main():
    import warnings
    warnings.simplefilter("ignore")
    args = sys.argv[1:]
    truth_cdl = None
    if len(args) >= 2 and args[0] == "--cdl":
        truth_cdl = args[1]
        args = args[2:]
    sys.argv = [sys.argv[0]] + args
    store = sys.argv[1]
    name = os.path.basename(store.rstrip("/"))
    for suffix in (".zarr", ".file"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    try:
        import zarr
        node = zarr.open(store, mode="r")
        arrays, grps = walk(node)
        for _, a in arrays:
            np.asarray(a[...])  # every chunk must decode for a truth
    except Exception as e:  # noqa: BLE001
        msg = f"{type(e).__name__}: {e}".replace("\n", " ")[:300]
        if truth_cdl is None:
            print(f"truth-error {msg}")
            paths = metadata_arrays(store)
            for p in paths:
                print(f"array {p}")
            for spec in sys.argv[2:]:
                label, _, cdl = spec.partition("=")
                with open(cdl, encoding="utf-8", errors="replace") as f:
                    verdict, detail = judge_presence(f.read(), paths, msg)
                print(f"verdict {label} {verdict} {detail}")
            return
        with open(truth_cdl, encoding="utf-8", errors="replace") as f:
            truth_text = f.read()
        for gpath, g in sorted(parse_cdl(truth_text).items()):
            for vname in g["vars"]:
                print(f"array {gpath + '/' if gpath else ''}{vname}")
        for spec in sys.argv[2:]:
            label, _, cdl = spec.partition("=")
            with open(cdl, encoding="utf-8", errors="replace") as f:
                verdict, detail = judge_by_cdl(f.read(), truth_text)
            print(f"verdict {label} {verdict} {detail} [zarr-python: {msg[:120]}]")
        return
    for p, a in arrays:
        print(f"array {p}")
        dt = a.dtype
        dt = np.dtype(dt.to_native_dtype()) if hasattr(dt, "to_native_dtype") else dt
        r = exotic_reason(dt)
        if r:
            print(f"exotic {p} {r}")
    for spec in sys.argv[2:]:
        label, _, cdl = spec.partition("=")
        with open(cdl, encoding="utf-8", errors="replace") as f:
            text = f.read()
        verdict, detail = judge(text, arrays, grps, name)
        detail = detail.replace("\n", "\\n")
        print(f"verdict {label} {verdict} {detail}")


if __name__ == "__main__":
    main()
