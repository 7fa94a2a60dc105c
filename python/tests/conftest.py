"""Test set-up: the package from this source tree, and the engine from
$TAILBOUND_BIN, or else built from this repository into a temporary
directory (scripts/test-all sets TAILBOUND_BIN to the binary it builds)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))


def pytest_configure(config):
    if os.environ.get("TAILBOUND_BIN"):
        return
    go = shutil.which("go")
    if go is None:
        pytest.exit("tests need the engine: set TAILBOUND_BIN or put Go on PATH", returncode=3)
    out = os.path.join(str(config.rootpath if hasattr(config, "rootpath") else HERE), ".pytest_cache", "tailbound-bin", "tailbound")
    subprocess.run([go, "build", "-o", out, "./cmd/tailbound"], cwd=REPO, check=True)
    os.environ["TAILBOUND_BIN"] = out


@pytest.fixture(scope="session")
def cli():
    """Runs the engine directly (no package code) and returns its parsed
    JSON (json=True) or stdout text."""

    def run(*args, json_out=True, stdin=None):
        r = subprocess.run([os.environ["TAILBOUND_BIN"]] + [str(a) for a in args], input=stdin,
                           capture_output=True, check=True)
        return json.loads(r.stdout) if json_out else r.stdout.decode()

    return run


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(autouse=True)
def nothing_left_behind():
    """After every test: no thread more than before it and no temporary
    directory of the package's ("tailbound-*") left in the temporary
    folder (issue 35: every call with a Policy used to leave a thread
    blocked in accept())."""
    import tempfile
    import threading

    tmp = tempfile.gettempdir()

    def ours():
        return {n for n in os.listdir(tmp) if n.startswith("tailbound-")}

    threads, dirs = threading.active_count(), ours()
    yield
    assert threading.active_count() <= threads, [t.name for t in threading.enumerate()]
    assert ours() <= dirs, sorted(ours() - dirs)
