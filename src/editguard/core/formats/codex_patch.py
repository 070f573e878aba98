"""Codex's ``apply_patch`` language, pure: the parser, and the update of one file as a plan.

A patch is ``*** Begin Patch`` ... ``*** End Patch`` around hunks: ``*** Add File: p`` (its
lines as ``+`` lines), ``*** Delete File: p`` and ``*** Update File: p`` (optionally
``*** Move to: q``) with chunks. A chunk starts with ``@@`` or ``@@ context line`` (the first
one may omit it) and holds context (`` ``), removed (``-``) and added (``+``) lines; an empty
line is an empty context line; ``*** End of File`` ends a chunk that belongs at the file's end.

The update follows Codex's ``compute_replacements``: a cursor starts at the first line; a
chunk's ``@@`` line is sought from the cursor, and the cursor moves past it; the chunk's old
lines (context and removed, in order) are sought from the cursor, and the cursor moves past
them. Codex takes the first exact place; we take a place only when it is the one place after the
cursor where the chunk fits, exactly or on a tolerant rung that looks like the text: a chunk that
fits at several is refused as ambiguous (``AMBIGUOUS_MATCH``, each place shown with its numbered
lines), unless the patch itself tells them apart: its ``@@`` line (the search starts after it),
``*** End of File``, or the chunks after it, which must follow it in the file (when only the first
place leaves room for them, it is the one). Where no place is exact, the match ladder of
:mod:`editguard.core.seek` takes over (unless ``exact``), on the same terms: Codex takes the
first loose place, we never guess.

A chunk marked ``*** End of File`` is tried at the end of the file first, on every rung of the
ladder (exactly, then loosely: there is one place there), and only then from the cursor as any
other chunk; Codex tries the end exactly only, so a loose last line sent it to an earlier place.

A chunk that only adds lines (no context or removed line) goes at the end of the file, before a
final empty line, as Codex has it, when it has a bare ``@@`` (or ``*** End of File``). With an
``@@ context`` line, unlike Codex (which appends it all the same), its lines go right after the
line that context found: that is the place the model points at.

Only the lines a chunk changes are replaced; every other byte stays as read. New lines take the
file's usual line ending, like Codex with its line endings preserved. Unlike Codex, a file whose
last line the patch does not touch keeps its missing final newline.

The tool layer reads, resolves, sandboxes and writes; nothing here touches a file.
"""

from __future__ import annotations

import math
import re
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import Any

from editguard.core.diagnosis import region_dict
from editguard.core.document import LF, Document, code_of
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.listing import excerpt, listing, places
from editguard.core.plan import Plan, Replacement
from editguard.core.seek import (
    INDENT,
    LADDER,
    TYPOGRAPHIC,
    OnlyIgnored,
    Opcode,
    Rung,
    SeekHit,
    Uncorrectable,
    content_key,
    correct,
    explain,
    file_uses_tabs,
    indent_unit,
    line_opcodes,
    seek,
    strip_numbers,
    tolerance_names,
    used,
)
from editguard.core.similar import find_similar
from editguard.errors import (
    AmbiguousMatch,
    Frame,
    InvalidPatch,
    NoMatch,
    OverlappingEdits,
    error_context,
)

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
_SHOWN = 10  # lines of the file shown after the cursor when nothing is similar


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


# -- the update of one file -----------------------------------------------------------------


# How many times over its lines (plus a fixed allowance) one update may search a file with
# tolerance: about 2 s at worst on a 10 MB file.
TOLERANCE_PASSES = 50
TOLERANCE_LINES = 1_000_000


