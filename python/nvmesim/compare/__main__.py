"""``python3 -m nvmesim.compare``: the ``nvmesim compare`` command."""

from .._command import run
from .cli import main

run(main)
