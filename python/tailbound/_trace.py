"""Canonical traces as DataFrames: reading, writing and streaming."""

import json
import math
import os
import re

import numpy as np
import pandas as pd

from ._engine import TailboundError, run
from ._trace_rules import MAX_LINE_BYTES as _MAX_LINE, MAX_TURN_TOKENS as _MAX_TURN, OPTIONAL, REQUIRED

__all__ = ["read_trace", "write_trace", "trace_lines"]

#: columns of a canonical trace DataFrame, in order (OPTIONAL: the
#: optional ones, category and user); the fields and bounds are the
#: engine's, from _trace_rules (generated from Go models/trace)
COLUMNS = list(REQUIRED)

_CHUNK = 65536  # rows serialized per chunk when streaming


def _frame(rows, cats, users):
    t, conv, prompt, response = rows
    df = pd.DataFrame({
        "t": pd.Series(t, dtype="float64"),
        "conv": pd.Series(conv, dtype="object"),
        "prompt": pd.Series(prompt, dtype="int64"),
        "response": pd.Series(response, dtype="int64"),
    })
    if any(c is not None for c in cats):
        df["category"] = pd.Series(cats, dtype="object")
    if any(u is not None for u in users):
        df["user"] = pd.Series(users, dtype="object")
    return df


def _bad(d, where, last):
    """The one-line error for a canonical line d that failed the fast
    checks of _parse (names the first bad field, as the engine does)."""
    if not isinstance(d, dict):
        return TailboundError("tailbound: %s: not a JSON object" % where)

    def is_int(v):
        return isinstance(v, int) and not isinstance(v, bool)

    rules = [
        ("t", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0,
         "must be a finite number of seconds ≥ 0"),
        ("conv", lambda v: isinstance(v, str) and v != "", "must be a non-empty string"),
        ("prompt", lambda v: is_int(v) and 1 <= v <= _MAX_TURN, "must be ≥ 1 token and ≤ %s tokens" % _TURN_BOUND),
        ("response", lambda v: is_int(v) and 0 <= v <= _MAX_TURN, "must be ≥ 0 and ≤ %s tokens" % _TURN_BOUND),
        ("category", lambda v: v is None or isinstance(v, str), "must be a string"),
        ("user", lambda v: v is None or isinstance(v, str), "must be a string"),
    ]
    for key, ok, rule in rules:
        if key not in d and key in REQUIRED:
            return TailboundError('tailbound: %s: field "%s": missing' % (where, key))
        v = d.get(key)
        if not ok(v):
            return TailboundError('tailbound: %s: field "%s": %s, got %s' % (where, key, rule, json.dumps(v)))
    if d["t"] < last:
        return TailboundError('tailbound: %s: field "t": %s is before the previous turn\'s %s (must be non-decreasing)'
                              % (where, d["t"], last))
    return TailboundError("tailbound: %s: bad line" % where)


#: the turn bound as the engine writes it in its errors ("2^40")
_TURN_BOUND = "2^%d" % (_MAX_TURN.bit_length() - 1)
_NAMES = REQUIRED + OPTIONAL
_KEY_END = re.compile(r'"\s*:')


def _no_constant(c):
    raise ValueError("%s is not JSON" % c)


def _check_keys(line, where):
    """Raises the engine's error for a line whose top-level keys break the
    format's rules (a field twice, a field's name in another case)."""
    pairs = json.loads(line, object_pairs_hook=lambda p: p, parse_constant=_no_constant)
    if not isinstance(pairs, list):
        return
    seen = set()
    for k, _ in pairs:
        for name in _NAMES:
            if k == name:
                if k in seen:
                    raise TailboundError('tailbound: %s: field "%s": appears twice in the line (each field once)' % (where, k))
                seen.add(k)
            elif k.casefold() == name:
                raise TailboundError('tailbound: %s: field "%s": keys are case-sensitive: write "%s"' % (where, k, name))


