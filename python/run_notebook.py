#!/usr/bin/python3
"""Executes an nvmesim notebook headless (nbclient) and checks it.

Fails (exit status 1) if a cell raises or if the notebook produced no figure. Used by
CI and by python/tests/test_notebook.py:

    /usr/bin/python3 python/run_notebook.py [NOTEBOOK] [-o executed.ipynb]

The notebook runs on the Jupyter kernel "python3" (ipykernel on /usr/bin/python3), in
the notebook's own directory, with this process's environment.
"""

import argparse
import base64
import os
import sys
import time
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent / "notebooks" / "sweep_default.ipynb"


def figures(nb):
    """The PNG images a notebook's outputs carry, decoded."""
    out = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png:
                out.append(base64.b64decode(png))
    return out


def execute(path, timeout=600, kernel="python3"):
    """Runs every cell of the notebook at ``path``; returns the executed notebook.

    Raises nbclient.exceptions.CellExecutionError when a cell fails.
    """
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel,
                            resources={"metadata": {"path": str(Path(path).parent)}})
    client.execute()
    return nb


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", nargs="?", default=str(DEFAULT))
    parser.add_argument("-o", "--output", help="write the executed notebook here")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args(argv)

    import nbformat
    from nbclient.exceptions import CellExecutionError

    # ipykernel's debugger otherwise warns about frozen modules on every start.
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    # A non-interactive MPLBACKEND (tests set Agg) would keep figures out of the outputs.
    os.environ.pop("MPLBACKEND", None)
    start = time.monotonic()
    try:
        nb = execute(args.notebook, timeout=args.timeout)
    except CellExecutionError as exc:
        print(f"{args.notebook}: a cell failed:\n{exc}", file=sys.stderr)
        return 1
    elapsed = time.monotonic() - start
    if args.output:
        nbformat.write(nb, args.output)
    images = figures(nb)
    real = [png for png in images if png.startswith(b"\x89PNG") and len(png) > 5000]
    print(f"{args.notebook}: {len(nb.cells)} cells, {len(real)} figures, {elapsed:.1f} s")
    if not real:
        print("no figure was produced", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
