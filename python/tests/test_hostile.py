"""Issue 35, items 9–13: what a hostile but fair user found in the Python
package. Each case reproduces the report first: threads left blocked in
accept(), exceptions lost on the way to PolicyError, DataFrame values
misread, read_trace and the engine reading one file differently, and a
refused TMPDIR leaving its temporary directory behind. After every call
the tests count threads and look for leftover files."""

import json
import os
import tempfile
import threading

import numpy as np
import pandas as pd
import pytest

import tailbound
from tailbound._trace_rules import MAX_LINE_BYTES, MAX_TURN_TOKENS
from tailbound.policies import LRU


def frame(rows):
    return pd.DataFrame(rows, columns=["t", "conv", "prompt", "response"])


SMALL = frame([(0.0, "a", 40, 10), (1.0, "b", 30, 5), (2.0, "a", 20, 0), (3.0, "b", 25, 0)])


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """Sockets and temporary directories go to tmp_path, which must be
    empty again after each call."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


# Item 9: every call with a Policy left a thread blocked in accept().
def test_no_thread_left_after_policy_calls(scratch):
    tailbound.simulate(SMALL, policies=[LRU()], capacity=64, block_size=1)  # warm any lazy module threads
    before = threading.active_count()
    for _ in range(10):
        tailbound.simulate(SMALL, policies=[LRU(), "lru"], capacity=64, block_size=1)
    assert threading.active_count() == before, [t.name for t in threading.enumerate()]
    assert os.listdir(scratch) == []


class Unpicklable(LRU):
    name = "unpicklable"

    def __init__(self):
        self.lock = threading.Lock()  # deepcopy raises TypeError on a lock


class Exits(LRU):
    name = "exits"

    def decide(self, turn):
        if turn["turn"] == 2:
            raise SystemExit("stop here")
        return LRU.decide(self, turn)


class Interrupted(LRU):
    name = "interrupted"

    def decide(self, turn):
        raise KeyboardInterrupt()


# Item 10: the real exception, as __cause__ of a PolicyError.
@pytest.mark.parametrize("policy, cause", [(Unpicklable(), TypeError), (Exits(), SystemExit),
                                           (Interrupted(), KeyboardInterrupt)])
def test_policy_failure_keeps_its_cause(scratch, policy, cause):
    before = threading.active_count()
    with pytest.raises(tailbound.PolicyError) as e:
        tailbound.simulate(SMALL, policies=[policy], capacity=64, block_size=1)
    assert isinstance(e.value.__cause__, cause), repr(e.value.__cause__)
    assert "\n" not in e.value.message and "exit status 0" not in e.value.message, e.value.message
    assert threading.active_count() == before
    assert os.listdir(scratch) == []


# Item 13: a refused TMPDIR left its directory, socket and thread behind.
def test_comma_in_tmpdir_leaves_nothing(monkeypatch):
    d = tempfile.mkdtemp(prefix="a,", dir="/tmp")  # short: a long TMPDIR falls back to /tmp
    monkeypatch.setattr(tempfile, "tempdir", d)
    before = threading.active_count()
    with pytest.raises(tailbound.TailboundError) as e:
        tailbound.simulate(SMALL, policies=[LRU()], capacity=64, block_size=1)
    assert "comma" in e.value.message
    left = os.listdir(d)
    os.rmdir(d)
    assert left == []
    assert threading.active_count() == before


def simulate_lru(df):
    return tailbound.simulate(df, policies=["lru"], capacity=64, block_size=1).iloc[0]


# Item 11: DataFrame values the serialization misread or let through.
@pytest.mark.parametrize("conv, field, words", [
    (["a", None, "a", "b"], "conv", "must be a string or an integer"),
    (["a", float("nan"), "a", "b"], "conv", "must be a string or an integer"),
    ([1, "1", 1, "1"], "conv", "mixes strings and integers"),
    (["a", "b\ud800", "a", "b"], "conv", "valid Unicode"),
])
def test_bad_conversation_ids_refused(conv, field, words):
    df = SMALL.copy()
    df["conv"] = pd.Series(conv, dtype="object")
    with pytest.raises(tailbound.TailboundError) as e:
        simulate_lru(df)
    msg = e.value.message
    assert 'field "%s"' % field in msg and words in msg and "row 1 (index 1; line 2 " in msg, msg
    assert "\n" not in msg


def test_integer_conversation_ids_are_decimal_strings():
    ints = SMALL.copy()
    ints["conv"] = [7, 8, 7, 8]
    strs = SMALL.copy()
    strs["conv"] = ["7", "8", "7", "8"]
    a, b = simulate_lru(ints), simulate_lru(strs)
    assert a["tel_tokens"] == b["tel_tokens"] and a["hit_ratio"] == b["hit_ratio"]


def test_datetime_times_are_seconds():
    secs = SMALL.copy()
    secs["t"] = [1.7e9, 1.7e9 + 1.5, 1.7e9 + 3, 1.7e9 + 3.25]
    dt = secs.copy()
    ns = np.array([1_700_000_000_000_000_000 + k for k in (0, 1_500_000_000, 3_000_000_000, 3_250_000_000)])
    secs["t"] = ns / 1e9
    dt["t"] = pd.to_datetime(ns)  # exact: built from whole nanoseconds
    got = list(tailbound._trace.trace_lines(dt))[0].decode().splitlines()
    want = list(tailbound._trace.trace_lines(secs))[0].decode().splitlines()
    assert got == want
    aware = secs.copy()
    aware["t"] = pd.to_datetime(ns, utc=True).tz_convert("Europe/Paris")
    assert list(tailbound._trace.trace_lines(aware))[0].decode().splitlines() == want
    td = secs.copy()
    td["t"] = pd.to_timedelta(ns - ns[0])
    assert json.loads(list(tailbound._trace.trace_lines(td))[0].decode().splitlines()[1])["t"] == 1.5


@pytest.mark.parametrize("col, values, words", [
    ("t", [0.0, float("nan"), 2.0, 3.0], "finite time"),
    ("t", [0.0, 2.0, 1.0, 3.0], "goes back"),
    ("prompt", np.array([40, 2**63 + 1, 20, 25], dtype="uint64"), "≤ 2^40 tokens"),
    ("prompt", [40, 0, 20, 25], "must be ≥ 1"),
    ("response", [1.0, 2.5, 0.0, 0.0], "whole number"),
])
def test_bad_values_name_their_row(col, values, words):
    df = SMALL.copy()
    df[col] = values
    with pytest.raises(tailbound.TailboundError) as e:
        simulate_lru(df)
    msg = e.value.message
    assert 'field "%s"' % col in msg and words in msg and "\n" not in msg, msg
    assert "row 1 " in msg or "row 2 " in msg, msg


# Items 11 and 12: read_trace and the engine read a file the same way.
GOOD = '{"t":1,"conv":"a","prompt":1,"response":0}\n'


@pytest.mark.parametrize("line, field", [
    ('{"t":2,"conv":"a","PROMPT":1,"response":0}', '"PROMPT"'),
    ('{"T":2,"conv":"a","prompt":1,"response":0}', '"T"'),
    ('{"t":2,"conv":"a","prompt":1,"prompt":2,"response":0}', '"prompt"'),
    ('{"t":2,"conv":"a","prompt":1,"response":0,"user":"u","user":"v"}', '"user"'),
    ('{"t":2,"conv":"a","prompt":1099511627777,"response":0}', '"prompt"'),
    ('{"t":NaN,"conv":"a","prompt":1,"response":0}', 'not a JSON object'),
])
def test_read_trace_and_engine_refuse_alike(tmp_path, cli, line, field):
    p = tmp_path / "t.jsonl"
    p.write_text(GOOD + line + "\n")
    with pytest.raises(tailbound.TailboundError) as e:
        tailbound.read_trace(p)
    assert e.value.message.startswith("tailbound: %s:2: " % p) and field in e.value.message, e.value.message
    with pytest.raises(Exception) as ce:
        cli("simulate", "--trace", p, "--policies", "lru", "--capacity", "64", json_out=False)
    assert (":2: " + ("field " + field if field.startswith('"') else "")) in ce.value.stderr.decode(), ce.value.stderr


@pytest.mark.parametrize("text", [
    "\ufeff" + GOOD,  # a byte-order mark
    GOOD.rstrip("\n") + '  \n\n  \n',  # blank lines
    '{"t":1,"conv":"a","prompt":1,"response":0,"extra":{"prompt":5},"Promptx":3}\n',  # unknown keys are ignored
])
def test_read_trace_and_engine_accept_alike(tmp_path, cli, text):
    p = tmp_path / "t.jsonl"
    p.write_text(text, encoding="utf-8")
    df = tailbound.read_trace(p)
    assert list(df["prompt"]) == [1]
    doc = cli("simulate", "--trace", p, "--policies", "lru", "--capacity", "64", "--format", "json")
    assert doc["policies"][0]["turns"] == 1


# The bounds read_trace applies are the engine's (tailbound/_trace_rules.py,
# generated from Go models/trace and checked there): at each bound both
# accept, one past it both refuse.
def padded(n):
    """A good second line of exactly n bytes (an ignored key pads it)."""
    head = '{"t":2,"conv":"a","prompt":1,"response":0,"pad":"'
    return head + "x" * (n - len(head) - 2) + '"}'


@pytest.mark.parametrize("line, ok", [
    (padded(MAX_LINE_BYTES), True),
    (padded(MAX_LINE_BYTES + 1), False),
    ('{"t":2,"conv":"a","prompt":%d,"response":0}' % MAX_TURN_TOKENS, True),
    ('{"t":2,"conv":"a","prompt":1,"response":%d}' % (MAX_TURN_TOKENS + 1), False),
], ids=["line-at-bound", "line-past-bound", "turn-at-bound", "turn-past-bound"])
def test_read_trace_bounds_are_the_engines(tmp_path, cli, line, ok):
    p = tmp_path / "t.jsonl"
    p.write_text(GOOD + line + "\n")
    args = ("simulate", "--trace", p, "--policies", "lru", "--capacity", "64", "--format", "json")
    if ok:
        assert len(tailbound.read_trace(p)) == 2
        assert cli(*args)["policies"][0]["turns"] == 2
        return
    with pytest.raises(tailbound.TailboundError) as e:
        tailbound.read_trace(p)
    assert e.value.message.startswith("tailbound: %s:2: " % p), e.value.message
    with pytest.raises(Exception) as ce:
        cli(*args, json_out=False)
    assert ":2: " in ce.value.stderr.decode(), ce.value.stderr
