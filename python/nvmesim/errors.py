"""Exceptions raised by nvmesim."""

__all__ = ["JsonPathError", "ScenarioError"]


class JsonPathError(ValueError):
    """An input error that names where it is: a JSON pointer (or file:line) and why.

    Attributes:
        path: JSON pointer of the offending value, e.g. ``"/jobs/0/iodepth"``; empty when
            the error concerns the whole document.
        message: what is wrong with it, e.g. ``"must be >= 1, got 0"``.
    """

    def __init__(self, path, message):
        self.path = path
        self.message = message
        super().__init__(path, message)

    def __str__(self):
        return f"{self.path}: {self.message}" if self.path else self.message

    def __reduce__(self):
        # Keeps the two fields when the error crosses a process or Dask boundary.
        return (type(self), (self.path, self.message))


class ScenarioError(JsonPathError):
    """A problem with a scenario, an override or a fio job file.

    The same error the ``nvmesim`` command-line tool reports, as a Python exception;
    ``path`` is the JSON pointer in the scenario (for a fio job file, the file and line).
    """
