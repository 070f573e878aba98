"""An apply_patch update's file and the plan its placed chunks make.

``ChunkFile`` is the document's lines as Codex splits them (a
:class:`~editguard.core.formats.place.lines.FileLines`, with every search a chunk needs), their
offsets in its text, and the order constraint of the update's chunks. ``PlacedChunk`` is one
chunk's place and the lines it writes there; :func:`compiled` makes the plan of them all: one
replacement per run of lines a chunk changes, in the order Codex writes them, new breaks in the
file's usual ending, and each chunk's line in the new file.

Pure: a document in, a plan out. :mod:`editguard.core.formats.codex_patch` places the chunks.
"""

from __future__ import annotations

import itertools
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from editguard.core.document import LF, Document, code_of
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.formats.codex_parse import UpdateChunk
from editguard.core.formats.place.lines import FileLines, lines_of
from editguard.core.formats.place.order import forms, latest_starts
from editguard.core.formats.place.refusal import overlapping
from editguard.core.plan import Plan, Replacement
from editguard.core.seek import Opcode, line_opcodes
from editguard.errors import Frame, error_context

# -- the update of one file -----------------------------------------------------------------


class ChunkFile(FileLines):
    """The document's lines as Codex splits them, their offsets in its text, and the order
    constraint of the update's chunks, made once."""

    def __init__(self, doc: Document, *, passes: int, allowance: int) -> None:
        text = doc.text
        lines = lines_of(text)
        super().__init__(lines, text, passes=passes, allowance=allowance)
        self.doc = doc
        self.starts = array("q", itertools.accumulate((len(x) + 1 for x in lines), initial=0))
        self._bounds: list[int | None] | None = None
        self._old_block: list[int] = []  # each chunk's old lines' block

    def span(self, first: int, stop: int) -> tuple[int, int]:
        """The text offsets of lines ``first`` to ``stop`` (excluded), line breaks included."""
        end = len(self.doc.text)  # one past it, after a last line without a break
        return min(self.starts[first], end), min(self.starts[stop], end)

    def at_end(self, pattern: Sequence[str], cursor: int) -> int | None:
        """Where ``pattern`` ends the file exactly, at or after ``cursor``."""
        at = len(self.lines) - len(pattern)
        ok = at >= cursor and self.lines[at:] == list(pattern)
        return at if ok else None

    def earliest_end(self, pattern: Sequence[str], cursor: int) -> int | None:
        """The first line after the earliest place at or after ``cursor`` where ``pattern``
        could match on any rung: no rung places it earlier, so a ``None`` here means no rung
        places it at all."""
        keys = self.keys()
        ends = [
            at + len(form)
            for form in forms(pattern)
            if (at := keys.first(form, cursor, len(self.lines) - len(form))) is not None
        ]
        return min(ends, default=None)

    def bound(self, chunks: Sequence[UpdateChunk], index: int) -> int | None:
        """The last line chunk ``index``'s old lines may start at with room for the chunks
        after it (and their ``@@`` lines), which must follow it in the file."""
        if self._bounds is None:
            blocks: list[list[tuple[str, ...]]] = []
            for chunk in chunks:
                if chunk.context is not None:
                    blocks.append(forms([chunk.context]))
                self._old_block.append(len(blocks))
                tries = forms(chunk.old) if chunk.old else []
                if chunk.old[-1:] == ("",) and len(chunk.old) > 1:
                    tries += forms(chunk.old[:-1])
                blocks.append(tries)
            self._bounds = latest_starts(self.keys(), blocks)
        return self._bounds[self._old_block[index]]


@dataclass(frozen=True, slots=True)
class PlacedChunk:
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


def _key(place: PlacedChunk, start: int, stop: int) -> _RunKey:
    if place.append:
        rank = 2
    elif place.start < start:
        rank = 0
    else:
        rank = 1 if place.start == place.stop else 3
    return start, stop, rank, place.index


def compiled(file: ChunkFile, placed: list[PlacedChunk], total: int) -> Compiled:
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
            raise overlapping(
                first,
                second,
                start + 1,
                what=f"chunks {first + 1} and {second + 1} change the same lines (line "
                f"{start + 1})",
                tip="a chunk without '-' or context lines adds at the end of the file, or right "
                "after its '@@ line'",
                where=(Frame("chunk", second, total),),
            )
        replacements.append(replacement)
        owners.append(index)
    return Compiled(Plan(tuple(replacements)), _applied(placed, runs))


def _refuse_append_inside(placed: list[PlacedChunk], total: int) -> None:
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
            raise overlapping(
                first,
                second,
                end + 1,
                what=f"chunk {appends[0].index + 1} adds lines at the end of the file, before "
                f"its final empty line (line {end + 1}), which is inside the lines of chunk "
                f"{place.index + 1}",
                tip=f"add those lines in chunk {place.index + 1} itself, or after an '@@ line' "
                "that names the line they follow",
                where=(Frame("chunk", second, total),),
            )


def _applied(
    placed: list[PlacedChunk], runs: list[tuple[_RunKey, tuple[str, ...]]]
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


__all__ = ["ChunkFile", "PlacedChunk", "compiled"]
