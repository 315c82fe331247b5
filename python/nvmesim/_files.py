"""Files the Python commands read and write.

Read: a JSON document whose every problem (unreadable, not UTF-8, not JSON, NaN or
Infinity, nested too deeply) is one error naming the file. Written atomically: a
temporary beside the target, renamed over it on success. The rule of every file nvmesim writes (docs/reliability.md, "Outputs"): the target is
replaced only when the whole file was written; on any failure the temporary is removed and
the previous file is left as it was. A target that exists and is not a regular file (a
device, a FIFO) is written in place; a symbolic link is followed.
"""

import contextlib
import json
import os
import tempfile
from pathlib import Path

__all__ = ["read_json", "atomic_open", "write_text", "write_bytes", "output_dir"]


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs):
    """An object whose keys are all different: a repeated key would hide its first value
    (json keeps the last), as the C++ reader refuses too."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key!r} appears twice in one object")
        out[key] = value
    return out


def output_dir(text):
    """argparse type of an output directory option: a path, never empty (an empty one
    would quietly mean the default or the current directory)."""
    if not text or not text.strip():
        import argparse
        raise argparse.ArgumentTypeError("must name a directory, got an empty path")
    return text


def read_json(path, error):
    """The document in the file ``path``; ``error(message)`` is raised when it cannot be
    read or is not UTF-8 JSON text (the message says why; the caller names the file)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise error(f"cannot read ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (byte {exc.start})") from None
    if "\0" in text:  # where one reader stops and another does not
        raise error(f"not JSON (a NUL byte at offset {text.index(chr(0))})")
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise error(f"not JSON (line {exc.lineno}: {exc.msg})") from None
    except ValueError as exc:
        raise error(f"not JSON ({exc})") from None
    except RecursionError:
        raise error("not JSON (nested too deeply)") from None


@contextlib.contextmanager
def atomic_open(path, mode="w", **kwargs):
    """``open`` for writing whose file replaces ``path`` only when the block ends normally."""
    if "w" not in mode:
        raise ValueError(f"atomic_open: mode {mode!r} does not write")
    target = Path(path)
    if target.exists() and not target.is_file():  # a device or a FIFO: no rename possible
        with open(target, mode, **kwargs) as out:
            yield out
        return
    target = Path(os.path.realpath(target))
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        # mkstemp makes the file 0600: give it what open() gives a new file (0666 less umask).
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with open(fd, mode, **kwargs) as out:
            yield out
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def write_text(path, text, encoding="utf-8", newline=None):
    """``Path.write_text``, atomically."""
    with atomic_open(path, "w", encoding=encoding, newline=newline) as out:
        out.write(text)


def write_bytes(path, data):
    """``Path.write_bytes``, atomically."""
    with atomic_open(path, "wb") as out:
        out.write(data)
