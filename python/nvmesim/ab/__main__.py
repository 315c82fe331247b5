"""``python3 -m nvmesim.ab``: the ``nvmesim ab`` command."""

import sys

from .cli import main

sys.exit(main())
