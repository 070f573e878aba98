"""The error tree. Every failure a caller (or a model) can act on has a stable ``code``.

Codes are part of the interface: they are added, never renamed. Each error carries the data a
caller may act on (``edit_index``, ``candidates``, ...) in ``data``, and a message written for a
model: what was expected, what was found, and what to send next.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar


class EditError(Exception):
    """Root of every error editguard raises on purpose.

    Attributes:
        code: stable, machine-readable code (class level), e.g. ``NO_MATCH``.
        message: the model-facing explanation, without the code prefix.
        path: the file concerned, when there is one.
        edit_index: 0-based index of the failing edit, when one edit of several failed.
        total_edits: how many edits the request held, alongside ``edit_index``.
        data: further structured fields (candidates, similar regions, counts ...).
        suggestions: short, concrete next steps.
    """

    code: ClassVar[str] = "EDIT_ERROR"

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        edit_index: int | None = None,
        total_edits: int | None = None,
        data: dict[str, Any] | None = None,
        suggestions: list[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.edit_index = edit_index
        self.total_edits = total_edits
        self.data: dict[str, Any] = dict(data or {})
        self.suggestions: list[str] = list(suggestions or [])

    def __str__(self) -> str:
        return f"{self.code}: {self.text()}"

    def text(self) -> str:
        """The full model-facing text: where, what, and the suggestions, without the code."""
        head = self.message
        if self.edit_index is not None and self.total_edits is not None:
            head = f"edit {self.edit_index + 1} of {self.total_edits}: {head}"
        if self.suggestions:
            tips = "\n".join(f"{n}. {tip}" for n, tip in enumerate(self.suggestions, 1))
            head = f"{head}\n\nSuggestions:\n{tips}"
        return head

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of this error, as the CLI prints it and the MCP server returns it."""
        out: dict[str, Any] = {"code": self.code, "message": self.text()}
        if self.path is not None:
            out["path"] = self.path
        if self.edit_index is not None:
            out["edit_index"] = self.edit_index
        if self.total_edits is not None:
            out["total_edits"] = self.total_edits
        out.update(self.data)
        if self.suggestions:
            out["suggestions"] = self.suggestions
        return out


class NoMatch(EditError):
    """The text to replace does not occur in the file (as it is when this edit runs)."""

    code = "NO_MATCH"


class WrongCount(EditError):
    """The text occurs, but not exactly as often as ``occurrences`` says."""

    code = "WRONG_COUNT"


class FileNotFound(EditError):
    """The path names no file."""

    code = "FILE_NOT_FOUND"


class NotAFile(EditError):
    """The path names a directory or another non-regular file."""

    code = "NOT_A_FILE"


class NotADirectory(EditError):
    """The path names a file (or another non-folder) where a folder is expected."""

    code = "NOT_A_DIRECTORY"


class BinaryFile(EditError):
    """The file holds NUL bytes or bytes that no supported text encoding reads."""

    code = "BINARY_FILE"


class PermissionDenied(EditError):
    """The operating system refused to read or write the file."""

    code = "PERMISSION_DENIED"


class OutsideRoot(EditError):
    """The path resolves (after symlinks) outside every allowed root, or is malformed."""

    code = "OUTSIDE_ROOT"


class FileTooLarge(EditError):
    """The file is larger than the configured limit."""

    code = "FILE_TOO_LARGE"


class TooManyEdits(EditError):
    """The request holds more edits than the configured limit."""

    code = "TOO_MANY_EDITS"


class InvalidRequest(EditError):
    """The request is malformed: a missing or wrong field, an empty ``old_text`` ..."""

    code = "INVALID_REQUEST"


class StaleVersion(EditError):
    """The file changed since the version the caller read (or while this edit was prepared)."""

    code = "STALE_VERSION"


class EncodingError(EditError):
    """The new text holds characters that the file's encoding cannot store."""

    code = "ENCODING_ERROR"


class WriteFailed(EditError):
    """Writing failed midway (disk full, I/O error); the original file is intact."""

    code = "WRITE_FAILED"


class LineOutOfRange(EditError):
    """A line number past the end of the file."""

    code = "LINE_OUT_OF_RANGE"


class OverlappingEdits(EditError):
    """Two edits of one request touch the same lines."""

    code = "OVERLAPPING_EDITS"


class InvalidRegex(EditError):
    """The regular expression (or a group it refers to) is invalid."""

    code = "INVALID_REGEX"


class RegexTimeout(EditError):
    """The regular expression took too long to match (catastrophic backtracking)."""

    code = "REGEX_TIMEOUT"


class SymbolNotFound(EditError):
    """No definition matches the name path or position (the closest names are listed)."""

    code = "SYMBOL_NOT_FOUND"


class AmbiguousSymbol(EditError):
    """Several definitions match the name path; each is listed."""

    code = "AMBIGUOUS_SYMBOL"


class AmbiguousMatch(EditError):
    """A chunk fits at several places in the symbol; each position is listed."""

    code = "AMBIGUOUS_MATCH"


class ChunkMismatch(EditError):
    """A chunk fits nowhere in the symbol: the check that failed and the lines involved."""

    code = "CHUNK_MISMATCH"


class ValidationFailed(EditError):
    """In strict mode: the edit would introduce syntax errors (or blocking linter findings)."""

    code = "VALIDATION_FAILED"


class FileBusy(EditError):
    """Another writer has held the file's lock for longer than the timeout."""

    code = "FILE_BUSY"


class InvalidPatch(EditError):
    """A patch or diff (apply_patch, apply_diff) that cannot be parsed; nothing was written."""

    code = "INVALID_PATCH"


class ChangeNotFound(EditError):
    """No recorded change matches (history, undo): an unknown id, nothing recorded for the
    file, or the history is turned off."""

    code = "CHANGE_NOT_FOUND"


class InternalError(EditError):
    """A bug in editguard; the file was left as it was. Please report it."""

    code = "INTERNAL_ERROR"


@contextmanager
def error_context(
    *, path: str | None = None, edit_index: int | None = None, total_edits: int | None = None
) -> Iterator[None]:
    """Attach where an error happened to any :class:`EditError` raised inside, once.

    Fields the error already has are kept: the innermost context (or the raise site) knows best.
    """
    try:
        yield
    except EditError as exc:
        if exc.path is None:
            exc.path = path
        if exc.edit_index is None and edit_index is not None:
            exc.edit_index, exc.total_edits = edit_index, total_edits
        elif exc.edit_index is not None and exc.total_edits is None:
            exc.total_edits = total_edits
        raise


def internal_error(exc: BaseException) -> InternalError:
    """The INTERNAL_ERROR for an exception editguard did not mean to raise (a bug)."""
    error = InternalError(
        f"{type(exc).__name__}: {exc}; every check runs before a write, so the file is most "
        "likely as it was: read it again to be sure"
    )
    error.__cause__ = exc  # the traceback, for a server's log
    return error


def error_codes() -> list[str]:
    """Every error code, in the order the classes are defined."""
    return [cls.code for cls in EditError.__subclasses__()]
