"""Policies as Python classes through the exec door: the ports of
examples/exec_policy.py equal the built-in policies, the protocol's fields
on a hand-worked trace, and failures (bad answers, exceptions) that stop
the run with one line and leave no process behind."""

import os
import tempfile

import pandas as pd
import pytest

import tailbound
from tailbound.policies import LRU, TLRU, BlockLRU

METRICS = ["turns", "tel_tokens", "tel_ms", "ttft_ms.mean", "ttft_ms.p50", "ttft_ms.p90", "ttft_ms.p95",
           "ttft_ms.p99", "slo_violations", "hit_ratio", "history_hit_ratio", "max_uncached_tokens", "evictions",
           "evicted_tokens"]


def assert_equal_rows(df, a, b):
    ra, rb = df.set_index("name").loc[a], df.set_index("name").loc[b]
    for m in METRICS:
        assert ra[m] == rb[m], (a, b, m, ra[m], rb[m])


@pytest.mark.parametrize("kw", [
    dict(turns=15000),                        # embedded workload, optional caching, Q̂ auto
    dict(forced=True, turns=12000),           # forced caching
    dict(qhat=400, xi_tokens=900, turns=12000, capacity=65536),  # a fixed Q̂, another ξ
    dict(block_size=1, capacity=50000, turns=8000),
])
def test_ports_equal_builtin(kw):
    df = tailbound.simulate(policies=["lru", "tlru", LRU(), TLRU()], **kw)
    assert list(df["name"]) == ["lru", "tlru", "py-lru", "py-tlru"]
    assert_equal_rows(df, "lru", "py-lru")
    assert_equal_rows(df, "tlru", "py-tlru")
    assert df.set_index("name").loc["lru", "evictions"] > 0
    # T-LRU is a different policy here: the comparison can fail
    assert df.set_index("name").loc["lru", "tel_tokens"] != df.set_index("name").loc["tlru", "tel_tokens"]


def test_block_lru_port_equals_builtin():
    trace = tailbound.gen_birth_death(turns=1500, seed=4)
    df = tailbound.simulate(trace, level="block", policies=["lru", BlockLRU()], capacity=16 * 512, block_size=16,
                            xi_tokens=1500)
    a, b = df.set_index("name").loc["lru"], df.set_index("name").loc["py-block-lru"]
    assert a["evictions"] > 0
    for m in ["tel_tokens", "ttft_ms.p99", "hit_ratio", "block_hit_ratio", "evictions", "evicted_tokens"]:
        assert a[m] == b[m], m


class Recorder(LRU):
    """LRU that records what it is sent and answers (on the class: each run
    works on a deep copy of the instance)."""
    log = []

    def start(self):
        Recorder.log.append(("header", dict(self.header)))

    def decide(self, turn):
        ans = super().decide(turn)
        Recorder.log.append((dict(turn), ans))
        return ans


def test_protocol_hand_worked():
    # README's worked example: B = 16, C = 32. a's first turn: history 32,
    # keep 32. b's turn: history 16, keep 16, a cut to 16 to fit 32. a's
    # return: it finds 16 (the turn's cached; total 16 + 16), history 40, keeps
    # ⌊40/16⌋·16 = 32, and b is cut to 0.
    trace = pd.DataFrame({"t": [0.0, 1.0, 2.0], "conv": ["a", "b", "a"], "prompt": [20, 16, 8],
                          "response": [12, 0, 0]})
    Recorder.log = []
    df = tailbound.simulate(trace, policies=[Recorder()], capacity=32, block_size=16, xi_tokens=0)
    kind, header = Recorder.log[0]
    assert kind == "header" and (header["capacity"], header["block"], header["level"]) == (32, 16, "turn")
    sent = [t for t, _ in Recorder.log[1:]]
    answers = [a for _, a in Recorder.log[1:]]
    assert [(t["conv"], t["history"], t["cached"], t["max_keep"], t["total"]) for t in sent] == [
        (0, 32, 0, 32, 0), (1, 16, 0, 16, 32), (0, 40, 16, 32, 32)]
    assert answers == [(32, []), (16, [(0, 16)]), (32, [(1, 0)])]
    row = df.iloc[0]
    # uncached: 20 + 16 + (40 − 16); evictions: the two cuts
    assert row["name"] == "Recorder" and row["evictions"] == 2
    assert row["tel_tokens"] == 20 + 16 + 24


class FiveLine(tailbound.Policy):
    """Keep the whole history; evict the largest caches first."""

    def decide(self, turn):
        keep = turn["max_keep"]
        return keep, self.fit(turn, keep, sorted(self.cached, key=lambda c: -self.cached[c]))


