"""The example notebook runs headless and draws its figures (about a minute), and its
outputs carry no progress-bar noise (without ipywidgets every tqdm redraw was an output
of its own: 26 of them for one sweep)."""

import subprocess
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]


@pytest.mark.notebook
def test_sweep_default_notebook(tmp_path):
    import nbformat

    out = tmp_path / "executed.ipynb"
    proc = subprocess.run(
        [sys.executable, str(PYTHON_DIR / "run_notebook.py"),
         str(PYTHON_DIR / "notebooks" / "sweep_default.ipynb"), "-o", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "figures" in proc.stdout and out.exists()
    nb = nbformat.read(str(out), as_version=4)
    streams = [o for cell in nb.cells for o in cell.get("outputs", [])
               if o.get("output_type") == "stream"]
    assert streams, "the notebook prints nothing: the check below would prove nothing"
    noise = [o["text"] for o in streams if o["name"] == "stderr"
             or "run/s" in o["text"] or "%|" in o["text"]]
    assert not noise, noise[:3]