@dataclass(slots=True)
class _File:
    """The document's lines as Codex splits them, and what the searches need, made once."""

    doc: Document
    lines: list[str] = field(init=False)
    starts: array[int] = field(init=False)  # text offset of each line, and one past the end
    _hay: str | None = None
    _unit: int | None = None
    _tabs: bool | None = None
    _typographic: frozenset[str] | None = None
    _keys: tuple[str, list[int]] | None = None  # every line's content key, joined
    # Lines the tolerant searches may still look at: each search runs from the cursor to the
    # end, so a patch of thousands of chunks that all need tolerance would cost chunks x file.
    # Past this budget there is no tolerance (the chunk is not found, and the error says why).
    budget: int = field(init=False)
    spent: bool = False

    def __post_init__(self) -> None:
        text = self.doc.text
        self.lines = text.split(LF)
        if self.lines[-1] == "":
            self.lines.pop()
        self.budget = TOLERANCE_PASSES * len(self.lines) + TOLERANCE_LINES
        self.starts = array("q", [0])
        offset = 0
        for line in self.lines:
            offset += len(line) + 1
            self.starts.append(offset)

    def span(self, first: int, stop: int) -> tuple[int, int]:
        """The text offsets of lines ``first`` to ``stop`` (excluded), line breaks included."""
        end = len(self.doc.text)  # one past it, after a last line without a break
        return min(self.starts[first], end), min(self.starts[stop], end)

    def find(self, pattern: Sequence[str], cursor: int) -> int | None:
        """The first line at or after ``cursor`` where ``pattern`` starts exactly."""
        if not pattern:
            return cursor
        if self._hay is None:
            # Every line between two breaks: a block of lines is a substring, found at C speed.
            text = self.doc.text
            self._hay = LF + (text[:-1] if text.endswith(LF) else text) + LF
        if cursor >= len(self.lines):
            return None
        at = self._hay.find(LF + LF.join(pattern) + LF, self.starts[cursor])
        return None if at < 0 else bisect_left(self.starts, at)

    def at_end(self, pattern: Sequence[str], cursor: int) -> int | None:
        """Where ``pattern`` ends the file exactly, at or after ``cursor``."""
        at = len(self.lines) - len(pattern)
        ok = at >= cursor and self.lines[at:] == list(pattern)
        return at if ok else None

    def earliest_end(self, pattern: Sequence[str], cursor: int) -> int | None:
        """The first line after the earliest place at or after ``cursor`` where ``pattern``
        could match on any rung (its lines' text without indentation, trailing whitespace,
        typographic punctuation or pasted line numbers): no rung places it earlier, so a
        ``None`` here means no rung places it at all."""
        if self._keys is None:
            keys = [content_key(line) for line in self.lines]
            # Each key line's start in the joined text, and one past the end for the cursor.
            starts = list(accumulate((len(k) + 1 for k in keys), initial=1))
            self._keys = LF + LF.join(keys) + LF, starts
        text, starts = self._keys
        if cursor > len(self.lines):
            return None
        variants = [tuple(pattern)]
        for padding in (False, True):
            stripped = strip_numbers(pattern, padding=padding)
            if stripped is not None:
                variants.append(stripped[0])
        ends = []
        for variant in variants:
            needle = LF + LF.join(content_key(line) for line in variant) + LF
            at = text.find(needle, starts[cursor] - 1)
            if at >= 0:
                ends.append(bisect_left(starts, at + 1) + len(variant))
        return min(ends, default=None)

    def seek(
        self,
        pattern: Sequence[str],
        cursor: int,
        before: int | None = None,
        ladder: Sequence[Rung] = LADDER[1:],
    ) -> list[SeekHit]:
        """The places of ``pattern`` at or after ``cursor`` (and before line ``before``) on
        the first rung of ``ladder`` (the tolerant ones) that finds any."""
        if self._unit is None:
            self._unit = indent_unit(self.lines)
        end = None if before is None else before - 1 + len(pattern)
        self.budget -= (len(self.lines) if end is None else min(end, len(self.lines))) - cursor
        if self.budget < 0:
            self.spent = True
            return []
        return seek(
            self.lines,
            pattern,
            start=cursor,
            end=end,
            ladder=ladder,
            indent_unit=self._unit,
        )

    def correct(
        self, hit: SeekHit, new: Sequence[str], structure: Sequence[Opcode] | None
    ) -> list[str]:
        if self._tabs is None:
            self._tabs = file_uses_tabs(self.lines)
            self._typographic = frozenset(c for c in TYPOGRAPHIC if c in self.doc.text)
        found = self.lines[hit.line : hit.line + len(hit.pattern)]
        return correct(
            hit,
            found,
            new,
            file_uses_tabs=self._tabs,
            file_typographic=self._typographic or frozenset(),
            structure=structure,
        )


