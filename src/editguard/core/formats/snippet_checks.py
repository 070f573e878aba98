"""The checks by which :mod:`editguard.core.formats.snippet`'s merge refuses what its rules
cannot decide, and keeps the file's unchanged lines: a blank line at a segment's edge that the
file's kept text does not settle, an exact placement that a reading one indentation shift off
also completes, a segment line that differs from the file's only in what the rung ignores.

The merger's parts (the segments, the anchors, the placement) are defined here too, so the
merger and its checks share them. Pure: lists of lines in, errors out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from editguard.core.correct import paired_lines
from editguard.core.document import LF, Document
from editguard.core.formats.place.refusal import uncorrectable
from editguard.core.ladder import rung_named
from editguard.core.listing import excerpt
from editguard.core.seek import INDENT, LADDER, NUMBERS, SeekHit, seek
from editguard.errors import AmbiguousMatch, NoMatch

# The ladder for anchors: exact first, then the tolerant rungs, none with pasted line numbers.
TOLERANT = tuple(r for r in LADDER[1:] if NUMBERS not in r.tolerances)
# The rungs that read a line at another indentation than the file's.
SHIFTED = tuple(r for r in TOLERANT if INDENT in r.tolerances)


@dataclass(frozen=True, slots=True)
class Segment:
    """Snippet lines ``first`` to ``last`` (0-based, both non-blank, no marker between)."""

    first: int
    last: int


@dataclass(frozen=True, slots=True)
class Anchor:
    """A snippet line (0-based) found in the file at ``places`` (0-based lines, in order) on
    rung ``rung``; ``hits``: the ladder's hit at each place (none on the exact rung)."""

    line: int
    segment: int
    places: tuple[int, ...]
    rung: str
    hits: dict[int, SeekHit]


def anchor_shift(anchor: Anchor, place: int) -> int:
    """The indentation shift at which ``anchor`` matched at ``place`` (0 when exactly)."""
    hit = anchor.hits.get(place)
    return hit.shift if hit is not None and INDENT in rung_named(hit.rung).tolerances else 0


