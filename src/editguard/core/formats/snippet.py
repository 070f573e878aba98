"""``edit_snippet``'s language: a snippet of the new text in which lines that are only an
elision marker (``# ... existing code ...``, :mod:`editguard.core.markers`) stand for the file's
text that stays, merged into the file by rules, never by a guess.

The window is the whole file, or the lines of one symbol (``span``). The snippet's lines
between markers are *segments*; blank lines at a segment's edges are not part of it (models
add and drop blank lines around a marker: the file's own stay). Each segment's first and last
line are its *anchors*: lines of the file, found in the window on the match ladder (exactly
first, then the first tolerant rung that finds the line anywhere in the window; pasted line
numbers are no rung here, a snippet is new text). Then:

* the anchors must be in file order, each after the one before (a segment's last anchor after
  its first, the next segment's first after it); a line between two anchors is kept by a
  marker or replaced by a segment, nothing else;
* of all the ways to place every anchor in that order there must be exactly one: an anchor
  whose places the order cannot tell apart is ``AMBIGUOUS_MATCH``, showing each place (order
  rules places out both ways: a place of an anchor that leaves no room for the anchors after
  it is no place);
* a segment replaces the file's lines from its first anchor's place to its last's (its anchor
  lines are written as the file has them, with the ladder's correction carried to the whole
  segment, as edit_file does with new_text, but never to the segment's lines that equal the
  file's lines between the anchors on the rung: those stay the file's bytes); a marker keeps
  the file's lines between the anchors around it byte for byte, however many (none, too);
* a blank line at a segment's edge (next to a marker, or the snippet's edge) says the file
  has a blank line there: it must be the file's line beyond the anchor, and the only blank
  run in the text the marker keeps, else it is refused (lines deleted before it, or a blank
  line added, cannot be told apart);
* a placement that takes an anchor on the exact rung is refused when the anchors read one
  indentation shift off the file's also have a complete placement (a snippet pasted one
  level off whose edge lines, ``*/``, ``}``, are exactly elsewhere);
* the window's text before the first anchor and after the last stays: a snippet that starts
  (ends) with code starts (ends) where its first (last) line is found, and a snippet that
  starts (ends) with a marker keeps the window's start (end), the symbol's first lines among
  them when ``span`` is given. Both are decided; nothing else is implied;
* a snippet without any marker is the whole symbol's new text (as edit_symbol's new_body);
  of a file, it starts where its first line is found and ends where its last line is found
  (each at one place), so it is the whole new text only when those are the file's first and
  last lines (or the file is empty); one that changes nothing is refused.

Refused: an empty snippet, one that is only markers, two markers with only blank lines between
them, a line that is a marker in another comment syntax than the file's and not a line of the
window (as code it would be written, or make the snippet the whole new text:
``INVALID_REQUEST``); an anchor not found (``NO_MATCH``, with the most similar regions),
an anchor found only before the one it must follow (``NO_MATCH``, the order named), a tie
(``AMBIGUOUS_MATCH``), a ladder correction that cannot be carried over, or a line between
the anchors that differs from the file's only in what the rung ignores (the anchors' slip or
the change itself: ``NO_MATCH``).

A comment line that looks like a marker but is the file's own text: a marker-like snippet line
that the window has next to the same neighbour line as in the snippet may be either. The
snippet is merged both ways; when only one works, or both write the same text, that is the
merge; when both work and differ, it is refused (``AMBIGUOUS_MATCH``), never chosen.

Pure: a :class:`~editguard.core.document.Document` and a string in, a
:class:`~editguard.core.formats.Compiled` out.
"""

from __future__ import annotations

from collections.abc import Sequence

from editguard.core.diagnosis import CountMismatch, mismatch_error
from editguard.core.document import LF, Document, normalize_newlines
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.formats.place.refusal import ambiguous, uncorrectable
from editguard.core.formats.snippet_checks import TOLERANT, Checks
from editguard.core.formats.snippet_checks import Anchor as _Anchor
from editguard.core.formats.snippet_checks import Segment as _Segment
from editguard.core.formats.snippet_checks import anchor_shift as _shift
from editguard.core.formats.whole_text import compile_whole_text
from editguard.core.listing import excerpt, listing
from editguard.core.markers import ANY, JSX, Style, is_marker, styles_for
from editguard.core.plan import Plan, Replacement
from editguard.core.seek import (
    INDENT,
    TYPOGRAPHIC,
    OnlyIgnored,
    SeekHit,
    Uncorrectable,
    content_key,
    correct,
    explain,
    file_uses_tabs,
    indent_unit,
    rung_of,
    seek,
    used,
)
from editguard.errors import AmbiguousMatch, EditError, InvalidRequest, NoMatch

