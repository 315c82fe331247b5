"""``python3 -m nvmesim.ab``: the ``nvmesim ab`` command."""

from .._command import run
from .cli import PROG, main

run(main, PROG)
