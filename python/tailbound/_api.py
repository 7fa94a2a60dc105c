"""Functions mirroring the engine's commands."""

import json
import os
import tempfile

import pandas as pd

from ._engine import TailboundError, run
from ._policy import Policy, PolicyError, Served
from ._trace import _parse, read_trace, trace_lines

__all__ = ["simulate", "gap", "solve", "check", "tables", "gen_birth_death"]

#: flags that may be given several times (a list gives one flag per item)
_REPEATABLE = {"policy_opt", "schedule"}


def _flags(kw):
    """Turns keyword arguments into engine flags: capacity=65536 →
    --capacity=65536, block_size → --block-size, True/False →
    --flag=true/false, a list → comma-separated (repeated for policy_opt
    and schedule; a dict policy_opt gives key=value items), None → left
    out (the engine's default)."""
    out = []
    for k, v in kw.items():
        if v is None:
            continue
        name = "--" + k.replace("_", "-")
        if k in _REPEATABLE:
            if isinstance(v, dict):
                v = ["%s=%s" % kv for kv in v.items()]
            elif isinstance(v, (str, os.PathLike)):
                v = [v]
            out += ["%s=%s" % (name, os.fspath(x)) for x in v]
        elif isinstance(v, bool):
            out.append("%s=%s" % (name, "true" if v else "false"))
        elif isinstance(v, (list, tuple)):
            out.append("%s=%s" % (name, ",".join(str(x) for x in v)))
        else:
            out.append("%s=%s" % (name, os.fspath(v) if isinstance(v, os.PathLike) else v))
    return out


def _trace_args(trace):
    """--trace flag and stdin feed for a path, a DataFrame or None."""
    if trace is None:
        return [], None
    if isinstance(trace, pd.DataFrame):
        return ["--trace=-"], trace_lines(trace)
    if isinstance(trace, (str, os.PathLike)):
        return ["--trace=%s" % os.fspath(trace)], None
    raise TypeError("trace must be a path, a DataFrame or None, got %s" % type(trace).__name__)


def _rename(doc, served):
    if isinstance(doc, dict):
        return {k: _rename(v, served) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_rename(v, served) for v in doc]
    if isinstance(doc, str) and "exec:" in doc:
        return served.rename(doc)
    return doc


def _policy_run(command, trace, policies, kw):
    """Runs command with Python policies served for its duration."""
    py = []
    names = []
    if isinstance(policies, str):
        names = [policies]
    elif policies is not None:
        for p in policies:
            if isinstance(p, Policy):
                py.append(p)
            elif isinstance(p, str):
                names.append(p)
            else:
                raise TypeError("policies: %r is neither a policy name nor a tailbound.Policy" % (p,))
    targs, feed = _trace_args(trace)
    with Served(py) as served:
        raw = {v: k for k, v in served.names.items()}  # label → engine name
        if policies is not None:
            kw = dict(kw, policies=",".join(names + served.commands()))

        def on_error(msg, code):
            msg = served.rename(msg)
            err = served.error()
            if err is not None:
                raise PolicyError(msg, code) from err
            raise TailboundError(msg, code)

        doc = run([command] + targs + _flags(kw) + ["--format=json"], feed=feed, on_error=on_error)
        return _rename(doc, served), raw


def _frame(rows, doc, drop):
    df = pd.json_normalize(rows) if rows else pd.DataFrame()
    df.attrs.update({k: v for k, v in doc.items() if k not in drop})
    return df


def simulate(trace=None, *, policies=None, capacity=None, block_size=None, xi_tokens=None, xi_ms=None,
             alpha_ms=None, beta_ms=None, qhat=None, slo_ms=None, forced=None, seed=None, level=None,
             per_turn=False, **flags):
    """Replays a trace under policies (``tailbound simulate``).

    trace: a canonical trace path, a DataFrame (t, conv, prompt, response;
    streamed to the engine's standard input), or None for the embedded
    birth–death workload (seed). policies: names ("lru", "tlru", …) and
    tailbound.Policy instances. Lengths in tokens, times in ms; other
    flags of the command as keywords (threshold=1024, capacities=[…],
    policy_opt={"k": "v"}, trace_format="mooncake", exec_timeout=10, …).

    Returns a DataFrame with one row per policy (per capacity and policy
    with capacities=…): the JSON fields, nested ones flattened with a dot
    ("ttft_ms.p99"); the document's other keys (settings, units, baseline,
    ideal, produced_by) are in ``df.attrs``. A run over several seeds
    (seeds=…) returns the JSON document as a dict.

    per_turn=True (conversation level, one capacity, a trace given) also
    returns, as a second DataFrame, every turn under every policy: policy,
    turn, conv, cached_tokens (what the turn found, from the policy's
    emitted schedule), uncached_tokens b = D − cached and ttft_ms = β + α·b
    — the TTFT distribution behind the percentiles, e.g. for CDF plots."""
    kw = dict(capacity=capacity, block_size=block_size, xi_tokens=xi_tokens, xi_ms=xi_ms, alpha_ms=alpha_ms,
              beta_ms=beta_ms, qhat=qhat, slo_ms=slo_ms, forced=forced, seed=seed, level=level, **flags)
    if per_turn:
        return _simulate_per_turn(trace, policies, kw)
    doc, _ = _policy_run("simulate", trace, policies, kw)
    if "policies" in doc and isinstance(doc["policies"], list):
        return _frame(doc["policies"], doc, {"policies"})
    if "sweep" in doc:
        rows = [dict(p, capacity_tokens=s["capacity_tokens"]) for s in doc["sweep"] for p in s["policies"]]
        return _frame(rows, doc, {"sweep"})
    return doc