def test_custom_policy_in_gap():
    trace = tailbound.gen_birth_death(turns=600, seed=9)
    df = tailbound.gap(trace, policies=["lru", FiveLine(), LRU()], capacities=[2048, 8192], xis=[300])
    assert sorted(set(df["policy"])) == ["FiveLine", "lru", "py-lru"]
    g = df.set_index(["capacity_tokens", "policy"])
    for c in (2048, 8192):
        assert g.loc[(c, "lru"), "tel_tokens"] == g.loc[(c, "py-lru"), "tel_tokens"]
        assert g.loc[(c, "FiveLine"), "tel_tokens"] >= g.loc[(c, "FiveLine"), "tel_opt_tokens"]


class Illegal(tailbound.Policy):
    def decide(self, turn):
        return turn["max_keep"] + self.block  # one block more than the history


class Boom(LRU):
    def decide(self, turn):
        if turn["turn"] == 5:
            raise ValueError("boom at turn %d" % turn["turn"])
        return super().decide(turn)


class BadStart(tailbound.Policy):
    def start(self):
        raise KeyError("no such option")


def test_bad_input_trace_negative_prompt(tmp_path):
    p = tmp_path / "neg.jsonl"
    p.write_text('{"t":0,"conv":"a","prompt":10,"response":0}\n{"t":1,"conv":"a","prompt":-4,"response":0}\n')
    with pytest.raises(tailbound.TailboundError) as e:
        tailbound.simulate(str(p), policies=["lru"], capacity=64)
    assert e.value.message == 'tailbound simulate: %s:2: field "prompt": must be ≥ 1 token, got -4' % p
    assert e.value.returncode == 1
    # the same trace as a DataFrame: checked by the package before the
    # engine reads it, naming the row both ways (0-based row, engine line)
    df = pd.DataFrame({"t": [0.0, 1.0], "conv": ["a", "a"], "prompt": [10, -4], "response": [0, 0]})
    with pytest.raises(tailbound.TailboundError, match=r'row 1 \(index 1; line 2 of the trace sent to the engine\): field "prompt": must be ≥ 1 and ≤ 2\^40 tokens, got -4'):
        tailbound.simulate(df, policies=["lru"], capacity=64)
    with pytest.raises(tailbound.TailboundError, match=r'neg.jsonl:2: field "prompt"'):
        tailbound.read_trace(p)


def test_bad_input_unknown_policy():
    with pytest.raises(tailbound.TailboundError) as e:
        tailbound.simulate(policies=["lru", "no-such-policy"])
    assert "no-such-policy" in e.value.message and "\n" not in e.value.message


def test_illegal_keep():
    with pytest.raises(tailbound.TailboundError) as e:
        tailbound.simulate(policies=[Illegal()], turns=100)
    msg = e.value.message
    assert msg.startswith("tailbound simulate: policy Illegal: turn 0:"), msg
    assert msg.endswith("(rule: at most the history)") and "\n" not in msg


def relays(marker):
    """Processes whose command line contains marker."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(pid))
            except OSError:
                pass
    return found


@pytest.mark.parametrize("policy, last", [(Boom(), "ValueError: boom at turn 5"),
                                          (BadStart(), "KeyError: 'no such option'")])
def test_python_exception_stops_run(policy, last, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the sockets go
    with pytest.raises(tailbound.PolicyError) as e:
        tailbound.simulate(policies=["lru", policy], turns=2000)
    msg = e.value.message
    assert msg.endswith('its last error line: "%s")' % last.replace('"', '\\"')) or msg.endswith('its last error line: %s)' % repr(last).replace("'", '"')), msg
    assert "\n" not in msg and type(policy).__name__ in msg
    assert type(e.value.__cause__).__name__ == last.split(":")[0]  # the exception itself, with its traceback
    assert os.listdir(tmp_path) == []  # sockets removed
    assert relays(str(tmp_path)) == []  # no relay left running


def test_missing_binary(monkeypatch):
    monkeypatch.setenv("TAILBOUND_BIN", "/nonexistent/tailbound")
    with pytest.raises(tailbound.TailboundError, match=r"^tailbound: TAILBOUND_BIN=/nonexistent/tailbound is not an executable file$"):
        tailbound.simulate(policies=["lru"])


@pytest.mark.parametrize("kw, message", [
    (dict(no_such_flag=1), "tailbound simulate: unknown flag: --no-such-flag (see --help)"),
    (dict(capacity=100, block_size=16), "tailbound simulate: flag --capacity: 100 tokens must be ≥ 0 and a multiple of --block-size 16"),
])
def test_bad_flags(kw, message):
    with pytest.raises(tailbound.TailboundError) as e:
        tailbound.simulate(policies=["lru"], **kw)
    assert e.value.message == message and e.value.returncode == 1


def test_not_a_policy():
    with pytest.raises(TypeError, match="neither a policy name nor a tailbound.Policy"):
        tailbound.simulate(policies=["lru", LRU])  # the class, not an instance
