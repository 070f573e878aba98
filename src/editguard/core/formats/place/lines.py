"""A file's lines and the searches that place a block in them, made once per file.

:class:`FileLines` holds what every search needs and builds it when first asked: an index of
where each line is, the lines joined between line breaks (a block of lines is then one
``str.find``, at C speed, however common its lines), their keys as every rung compares them
(:class:`~.order.KeyText`), the file's indentation unit, tabs and typographic characters.

Searches away from a stated place share one budget of lines (``passes`` times the file plus an
``allowance``): each may cover up to the whole file, so thousands of misplaced blocks would
cost blocks x file. Past it, :class:`Spent` is raised (:meth:`FileLines.charge`): the caller
stops searching and says so.

Pure: lines in, positions out.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from editguard.core.formats.place.order import KeyText, forms
from editguard.core.seek import (
    LADDER,
    MAX_PLACES,
    TYPOGRAPHIC,
    Opcode,
    Rung,
    SeekHit,
    correct,
    file_uses_tabs,
    indent_unit,
    seek,
)

LF = "\n"
MAX_LISTED = 20  # places of one block looked for (and listed) when it fits at several
ALREADY_CHARS = 8  # characters of added text below which its being there says nothing


class Spent(Exception):
    """The search budget of one :class:`FileLines` is used up."""


def lines_of(text: str) -> list[str]:
    """A text's lines without their breaks (none after a final break; none for ``""``)."""
    return (text[:-1] if text.endswith(LF) else text).split(LF) if text else []


def _joined(lines: Sequence[str]) -> tuple[str, list[int]]:
    """``lines`` as one text, each between line breaks, and where each line starts in it."""
    starts = list(itertools.accumulate((len(x) + 1 for x in lines), initial=1))
    return LF + LF.join(lines) + LF, starts


def _first_place(text: str, starts: list[int], needle: str, a: int, b: int) -> int | None:
    """The first line from ``a`` to ``b`` included where the lines of ``needle`` (joined, each
    between line breaks) start in ``text`` (as :func:`_joined` gives it). ``str.find`` is
    linear for a long needle, however common its lines are."""
    if b < a:
        return None
    at = text.find(needle, starts[a] - 1, starts[b] - 1 + len(needle))
    return None if at < 0 else bisect_left(starts, at + 1)


