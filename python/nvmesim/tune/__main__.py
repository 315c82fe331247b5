"""``python3 -m nvmesim.tune``: the ``nvmesim tune`` command."""

import sys

from .cli import main

sys.exit(main())
