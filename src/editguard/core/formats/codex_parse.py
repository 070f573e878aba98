"""Codex's ``apply_patch`` language: the parser.

A patch is ``*** Begin Patch`` ... ``*** End Patch`` around hunks: ``*** Add File: p`` (its
lines as ``+`` lines), ``*** Delete File: p`` and ``*** Update File: p`` (optionally
``*** Move to: q``) with chunks. A chunk starts with ``@@`` or ``@@ context line`` (the first
one may omit it) and holds context (`` ``), removed (``-``) and added (``+``) lines; an empty
line is an empty context line; ``*** End of File`` ends a chunk that belongs at the file's end.
A patch pasted as the shell command Codex runs (``apply_patch <<'EOF'``) is read too.

Pure: text in, values out. :mod:`editguard.core.formats.codex_patch` applies an update.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from editguard.core.document import LF
from editguard.core.listing import excerpt
from editguard.errors import InvalidPatch

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"
_HEADERS = (ADD, DELETE, UPDATE)
# ``apply_patch <<'EOF'`` (or <<EOF, <<"EOF"): a patch pasted as the shell command Codex runs.
_HEREDOC = re.compile(r"(?:apply_?patch[ \t]+)?<<[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
# What a unified diff's hunk header leaves after "@@ ": line numbers, not a line of the file.
_UNIFIED = re.compile(r"-\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


@dataclass(frozen=True, slots=True)
class AddFile:
    """Create ``path`` (or overwrite it) with ``lines``; ``line``: its header's patch line."""

    path: str
    lines: tuple[str, ...]
    line: int


@dataclass(frozen=True, slots=True)
class DeleteFile:
    """Delete ``path``; ``line``: its header's patch line."""

    path: str
    line: int


@dataclass(frozen=True, slots=True)
class UpdateChunk:
    """One ``@@`` chunk: the ``@@`` line's text (``None`` for a bare ``@@``), the old lines
    (context and removed) and new lines (context and added) in order, whether it must match
    at the end of the file, the patch line where it starts, and the kind of each of its lines
    in order (``" "`` context, ``"-"`` removed, ``"+"`` added; ``""`` when not known, as for a
    chunk not read from a patch: then the new lines are compared with the old ones)."""

    context: str | None
    old: tuple[str, ...]
    new: tuple[str, ...]
    end_of_file: bool
    line: int
    kinds: str = ""


@dataclass(frozen=True, slots=True)
class UpdateFile:
    """Change ``path`` by ``chunks`` (and rename it to ``move_to``); ``line``: its header's
    patch line."""

    path: str
    move_to: str | None
    chunks: tuple[UpdateChunk, ...]
    line: int


PatchOp = AddFile | DeleteFile | UpdateFile


# -- the parser -----------------------------------------------------------------------------


def _invalid(message: str, line: int, **extra: Any) -> InvalidPatch:
    return InvalidPatch(
        f"patch line {line}: {message}",
        data={"line": line, **extra},
        suggestions=[
            "Send the patch as '*** Begin Patch', then '*** Add File: path' with '+' lines, "
            "'*** Delete File: path' or '*** Update File: path' with '@@' chunks of ' ', '-' "
            "and '+' lines, then '*** End Patch'."
        ],
    )


def _header(line: str) -> bool:
    """Whether a line (padded or not) is a hunk header: it ends the hunk or chunk before it."""
    return line.strip().startswith(_HEADERS)


def parse_patch(text: str) -> tuple[PatchOp, ...]:
    """The operations of an ``apply_patch`` patch, in order.

    Lines may end with ``\\r\\n``; the markers and hunk headers may be padded with whitespace
    (inside a chunk, a line that starts with a space is a context line, header or not).
    A patch wrapped in a heredoc (``<<'EOF'`` ... ``EOF``, optionally ``apply_patch <<'EOF'``)
    is read as the patch inside.

    Raises:
        InvalidPatch: no ``*** Begin Patch`` first or ``*** End Patch`` last, no hunk, an
            invalid hunk header, an update without chunks, a chunk without lines or with a line
            that starts otherwise than with ``' '``, ``'+'`` or ``'-'``, or an empty path.
            ``data["line"]`` is the 1-based patch line at fault.
    """
    lines = [line.removesuffix("\r") for line in text.split(LF)]
    _no_inner_cr(lines, _invalid)
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if not filled:
        raise _invalid("the patch is empty; it must start with '*** Begin Patch'", 1)
    first, last = filled[0], filled[-1]
    heredoc = _HEREDOC.fullmatch(lines[first].strip())
    if heredoc is not None and lines[last].strip() == heredoc.group(2):
        inner = [i for i in filled if first < i < last]
        if not inner:
            raise _invalid("the heredoc holds no patch", first + 1)
        first, last = inner[0], inner[-1]
    if lines[first].strip() != BEGIN:
        raise _invalid(f"the first line of the patch must be '{BEGIN}'", first + 1)
    if last == first or lines[last].strip() != END:
        raise _invalid(f"the last line of the patch must be '{END}'", last + 1)
    ops: list[PatchOp] = []
    at = first + 1
    while at < last:
        op, at = _hunk(lines, at, last)
        ops.append(op)
    if not ops:
        raise _invalid("the patch holds no hunk, so it changes nothing", last + 1)
    return tuple(ops)


