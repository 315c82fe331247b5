"""The edge of the Python commands (``nvmesim ab``, ``compare``, ``tune``): their exit code,
and a reader that stopped reading (``nvmesim ab --list | head``) ends the command quietly
rather than with a traceback, as a C tool killed by SIGPIPE would."""

import os
import sys


def run(main):
    """Exits with main()'s code; 141 (128 + SIGPIPE) when standard output's reader has gone."""
    try:
        code = main()
        sys.stdout.flush()  # a pipe closed early shows here, inside the try
    except BrokenPipeError:
        # Python's own advice: point stdout at devnull so that the flush at exit is quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(141)
    sys.exit(code)