# Every comment syntax a marker may be written in, in any file.
_EVERY_STYLE = (*ANY, JSX)


def compile_snippet(
    doc: Document, snippet: str, *, span: tuple[int, int] | None = None, exact: bool = False
) -> Compiled:
    """Merge ``snippet`` into ``doc`` (in lines ``span``, 1-based inclusive, when given; the
    whole file otherwise) by the rules of this module. ``exact``: anchors are found exactly
    only (no tolerant rung).

    Each segment is one :class:`~editguard.core.formats.AppliedEdit`: ``index`` its number,
    ``lines`` the line of the new text where it starts, ``match`` the rung its anchors were
    found on, ``note`` what differed when not exact.

    Raises:
        InvalidRequest: an empty snippet, one that is only markers, two markers in a row.
        NoMatch: an anchor found nowhere in the window, or only out of order; a correction
            that cannot be carried over.
        AmbiguousMatch: an anchor at places the order cannot tell apart; a marker-like line
            that can be the file's comment or a marker, with different results.
        EncodingError: the merged text holds a character the file's encoding cannot store.
    """
    text = normalize_newlines(snippet)
    lines = text[:-1].split(LF) if text.endswith(LF) else text.split(LF)
    styles = styles_for(doc.name)
    marks = [is_marker(line, styles) for line in lines]
    merger = _Merger(doc, lines, span, exact)
    merger.foreign(marks, styles)
    ownable = merger.ownable(marks)
    if not ownable:
        return merger.merge(marks, text)
    as_markers: Compiled | EditError
    as_comments: Compiled | EditError
    try:
        as_markers = merger.merge(marks, text)
    except EditError as exc:
        as_markers = exc
    owned = [m and i not in ownable for i, m in enumerate(marks)]
    try:
        as_comments = merger.merge(owned, text)
    except EditError as exc:
        as_comments = exc
    if isinstance(as_markers, EditError):
        if isinstance(as_comments, EditError):
            raise as_markers
        return as_comments
    if isinstance(as_comments, EditError):
        return as_markers
    if as_markers.plan.apply_to_text(doc.text) == as_comments.plan.apply_to_text(doc.text):
        return as_markers
    first = min(ownable)
    raise AmbiguousMatch(
        f"line {first + 1} of the snippet, {excerpt(lines[first].strip(), 80)!r}, reads as an "
        f"elision marker, but {doc.name or 'the file'} has that comment itself next to the "
        "same line as in the snippet: read as a marker and read as the file's comment, the "
        "snippet merges into different texts, so which is meant cannot be told",
        path=doc.name or None,
        data={"snippet_line": first + 1},
        suggestions=[
            "Send the lines around that comment without a marker next to them, or use "
            "edit_file for this change."
        ],
    )