def _parse(lines, name):
    """Parses canonical JSON Lines with the engine's rules (README "Trace
    format", Go models/trace): a bad line raises TailboundError naming
    name, line and field, where the engine would refuse it."""
    t, conv, prompt, response, cats, users = [], [], [], [], [], []
    last = 0.0
    loads, isfinite = json.loads, math.isfinite
    for n, line in enumerate(lines, 1):
        if n == 1 and line[:1] == "\ufeff":
            line = line[1:]  # a byte-order mark, as the engine strips it
        if len(line.encode("utf-8", "surrogatepass")) > _MAX_LINE + (line[-1:] == "\n"):
            raise TailboundError("tailbound: %s:%d: line longer than %d bytes" % (name, n, _MAX_LINE))
        if not line.strip():
            continue
        try:
            d = loads(line, parse_constant=_no_constant)
        except ValueError as e:
            raise TailboundError("tailbound: %s:%d: not a JSON object (%s)" % (name, n, e)) from None
        where = "%s:%d" % (name, n)
        if isinstance(d, dict) and len(_KEY_END.findall(line)) > len(d):
            _check_keys(line, where)  # maybe a key twice: look at every pair
        elif isinstance(d, dict) and any(k not in _NAMES for k in d):
            _check_keys(line, where)
        try:
            tv, c, p, r = d["t"], d["conv"], d["prompt"], d["response"]
            ok = (type(tv) in (float, int) and isfinite(tv) and tv >= last and type(c) is str and c != ""
                  and type(p) is int and 1 <= p <= _MAX_TURN and type(r) is int and 0 <= r <= _MAX_TURN)
        except (KeyError, TypeError):
            ok = False
        if not ok:
            raise _bad(d, where, last)
        last = tv
        t.append(float(tv))
        conv.append(c)
        prompt.append(p)
        response.append(r)
        if len(d) > 4:
            ca, us = d.get("category"), d.get("user")
            if (ca is not None and type(ca) is not str) or (us is not None and type(us) is not str):
                raise _bad(d, where, last)
            cats.append(ca)
            users.append(us)
        else:
            cats.append(None)
            users.append(None)
    return _frame((t, conv, prompt, response), cats, users)


def read_trace(path, format="canonical", **flags):
    """Reads a trace into a DataFrame with one row per turn and columns t
    (seconds, float64), conv (str), prompt and response (tokens, int64),
    and category / user when the trace has them.

    format "canonical" reads JSON Lines (README "Trace format") and checks
    every line as the engine does; "mooncake" or "bailian" converts a
    published trace with ``tailbound import FORMAT --to canonical`` (flags
    such as min_shared_blocks are passed on as its flags)."""
    if format == "canonical":
        if flags:
            raise TypeError("read_trace: flags %s apply only to imported formats" % sorted(flags))
        with open(path, "r", encoding="utf-8") as f:
            return _parse(f, path)
    from ._api import _flags  # late: _api imports this module
    out = run(["import", format, "--in", os.fspath(path), "--to", "canonical"] + _flags(flags), json_output=False)
    return _parse(out.decode("utf-8").splitlines(), "tailbound import %s" % format)


def _check_frame(df):
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise TailboundError("tailbound: trace DataFrame: missing column(s) %s (needs %s)" % (", ".join(missing), ", ".join(COLUMNS)))


def _row_error(df, i, col, rule, value):
    """The one-line error for row i (0-based position) of a DataFrame: it
    also names the row's index label and the line the engine would read it
    as (line i + 1 of the stream), so both counts can be matched."""
    return TailboundError('tailbound: trace DataFrame: row %d (index %r; line %d of the trace sent to the engine): '
                          'field "%s": %s, got %r' % (i, df.index[i], i + 1, col, rule, value))


def _first(mask):
    return int(mask.nonzero()[0][0])


def _times(df):
    """Column t as float seconds: numbers as they are; datetimes as seconds
    since the Unix epoch (time-zone aware ones in UTC); timedeltas as
    seconds. Every value finite, ≥ 0 and non-decreasing."""
    col = df["t"]
    kind = col.dtype.kind
    if kind == "M" or isinstance(col.dtype, pd.DatetimeTZDtype):
        if col.isna().any():
            i = _first(col.isna().to_numpy())
            raise _row_error(df, i, "t", "must be a time", col.iloc[i])
        if getattr(col.dt, "tz", None) is not None:
            col = col.dt.tz_convert("UTC").dt.tz_localize(None)
        # whole nanoseconds since the epoch, then one correctly rounded division
        t = (col - pd.Timestamp(0)).to_numpy().astype("int64") / 1e9
    elif kind == "m":
        if col.isna().any():
            i = _first(col.isna().to_numpy())
            raise _row_error(df, i, "t", "must be a time", col.iloc[i])
        t = col.to_numpy().astype("int64") / 1e9
    elif kind in "iuf":
        t = col.to_numpy(dtype="float64")
    elif kind == "O" and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in col):
        t = col.to_numpy(dtype="float64")
    else:
        raise TailboundError('tailbound: trace DataFrame: field "t": must be numbers of seconds, datetimes or '
                             'timedeltas, got dtype %s' % col.dtype)
    bad = ~np.isfinite(t) | (t < 0)
    if bad.any():
        i = _first(bad)
        raise _row_error(df, i, "t", "must be a finite time ≥ 0 seconds", df["t"].iloc[i])
    if len(t) > 1:
        back = t[1:] < t[:-1]
        if back.any():
            i = _first(back) + 1
            raise _row_error(df, i, "t", "goes back before the previous row's %r (rows must be in arrival order)"
                             % df["t"].iloc[i - 1], df["t"].iloc[i])
    return t


def _utf8(df, i, col, v):
    try:
        v.encode("utf-8")
    except UnicodeEncodeError as e:
        raise _row_error(df, i, col, "must be valid Unicode text (%s)" % e.reason, v) from None
    return v