@dataclass(frozen=True, slots=True)
class _Placed:
    """A chunk's place: its old lines ``[start, stop)`` become ``new``, the lines it keeps
    and changes as ``structure`` says (``None``: as a comparison finds them)."""

    index: int
    start: int
    stop: int
    new: tuple[str, ...]
    match: str = "exact"
    note: str | None = None
    structure: tuple[Opcode, ...] | None = None
    append: bool = False  # a pure addition at the end of the file, wherever the cursor is
    already: bool = False  # its new lines are there already (a retried patch): nothing to do


# A chunk's runs, in the order they are written: by place; at one place, the lines of a chunk
# that ends there, then a pure addition after its @@ line, then an addition at the end of the
# file, then the lines of a chunk that starts there (each kind in chunk order). Codex applies
# its replacements from the last start to the first, so a chunk that ends at the end of the file
# keeps its lines together before an appended one, and an append comes before a chunk that
# starts there.
_RunKey = tuple[int, int, int, int]  # start, stop, rank, chunk


def _key(place: _Placed, start: int, stop: int) -> _RunKey:
    if place.append:
        rank = 2
    elif place.start < start:
        rank = 0
    else:
        rank = 1 if place.start == place.stop else 3
    return start, stop, rank, place.index


@dataclass(frozen=True, slots=True)
class _Chunk:
    """What a chunk's errors need to name it."""

    index: int
    total: int
    name: str  # "chunk 2 of 3 of the update of src/app.py (patch line 14)"
    path: str
    patch_line: int

    def data(self, **extra: Any) -> dict[str, Any]:
        return {"chunk": self.index + 1, "patch_line": self.patch_line, **extra}

    @property
    def where(self) -> tuple[Frame]:
        """The chunk's frame; its messages start with :attr:`name`, which says it already."""
        return (Frame("chunk", self.index, self.total, said=True),)


def compile_update(doc: Document, op: UpdateFile, *, exact: bool = False) -> Compiled:
    """The plan that applies an ``*** Update File`` hunk's chunks to ``doc``.

    One :class:`AppliedEdit` per chunk: the 1-based line where the chunk's new lines start in
    the new file, and the rung its old lines matched on (with what differed, when not exact).

    Raises:
        NoMatch: a chunk's ``@@`` line or old lines are not in the file after the previous
            chunk, or a tolerant match whose correction cannot be carried over to the new
            lines (``data``: the chunk, its patch line, and similar regions of the file).
        AmbiguousMatch: a chunk not in the file exactly fits loosely at several places.
        OverlappingEdits: a chunk that only adds lines meets another one's lines.
        EncodingError: a new line holds a character the file's encoding cannot store.
        InvalidRequest: a new line holds a NUL character.
    """
    file = _File(doc)
    path = doc.name or op.path
    total = len(op.chunks)
    cursor = 0
    placed: list[_Placed] = []
    for index, chunk in enumerate(op.chunks):
        who = _Chunk(
            index,
            total,
            f"chunk {index + 1} of {total} of the update of {path} (patch line {chunk.line})",
            path,
            chunk.line,
        )
        context_note = None
        if chunk.context is not None:
            at, context_note = _seek_context(file, chunk.context, cursor, who, exact=exact)
            cursor = at + 1
        if not chunk.old:
            if chunk.context is not None and not chunk.end_of_file:
                # Right after its @@ line, which is what the model points at (Codex appends).
                end = cursor
            else:
                # At the end of the file, before a final empty line (Codex).
                end = len(file.lines) - (1 if file.lines and file.lines[-1] == "" else 0)
            append = chunk.context is None or chunk.end_of_file
            there = end - len(chunk.new) if append else end
            if _added_already(file, chunk.new, there, cursor):
                stop = there + len(chunk.new)
                placed.append(_already(index, there, stop, file, context_note))
                if not append:
                    cursor = stop
                continue
            placed.append(_Placed(index, end, end, chunk.new, note=context_note, append=append))
            continue
        place = _seek_chunk(file, chunk, cursor, who, op.chunks[index + 1 :], exact=exact)
        if context_note and place.note is None and not place.already:
            place = replace(place, note=context_note)
        placed.append(place)
        cursor = place.stop
    return _compiled(file, placed, total)