def _schedule_path(path, name, several):
    """The file --emit-schedule writes for policy name (models/schedule
    Path: other characters than letters, digits, '.', '_' and '-' made
    '_', inserted before the extension when several policies run)."""
    if not several:
        return path
    clean = "".join(c if (c.isascii() and c.isalnum()) or c in "._-" else "_" for c in name)
    root, ext = os.path.splitext(path)
    return root + "." + clean + ext


def _simulate_per_turn(trace, policies, kw):
    if trace is None or kw.get("level") not in (None, "turn") or kw.get("capacities") or kw.get("seeds"):
        raise TypeError("simulate(per_turn=True) needs a trace (path or DataFrame), the turn level and one capacity")
    frame = trace if isinstance(trace, pd.DataFrame) else read_trace(trace)
    with tempfile.TemporaryDirectory(prefix="tailbound-") as tmp:
        out = os.path.join(tmp, "s.jsonl")
        doc, raw = _policy_run("simulate", frame if isinstance(trace, pd.DataFrame) else trace, policies,
                               dict(kw, emit_schedule=out))
        rows = doc["policies"]
        df = _frame(rows, doc, {"policies"})
        # D_k = H_k + p_k: the conversation's earlier prompts and responses, and this prompt
        p = frame["prompt"].to_numpy(dtype="int64")
        grown = frame["prompt"] + frame["response"]
        load = (grown.groupby(frame["conv"], sort=False).cumsum() - grown).to_numpy(dtype="int64") + p
        alpha, beta = doc["settings"]["alpha_ms_per_token"], doc["settings"]["beta_ms"]
        parts = []
        for row in rows:
            name = row["name"]
            path = _schedule_path(out, raw.get(name, name), len(rows) > 1)
            with open(path, "r", encoding="utf-8") as f:
                cached = [json.loads(l)["cached"] for l in f if l.strip()]
            if len(cached) != len(frame):
                raise TailboundError("tailbound simulate: schedule of %s has %d turns, the trace %d" % (name, len(cached), len(frame)))
            cached = pd.Series(cached, dtype="int64").to_numpy()
            b = load - cached
            parts.append(pd.DataFrame({"policy": name, "turn": range(len(frame)), "conv": frame["conv"].to_numpy(),
                                       "cached_tokens": cached, "uncached_tokens": b, "ttft_ms": beta + alpha * b}))
    return df, pd.concat(parts, ignore_index=True)


def gap(trace=None, *, policies=None, capacities=None, xis=None, thresholds=None, block_size=None, forced=None,
        alpha_ms=None, qhat=None, solver=None, seed=None, level=None, **flags):
    """Every policy's TEL against the hindsight optimum over capacities
    and thresholds ξ (``tailbound gap``); trace and policies as in
    simulate, capacities and xis lists of tokens. Returns a DataFrame with
    one row per grid point and policy (capacity_tokens, xi_tokens, policy,
    tel_opt_tokens, tel_tokens, abs_gap_tokens, …, rel_gap), the other
    keys in ``df.attrs``."""
    kw = dict(capacities=capacities, xis=xis, thresholds=thresholds, block_size=block_size, forced=forced,
              alpha_ms=alpha_ms, qhat=qhat, solver=solver, seed=seed, level=level, **flags)
    doc, _ = _policy_run("gap", trace, policies, kw)
    if "rows" in doc and isinstance(doc["rows"], list):
        return _frame(doc["rows"], doc, {"rows"})
    return doc


def solve(trace, *, capacity, block_size=None, xi_tokens=None, xi_ms=None, formulation=None, solver=None,
          relax=None, forced=None, **flags):
    """The hindsight TEL optimum of a trace (``tailbound solve``): returns
    its JSON document as a dict (tel_opt_tokens, lp_bound_tokens,
    integral, belady_tel_tokens, status, solver, formulation, …)."""
    targs, feed = _trace_args(trace)
    kw = dict(capacity=capacity, block_size=block_size, xi_tokens=xi_tokens, xi_ms=xi_ms, formulation=formulation,
              solver=solver, relax=relax, forced=forced, **flags)
    return run(["solve"] + targs + _flags(kw) + ["--format=json"], feed=feed)


def check(*claims, instances=None, seed=None, **flags):
    """Checks the literature's claims on random instances (``tailbound
    check``); claims are names or family prefixes (none: every default
    claim). Returns a DataFrame with one row per claim (name, statement,
    instances, passed, failed, counterexample: a dict or None)."""
    doc = run(["check"] + list(claims) + _flags(dict(instances=instances, seed=seed, **flags)) + ["--format=json"])
    rows = doc.get("checks", [])
    df = pd.DataFrame(rows)
    df.attrs.update({k: v for k, v in doc.items() if k != "checks"})
    return df


def _tables(v):
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return pd.json_normalize(v)
    if isinstance(v, dict):
        return {k: _tables(x) for k, x in v.items()}
    return v


def tables(suite, **flags):
    """Runs an experiment suite (``tailbound tables SUITE``, e.g.
    "tail-latency", with small=True for its reduced grid). Returns its
    JSON document as a dict in which every list of objects is a DataFrame
    (nested objects flattened with a dot)."""
    return _tables(run(["tables", suite] + _flags(flags) + ["--format=json"]))


def gen_birth_death(**flags):
    """Generates a birth–death conversation trace (``tailbound gen
    birth-death``: lambda_conv, mu, rates, gamma, prompt, response,
    duration or turns, seed, …) as a trace DataFrame (t, conv, prompt,
    response)."""
    out = run(["gen", "birth-death"] + _flags(flags), json_output=False)
    return _parse(out.decode("utf-8").splitlines(), "tailbound gen birth-death")