class FileLines:
    """The lines of a file (``text``: the file's text, for the typographic characters it uses;
    ``first_line``: the number of its first line, which pasted line numbers must be) and the
    searches of the formats that place blocks of lines in it."""

    compare_limit = 4  # lines compared at candidate places, per line searched, at most

    def __init__(
        self,
        lines: list[str],
        text: str = "",
        *,
        first_line: int = 1,
        passes: int = 50,
        allowance: int = 1_000_000,
    ) -> None:
        self.lines = lines
        self.text = text
        self.first_line = first_line
        self.budget = passes * len(lines) + allowance
        self.spent = False
        self._index: dict[str, list[int]] | None = None
        self._joined: tuple[str, list[int]] | None = None
        self._keys: KeyText | None = None
        self._unit: int | None = None
        self._tabs: bool | None = None
        self._typographic: frozenset[str] | None = None

    def charge(self, lines: int) -> None:
        """Count ``lines`` searched against the budget; past it, stop searching."""
        self.budget -= max(lines, 0)
        if self.budget < 0:
            self.spent = True
            raise Spent

    def keys(self) -> KeyText:
        """Every line's text as all rungs compare it, joined (made once)."""
        if self._keys is None:
            self._keys = KeyText(self.lines)
        return self._keys

    def unit(self) -> int:
        if self._unit is None:
            self._unit = indent_unit(self.lines)
        return self._unit

    # -- exactly -----------------------------------------------------------------------

    def exact_at(self, at: int, old: Sequence[str], low: int, *, at_eof: bool = False) -> bool:
        """Whether ``old`` is at line ``at`` (not before ``low``; ending the file, ``at_eof``)."""
        n = len(self.lines)
        if at < low or at + len(old) > n or (at_eof and at + len(old) != n):
            return False
        return self.lines[at : at + len(old)] == list(old)

    def find(self, pattern: Sequence[str], cursor: int) -> int | None:
        """The first line at or after ``cursor`` where ``pattern`` starts exactly."""
        if not pattern:
            return cursor
        text, starts = self.joined()
        return _first_place(
            text, starts, LF + LF.join(pattern) + LF, cursor, len(self.lines) - len(pattern)
        )

    def exact_places(self, old: Sequence[str], low: int, high: int, at_eof: bool) -> list[int]:
        """Where ``old`` starts exactly, between ``low`` and ``high`` included, in text order:
        every place up to :data:`MAX_LISTED` (one place is a block's place at any distance;
        several are a choice). Only the places of the block's rarest line are compared, found
        in an index of the file's lines made once: a block costs its candidates, not the
        file; a block of common lines is one search of the joined text. Charged."""
        if high < low:
            return []
        if at_eof:  # a block that ends where the file ends
            return [high] if self.exact_at(high, old, low, at_eof=True) else []
        if self.spent:
            raise Spent
        index = self._line_index()
        k, positions = min(
            ((k, index.get(line, [])) for k, line in enumerate(old)), key=lambda kp: len(kp[1])
        )
        candidates = positions[bisect_left(positions, low + k) : bisect_right(positions, high + k)]
        found: list[int] = []
        if len(candidates) * len(old) <= self.compare_limit * (high - low + len(old)):
            self.charge(len(candidates) + len(old))
            want = list(old)
            for pos in candidates:
                at = pos - k
                if self.lines[at : at + len(want)] == want:
                    found.append(at)
                    if len(found) == MAX_LISTED:
                        break
            return found
        # Comparing at every place of a common line would cost those places times the block.
        self.charge(high - low + 1 + len(old))
        text, starts = self.joined()
        needle = LF + LF.join(old) + LF
        place = _first_place(text, starts, needle, low, high)
        while place is not None and len(found) < MAX_LISTED:
            found.append(place)
            place = _first_place(text, starts, needle, place + 1, high)
        return found

    def done_around(
        self,
        at: int,
        old: Sequence[str],
        new: Sequence[str],
        low: int,
        kinds: Sequence[str] = (),
    ) -> int | None:
        """Where ``new`` starts when the file already reads as it around ``old``, found at
        ``at`` (not before ``low``): new lines that hold the old ones (lines added before or
        after them) and are there in full. A block sent again would add its lines twice.

        ``kinds``, the block's line kinds (``" "``, ``"-"``, ``"+"``) when known, say where its
        added lines go: only there are they looked for (:func:`added_before`). Lines that
        merely repeat (a fourth ``a`` added above three) are otherwise found beside the old
        ones at a place the block never put them, and a first attempt taken for a retry."""
        if len(new) <= len(old):
            return None
        if kinds:
            before = added_before(kinds)
            offsets = range(0) if before is None else range(before, before + 1)
        else:
            offsets = range(len(new) - len(old) + 1)
        for d in offsets:
            start = at - d
            if start < low or tuple(new[d : d + len(old)]) != tuple(old):
                continue
            if self.lines[start : start + len(new)] == list(new):
                return start
        return None

    def added_already(self, new: Sequence[str], at: int, low: int) -> bool:
        """Whether lines a block only adds are at ``at`` already (not before ``low``), and are
        enough text that a second copy is no edit a model means (a lone ``}`` may well be
        added twice)."""
        return (
            low <= at
            and len(LF.join(new).strip()) >= ALREADY_CHARS
            and self.lines[at : at + len(new)] == list(new)
        )

    def joined(self) -> tuple[str, list[int]]:
        """The lines as one text between line breaks, and where each starts (made once)."""
        if self._joined is None:
            self._joined = _joined(self.lines)
        return self._joined

    def _line_index(self) -> dict[str, list[int]]:
        """Where each line of the file is (made once, when a block is not where it said)."""
        if self._index is None:
            self.charge(len(self.lines))
            index: dict[str, list[int]] = {}
            for number, line in enumerate(self.lines):
                index.setdefault(line, []).append(number)
            self._index = index
        return self._index

    # -- on the ladder -----------------------------------------------------------------

    def loose(self, old: Sequence[str], low: int) -> list[SeekHit]:
        """What :func:`~editguard.core.seek.seek` finds of ``old`` from line ``low`` on the
        tolerant rungs, looking only where every line's text (as every rung compares it) is
        the block's, found with linear searches: one ``seek`` of the whole file checks every
        place of the block's rarest line, which costs the file times the block when that
        line is common. Charged."""
        lines = self.lines
        high = len(lines) - len(old)
        if high < low:
            return []
        self.charge(high - low + 1 + len(old))
        keys = self.keys()
        candidates: set[int] = set()
        for variant in forms(old):
            found: list[int] = []
            at = keys.first(variant, low, high)
            while at is not None and len(found) <= MAX_PLACES:
                found.append(at)
                at = keys.first(variant, at + 1, high)
            if len(found) <= MAX_PLACES:  # more: no rung could pick one (as seek has it)
                candidates.update(found)
        rank = {rung.name: k for k, rung in enumerate(LADDER)}
        best: list[SeekHit] = []
        self.charge(len(candidates) * len(old))
        for at in sorted(candidates):
            hits = seek(
                lines, old, start=at, end=at + len(old), ladder=LADDER[1:], indent_unit=self.unit()
            )
            if hits and (not best or rank[hits[0].rung] < rank[best[0].rung]):
                best = hits
            elif hits and hits[0].rung == best[0].rung:
                best += hits
        # On a rung, seek prefers the block read without padding after its numbers.
        if any(not hit.padded for hit in best):
            best = [hit for hit in best if not hit.padded]
        return best

    def seek(
        self,
        pattern: Sequence[str],
        cursor: int,
        before: int | None = None,
        ladder: Sequence[Rung] = LADDER[1:],
    ) -> list[SeekHit]:
        """The places of ``pattern`` at or after ``cursor`` (and before line ``before``) on
        the first rung of ``ladder`` that finds any; ``[]`` once the budget is spent."""
        end = None if before is None else before - 1 + len(pattern)
        try:
            self.charge((len(self.lines) if end is None else min(end, len(self.lines))) - cursor)
        except Spent:
            return []
        return seek(
            self.lines,
            pattern,
            start=cursor,
            end=end,
            ladder=ladder,
            first_line=self.first_line,
            indent_unit=self.unit(),
        )

    def correct(
        self, hit: SeekHit, new: Sequence[str], structure: Sequence[Opcode] | None = None
    ) -> list[str]:
        """``new`` corrected as the hit's old lines were (:func:`~editguard.core.seek.correct`),
        with the file's tabs and typographic characters."""
        if self._tabs is None:
            self._tabs = file_uses_tabs(self.lines)
            self._typographic = frozenset(c for c in TYPOGRAPHIC if c in self.text)
        found = self.lines[hit.line : hit.line + len(hit.pattern)]
        return correct(
            hit,
            found,
            new,
            file_uses_tabs=self._tabs,
            file_typographic=self._typographic or frozenset(),
            structure=structure,
        )


__all__ = ["ALREADY_CHARS", "MAX_LISTED", "FileLines", "Spent", "lines_of"]


def added_before(kinds: Sequence[str]) -> int | None:
    """How many lines a block of these line kinds adds before its old lines, when it only adds
    lines at its edges (before its first old line, after its last); ``None`` otherwise: then a
    copy of its new lines never holds its old ones together."""
    if "-" in kinds:
        return None
    first = next((i for i, kind in enumerate(kinds) if kind != "+"), len(kinds))
    last = len(kinds) - next((i for i, kind in enumerate(reversed(kinds)) if kind != "+"), 0)
    if "+" in kinds[first:last]:
        return None
    return first
