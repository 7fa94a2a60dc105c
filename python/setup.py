"""Installs the tailbound Python package and builds the Go engine into it.

    python3 -m venv --system-site-packages v && v/bin/pip install ./python

The build step runs `go build` on ../cmd/tailbound (this repository) and
puts the binary in the package (tailbound/bin/tailbound). Setting
TAILBOUND_BIN to an existing binary skips the build; TAILBOUND_GO_TAGS
(e.g. "coin") is passed to `go build -tags`. There is deliberately no
pyproject.toml: with one, pip would build in an isolated environment and
fetch setuptools from the package index, which an offline machine lacks;
without one it uses the setuptools installed with the interpreter (Debian
python3-setuptools).
"""

import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


class BuildWithEngine(build_py):
    """build_py, then `go build` of the engine into the built package."""

    def run(self):
        super().run()
        if os.environ.get("TAILBOUND_BIN"):
            print("tailbound: TAILBOUND_BIN is set: not building the engine", file=sys.stderr)
            return
        if not os.path.isfile(os.path.join(REPO, "go.mod")):
            sys.exit("tailbound: cannot build the engine: %s is not the tailbound repository (no go.mod); "
                     "install from a clone (pip install ./python) or set TAILBOUND_BIN" % REPO)
        go = shutil.which("go")
        if go is None:
            sys.exit("tailbound: building the engine needs Go ≥ 1.26 on PATH (or set TAILBOUND_BIN to a built tailbound binary)")
        out = os.path.join(os.path.abspath(self.build_lib), "tailbound", "bin", "tailbound")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        cmd = [go, "build", "-trimpath", "-o", out]
        tags = os.environ.get("TAILBOUND_GO_TAGS")
        if tags:
            cmd += ["-tags", tags]
        cmd.append("./cmd/tailbound")
        print("tailbound: %s (in %s)" % (" ".join(cmd), REPO), file=sys.stderr)
        r = subprocess.run(cmd, cwd=REPO)
        if r.returncode != 0:
            sys.exit("tailbound: go build ./cmd/tailbound failed (exit status %d)" % r.returncode)


class BinaryDistribution(Distribution):
    """The wheel holds a native binary: tag it for this platform, not py3-none-any."""

    def has_ext_modules(self):
        return True


setup(
    name="tailbound",
    version="0.1.0",
    description="tailbound from Python: exact hindsight bounds and policy replay for KV-cache eviction",
    packages=["tailbound"],
    python_requires=">=3.9",
    install_requires=["pandas"],
    cmdclass={"build_py": BuildWithEngine},
    distclass=BinaryDistribution,
    zip_safe=False,
)
