"""``python3 -m nvmesim.compare``: the ``nvmesim compare`` command."""

from .._command import run
from .cli import PROG, main

run(main, PROG)