def _no_inner_cr(lines: list[str], invalid: Callable[[str, int], InvalidPatch]) -> None:
    """Refuse a carriage return inside a line: the file would get a line break there that the
    patch does not show (a CR is a line break to editguard, as to most editors)."""
    for number, line in enumerate(lines, 1):
        if "\r" in line:
            raise invalid(
                f"line {number} of the patch holds a carriage return (\\r) inside it; each "
                "line of a patch is one line of the file",
                number,
            )


def _path(rest: str, at: int) -> str:
    path = rest.strip()
    if not path:
        raise _invalid("the hunk header names no path", at + 1)
    return path


def _hunk(lines: list[str], at: int, stop: int) -> tuple[PatchOp, int]:
    """The hunk whose header is ``lines[at]``, and the index of the line after it."""
    # A header with nothing after its colon reads as one with an empty path, which is refused.
    head = lines[at].strip() + " "
    if head.startswith(ADD):
        path = _path(head[len(ADD) :], at)
        end = at + 1
        while end < stop and lines[end].startswith("+"):
            end += 1
        return AddFile(path, tuple(line[1:] for line in lines[at + 1 : end]), at + 1), end
    if head.startswith(DELETE):
        return DeleteFile(_path(head[len(DELETE) :], at), at + 1), at + 1
    if not head.startswith(UPDATE):
        raise _invalid(
            f"{excerpt(head.strip(), 200)!r} is not a valid hunk header; valid hunk headers are "
            f"'{ADD}{{path}}', '{DELETE}{{path}}' and '{UPDATE}{{path}}'",
            at + 1,
        )
    path = _path(head[len(UPDATE) :], at)
    end = at + 1
    move_to = None
    if end < stop and (lines[end].strip() + " ").startswith(MOVE):
        move_to = _path(lines[end].strip()[len(MOVE) - 1 :], end)
        end += 1
    chunks: list[UpdateChunk] = []
    while end < stop:
        if not lines[end].strip():  # blank lines between chunks (Codex skips them)
            end += 1
            continue
        if lines[end].startswith("***") or _header(lines[end]):
            break
        chunk, end = _chunk(lines, end, stop, first=not chunks)
        chunks.append(chunk)
    if not chunks:
        raise _invalid(f"Update file hunk for path {path!r} is empty", at + 1, path=path)
    return UpdateFile(path, move_to, tuple(chunks), at + 1), end


def _chunk(lines: list[str], at: int, stop: int, *, first: bool) -> tuple[UpdateChunk, int]:
    """The chunk starting at ``lines[at]`` and the index of the line after it."""
    line = lines[at]
    context: str | None = None
    start = at
    if line == "@@" or line.startswith(("@@ ", "@@\t")):
        # ``@@`` with only whitespace after it places nothing: a bare ``@@``.
        context = line[3:] if line[3:].strip() else None
        start = at + 1
    elif not first:
        raise _invalid(
            f"expected a chunk to start with '@@' or '@@ context line', got {excerpt(line, 200)!r}",
            at + 1,
        )
    old: list[str] = []
    new: list[str] = []
    kinds: list[str] = []
    end_of_file = False
    end = start
    while end < stop:
        line = lines[end]
        if line.strip() == END_OF_FILE:
            if end == start:
                raise _invalid("the chunk holds no lines before '*** End of File'", end + 1)
            end_of_file = True
            end += 1
            break
        if line.startswith(("***", "@@")) or (line[:1] != " " and _header(line)):
            # The next chunk or hunk. A line that starts with a space is a context line,
            # whatever follows (`` *** Update File: b`` too), as Codex's parser reads it.
            break
        if not line:  # an empty line stands for an empty context line (as Codex reads it)
            old.append("")
            new.append("")
        elif line[0] == " ":
            old.append(line[1:])
            new.append(line[1:])
        elif line[0] == "-":
            old.append(line[1:])
        elif line[0] == "+":
            new.append(line[1:])
        else:
            raise _invalid(
                f"unexpected line in an update chunk: {excerpt(line, 200)!r}; every line "
                "should start with ' ' (context line), '+' (added line) or '-' (removed line)",
                end + 1,
            )
        kinds.append(line[:1] or " ")
        end += 1
    if end == start:
        raise _invalid("the chunk holds no lines", at + 1)
    chunk = UpdateChunk(context, tuple(old), tuple(new), end_of_file, at + 1, "".join(kinds))
    return chunk, end


def add_file_text(op: AddFile) -> str:
    """The new file's normalized text: each line followed by ``\\n`` (as Codex writes it), or
    ``""`` for a file without lines."""
    return "".join(line + LF for line in op.lines)


__all__ = [
    "AddFile",
    "DeleteFile",
    "PatchOp",
    "UpdateChunk",
    "UpdateFile",
    "add_file_text",
    "parse_patch",
]
