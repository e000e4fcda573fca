"""Errors a user can act on.

Every error that is the user's doing (a bad file, an unknown tool, an endpoint that is down,
a missing key) is a :class:`UserError`; the CLI prints its message on one line and exits 2.
"""

from __future__ import annotations


class UserError(Exception):
    """A mistake in the user's input or environment; shown as one line, exit code 2."""

    exit_code = 2


class ToolsFileError(UserError):
    """A tools.json (or module) that cannot be loaded."""


class LMError(UserError):
    """A language-model backend failed after its retries (unreachable, bad key, bad spec)."""


class MissingExtraError(UserError):
    """An optional dependency is needed for the chosen feature."""


def require(module: str, extra: str, feature: str | None = None):
    """Import an optional dependency or fail with a message naming the extra."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        what = feature or module
        raise MissingExtraError(
            f"{what} needs the optional dependency '{module}': pip install 'play2prompt[{extra}]'"
        ) from exc


def describe_failure(exc: BaseException) -> str:
    """One line for a failure: a :class:`UserError`'s message as it is; for anything else (a
    bug) its type, message and notes and the line of the package that raised it."""
    if isinstance(exc, UserError):
        return str(exc)
    import traceback
    from pathlib import Path

    package = Path(__file__).resolve().parent
    where = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename).resolve()
        if path.is_relative_to(package):
            where = f" at {path.relative_to(package).as_posix()}:{frame.lineno}"
    notes = "".join(f"; {n}" for n in getattr(exc, "__notes__", ()))
    return f"{type(exc).__name__}: {exc}{where}{notes}"
