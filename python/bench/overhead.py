#!/usr/bin/env python3
"""Measures the Python package's overhead against the engine alone, as
ratios within one run (the machine is shared and noisy):

1. tailbound.simulate on a 10^6-turn trace (a file path, and the same trace
   as a DataFrame streamed to the engine) against the CLI on the same file;
2. the pure-Python LRU policy class (tailbound.policies.LRU, through the
   package's relay) against the exec reference client
   (examples/exec_policy.py lru), turns per second on the embedded workload.

    TAILBOUND_BIN=/path/to/tailbound /usr/bin/python3 python/bench/overhead.py [--turns N] [--repeat R]

Each measurement is repeated R times, interleaved, and the median taken.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
REPO = os.path.dirname(os.path.dirname(HERE))

import tailbound  # noqa: E402
from tailbound.policies import LRU  # noqa: E402


def wall(f):
    t = time.perf_counter()
    r = f()
    return time.perf_counter() - t, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    bin_ = tailbound.binary()
    pols = "lru,tlru"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.jsonl")
        with open(path, "wb") as f:
            subprocess.run([bin_, "gen", "birth-death", "--turns", str(a.turns), "--seed", "1", "--duration", "1e9"],
                           stdout=f, check=True)
        t_read, df = wall(lambda: tailbound.read_trace(path))
        print("trace: %d turns; read_trace %.2f s" % (len(df), t_read))
        cli, pyf, pydf = [], [], []
        for _ in range(a.repeat):
            t, out = wall(lambda: subprocess.run([bin_, "simulate", "--trace", path, "--policies", pols,
                                                  "--capacity", "131072", "--format", "json"],
                                                 stdout=subprocess.PIPE, check=True).stdout)
            cli.append(t)
            t, r1 = wall(lambda: tailbound.simulate(path, policies=pols.split(","), capacity=131072))
            pyf.append(t)
            t, r2 = wall(lambda: tailbound.simulate(df, policies=pols.split(","), capacity=131072))
            pydf.append(t)
            assert list(r1["tel_tokens"]) == list(r2["tel_tokens"])
        m = statistics.median
        print("simulate %s on %d turns, median of %d: CLI %.2f s; tailbound.simulate(path) %.2f s (×%.2f); "
              "tailbound.simulate(DataFrame) %.2f s (×%.2f)" % (pols, len(df), a.repeat, m(cli), m(pyf), m(pyf) / m(cli),
                                                                 m(pydf), m(pydf) / m(cli)))
    ref = "exec:%s %s lru" % (sys.executable, os.path.join(REPO, "examples", "exec_policy.py"))
    builtin, cls, client, turns = [], [], [], 0
    for _ in range(a.repeat):
        t, r = wall(lambda: tailbound.simulate(policies=["lru"]))
        builtin.append(t)
        turns = int(r["turns"].iloc[0])
        t, r1 = wall(lambda: tailbound.simulate(policies=[LRU()]))
        cls.append(t)
        t, r2 = wall(lambda: tailbound.simulate(policies=[ref]))
        client.append(t)
        assert r1["tel_tokens"].iloc[0] == r2["tel_tokens"].iloc[0] == r["tel_tokens"].iloc[0]
        assert r1["evictions"].iloc[0] == r2["evictions"].iloc[0] == r["evictions"].iloc[0]
    m = statistics.median
    print("LRU on the embedded workload (%d turns), median of %d: built-in %.2f s; Python class %.2f s (%.0f turns/s); "
          "reference client %.2f s (%.0f turns/s); class/client time ×%.2f" % (
              turns, a.repeat, m(builtin), m(cls), turns / m(cls), m(client), turns / m(client), m(cls) / m(client)))


if __name__ == "__main__":
    main()
