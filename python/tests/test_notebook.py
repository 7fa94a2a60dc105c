"""examples/quickstart.ipynb, executed headless (nbclient and ipykernel,
Debian python3-nbclient and python3-ipykernel), so that it cannot rot: every
cell must run without an error and its tables must hold the numbers the
package computes."""

import os

import pytest

nbformat = pytest.importorskip("nbformat", reason="Debian python3-nbformat is needed to run the notebook")
nbclient = pytest.importorskip("nbclient", reason="Debian python3-nbclient is needed to run the notebook")
pytest.importorskip("ipykernel", reason="Debian python3-ipykernel is needed to run the notebook")
pytest.importorskip("matplotlib", reason="Debian python3-matplotlib is needed to run the notebook")

import tailbound

HERE = os.path.dirname(os.path.abspath(__file__))
NOTEBOOK = os.path.join(os.path.dirname(HERE), "examples", "quickstart.ipynb")


def test_quickstart_runs(monkeypatch):
    try:
        tailbound.shared_data("mooncake/conversation_trace.jsonl")
    except FileNotFoundError as e:
        pytest.skip("the notebook reads the Mooncake conversations: %s" % e)
    # the kernel imports this source tree's package and finds the same data
    monkeypatch.setenv("PYTHONPATH", os.path.dirname(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.setenv("TAILBOUND_DATA", os.path.dirname(tailbound.shared_data("mooncake")))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend draws the figures
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(o.output_type != "error" for c in code for o in c.outputs)
    texts = ["".join(o.get("text", "")) + o.get("data", {}).get("text/plain", "") for c in code for o in c.outputs]
    joined = "\n".join(texts)
    with open(tailbound.shared_data("mooncake/conversation_trace.jsonl"), "rb") as f:
        requests = sum(1 for line in f if line.strip())
    assert "%s turns in" % format(requests, ",") in joined  # every request of the trace, as a turn
    assert "LargestFirst" in joined and "tlru" in joined
    # two figures drawn (the TTFT CDFs and the gap against capacity)
    figures = [o for c in code for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(figures) == 2
