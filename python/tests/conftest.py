"""Shared set-up for the nvmesim Python tests.

nvmesim is imported as installed (the nvmesim.pth that
``cmake --install <build> --component python`` writes). To test a build without
installing it, set NVMESIM_BUILD_DIR=<build>: its python/ directory and the source
python/ directory then go first on sys.path (and PYTHONPATH, for worker processes).

The CLI the results are compared with is $NVMESIM_CLI, else <build>/app/nvmesim of the
build that the imported nvmesim._core comes from.
"""

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

SOURCE_PYTHON = Path(__file__).resolve().parents[1]
REPO = SOURCE_PYTHON.parent

_build = os.environ.get("NVMESIM_BUILD_DIR")
if _build:
    _paths = [str(SOURCE_PYTHON), str(Path(_build).resolve() / "python")]
    sys.path[:0] = _paths
    os.environ["PYTHONPATH"] = os.pathsep.join(
        _paths + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])

import nvmesim  # noqa: E402

#: Overrides that make the default four-drive testbed quick to simulate (~0.05 s a run).
SHORT = {"duration_us": 2000, "warmup_us": 500}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "notebook: executes the example notebook (about a minute); "
        "deselect with -m 'not notebook'")
    # Debian's distributed 2022.12 on tornado 6.2: noise, not a problem of ours.
    config.addinivalue_line("filterwarnings",
                            "ignore:make_current is deprecated:DeprecationWarning")


@pytest.fixture(scope="session")
def build_dir():
    """The build tree of the imported nvmesim._core (<build>/python/nvmesim/_core*.so)."""
    return Path(nvmesim._core.__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli(build_dir):
    """Path of the nvmesim command-line tool."""
    path = Path(os.environ.get("NVMESIM_CLI") or build_dir / "app" / "nvmesim")
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"nvmesim CLI not found at {path}: build the 'nvmesim' target or set NVMESIM_CLI")
    return path


@pytest.fixture(scope="session")
def default_path():
    """The shipped default testbed."""
    return Path(nvmesim.default_scenarios_dir()) / "default.json"


@pytest.fixture
def short():
    """A fresh copy of the short-run overrides."""
    return dict(SHORT)
