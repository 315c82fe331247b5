"""``python3 -m nvmesim.compare``: the ``nvmesim compare`` command."""

import sys

from .cli import main

sys.exit(main())