def _convs(df):
    """Column conv as strings: all strings, or all integers (written in
    decimal). Missing ids (None, NaN) and a column mixing the two kinds are
    refused: 1 and "1" would become one conversation."""
    vals = df["conv"].tolist()
    kinds = set()
    for i, v in enumerate(vals):
        if isinstance(v, str):
            if v == "":
                raise _row_error(df, i, "conv", "must be a non-empty conversation id", v)
            kinds.add(str)
        elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            kinds.add(int)
        else:
            raise _row_error(df, i, "conv", "must be a string or an integer conversation id", v)
        if len(kinds) > 1:
            raise _row_error(df, i, "conv", "mixes strings and integers in one column (1 and \"1\" would be "
                             "one conversation); convert the column to one kind", v)
    if kinds == {str}:
        for i, v in enumerate(vals):
            _utf8(df, i, "conv", v)
        return vals
    return [str(int(v)) for v in vals]


def _tokens(df, col, lo):
    """Column col as int64 tokens in [lo, 2^40]: whole numbers only."""
    s = df[col]
    kind = s.dtype.kind
    if kind == "f":
        a = s.to_numpy()
        bad = np.isnan(a) | (a != np.round(a))
        if bad.any():
            i = _first(bad)
            raise _row_error(df, i, col, "must be a whole number of tokens", s.iloc[i])
    elif kind not in "iu":
        raise TailboundError('tailbound: trace DataFrame: field "%s": must be integers, got dtype %s' % (col, s.dtype))
    a = s.to_numpy()
    bad = (a < lo) | (a > _MAX_TURN)  # compared in the column's own type: a uint64 above 2^63 does not wrap
    if bad.any():
        i = _first(bad)
        rule = "must be ≥ %d and ≤ %s tokens" % (lo, _TURN_BOUND)
        raise _row_error(df, i, col, rule, s.iloc[i])
    return a.astype("int64").tolist()


def trace_lines(df, chunk=_CHUNK):
    """Yields the canonical JSON Lines of a trace DataFrame as UTF-8 byte
    chunks (chunk rows each), after checking every row with the engine's
    rules, so that an error names the row (see _row_error). Times are
    written exactly (shortest round-trip repr); datetimes become seconds
    since the Unix epoch. prompt and response must be whole numbers."""
    _check_frame(df)
    n = len(df)
    t = _times(df)
    codes, uniques = pd.factorize(pd.Series(_convs(df), dtype="object"))
    names = [json.dumps(u, ensure_ascii=False) for u in uniques]
    extra = []
    for col in OPTIONAL:
        if col in df.columns:
            vals = df[col].tolist()
            for i, v in enumerate(vals):
                if isinstance(v, str):
                    _utf8(df, i, col, v)
            extra.append((col, vals))

    prompt, response = _tokens(df, "prompt", 1), _tokens(df, "response", 0)
    tl = t.tolist()
    codes = codes.tolist()
    for lo in range(0, n, chunk):
        hi = min(lo + chunk, n)
        # repr of a float is its shortest exact decimal (1.0, 0.1, 1e-07)
        ts = map(repr, tl[lo:hi])
        cs = [names[c] for c in codes[lo:hi]]
        if not extra:
            parts = ['{"t":%s,"conv":%s,"prompt":%d,"response":%d}\n' % x
                     for x in zip(ts, cs, prompt[lo:hi], response[lo:hi])]
        else:
            parts = []
            for i, (tr, cr) in zip(range(lo, hi), zip(ts, cs)):
                s = '{"t":%s,"conv":%s,"prompt":%d,"response":%d' % (tr, cr, prompt[i], response[i])
                for col, vals in extra:
                    v = vals[i]
                    if v is not None and not (isinstance(v, float) and math.isnan(v)):
                        s += ',"%s":%s' % (col, json.dumps(str(v), ensure_ascii=False))
                parts.append(s + "}\n")
        yield "".join(parts).encode("utf-8")


def write_trace(df, path):
    """Writes a trace DataFrame (columns t, conv, prompt, response;
    optional category, user) as canonical JSON Lines to path."""
    with open(path, "wb") as f:
        for chunk in trace_lines(df):
            f.write(chunk)


def shared_data(name=""):
    """The path of name inside the workplace's shared data folder (the
    real traces, e.g. "mooncake/conversation_trace.jsonl"): $TAILBOUND_DATA
    if set, else the first shared/data folder found walking up from the
    working directory (as the Go tests find it). Raises FileNotFoundError
    (one line) when there is none or name is absent from it."""
    d = os.environ.get("TAILBOUND_DATA")
    if not d:
        cur = os.getcwd()
        while True:
            p = os.path.join(cur, "shared", "data")
            if os.path.isdir(p):
                d = p
                break
            up = os.path.dirname(cur)
            if up == cur:
                raise FileNotFoundError("tailbound: no shared/data folder above %s (set TAILBOUND_DATA)" % os.getcwd())
            cur = up
    p = os.path.join(d, name)
    if not os.path.exists(p):
        raise FileNotFoundError("tailbound: %s not found" % p)
    return p
