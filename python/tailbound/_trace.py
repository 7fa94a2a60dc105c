"""Canonical traces as DataFrames: reading, writing and streaming."""

import json
import math
import os

import pandas as pd

from ._engine import TailboundError, run

__all__ = ["read_trace", "write_trace", "trace_lines"]

#: columns of a canonical trace DataFrame, in order (category and user are optional)
COLUMNS = ["t", "conv", "prompt", "response"]
OPTIONAL = ["category", "user"]

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
        ("prompt", lambda v: is_int(v) and v >= 1, "must be ≥ 1 token"),
        ("response", lambda v: is_int(v) and v >= 0, "must be ≥ 0 tokens"),
        ("category", lambda v: v is None or isinstance(v, str), "must be a string"),
        ("user", lambda v: v is None or isinstance(v, str), "must be a string"),
    ]
    for key, ok, rule in rules:
        if key not in d and key not in ("category", "user"):
            return TailboundError('tailbound: %s: field "%s": missing' % (where, key))
        v = d.get(key)
        if not ok(v):
            return TailboundError('tailbound: %s: field "%s": %s, got %s' % (where, key, rule, json.dumps(v)))
    if d["t"] < last:
        return TailboundError('tailbound: %s: field "t": %s is before the previous turn\'s %s (must be non-decreasing)'
                              % (where, d["t"], last))
    return TailboundError("tailbound: %s: bad line" % where)


def _parse(lines, name):
    """Parses canonical JSON Lines with the engine's rules (README "Trace
    format"); a bad line raises TailboundError naming name, line and field."""
    t, conv, prompt, response, cats, users = [], [], [], [], [], []
    last = 0.0
    loads, isfinite = json.loads, math.isfinite
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = loads(line)
        except ValueError as e:
            raise TailboundError("tailbound: %s:%d: not a JSON object (%s)" % (name, n, e)) from None
        try:
            tv, c, p, r = d["t"], d["conv"], d["prompt"], d["response"]
            ok = (type(tv) in (float, int) and isfinite(tv) and tv >= last and type(c) is str and c != ""
                  and type(p) is int and p >= 1 and type(r) is int and r >= 0)
        except (KeyError, TypeError):
            ok = False
        if not ok:
            raise _bad(d, "%s:%d" % (name, n), last)
        last = tv
        t.append(float(tv))
        conv.append(c)
        prompt.append(p)
        response.append(r)
        if len(d) > 4:
            ca, us = d.get("category"), d.get("user")
            if (ca is not None and type(ca) is not str) or (us is not None and type(us) is not str):
                raise _bad(d, "%s:%d" % (name, n), last)
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


def trace_lines(df, chunk=_CHUNK):
    """Yields the canonical JSON Lines of a trace DataFrame as UTF-8 byte
    chunks (chunk rows each). Times are written exactly (shortest
    round-trip repr); prompt and response must be whole numbers."""
    _check_frame(df)
    n = len(df)
    t = df["t"].to_numpy(dtype="float64")
    codes, uniques = pd.factorize(df["conv"].astype(str))
    names = [json.dumps(u, ensure_ascii=False) for u in uniques]
    extra = []
    for col in OPTIONAL:
        if col in df.columns:
            extra.append((col, df[col].tolist()))

    def ints(col):
        s = df[col]
        if s.dtype.kind == "f":
            bad = ~(s.isna() | (s == s.round()))
            if s.isna().any() or bad.any():
                i = int((s.isna() | bad).to_numpy().nonzero()[0][0])
                raise TailboundError('tailbound: trace DataFrame: row %d: field "%s": must be a whole number of tokens, got %r' % (i, col, s.iloc[i]))
        elif s.dtype.kind not in "iu":
            raise TailboundError('tailbound: trace DataFrame: field "%s": must be integers, got dtype %s' % (col, s.dtype))
        return s.to_numpy().astype("int64").tolist()

    prompt, response = ints("prompt"), ints("response")
    tl = t.tolist()
    codes = codes.tolist()
    for lo in range(0, n, chunk):
        hi = min(lo + chunk, n)
        # repr of a float is its shortest exact decimal (1.0, 0.1, 1e-07, nan:
        # the engine rejects a non-finite time)
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