def _seek_context(
    file: _File, context: str, cursor: int, who: _Chunk, *, exact: bool
) -> tuple[int, str | None]:
    """The line of a chunk's ``@@`` context at or after ``cursor``, and a note when it matched
    with a tolerance."""
    at = file.find([context], cursor)
    if at is not None:
        if not exact:
            _refuse_loose_before(file, [context], cursor, at, who, what="the @@ line is")
        return at, None
    hits = [] if exact else file.seek([context], cursor)
    if len(hits) == 1:
        line = hits[0].line
        rung = used(hits[0], file.lines[line : line + 1])
        return line, f"the @@ line matched line {line + 1} with tolerance for " + (
            f"{tolerance_names(rung)}; send the file's exact text next time"
        )
    if hits:
        where = [h.line + 1 for h in hits]
        raise AmbiguousMatch(
            f"{who.name}: the @@ line {excerpt(context, 200)!r} is not in the file as sent, and "
            f"fits with tolerance for {tolerance_names(hits[0].rung)} at {len(hits)} lines "
            f"after line {cursor} ({_numbers(where)}); copy it exactly from the line you mean:\n"
            + places(file.lines, [h.line for h in hits], 1),
            path=who.path,
            where=who.where,
            data=who.data(lines=where, match=hits[0].rung),
        )
    error = _not_found(file, [context], cursor, who, what=f"the @@ line {excerpt(context, 200)!r}")
    if _UNIFIED.match(context):
        error.data["unified_header"] = True
        error.suggestions.insert(
            0,
            "'@@ -a,b +c,d @@' is a unified diff's hunk header; in apply_patch, the text after "
            "'@@ ' is one line of the file that comes before the chunk (or send a bare '@@').",
        )
    raise error


def _seek_chunk(
    file: _File,
    chunk: UpdateChunk,
    cursor: int,
    who: _Chunk,
    later: Sequence[UpdateChunk],
    *,
    exact: bool,
) -> _Placed:
    """Where a chunk's old lines are, at or after ``cursor``, and the lines to write there:
    the one place they fit (or the one at the end of the file, for a chunk marked
    ``*** End of File``), or the first of several when only it leaves room for the ``later``
    chunks."""
    tries: list[tuple[tuple[str, ...], tuple[str, ...]]] = [(chunk.old, chunk.new)]
    if chunk.old[-1] == "":
        # An empty last old line often stands for the line break at the end of the file, which
        # the file's lines do not hold: try without it (and without an empty last new line).
        new = chunk.new[:-1] if chunk.new and chunk.new[-1] == "" else chunk.new
        tries.append((chunk.old[:-1], new))
    if chunk.end_of_file:
        # The end of the file first, on every rung (there is one place there), then the rest.
        for old, new in tries:
            at = file.at_end(old, cursor)
            if at is not None:
                return _Placed(
                    who.index, at, at + len(old), new, structure=_structure(chunk, old, new)
                )
        for old, new in [] if exact else tries:
            at = len(file.lines) - len(old)
            hits = file.seek(old, at) if old and at >= cursor else []
            if hits:
                return _tolerant(file, hits[0], old, new, _structure(chunk, old, new), who, cursor)
    for old, new in tries:
        at = file.find(old, cursor)
        if at is not None:
            if not exact:
                _refuse_loose_before(
                    file, old, cursor, at, who, what="its lines are", ladder=_LOOK_ALIKE
                )
            _refuse_other_places(file, old, cursor, at, who, later, exact=exact)
            done = _done_around(file, at, old, new, cursor)
            if done is not None:
                return _already(who.index, done, done + len(new), file)
            return _Placed(who.index, at, at + len(old), new, structure=_structure(chunk, old, new))
    if not exact:
        for old, new in tries:
            if not old:
                continue
            hits = file.seek(old, cursor)
            if len(hits) > 1 and _room_after(file, hits[1].line + len(old), later):
                where = [h.line + 1 for h in hits]
                raise AmbiguousMatch(
                    f"{who.name}: its lines are not in the file as sent, and fit with tolerance "
                    f"for {tolerance_names(hits[0].rung)} at {len(hits)} places after line "
                    f"{cursor} (starting at lines {_numbers(where)}); copy the lines exactly, "
                    "with an '@@ line' or context that only the place you mean has:\n"
                    + places(file.lines, [h.line for h in hits], len(old)),
                    path=who.path,
                    where=who.where,
                    data=who.data(lines=where, match=hits[0].rung),
                    suggestions=[_TELL_APART],
                )
            if hits:
                return _tolerant(file, hits[0], old, new, _structure(chunk, old, new), who, cursor)
    for old, new in tries:
        if new == old or len(LF.join(new).strip()) < _ALREADY_CHARS:
            continue
        # Its old lines are gone and its new ones are there (at one place): sent again.
        at = _only_place(file, new, cursor)
        if at is None and not exact:
            hits = file.seek(new, cursor, ladder=_LOOK_ALIKE)
            at = hits[0].line if len(hits) == 1 else None
        if at is not None:
            return _already(who.index, at, at + len(new), file)
    raise _not_found(file, chunk.old, cursor, who, what="its lines (context and removed)")