class _Merger(Checks):
    """One snippet against one document: the window, the file's lines, the searches."""

    def __init__(
        self, doc: Document, lines: list[str], span: tuple[int, int] | None, exact: bool
    ) -> None:
        self.doc = doc
        self.snippet = lines
        self.exact = exact
        self.name = doc.name or "the file"
        text = doc.text
        self.lines = (text[:-1] if text.endswith(LF) else text).split(LF) if text else []
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line) + 1)
        if span is None:
            self.lo, self.hi = 0, len(self.lines)
        else:
            first, last = span
            if not 1 <= first <= last <= len(self.lines):
                raise InvalidRequest(
                    f"span {first}-{last} is not within the {len(self.lines)} lines of {self.name}",
                    data={"field": "span"},
                )
            self.lo, self.hi = first - 1, last
        self.span = span
        self.within = self.name if span is None else f"lines {span[0]}-{span[1]} of {self.name}"
        self._index: dict[str, list[int]] | None = None
        self._unit: int | None = None
        self.bare = False

    # -- the file's own marker-like comments -----------------------------------------------

    def foreign(self, marks: Sequence[bool], styles: tuple[Style, ...]) -> None:
        """Refuse a line that is a marker in another comment syntax than the file's (``//
        ...`` in a Python file) and not a line of the window: taken as code, it would be
        written into the file, or make the snippet the file's whole new text.

        Raises:
            InvalidRequest: naming the line and the file's marker form.
        """
        keys = {content_key(line) for line in self.lines[self.lo : self.hi]}
        for i, line in enumerate(self.snippet):
            if marks[i] or not is_marker(line, _EVERY_STYLE) or content_key(line) in keys:
                continue
            opener, closer = styles[0]
            form = f"{opener} ... existing code ...{' ' + closer if closer else ''}"
            raise InvalidRequest(
                f"line {i + 1} of the snippet, {self._quoted(i)}, is an elision marker in "
                f"another comment syntax than {self.name}'s, so it is no marker here, and as "
                f"code it would be written into the file; a marker in this file is a line "
                f"such as {form!r}",
                data={"field": "snippet", "snippet_line": i + 1, "marker": form},
                suggestions=[f"Write each marker as {form!r}."],
            )

    def ownable(self, marks: Sequence[bool]) -> set[int]:
        """The marker lines of the snippet that the window has itself, next to the same
        neighbour line (compared as every rung compares lines) as in the snippet."""
        out: set[int] = set()
        window = self.lines[self.lo : self.hi]
        keys = [content_key(line) for line in window]
        for i, mark in enumerate(marks):
            if not mark:
                continue
            key = content_key(self.snippet[i])
            before = content_key(self.snippet[i - 1]) if i and not marks[i - 1] else None
            after = (
                content_key(self.snippet[i + 1])
                if i + 1 < len(marks) and not marks[i + 1]
                else None
            )
            for x, k in enumerate(keys):
                if k != key:
                    continue
                if (before and x and keys[x - 1] == before) or (
                    after and x + 1 < len(keys) and keys[x + 1] == after
                ):
                    out.add(i)
                    break
        return out

    # -- the merge ---------------------------------------------------------------------------

    def merge(self, marks: Sequence[bool], text: str) -> Compiled:
        segments = self._segments(marks)
        self.bare = not any(marks)
        if self.bare and self._is_whole():
            return self._whole(text)
        anchors: list[_Anchor] = []
        for k, seg in enumerate(segments):
            anchors.append(self._find(seg.first, k))
            if seg.last != seg.first:
                anchors.append(self._find(seg.last, k))
        chain = self._chain(anchors)
        self._no_shifted_reading(anchors, chain)
        self._blank_edges(marks, segments, chain, anchors)
        at = dict(zip((a.line for a in anchors), zip(chain, anchors, strict=True), strict=True))
        replacements: list[Replacement] = []
        applied: list[AppliedEdit] = []
        delta = 0
        for k, seg in enumerate(segments):
            a, first = at[seg.first]
            b, last = at[seg.last]
            new, rung, note = self._written(seg, a, b, first, last)
            start = self.starts[a]
            end, broken = self._line_end(b)
            written = LF.join(new) + (LF if broken else "")
            replacements.append(Replacement(start, end, written))
            applied.append(AppliedEdit(k, 1, (a + 1 + delta,), rung, note))
            delta += len(new) - (b - a + 1)
        plan = Plan(tuple(replacements))
        if self.bare and plan.apply_to_text(self.doc.text) == self.doc.text:
            a, b = chain[0], chain[-1]
            raise InvalidRequest(
                f"the snippet has no marker line, so it replaces lines {a + 1}-{b + 1} of "
                f"{self.name}, from where its first line is to where its last line is, and it "
                "is their text already: it changes nothing (lines before or after it are not "
                "removed by leaving them out)",
                data={"field": "snippet", "start_line": a + 1, "end_line": b + 1},
                suggestions=[
                    "Send the lines around the change with markers for what stays, use "
                    "edit_file to remove lines, or write_file to replace a whole file."
                ],
            )
        self.doc.check_encodable("".join(r.text for r in replacements))
        return Compiled(plan, tuple(applied))

    def _is_whole(self) -> bool:
        """Whether a snippet without markers is the window's whole new text: a symbol's, or
        the file's when the file is empty or the snippet's first and last lines are the file's
        first and last lines (else it starts and ends where those lines are found)."""
        if self.span is not None or not self.lines:
            return True
        return self.snippet[0] == self.lines[0] and self.snippet[-1] == self.lines[-1]

    def _line_end(self, b: int) -> tuple[int, bool]:
        """Where line ``b`` ends, its line break included, and whether it has one."""
        end = self.starts[b + 1]
        if end > len(self.doc.text):
            return len(self.doc.text), False
        return end, True

    def _whole(self, text: str) -> Compiled:
        """A snippet without markers: the window's whole new text (said in its note, with
        the lines it replaced, as a model may have meant a part)."""
        was = self.hi - self.lo
        now = text.count(LF) + (0 if text.endswith(LF) else 1)
        what = self.within if self.span is not None else f"all of {self.name}"
        note = (
            f"the snippet has no marker line, so it replaced {what} ({was} line"
            f"{'s' * (was != 1)}) with its {now} line{'s' * (now != 1)}"
        )
        if self.span is None:
            compiled = compile_whole_text(self.doc, text)
            return Compiled(compiled.plan, (AppliedEdit(0, 1, (1,), note=note),))
        start = self.starts[self.lo]
        end, broken = self._line_end(self.hi - 1)
        body = text if text.endswith(LF) or not broken else text + LF
        if not broken:
            body = body.removesuffix(LF)
        self.doc.check_writable(body, field="snippet")
        return Compiled(
            Plan((Replacement(start, end, body),)),
            (AppliedEdit(0, 1, (self.lo + 1,), note=note),),
        )

    def _segments(self, marks: Sequence[bool]) -> list[_Segment]:
        """The snippet's segments, refusing a snippet that has none or two markers in a row."""
        lines = self.snippet
        if not any(line.strip() for line, mark in zip(lines, marks, strict=True) if not mark):
            if any(marks):
                raise InvalidRequest(
                    "the snippet is only elision markers: it says nothing to write",
                    data={"field": "snippet"},
                    suggestions=[
                        "Send the lines to change, with a marker for each stretch of the file "
                        "that stays."
                    ],
                )
            raise InvalidRequest(
                "the snippet is empty; send the new text, with markers for what stays (to "
                "empty a file, use write_file)",
                data={"field": "snippet"},
            )
        segments: list[_Segment] = []
        previous: int | None = None  # the last marker line seen
        first: int | None = None
        last = -1
        for i, line in enumerate([*lines, None]):
            if line is not None and not marks[i]:
                if line.strip():
                    first = i if first is None else first
                    last = i
                continue
            if first is not None:
                segments.append(_Segment(first, last))
            elif previous is not None and line is not None:
                raise InvalidRequest(
                    f"lines {previous + 1} and {i + 1} of the snippet are two markers with no "
                    "code between them, so nothing says where the text of the first ends and "
                    "the second begins. The lines:\n"
                    + listing(lines[previous : i + 1], previous + 1),
                    data={"field": "snippet", "lines": [previous + 1, i + 1]},
                    suggestions=["Send one marker there, or the file's lines between them."],
                )
            first = None
            if line is not None:
                previous = i
        return segments

    # -- anchors -----------------------------------------------------------------------------

    def _find(self, line: int, segment: int) -> _Anchor:
        """Snippet line ``line`` in the window: exactly, else on the first tolerant rung that
        finds it anywhere there."""
        wanted = self.snippet[line]
        exact = [x for x in self._line_index().get(wanted, []) if self.lo <= x < self.hi]
        if exact:
            return _Anchor(line, segment, tuple(exact), "exact", {})
        if not self.exact:
            hits = seek(
                self.lines,
                [wanted],
                start=self.lo,
                end=self.hi,
                ladder=TOLERANT,
                indent_unit=self._indent_unit(),
            )
            if hits:
                places = tuple(h.line for h in hits)
                return _Anchor(line, segment, places, hits[0].rung, {h.line: h for h in hits})
        raise self._not_found(line)

    def _not_found(self, line: int) -> EditError:
        text = self.doc.text
        if self.span is not None:
            # Similar lines of the symbol only, at their own line numbers.
            text = LF * self.lo + LF.join(self.lines[self.lo : self.hi]) + LF
        what = f"line {line + 1} of the snippet"
        error = mismatch_error(
            CountMismatch(0, 1, 0, text, (), False), self.snippet[line], "", self.name, None, what
        )
        _, _, rest = error.message.partition(LF)
        error.message = (
            f"{what} is next to a marker or at the snippet's edge, so it must be a line of "
            f"{self.within} (found exactly, or with the match ladder's tolerances) to say where "
            f"the snippet's text goes; it is not there.{LF}{rest}"
        )
        error.data["snippet_line"] = line + 1
        if self.bare:
            error.suggestions.append(
                "A snippet without markers starts and ends where its first and last lines are "
                "found; to replace a whole file, use write_file."
            )
        error.suggestions.append(
            "A new or changed line cannot stand next to a marker: keep at least one unchanged "
            "line of the file between them (or send the whole text without markers)."
        )
        return error

    def _chain(self, anchors: Sequence[_Anchor]) -> list[int]:
        """The one place of each anchor that keeps them all in order, each after the one
        before, and the two anchors of a segment at the same indentation shift (else no
        correction fits the lines between them).

        Raises:
            NoMatch: an anchor is found only before the place of the one before it (or, for a
                segment's last anchor, only at another indentation than its first).
            AmbiguousMatch: the order leaves an anchor two places or more.
        """
        reach: list[list[int]] = []  # the places each anchor can take after those before it
        for k, anchor in enumerate(anchors):
            if not k:
                fit = list(anchor.places)
            elif anchor.segment == anchors[k - 1].segment:
                low: dict[int, int] = {}
                for y in reach[-1]:
                    low.setdefault(_shift(anchors[k - 1], y), y)
                fit = [
                    x
                    for x in anchor.places
                    if (m := low.get(_shift(anchor, x))) is not None and m < x
                ]
            else:
                fit = [x for x in anchor.places if x > reach[-1][0]]
            if not fit:
                raise self._out_of_order(anchors[k - 1], reach[-1][0], anchor)
            reach.append(fit)
        viable = reach[:]
        for k in range(len(anchors) - 2, -1, -1):
            after = viable[k + 1]
            if anchors[k + 1].segment == anchors[k].segment:
                high = {_shift(anchors[k + 1], z): z for z in after}
                viable[k] = [
                    x
                    for x in reach[k]
                    if (m := high.get(_shift(anchors[k], x))) is not None and x < m
                ]
            else:
                viable[k] = [x for x in reach[k] if x < after[-1]]
        for k, anchor in enumerate(anchors):
            if len(viable[k]) > 1:
                raise self._tie(anchor, viable[k])
        return [places[0] for places in viable]

    def _out_of_order(self, previous: _Anchor, floor: int, anchor: _Anchor) -> NoMatch:
        found = ", ".join(str(x + 1) for x in anchor.places[:20])
        prev_line = previous.line + 1
        if any(x > floor for x in anchor.places):
            return NoMatch(
                f"line {anchor.line + 1} of the snippet, {self._quoted(anchor.line)}, is in "
                f"{self.within} after line {floor + 1} (where line {prev_line} of the snippet, "
                f"{self._quoted(previous.line)}, is) only indented otherwise than that line: "
                "the lines of one part of the snippet must be off the file's indentation by "
                "one amount, or match it",
                path=self.doc.name or None,
                data={
                    "snippet_line": anchor.line + 1,
                    "lines": [x + 1 for x in anchor.places[:20]],
                    "after_line": floor + 1,
                    "match": anchor.rung,
                },
                suggestions=["Copy the lines with the file's indentation."],
            )
        shown = [excerpt(self.lines[x], 200) for x in anchor.places[:5]]
        return NoMatch(
            f"line {anchor.line + 1} of the snippet, {self._quoted(anchor.line)}, "
            f"is in {self.within} only at line(s) {found}, none of them after line {floor + 1}, "
            f"the first place of line {prev_line} of the snippet "
            f"({self._quoted(previous.line)}): the snippet's lines must "
            "come in the file's order. Where it is:\n"
            + "\n".join(listing([s], x + 1) for s, x in zip(shown, anchor.places, strict=False)),
            path=self.doc.name or None,
            data={
                "snippet_line": anchor.line + 1,
                "lines": [x + 1 for x in anchor.places[:20]],
                "after_line": floor + 1,
                "match": anchor.rung,
            },
            suggestions=[
                "Put the snippet's parts in the order the file has them, or send one change "
                "per call."
            ],
        )

    def _tie(self, anchor: _Anchor, places: Sequence[int]) -> AmbiguousMatch:
        return ambiguous(
            self.lines,
            places,
            1,
            what=f"line {anchor.line + 1} of the snippet, "
            f"{excerpt(self.snippet[anchor.line].strip(), 80)!r} (next to a marker or at the "
            "snippet's edge),",
            rung=anchor.rung,
            why=" that the order of the snippet's lines allows",
            tip="keep one more line of the file next to it in the snippet, a line that only the "
            "place you mean has, or give the symbol.",
            before=2,
            after=2,
            path=self.doc.name or None,
            data={"snippet_line": anchor.line + 1},
        )

    # -- what a segment writes ---------------------------------------------------------------

    def _written(
        self, seg: _Segment, a: int, b: int, first: _Anchor, last: _Anchor
    ) -> tuple[list[str], str, str | None]:
        """The lines segment ``seg`` writes over file lines ``a`` to ``b``, the rung its
        anchors were found on, and what differed."""
        new = self.snippet[seg.first : seg.last + 1]
        hits = [h for h in (first.hits.get(a), last.hits.get(b)) if h is not None]
        if not hits:
            return new, "exact", None
        tolerances = set().union(*(rung_of(*h.rung.split("+")).tolerances for h in hits))
        shifts = {h.shift for h in hits if INDENT in rung_of(*h.rung.split("+")).tolerances}
        if len(hits) == 1 and seg.first != seg.last and INDENT in tolerances:
            shifts.add(0)  # the other anchor is exact
        if len(shifts) > 1:
            raise uncorrectable(
                self.lines,
                a,
                b + 1,
                what=f"lines {seg.first + 1}-{seg.last + 1} of the snippet",
                rung=rung_of(*tolerances).name,
                reason="their first and last lines are indented by different amounts against "
                "the file, so how to indent the lines between cannot be told",
                search=LF.join(new),
                path=self.doc.name or None,
                within=self.within,
            )
        pattern = (
            (self.snippet[seg.first],)
            if seg.first == seg.last
            else (
                self.snippet[seg.first],
                self.snippet[seg.last],
            )
        )
        found = [self.lines[a]] if seg.first == seg.last else [self.lines[a], self.lines[b]]
        hit = SeekHit(
            a,
            rung_of(*tolerances).name,
            0,
            shifts.pop() if shifts else 0,
            max((h.tab for h in hits), default=0) or self._indent_unit(),
            pattern,
        )
        try:
            written = correct(
                hit,
                found,
                new,
                file_uses_tabs=file_uses_tabs(self.lines),
                file_typographic=frozenset(c for c in TYPOGRAPHIC if c in self.doc.text),
            )
        except OnlyIgnored:  # the segment is its anchors: the file's, without lines between
            return list(found), used(hit, found), None
        except Uncorrectable as exc:
            raise uncorrectable(
                self.lines,
                a,
                b + 1,
                what=f"lines {seg.first + 1}-{seg.last + 1} of the snippet",
                rung=hit.rung,
                reason=str(exc),
                search=LF.join(new),
                path=self.doc.name or None,
                within=self.within,
            ) from None
        written = self._keep_unchanged(seg, a, b, hit, written)
        return written, used(hit, found), explain(hit, found, "the snippet")

    def _quoted(self, line: int) -> str:
        return repr(excerpt(self.snippet[line].strip(), 80))

    def _line_index(self) -> dict[str, list[int]]:
        if self._index is None:
            index: dict[str, list[int]] = {}
            for n, line in enumerate(self.lines):
                index.setdefault(line, []).append(n)
            self._index = index
        return self._index

    def _indent_unit(self) -> int:
        if self._unit is None:
            self._unit = indent_unit(self.lines)
        return self._unit


__all__ = ["compile_snippet"]
