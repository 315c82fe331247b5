"""The error of bad compare input: a file, a spec or a bound; the message names where."""

__all__ = ["CompareError"]


class CompareError(ValueError):
    pass
