"""The example notebook runs headless and draws its figures (about a minute)."""

import subprocess
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]


@pytest.mark.notebook
def test_sweep_default_notebook(tmp_path):
    out = tmp_path / "executed.ipynb"
    proc = subprocess.run(
        [sys.executable, str(PYTHON_DIR / "run_notebook.py"),
         str(PYTHON_DIR / "notebooks" / "sweep_default.ipynb"), "-o", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "figures" in proc.stdout and out.exists()