# For a chunk's lines, the rungs whose places look like the exact text to a reader: a line at
# another indentation (`pass`, `return None`) is another statement, not a copy of this one with
# a slip. An `@@ def g(self):` line, though, is often written without the method's indentation,
# so for it every tolerant rung counts.
_LOOK_ALIKE = tuple(r for r in LADDER[1:] if INDENT not in r.tolerances)


def _refuse_loose_before(
    file: _File,
    pattern: Sequence[str],
    cursor: int,
    at: int,
    who: _Chunk,
    *,
    what: str,
    ladder: Sequence[Rung] = LADDER[1:],
) -> None:
    """Refuse when ``pattern``, found exactly at line ``at``, also fits with a tolerance
    between the cursor and there: Codex would take the exact place, but the looser one comes
    first, and the model may have meant it. Each chunk looks at lines the others do not."""
    if at <= cursor:
        return
    hits = file.seek(pattern, cursor, before=at, ladder=ladder)
    if not hits:
        return
    where = [h.line + 1 for h in hits]
    rung = hits[0].rung
    raise AmbiguousMatch(
        f"{who.name}: {what} in the file as sent at line {at + 1}, but fit with tolerance "
        f"for {tolerance_names(rung)} before it, after line {cursor}, at line"
        f"{'s' * (len(where) > 1)} {_numbers(where)}; which one is meant cannot be told. Copy "
        "the lines exactly from the place you mean, with an '@@ line' or context that only it "
        "has. The places:\n" + places(file.lines, [h.line for h in hits] + [at], len(pattern)),
        path=who.path,
        where=who.where,
        data=who.data(lines=[*where, at + 1], match=rung, exact_line=at + 1),
    )


_TELL_APART = (
    "Start the chunk with an '@@ line' that comes after the places before the one you mean "
    "(the nearest line above it that only it has), or add context lines that only it has; "
    "end it with '*** End of File' if it belongs at the end of the file."
)
_MAX_PLACES = 20  # places of one chunk listed (and looked for) in a refusal


def _refuse_other_places(
    file: _File,
    old: Sequence[str],
    cursor: int,
    at: int,
    who: _Chunk,
    later: Sequence[UpdateChunk],
    *,
    exact: bool,
) -> None:
    """Refuse a chunk whose lines, found exactly at line ``at`` (the first place after the
    cursor, which Codex takes), fit after it too: exactly, or (unless ``exact``) on a tolerant
    rung that looks like the text. Which place is meant cannot be told, unless only the first
    leaves room for the chunks after it (they must follow it in the file)."""
    where = [at]
    rung = "exact"
    nxt = file.find(old, at + 1)
    while nxt is not None and len(where) < _MAX_PLACES:
        where.append(nxt)
        nxt = file.find(old, nxt + 1)
    # Only where every line's text is the chunk's can a rung find it: looked for first at C
    # speed, so that a chunk whose text is nowhere else costs no tolerant search.
    later_text = file.earliest_end(old, at + 1) if len(where) == 1 and not exact else None
    if later_text is not None:
        hits = file.seek(old, later_text - len(old), ladder=_LOOK_ALIKE)
        if hits:
            where += [h.line for h in hits[: _MAX_PLACES - 1]]
            rung = hits[0].rung
    if len(where) == 1 or not _room_after(file, where[1] + len(old), later):
        return
    lines = [p + 1 for p in where]
    loosely = "" if rung == "exact" else f" (after it, with tolerance for {tolerance_names(rung)})"
    more = " or more" if len(where) >= _MAX_PLACES else ""
    raise AmbiguousMatch(
        f"{who.name}: its lines fit at {len(where)}{more} places after line {cursor}{loosely}, "
        f"starting at lines {_numbers(lines)}; which one is meant cannot be told (Codex would "
        "take the first). Add an '@@ line' that only the place you mean has before it, or "
        "'*** End of File' if it belongs at the end of the file. The places:\n"
        + places(file.lines, where, len(old)),
        path=who.path,
        where=who.where,
        data=who.data(lines=lines, match=rung),
        suggestions=[_TELL_APART],
    )