class Checks:
    """The checks, as a part of the merger (which sets these attributes and methods)."""

    doc: Document
    snippet: list[str]
    lines: list[str]
    lo: int
    hi: int
    name: str
    within: str
    exact: bool

    def _chain(self, anchors: Sequence[Anchor]) -> list[int]:
        raise NotImplementedError

    def _quoted(self, line: int) -> str:
        raise NotImplementedError

    def _indent_unit(self) -> int:
        raise NotImplementedError

    def _no_shifted_reading(self, anchors: Sequence[Anchor], chain: Sequence[int]) -> None:
        """Refuse a placement that takes an anchor on the exact rung when the anchors, read
        as one indentation shift off the file's (the way a snippet pasted one level off
        reads), also have a complete placement: which one the snippet means cannot be told.

        Raises:
            AmbiguousMatch: naming the first anchor placed otherwise.
        """
        if self.exact or not any(a.rung == "exact" for a in anchors):
            return
        shifted: list[Anchor] = []
        for anchor in anchors:
            hits = [
                h
                for h in seek(
                    self.lines,
                    [self.snippet[anchor.line]],
                    start=self.lo,
                    end=self.hi,
                    ladder=SHIFTED,
                    indent_unit=self._indent_unit(),
                )
                if h.shift
            ]
            if not hits:
                return
            shifted.append(
                Anchor(
                    anchor.line,
                    anchor.segment,
                    tuple(h.line for h in hits),
                    hits[0].rung,
                    {h.line: h for h in hits},
                )
            )
        try:
            other = self._chain(shifted)
        except AmbiguousMatch:
            other = None
        except NoMatch:
            return
        k = next((k for k, x in enumerate(chain) if other is None or other[k] != x), 0)
        anchor = anchors[k]
        where = f"at line {other[k] + 1}" if other is not None else "at other places"
        raise AmbiguousMatch(
            f"line {anchor.line + 1} of the snippet, {self._quoted(anchor.line)}, is line "
            f"{chain[k] + 1} of {self.within} exactly, but read with the snippet's lines one "
            f"indentation shift off the file's, its anchors are all in {self.within} too, in "
            f"order, {where}: which the snippet means cannot be told",
            path=self.doc.name or None,
            data={"snippet_line": anchor.line + 1, "lines": [chain[k] + 1]},
            suggestions=[
                "Copy the lines with the file's indentation, and keep one more line next to "
                "each marker that only the place you mean has."
            ],
        )

    def _blank_edges(
        self,
        marks: Sequence[bool],
        segments: Sequence[Segment],
        chain: Sequence[int],
        anchors: Sequence[Anchor],
    ) -> None:
        """Refuse a segment with a blank line between its edge and a marker (or the snippet's
        edge) where the file's
        line beyond the anchor, on that side, is not blank: the snippet then says the file has a
        blank line there, and whether the marker's stretch ends before it (lines deleted) or a
        blank line is added cannot be told.

        Raises:
            AmbiguousMatch: naming the blank line of the snippet and the file's line.
        """
        place = {a.line: x for a, x in zip(anchors, chain, strict=True)}
        for seg in segments:
            for edge, step in ((seg.first, -1), (seg.last, 1)):
                i = edge + step
                if not (0 <= i < len(self.snippet)) or marks[i] or self.snippet[i].strip():
                    continue
                beyond = place[edge] + step
                if self._one_blank_run(place[edge], step, sorted(chain)):
                    continue
                blank = edge + step
                inside = self.lo <= beyond < self.hi
                if inside and not self.lines[beyond].strip():
                    where = (
                        "a blank line there, and more blank lines further in the text the "
                        "marker keeps: which of them is the snippet's blank line"
                    )
                else:
                    shown = (
                        f"line {beyond + 1} of {self.name}, "
                        f"{excerpt(self.lines[beyond].strip(), 80)!r}"
                        if inside
                        else f"the {'start' if step < 0 else 'end'} of {self.within}"
                    )
                    where = (
                        f"{shown}: whether the lines up to a blank line further on are deleted "
                        "or a blank line is added"
                    )
                raise AmbiguousMatch(
                    f"line {blank + 1} of the snippet is blank, next to line {edge + 1} "
                    f"({self._quoted(edge)}, line {place[edge] + 1} of {self.name}), and next "
                    f"to that line the file has {where} cannot be told",
                    path=self.doc.name or None,
                    data={"snippet_line": blank + 1, "line": place[edge] + 1},
                    suggestions=[
                        "Keep the file's line next to the marker in the snippet (or drop the "
                        "blank line), or use edit_file for this change."
                    ],
                )

    def _one_blank_run(self, at: int, step: int, chain: Sequence[int]) -> bool:
        """Whether the file's lines kept beyond anchor place ``at`` on side ``step`` (up to the
        next anchor's place, or the window's edge) start with blank lines and have no other
        blank line: then the snippet's blank line is that one, and no other reading is left."""
        if step > 0:
            stop = next((x for x in chain if x > at), self.hi)
            kept = self.lines[at + 1 : stop]
        else:
            start = max((x for x in chain if x < at), default=self.lo - 1) + 1
            kept = self.lines[start:at][::-1]
        blank = [not line.strip() for line in kept]
        if not blank or not blank[0]:
            return False
        run = blank.index(False) if False in blank else len(blank)
        return not any(blank[run:])

    def _keep_unchanged(
        self, seg: Segment, a: int, b: int, hit: SeekHit, written: list[str]
    ) -> list[str]:
        """The segment's lines that equal the file's lines ``a`` to ``b`` on the rung, written
        as the file has them (their trailing spaces, a whitespace-only line), as edit_file keeps
        old_text's lines: a correction never reaches the file's unchanged lines.

        Raises:
            NoMatch: a line between the anchors differs from the file's only in what the rung
                ignores besides its indentation (trailing whitespace, punctuation): the same
                slip as the anchors', or the change itself, cannot be told.
        """
        found = self.lines[a : b + 1]
        new = self.snippet[seg.first : seg.last + 1]
        out = list(written)
        for i, j, equal in paired_lines(rung_named(hit.rung), hit.tab, found, written):
            if not equal:
                # A changed line that ends as its file line does keeps that ending.
                tail = found[i][len(found[i].rstrip()) :]
                if tail and new[j].endswith(tail) and not new[j].endswith(" " + tail):
                    out[j] = written[j].rstrip() + tail
                continue
            inner = 0 < j < len(new) - 1
            if inner and new[j].lstrip() != found[i].lstrip() and found[i].strip():
                raise uncorrectable(
                    self.lines,
                    a,
                    b + 1,
                    what=f"lines {seg.first + 1}-{seg.last + 1} of the snippet",
                    rung=hit.rung,
                    reason=f"line {seg.first + j + 1} of the snippet differs from line "
                    f"{a + i + 1} of {self.name} only in what that rung ignores, so whether it "
                    "is the same slip or the change itself cannot be told",
                    search=LF.join(new),
                    path=self.doc.name or None,
                    within=self.within,
                )
            out[j] = found[i]
        return out


__all__ = ["SHIFTED", "TOLERANT", "Anchor", "Checks", "Segment", "anchor_shift"]
