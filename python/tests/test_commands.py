"""Each function against the CLI's JSON for the same arguments, and the
DataFrames' columns and dtypes."""

import json
import math
import os

import pandas as pd
import pytest

import tailbound


def flat(d, prefix=""):
    """Flattens nested dicts with dotted keys (as the DataFrames do)."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def same(a, b):
    if isinstance(a, float) and math.isnan(a):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return a == b


def assert_rows(df, rows):
    assert len(df) == len(rows)
    for i, row in enumerate(rows):
        f = flat(row)
        assert set(f) <= set(df.columns), set(f) - set(df.columns)
        for k, v in f.items():
            got = df.iloc[i][k]
            got = got.item() if hasattr(got, "item") else got
            assert same(got, v), (i, k, got, v)


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory, cli):
    """A 400-turn birth–death trace written by the CLI itself."""
    p = tmp_path_factory.mktemp("tr") / "bd.jsonl"
    p.write_text(cli("gen", "birth-death", "--turns", "400", "--seed", "7", json_out=False))
    return str(p)


def test_simulate_embedded_matches_cli(cli):
    df = tailbound.simulate(policies=["lru", "tlru", "fifo"], seed=3, turns=5000)
    doc = cli("simulate", "--policies", "lru,tlru,fifo", "--seed", "3", "--turns", "5000", "--format", "json")
    assert list(df["name"]) == ["lru", "tlru", "fifo"]
    assert_rows(df, doc["policies"])
    assert df.attrs["settings"] == doc["settings"]


def test_simulate_dataframe_streamed_equals_file(small_trace, cli):
    args = dict(policies=["lru", "tlru", "to-belady"], capacity=4096, block_size=16, xi_tokens=300)
    from_file = tailbound.simulate(small_trace, **args)
    from_frame = tailbound.simulate(tailbound.read_trace(small_trace), **args)
    doc = cli("simulate", "--trace", small_trace, "--policies", "lru,tlru,to-belady", "--capacity", "4096",
              "--block-size", "16", "--xi-tokens", "300", "--format", "json")
    assert_rows(from_file, doc["policies"])
    assert_rows(from_frame, doc["policies"])
    assert (from_file["evictions"] > 0).all()


def test_simulate_capacity_sweep(small_trace, cli):
    df = tailbound.simulate(small_trace, policies="lru,tlru", capacities=[2048, 8192], xi_tokens=300)
    doc = cli("simulate", "--trace", small_trace, "--policies", "lru,tlru", "--capacities", "2048,8192",
              "--xi-tokens", "300", "--format", "json")
    rows = [dict(p, capacity_tokens=s["capacity_tokens"]) for s in doc["sweep"] for p in s["policies"]]
    assert_rows(df, rows)
    assert sorted(set(df["capacity_tokens"])) == [2048, 8192]


def test_gap_matches_cli(small_trace, cli):
    df = tailbound.gap(small_trace, policies=["lru", "tlru"], capacities=[2048, 4096], xis=[200, 400])
    doc = cli("gap", "--trace", small_trace, "--policies", "lru,tlru", "--capacities", "2048,4096",
              "--xis", "200,400", "--format", "json")
    assert_rows(df, doc["rows"])
    assert len(df) == 8 and (df["tel_tokens"] >= df["tel_opt_tokens"]).all()


def test_gap_hand_worked_figure1(repo):
    # The paper's first figure (examples/fig1.jsonl: A, B, A with prompts of
    # 100 tokens, no responses), B = 1, C = 100, ξ = 0. Optimum: keep A's
    # 100 tokens through B's turn, so only A's return saves: TEL = 100 + 100
    # + (200 − 100) = 300. LRU keeps B (most recent) and evicts A: A's return
    # prefills 200, TEL 400.
    df = tailbound.gap(os.path.join(repo, "examples", "fig1.jsonl"), policies=["lru"], capacities=[100], xis=[0],
                       block_size=1)
    row = df.iloc[0]
    assert (row["tel_opt_tokens"], row["tel_tokens"], row["abs_gap_tokens"]) == (300, 400, 100)
    assert row["rel_gap"] == pytest.approx(1 / 3)


def test_solve_matches_cli(small_trace, cli):
    got = tailbound.solve(small_trace, capacity=2048, block_size=16, xi_tokens=300, solver="flow")
    doc = cli("solve", "--trace", small_trace, "--capacity", "2048", "--block-size", "16", "--xi-tokens", "300",
              "--solver", "flow", "--format", "json")
    for k, v in doc.items():
        if not k.endswith("_seconds") and k != "produced_by":
            assert got[k] == v, k
    # the optimum from a streamed DataFrame is the same number
    df = tailbound.read_trace(small_trace)
    assert tailbound.solve(df, capacity=2048, block_size=16, xi_tokens=300, solver="flow")["tel_opt_tokens"] == doc["tel_opt_tokens"]


def test_check_matches_cli(cli):
    df = tailbound.check("figure1", "theorem1", instances=5, seed=2)
    doc = cli("check", "figure1", "theorem1", "--instances", "5", "--seed", "2", "--format", "json")
    assert list(df.columns[:2]) == ["name", "statement"]
    assert df.to_dict("records") == doc["checks"]
    assert (df["failed"] == 0).all() and df["instances"].dtype.kind == "i"


def test_tables_matches_cli(cli):
    got = tailbound.tables("tail-latency", small=True)
    doc = cli("tables", "tail-latency", "--small", "--format", "json")
    assert isinstance(got["rows"], pd.DataFrame)
    assert_rows(got["rows"], doc["rows"])
    assert got["capacity_tokens"] == doc["capacity_tokens"]


def test_gen_birth_death_matches_cli(cli):
    df = tailbound.gen_birth_death(turns=300, seed=5, mu=0.01)
    lines = [json.loads(l) for l in cli("gen", "birth-death", "--turns", "300", "--seed", "5", "--mu", "0.01",
                                        json_out=False).splitlines()]
    assert len(df) == len(lines) == 300
    assert df.to_dict("records") == lines  # times exact, not rounded
    assert list(df.columns) == ["t", "conv", "prompt", "response"]
    assert [str(d) for d in df.dtypes] == ["float64", "object", "int64", "int64"]


def test_simulate_columns_and_dtypes():
    df = tailbound.simulate(policies=["lru"], turns=2000)
    for col, kind in [("name", "O"), ("turns", "i"), ("tel_tokens", "i"), ("tel_ms", "f"), ("ttft_ms.p99", "f"),
                      ("slo_violations", "i"), ("hit_ratio", "f"), ("evictions", "i"), ("evicted_tokens", "i")]:
        assert df[col].dtype.kind == kind, (col, df[col].dtype)


def test_trace_round_trip_exact(tmp_path):
    ts = [0.0, 0.1, 1 / 3, 2.0000000000000004, 1e-7, 12345.678901234567]
    ts.sort()
    df = pd.DataFrame({"t": ts, "conv": ["a", "b", "a", "c\"q", "é", "b"], "prompt": [1, 2, 3, 4, 5, 6],
                       "response": [0, 1, 2, 3, 4, 5]})
    p = tmp_path / "t.jsonl"
    tailbound.write_trace(df, p)
    lines = [json.loads(l) for l in p.read_text(encoding="utf-8").splitlines()]
    assert [l["t"] for l in lines] == ts  # every float bit-exact
    back = tailbound.read_trace(p)
    pd.testing.assert_frame_equal(back, df)


def test_read_trace_mooncake():
    try:
        path = tailbound.shared_data("mooncake/conversation_trace.jsonl")
    except FileNotFoundError as e:
        pytest.skip(str(e))
    df = tailbound.read_trace(path, format="mooncake")
    assert len(df) > 1000 and (df["prompt"] >= 1).all() and df["t"].is_monotonic_increasing
    assert df["conv"].nunique() < len(df)  # turns linked into conversations


def test_simulate_per_turn_reproduces_summary(small_trace):
    # The per-turn TTFTs, computed in Python from each policy's emitted
    # schedule and the trace, give back the engine's own summary figures.
    from tailbound.policies import LRU
    df, turns = tailbound.simulate(small_trace, policies=["lru", "tlru", LRU()], capacity=4096, xi_tokens=300,
                                   slo_ms=60, per_turn=True)
    assert list(turns.columns) == ["policy", "turn", "conv", "cached_tokens", "uncached_tokens", "ttft_ms"]
    assert len(turns) == 3 * 400
    for _, row in df.iterrows():
        t = turns[turns["policy"] == row["name"]]
        b = t["uncached_tokens"]
        assert b.max() == row["max_uncached_tokens"]
        assert ((b - 300).clip(lower=0)).sum() == pytest.approx(row["tel_tokens"], rel=1e-12)
        assert t["ttft_ms"].mean() == pytest.approx(row["ttft_ms.mean"], rel=1e-12)
        assert (t["ttft_ms"] > 60).sum() == row["slo_violations"]
        assert t["cached_tokens"].sum() > 0


@pytest.mark.parametrize("line, field", [
    ('{"t":-1,"conv":"a","prompt":1,"response":0}', '"t"'),
    ('{"t":0.5,"conv":"a","prompt":1,"response":0}', '"t"'),  # before the first line's 1.0
    ('{"t":2,"conv":"","prompt":1,"response":0}', '"conv"'),
    ('{"t":2,"conv":"a","prompt":1.5,"response":0}', '"prompt"'),
    ('{"t":2,"conv":"a","prompt":1,"response":-1}', '"response"'),
    ('{"t":2,"conv":"a","prompt":1}', '"response": missing'),
    ('{"t":2,"conv":"a","prompt":1,"response":0,"category":3}', '"category"'),
    ('{"t":2,"conv":"a",', 'not a JSON object'),
])
def test_read_trace_bad_lines(tmp_path, cli, line, field):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"t":1,"conv":"a","prompt":1,"response":0}\n' + line + "\n")
    with pytest.raises(tailbound.TailboundError) as e:
        tailbound.read_trace(p)
    assert e.value.message.startswith("tailbound: %s:2: " % p) and field in e.value.message, e.value.message
    # the engine rejects the same line
    with pytest.raises(Exception):
        cli("simulate", "--trace", p, "--policies", "lru", "--capacity", "64")