def _room_after(file: _File, cursor: int, later: Sequence[UpdateChunk]) -> bool:
    """Whether the ``later`` chunks could all be placed, in order, from line ``cursor`` on
    (each at its earliest possible place on any rung, which leaves the most room): when they
    cannot after a chunk's second place, only its first is possible."""
    for chunk in later:
        if chunk.context is not None:
            end = file.earliest_end([chunk.context], cursor)
            if end is None:
                return False
            cursor = end
        if not chunk.old:
            continue
        tries = [chunk.old]
        if chunk.old[-1] == "" and len(chunk.old) > 1:
            tries.append(chunk.old[:-1])
        ends = [e for t in tries if (e := file.earliest_end(t, cursor)) is not None]
        if not ends:
            return False
        cursor = min(ends)
    return True


_ALREADY = (
    "its new lines are in the file already, as a patch sent a second time finds them; nothing "
    "was changed there"
)


def _already(index: int, start: int, stop: int, file: _File, note: str | None = None) -> _Placed:
    """A chunk whose new lines are ``file.lines[start:stop]`` already: placed there, unchanged."""
    lines = tuple(file.lines[start:stop])
    return _Placed(index, start, stop, lines, note=note or _ALREADY, already=True)


def _done_around(
    file: _File, at: int, old: Sequence[str], new: Sequence[str], cursor: int
) -> int | None:
    """Where the chunk's new lines start if the file already reads as them around its old
    lines, found at ``at``: new lines that hold the old ones (lines added before or after
    them) and are there in full. A chunk sent again would add its lines a second time."""
    if len(new) <= len(old):
        return None
    for d in range(len(new) - len(old) + 1):
        start = at - d
        if start < cursor or tuple(new[d : d + len(old)]) != tuple(old):
            continue
        if file.lines[start : start + len(new)] == list(new):
            return start
    return None


def _added_already(file: _File, new: Sequence[str], start: int, cursor: int) -> bool:
    """Whether lines a chunk only adds are at ``start`` already (and are enough text that a
    second copy is no edit a model means: a lone ``}`` may well be added twice)."""
    return (
        cursor <= start
        and len(LF.join(new).strip()) >= _ALREADY_CHARS
        and file.lines[start : start + len(new)] == list(new)
    )


_ALREADY_CHARS = 8  # characters of added text below which its being there says nothing


def _only_place(file: _File, lines: Sequence[str], cursor: int) -> int | None:
    """The one place after ``cursor`` where ``lines`` are exactly (``None``: none or more)."""
    at = file.find(lines, cursor)
    if at is None or file.find(lines, at + 1) is not None:
        return None
    return at


def _structure(
    chunk: UpdateChunk, old: Sequence[str], new: Sequence[str]
) -> tuple[Opcode, ...] | None:
    """Which of ``old`` (the chunk's old lines, or their first ones) ``new`` keeps, as the
    chunk's context lines say; ``None`` when its kinds are not known."""
    if not chunk.kinds:
        return None
    ops: list[Opcode] = []
    i = j = 0  # the old and new lines before the next kept one
    oi = nj = 0  # the next old and new line of the chunk
    for kind in chunk.kinds:
        if kind == " " and oi < len(old) and nj < len(new):
            if i < oi or j < nj:
                ops.append(("replace", i, oi, j, nj))
            if ops and ops[-1][0] == "equal" and ops[-1][2] == oi:
                ops[-1] = ("equal", ops[-1][1], oi + 1, ops[-1][3], nj + 1)
            else:
                ops.append(("equal", oi, oi + 1, nj, nj + 1))
            i, j = oi + 1, nj + 1
        oi += kind != "+"
        nj += kind != "-"
    if i < len(old) or j < len(new):
        ops.append(("replace", i, len(old), j, len(new)))
    return tuple(ops)


