"""The edge of the Python commands (``nvmesim ab``, ``compare``, ``tune``): their exit code,
their warnings, and a reader that stopped reading (``nvmesim ab --list | head``) ends the
command quietly rather than with a traceback, as a C tool killed by SIGPIPE would."""

import os
import sys
import warnings


def run(main, prog):
    """Exits with main()'s code; 141 (128 + SIGPIPE) when standard output's reader has gone.
    A warning reads as the command's errors do: ``PROG: warning: ...`` on stderr."""

    def show(message, category, filename, lineno, file=None, line=None):
        sys.stderr.write(f"{prog}: warning: {message}\n")

    warnings.showwarning = show
    try:
        code = main()
        sys.stdout.flush()  # a pipe closed early shows here, inside the try
    except BrokenPipeError:
        # Python's own advice: point stdout at devnull so that the flush at exit is quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(141)
    sys.exit(code)
