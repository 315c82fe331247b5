"""``python3 -m nvmesim.tune``: the ``nvmesim tune`` command."""

from .._command import run
from .cli import PROG, main

run(main, PROG)
