"""The error tree. Every failure a caller (or a model) can act on has a stable ``code``.

Codes are part of the interface: they are added, never renamed. Each error carries the data a
caller may act on (``edit_index``, ``candidates``, ...) in ``data``, and a message written for a
model: what was expected, what was found, and what to send next.

Where an error happened is a stack of :class:`Frame` s, outermost first ("call 2 of 3 of a
batch", "file src/app.py", "edit 1 of 2"). The raise site gives what it knows; each level the
error passes on its way up adds its own frame with :func:`error_context`, never one of a kind the
error already has (the innermost knows best). Where is never written into the message:
:meth:`EditError.text` renders the frames once, in order, before it, and
:meth:`EditError.to_dict` gives them as the wire fields they have always been (``path``,
``edit_index``, ``total_edits``; ``call`` and ``tool`` of a batch; ``total`` of a patch's chunk
or hunk).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

FrameKind = Literal["call", "file", "cell", "edit", "chunk", "hunk"]

# How deep each kind sits, outermost first. An error holds at most one frame of each depth:
# an edit, a chunk (apply_patch) and a hunk (apply_diff) are the same level, the item of a file.
_DEPTH: dict[str, int] = {"call": 0, "file": 1, "cell": 2, "edit": 3, "chunk": 3, "hunk": 3}


@dataclass(frozen=True, slots=True)
class Frame:
    """One level of where an error happened.

    Attributes:
        kind: call (of a batch), file, cell (of a notebook), edit, chunk (apply_patch) or hunk
            (apply_diff).
        index: 0-based position among its siblings, when there are several.
        total: how many siblings there are, alongside ``index``.
        name: the tool of a call, the path of a file (as shown to the caller).
        said: the message already names this place (a patch's chunk messages start with "chunk 2
            of 3 of the update of ..."): it is not rendered again.
        data: further wire fields of this place (``patch_line`` of a patch's file operation);
            they join the error's ``data`` when the frame does, without replacing a field the
            error already has.
    """

    kind: FrameKind
    index: int | None = None
    total: int | None = None
    name: str | None = None
    said: bool = False
    data: Mapping[str, Any] = field(default_factory=dict)

    def label(self) -> str | None:
        """How the text names this place ("call 2 of 3 (edit_file)", "edit 1 of 2"); none for a
        file (its path is a field, and messages name the file they are about), for a place the
        message names itself, and for an index without its total."""
        if self.kind == "cell" and not self.said and self.index is not None:
            # Cells go by their index as the notebook's list has them (0-based), as the
            # ``cell`` argument and read_file name them.
            return f'cell {self.index} (id "{self.name}")' if self.name else f"cell {self.index}"
        if self.kind == "file" or self.said or self.index is None or self.total is None:
            return None
        head = f"{self.kind} {self.index + 1} of {self.total}"
        return f"{head} ({self.name})" if self.name else head

    def fields(self) -> dict[str, Any]:
        """The fields this frame adds to the error's ``data``: a call's number and tool, a chunk's
        or hunk's count (an edit's and a file's are top-level fields of :meth:`EditError.to_dict`),
        then :attr:`data`."""
        out: dict[str, Any] = {}
        if self.kind == "call":
            out = {"call": self.index, "tool": self.name}
        elif self.kind in ("chunk", "hunk") and self.total is not None:
            out = {"total": self.total}
        elif self.kind == "cell" and self.index is not None:
            out = {"cell": self.index, **({"cell_id": self.name} if self.name else {})}
        return {**out, **self.data}


class EditError(Exception):
    """Root of every error editguard raises on purpose.

    Attributes:
        code: stable, machine-readable code (class level), e.g. ``NO_MATCH``.
        message: the model-facing explanation, without the code prefix and without where (the
            frames say that).
        where: where it happened, outermost frame first (:class:`Frame`).
        path: the file concerned, when there is one (the name of the file frame).
        edit_index: 0-based index of the failing edit (or chunk, or hunk), when one of several
            failed.
        total_edits: how many edits (chunks, hunks) the request held, alongside ``edit_index``.
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
        where: Iterable[Frame] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.data: dict[str, Any] = dict(data or {})
        self.suggestions: list[str] = list(suggestions or [])
        self.where: tuple[Frame, ...] = ()
        for frame in where:
            self.add(frame)
        if path is not None:
            self.add(Frame("file", name=path))
        if edit_index is not None or total_edits is not None:
            self.add(Frame("edit", edit_index, total_edits))

    def add(self, frame: Frame) -> None:
        """Add ``frame`` at its depth. A frame of that depth the error already has is kept and
        only gets what it lacks (its index, total or name) from ``frame``; the fields of
        ``frame`` join ``data`` unless ``data`` has them already."""
        depth = _DEPTH[frame.kind]
        depths = [_DEPTH[f.kind] for f in self.where]
        if depth in depths:
            at = depths.index(depth)
            old = self.where[at]
            new = replace(
                old,
                index=frame.index if old.index is None else old.index,
                total=frame.total if old.total is None else old.total,
                name=frame.name if old.name is None else old.name,
            )
            self.where = (*self.where[:at], new, *self.where[at + 1 :])
        else:
            at = bisect.bisect(depths, depth)
            self.where = (*self.where[:at], frame, *self.where[at:])
        for key, value in frame.fields().items():
            self.data.setdefault(key, value)

    def frame(self, *kinds: FrameKind) -> Frame | None:
        """The innermost frame of one of ``kinds``, if the error has one."""
        return next((f for f in reversed(self.where) if f.kind in kinds), None)

    @property
    def path(self) -> str | None:
        file = self.frame("file")
        return None if file is None else file.name

    @property
    def edit_index(self) -> int | None:
        item = self.frame("edit", "chunk", "hunk")
        return None if item is None else item.index

    @property
    def total_edits(self) -> int | None:
        item = self.frame("edit", "chunk", "hunk")
        return None if item is None else item.total

    def __str__(self) -> str:
        return f"{self.code}: {self.text()}"

    def text(self) -> str:
        """The full model-facing text: where (each frame once, outermost first), what, and the
        suggestions, without the code."""
        labels = [label for label in (f.label() for f in self.where) if label is not None]
        head = ": ".join([*labels, self.message])
        if self.suggestions:
            tips = "\n".join(f"{n}. {tip}" for n, tip in enumerate(self.suggestions, 1))
            head = f"{head}\n\nSuggestions:\n{tips}"
        return head

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of this error, as the CLI prints it and the MCP server returns it:
        the file frame's path, the edit's ``edit_index`` and ``total_edits`` (a chunk's or hunk's
        count is ``total`` in ``data``), then ``data`` (with the frames' fields) and the
        suggestions."""
        out: dict[str, Any] = {"code": self.code, "message": self.text()}
        if self.path is not None:
            out["path"] = self.path
        item = self.frame("edit", "chunk", "hunk")
        if item is not None and item.index is not None:
            out["edit_index"] = item.index
        if item is not None and item.kind == "edit" and item.total is not None:
            out["total_edits"] = item.total
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


class ElidedContent(EditError):
    """The new text holds an elision marker (``# ... existing code ...``) where the old text had
    lines: written as sent, the marker would replace the code it stands for. ``edit_snippet``
    merges such a snippet; ``allow_markers`` writes the comment as it is."""

    code = "ELIDED_CONTENT"


class CellNotFound(EditError):
    """No cell of the notebook has the id or index a call names (``cell``, an edit of
    ``edit_notebook``)."""

    code = "CELL_NOT_FOUND"


class InvalidNotebook(EditError):
    """A notebook that is not valid JSON or not valid by the official nbformat schema, as found
    (it is refused, never written worse) or as an edit would leave it (nothing is written)."""

    code = "INVALID_NOTEBOOK"


class InternalError(EditError):
    """A bug in editguard; the file was left as it was. Please report it."""

    code = "INTERNAL_ERROR"


@contextmanager
def error_context(
    *frames: Frame,
    path: str | None = None,
    edit_index: int | None = None,
    total_edits: int | None = None,
) -> Iterator[None]:
    """Add where an error happened to any :class:`EditError` raised inside: ``frames``, and a
    file frame for ``path`` and an edit frame for ``edit_index``/``total_edits`` (the usual two).

    A frame of a kind (a depth) the error already has is not added again: the innermost
    context (or the raise site) knows best; it only fills in what that frame lacks.
    """
    try:
        yield
    except EditError as exc:
        for frame in frames:
            exc.add(frame)
        if path is not None:
            exc.add(Frame("file", name=path))
        if edit_index is not None:
            exc.add(Frame("edit", edit_index, total_edits))
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
