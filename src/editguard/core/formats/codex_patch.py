"""Codex's ``apply_patch`` language, pure: the update of one file as a plan.

The patch is read by :mod:`editguard.core.formats.codex_parse` (its names are importable from
here too).

The update follows Codex's ``compute_replacements``: a cursor starts at the first line; a
chunk's ``@@`` line is sought from the cursor, and the cursor moves past it; the chunk's old
lines (context and removed, in order) are sought from the cursor, and the cursor moves past
them. Codex takes the first exact place; we take a place only when it is the one place after the
cursor where the chunk fits, exactly or on a tolerant rung that looks like the text: a chunk that
fits at several is refused as ambiguous (``AMBIGUOUS_MATCH``, each place shown with its numbered
lines), unless the patch itself tells them apart: its ``@@`` line (the search starts after it),
``*** End of File``, or the chunks after it, which must follow it in the file (a place that
leaves them no room is out: :mod:`editguard.core.formats.place.order`). Where no place is
exact, the match ladder of :mod:`editguard.core.seek` takes over (unless ``exact``), on the
same terms: Codex takes the first loose place, we never guess. The searches, the order, the
choice and the refusals are :mod:`editguard.core.formats.place`'s; this module keeps the
cursor, the ``@@`` line and ``*** End of File``.

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
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from editguard.core.diagnosis import region_dict
from editguard.core.document import LF, Document
from editguard.core.formats import Compiled
from editguard.core.formats.codex_parse import (
    AddFile,
    DeleteFile,
    PatchOp,
    UpdateChunk,
    UpdateFile,
    add_file_text,
    parse_patch,
)
from editguard.core.formats.codex_plan import ChunkFile, PlacedChunk, compiled
from editguard.core.formats.place.lines import ALREADY_CHARS
from editguard.core.formats.place.order import choose
from editguard.core.formats.place.refusal import ambiguous, uncorrectable
from editguard.core.listing import excerpt, listing
from editguard.core.seek import (
    INDENT,
    LADDER,
    OnlyIgnored,
    Opcode,
    Rung,
    SeekHit,
    Uncorrectable,
    explain,
    tolerance_names,
    used,
)
from editguard.core.similar import find_similar
from editguard.errors import (
    AmbiguousMatch,
    Frame,
    NoMatch,
)

# What a unified diff's hunk header leaves after "@@ ": line numbers, not a line of the file.
_UNIFIED = re.compile(r"-\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_SHOWN = 10  # lines of the file shown after the cursor when nothing is similar
# How many times over its lines (plus a fixed allowance) one update may search a file with
# tolerance: about 2 s at worst on a 10 MB file.
TOLERANCE_PASSES = 50
TOLERANCE_LINES = 1_000_000


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
    file = ChunkFile(doc, passes=TOLERANCE_PASSES, allowance=TOLERANCE_LINES)
    path = doc.name or op.path
    total = len(op.chunks)
    cursor = 0
    placed: list[PlacedChunk] = []
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
            if file.added_already(chunk.new, there, cursor):
                stop = there + len(chunk.new)
                placed.append(_already(index, there, stop, file, context_note))
                if not append:
                    cursor = stop
                continue
            placed.append(PlacedChunk(index, end, end, chunk.new, note=context_note, append=append))
            continue
        place = _seek_chunk(file, chunk, cursor, who, op.chunks, exact=exact)
        if context_note and place.note is None and not place.already:
            place = replace(place, note=context_note)
        placed.append(place)
        cursor = place.stop
    return compiled(file, placed, total)


def _seek_context(
    file: ChunkFile, context: str, cursor: int, who: _Chunk, *, exact: bool
) -> tuple[int, str | None]:
    """The line of a chunk's ``@@`` context at or after ``cursor``, and a note when it matched
    with a tolerance."""
    at = file.find([context], cursor)
    if at is not None:
        if not exact:
            _refuse_loose_before(file, [context], cursor, at, who, what="its @@ line")
        return at, None
    hits = [] if exact else file.seek([context], cursor)
    if len(hits) == 1:
        line = hits[0].line
        rung = used(hits[0], file.lines[line : line + 1])
        return line, f"the @@ line matched line {line + 1} with tolerance for " + (
            f"{tolerance_names(rung)}; send the file's exact text next time"
        )
    if hits:
        raise _ambiguous(
            file,
            [h.line for h in hits],
            1,
            who,
            what=f"its @@ line {excerpt(context, 200)!r}",
            rung=hits[0].rung,
            why=_after(cursor) + ", and nowhere as sent",
            tip="copy it exactly from the line you mean.",
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
    file: ChunkFile,
    chunk: UpdateChunk,
    cursor: int,
    who: _Chunk,
    chunks: Sequence[UpdateChunk],
    *,
    exact: bool,
) -> PlacedChunk:
    """Where a chunk's old lines are, at or after ``cursor``, and the lines to write there:
    the one place they fit (or the one at the end of the file, for a chunk marked
    ``*** End of File``), or of several the one that alone leaves room for the chunks after
    it (:func:`editguard.core.formats.place.order.choose`)."""
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
                return PlacedChunk(
                    who.index, at, at + len(old), new, structure=_structure(chunk, old, new)
                )
        for old, new in [] if exact else tries:
            at = len(file.lines) - len(old)
            hits = file.seek(old, at) if old and at >= cursor else []
            if hits:
                return _tolerant(file, hits[0], old, new, chunk, who, cursor)
    for old, new in tries:
        at = file.find(old, cursor)
        if at is not None:
            if not exact:
                _refuse_loose_before(file, old, cursor, at, who, what="", ladder=_LOOK_ALIKE)
            _refuse_other_places(file, old, cursor, at, who, chunks, exact=exact)
            done = file.done_around(at, old, new, cursor, chunk.kinds)
            if done is not None:
                return _already(who.index, done, done + len(new), file)
            return PlacedChunk(
                who.index, at, at + len(old), new, structure=_structure(chunk, old, new)
            )
    if not exact:
        for old, new in tries:
            if not old:
                continue
            hits = file.seek(old, cursor)
            got = choose([h.line for h in hits], bound=file.bound(chunks, who.index))
            if isinstance(got, list) and got:
                raise _ambiguous(
                    file,
                    got,
                    len(old),
                    who,
                    what="",
                    rung=hits[0].rung,
                    why=_after(cursor) + ", and nowhere as sent",
                    tip="copy the lines exactly, with an '@@ line' or context that only the "
                    "place you mean has.",
                )
            if hits:
                hit = next(h for h in hits if h.line == got)
                return _tolerant(file, hit, old, new, chunk, who, cursor)
    for old, new in tries:
        if new == old or len(LF.join(new).strip()) < ALREADY_CHARS:
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
    file: ChunkFile,
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
    raise _ambiguous(
        file,
        [h.line for h in hits] + [at],
        len(pattern),
        who,
        what=what,
        rung=hits[0].rung,
        why=_after(cursor) + f": as sent at line {at + 1}, and before it only so",
        tip="copy the lines exactly from the place you mean, with an '@@ line' or context "
        "that only it has.",
        data={"exact_line": at + 1},
    )


_TELL_APART = (
    "Start the chunk with an '@@ line' that comes after the places before the one you mean "
    "(the nearest line above it that only it has), or add context lines that only it has; "
    "end it with '*** End of File' if it belongs at the end of the file."
)
_MAX_PLACES = 20  # places of one chunk listed (and looked for) in a refusal


def _refuse_other_places(
    file: ChunkFile,
    old: Sequence[str],
    cursor: int,
    at: int,
    who: _Chunk,
    chunks: Sequence[UpdateChunk],
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
    got = choose(where, bound=file.bound(chunks, who.index))
    if isinstance(got, int):
        return
    raise _ambiguous(
        file,
        got,
        len(old),
        who,
        what="",
        rung=rung,
        why=_after(cursor) + ("" if rung == "exact" else ", the first as sent"),
        tip="add an '@@ line' that only the place you mean has before it, or '*** End of "
        "File' if it belongs at the end of the file (Codex would take the first).",
        more=len(where) >= _MAX_PLACES,
    )


def _after(cursor: int) -> str:
    """Where the search for a chunk started, for a refusal (nothing at the file's start)."""
    return f" after line {cursor}" if cursor else ""


def _ambiguous(
    file: ChunkFile,
    starts: Sequence[int],
    size: int,
    who: _Chunk,
    *,
    what: str,
    rung: str,
    why: str,
    tip: str,
    more: bool = False,
    data: dict[str, Any] | None = None,
    suggestions: Sequence[str] = (_TELL_APART,),
) -> AmbiguousMatch:
    """AMBIGUOUS_MATCH for a chunk (:func:`editguard.core.formats.place.refusal.ambiguous`)."""
    return ambiguous(
        file.lines,
        starts,
        size,
        what=f"{who.name}: {what}" if what else who.name,
        rung=rung,
        why=why,
        tip=tip,
        more=more,
        data=who.data(**(data or {})),
        path=who.path,
        where=who.where,
        suggestions=suggestions,
    )


_ALREADY = (
    "its new lines are in the file already, as a patch sent a second time finds them; nothing "
    "was changed there"
)


def _already(
    index: int, start: int, stop: int, file: ChunkFile, note: str | None = None
) -> PlacedChunk:
    """A chunk whose new lines are ``file.lines[start:stop]`` already: placed there, unchanged."""
    lines = tuple(file.lines[start:stop])
    return PlacedChunk(index, start, stop, lines, note=note or _ALREADY, already=True)


def _only_place(file: ChunkFile, lines: Sequence[str], cursor: int) -> int | None:
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
    file: ChunkFile,
    hit: SeekHit,
    old: Sequence[str],
    new: Sequence[str],
    chunk: UpdateChunk,
    who: _Chunk,
    cursor: int,
) -> PlacedChunk:
    """The chunk placed where the ladder found it, its new lines corrected the same way."""
    structure = _structure(chunk, old, new)
    start, stop = hit.line, hit.line + len(old)
    found = file.lines[start:stop]
    rung = used(hit, found)
    try:
        written = file.correct(hit, new, structure)
    except OnlyIgnored:
        # The chunk changes only what the rung ignores: the file already reads as the new lines.
        return PlacedChunk(
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
        raise uncorrectable(
            file.lines,
            start,
            stop,
            what=who.name,
            rung=hit.rung,
            reason=str(exc),
            search=LF.join(old),
            data=who.data(),
            path=who.path,
            where=who.where,
            fix="Copy the chunk's lines exactly from the numbered lines above.",
        ) from None
    done = file.done_around(start, found, written, cursor, chunk.kinds)
    if done is not None:
        return _already(who.index, done, done + len(written), file)
    note = explain(hit, found, "the chunk")
    return PlacedChunk(who.index, start, stop, tuple(written), rung, note, structure)


def _numbers(lines: Sequence[int]) -> str:
    shown = ", ".join(map(str, lines[:20]))
    return shown + (f" and {len(lines) - 20} more" if len(lines) > 20 else "")


def _numbered(lines: Sequence[str], start: int, stop: int) -> str:
    start, stop = max(0, start), min(len(lines), stop)
    return listing([excerpt(line, 500) for line in lines[start:stop]], start + 1)


def _not_found(
    file: ChunkFile, pattern: Sequence[str], cursor: int, who: _Chunk, *, what: str
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
