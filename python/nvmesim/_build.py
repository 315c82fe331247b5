"""Which build of the simulator runs here: a digest of the compiled module.

A rebuilt model can give other results for the same scenario and seed, so a table of runs
that resumes records which builds made its rows (nvmesim.ab's run store)."""

import functools
import hashlib

__all__ = ["build_digest"]


@functools.lru_cache(maxsize=None)
def build_digest():
    """The first 16 hex digits of the SHA-256 of nvmesim._core's file (it holds the whole
    simulator: the library is linked in statically)."""
    from . import _core

    digest = hashlib.sha256()
    with open(_core.__file__, "rb") as module:
        for block in iter(lambda: module.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]