def _tolerant(
    file: _File,
    hit: SeekHit,
    old: Sequence[str],
    new: Sequence[str],
    structure: tuple[Opcode, ...] | None,
    who: _Chunk,
    cursor: int,
) -> _Placed:
    """The chunk placed where the ladder found it, its new lines corrected the same way."""
    start, stop = hit.line, hit.line + len(old)
    found = file.lines[start:stop]
    rung = used(hit, found)
    try:
        written = file.correct(hit, new, structure)
    except OnlyIgnored:
        # The chunk changes only what the rung ignores: the file already reads as the new lines.
        return _Placed(
            who.index,
            start,
            stop,
            tuple(found),
            rung,
            f"the chunk changes only {tolerance_names(rung)}, which the file's lines "
            f"{start + 1}-{stop} already have as the new lines want; nothing was changed there",
            already=True,
        )
    except Uncorrectable as exc:
        raise NoMatch(
            f"{who.name}: its lines are not in the file as sent; they match lines "
            f"{start + 1}-{stop} with tolerance for {tolerance_names(hit.rung)}, but {exc}. "
            f"The lines:\n{_numbered(file.lines, start, stop)}",
            path=who.path,
            where=who.where,
            data=who.data(match=hit.rung, lines=[start + 1, stop]),
            suggestions=["Copy the chunk's lines exactly from the numbered lines above."],
        ) from None
    done = _done_around(file, start, found, written, cursor)
    if done is not None:
        return _already(who.index, done, done + len(written), file)
    note = explain(hit, found, "the chunk")
    return _Placed(who.index, start, stop, tuple(written), rung, note, structure)


def _numbers(lines: Sequence[int]) -> str:
    shown = ", ".join(map(str, lines[:20]))
    return shown + (f" and {len(lines) - 20} more" if len(lines) > 20 else "")


def _numbered(lines: Sequence[str], start: int, stop: int) -> str:
    start, stop = max(0, start), min(len(lines), stop)
    return listing([excerpt(line, 500) for line in lines[start:stop]], start + 1)


def _not_found(
    file: _File, pattern: Sequence[str], cursor: int, who: _Chunk, *, what: str
) -> NoMatch:
    """NO_MATCH for a chunk: where its text is not, the file's most similar regions, and
    where it is when an earlier chunk's place lies past it."""
    searched = LF.join(pattern)
    after = (
        f" after line {cursor} (the search starts past the chunk before it and past its @@ line)"
        if cursor
        else ""
    )
    parts = [f"{who.name}: {what} not found in {who.path}{after}."]
    extra: dict[str, Any] = {}
    if file.spent:
        extra["tolerance_spent"] = True
        parts.append(
            f"So many chunks of this update needed tolerance (searching the file over "
            f"{TOLERANCE_PASSES} times) that the rest are matched exactly only."
        )
    earlier = file.find(pattern, 0) if cursor else None
    if earlier is not None and earlier < cursor:
        extra["found_before_cursor"] = earlier + 1
        parts.append(
            f"They are at line {earlier + 1}, before that place: chunks must follow each other "
            "in the file's order."
        )
    parts += ["", "Searched for (between >>> and <<<):", f">>>{excerpt(searched)}<<<"]
    similar = find_similar(file.doc.text, searched) if searched.strip() else []
    if similar:
        parts += ["", "Most similar regions of the file (copy from these lines exactly):"]
        for region in similar:
            parts.append(
                f"lines {region.start_line}-{region.end_line}, "
                f"{math.floor(region.similarity * 100)}% similar:"
            )
            parts.append(_numbered(file.lines, region.start_line - 1, region.end_line))
    else:
        parts += ["", f"Nothing in the file is similar. The lines after line {cursor}:"]
        parts.append(_numbered(file.lines, cursor, cursor + _SHOWN) or "(none: end of file)")
    return NoMatch(
        "\n".join(parts),
        path=who.path,
        where=who.where,
        data=who.data(
            search_text=excerpt(searched),
            similar_content=[region_dict(r) for r in similar],
            **extra,
        ),
        suggestions=[
            "Read the file again and copy the chunk's context and '-' lines exactly (without "
            "line-number prefixes), in the order the file has them."
        ],
    )


