"""tailbound from Python: the Go engine's commands as functions returning
pandas DataFrames, and eviction policies as Python classes.

    import tailbound
    tailbound.simulate(policies=["lru", "tlru"])            # DataFrame, one row per policy

Lengths are in tokens and times in ms (TTFT) or seconds (trace times), as
in the command-line tool; keyword arguments are its flags with "_" for
"-". See python/README.md.
"""

from ._api import check, gap, gen_birth_death, simulate, solve, tables
from ._engine import TailboundError, binary
from ._policy import Policy, PolicyError
from ._trace import read_trace, shared_data, write_trace

__all__ = ["simulate", "gap", "solve", "check", "tables", "gen_birth_death", "read_trace", "write_trace", "shared_data",
           "Policy", "PolicyError", "TailboundError", "binary"]