def _compiled(file: _File, placed: list[_Placed], total: int) -> Compiled:
    """The plan: one replacement per run of lines a chunk changes, new breaks in the file's
    usual ending; and each chunk's line in the new file."""
    doc, lines = file.doc, file.lines
    usual = code_of(doc.newline)
    text = doc.text
    unterminated = bool(lines) and not text.endswith(LF)
    _refuse_append_inside(placed, total)
    runs: list[tuple[_RunKey, tuple[str, ...]]] = []
    for place in placed:
        found = lines[place.start : place.stop]
        for tag, i1, i2, j1, j2 in line_opcodes(found, place.new, place.structure):
            if tag != "equal":
                key = _key(place, place.start + i1, place.start + i2)
                runs.append((key, place.new[j1:j2]))
    runs.sort(key=lambda run: run[0])
    replacements: list[Replacement] = []
    owners: list[int] = []
    for (start, stop, _, index), new in runs:
        a, b = file.span(start, stop)
        body = "".join(line + LF for line in new)
        if stop == len(lines) and unterminated:
            if start == len(lines):
                # Lines added after a last line without a break: that line gets one, and so
                # does the new last line (Codex ends every file it writes with one).
                body = LF + body
            # Only the first run at the end: after it the text ends with a break.
            unterminated = False
        with error_context(Frame("chunk", index, total)):
            doc.check_writable(body, f"chunks[{index}]")
        replacement = Replacement(a, b, body, bytes([usual]) * body.count(LF))
        if replacements and replacements[-1].end > replacement.start:
            first, second = sorted((owners[-1], index))
            raise OverlappingEdits(
                f"chunks {first + 1} and {second + 1} change the same lines (line {start + 1}); "
                "a chunk without '-' or context lines adds at the end of the file, or right "
                "after its '@@ line'",
                where=(Frame("chunk", second, total),),
                data={"edits": [first, second]},
            )
        replacements.append(replacement)
        owners.append(index)
    return Compiled(Plan(tuple(replacements)), _applied(placed, runs))


def _refuse_append_inside(placed: list[_Placed], total: int) -> None:
    """Refuse an addition at the end of the file (before a final empty line) that falls
    strictly inside another chunk's old lines: written there it would split that chunk's lines,
    and Codex, which replaces that chunk's lines after inserting it, loses it."""
    appends = [place for place in placed if place.append]
    if not appends:
        return
    end = appends[0].start  # every append has the same place
    for place in placed:
        if place.start < end < place.stop:
            first, second = sorted((appends[0].index, place.index))
            raise OverlappingEdits(
                f"chunk {appends[0].index + 1} adds lines at the end of the file, before its "
                f"final empty line (line {end + 1}), which is inside the lines of chunk "
                f"{place.index + 1}; add those lines in chunk {place.index + 1} itself, or "
                "after an '@@ line' that names the line they follow",
                where=(Frame("chunk", second, total),),
                data={"edits": [first, second]},
            )


def _applied(
    placed: list[_Placed], runs: list[tuple[_RunKey, tuple[str, ...]]]
) -> tuple[AppliedEdit, ...]:
    """Each chunk's new lines start where its old ones did, moved by the lines that the runs
    written before it (other chunks' runs, which never straddle its start) added or removed."""
    keys = [key for key, _ in runs]
    shifts = [0]
    for (start, stop, _, _), new in runs:
        shifts.append(shifts[-1] + len(new) - (stop - start))
    out: list[AppliedEdit] = []
    for place in placed:
        shift = shifts[bisect_left(keys, _key(place, place.start, place.start))]
        out.append(
            AppliedEdit(
                place.index,
                0 if place.already else 1,
                (place.start + shift + 1,),
                place.match,
                place.note,
                already_applied=place.already,
            )
        )
    return tuple(out)


__all__ = [
    "AddFile",
    "DeleteFile",
    "PatchOp",
    "UpdateChunk",
    "UpdateFile",
    "add_file_text",
    "compile_update",
    "parse_patch",
]
