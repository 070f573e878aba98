"""Unified and git diffs (``apply_diff``): the hunks of one file placed, as a plan.

The diff is read by :mod:`editguard.core.formats.diff_parse` (its names are importable from
here too). :func:`compile_hunks` places the hunks of one file, in order, without fuzz (no
context line is ever dropped), with :mod:`editguard.core.formats.place`: each at its stated
line, shifted by the offset of the hunk before it, when its old lines are there; else at the
one place after the previous hunk where they are, however far; else on the first tolerant rung
of :data:`~editguard.core.seek.LADDER` that finds them after the previous hunk, at its one place
there, with the new lines corrected as the old ones were. The hunks must be in file order, so
a place that leaves no room for the hunks after it is out (:mod:`.place.order`); of the places
left, the one at the stated line is taken, or the only one. Unlike GNU ``patch``, which takes
the nearest of several places, a hunk that still fits at several is refused as ambiguous, each
place shown (:mod:`.place.refusal`). A diff whose hunks place in full keeps the order already;
when one is refused, the hunks are placed once more with the order binding at the stated lines
too, so that a hunk whose stated line is the wrong copy of its lines goes to the right one.

Only the runs of removed and added lines become replacements, so context lines keep their
bytes and line endings. The searches for hunks not at their stated line share a budget of
:data:`SEARCH_PASSES` passes over the file plus :data:`SEARCH_LINES` lines; the exact one
compares only the places of the hunk's rarest line.

Pure: text in, plans out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from editguard.core.diagnosis import CountMismatch, mismatch_error
from editguard.core.document import LF, Document, line_offsets
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.formats.diff_parse import FileDiff, Hunk, new_file_text, parse_diff
from editguard.core.formats.place.lines import (
    ALREADY_CHARS,
    MAX_LISTED,
    FileLines,
    Spent,
    lines_of,
)
from editguard.core.formats.place.order import choose, forms, latest_starts
from editguard.core.formats.place.refusal import ambiguous, overlapping, uncorrectable
from editguard.core.listing import excerpt, listing
from editguard.core.plan import Plan, Replacement
from editguard.core.seek import OnlyIgnored, SeekHit, Uncorrectable, explain, used
from editguard.errors import AmbiguousMatch, Frame, NoMatch, OverlappingEdits, error_context

NEAR = 3  # lines shown on each side of the stated place when a hunk is not found
# How many lines of the file (times over it, plus a fixed allowance) one compile_hunks may
# search for hunks not at their stated line: each search covers up to the whole file, so
# thousands of misplaced hunks would cost hunks x file. Past it such a hunk is not found.
SEARCH_PASSES = 50
SEARCH_LINES = 1_000_000


# -- placing hunks -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Placed:
    """Hunk ``index`` placed with its old lines at ``lines[at : at + len(old)]``."""

    index: int
    at: int
    new: tuple[str, ...]  # its new lines as written (corrected on a tolerant rung)
    rung: str
    note: str | None
    offset: int | None
    already: bool = False  # its new lines are there already (a retried diff): nothing to do


_LineRep = tuple[int, int, list[str]]  # lines [a, b) of the file become these lines


_ALREADY = (
    "its new lines are in the file already, as a diff sent a second time finds them; nothing "
    "was changed there"
)


def compile_hunks(doc: Document, diff: FileDiff, *, exact: bool = False) -> Compiled:
    """Compile the hunks of one file's diff into a plan on ``doc`` (the file as read).

    Each hunk lands where its old lines (context and removed) are: at its stated line shifted
    by the previous hunk's offset, else at the one place after the previous hunk where they
    are, else (unless ``exact``) at the one place where the first tolerant rung of the match
    ladder that finds them there does, its new lines corrected the same way. Of several places
    none at the stated line, the first is taken only when the later hunks fit after it alone.
    ``\\ No newline at end of file`` decides the file's last line break.

    Raises:
        NoMatch: a hunk's old lines are nowhere after the previous hunk (with the file's lines
            at the stated place and the most similar region), or its tolerant match cannot be
            carried over to its new lines, or the hunks before it used up the lines one
            call may search for hunks not at their stated line (``search_spent``).
        AmbiguousMatch: the hunk fits at several places, none at its stated line.
        OverlappingEdits: a hunk fits only before the end of the hunk before it.
        EncodingError, InvalidRequest: a new line the file's encoding cannot store (or a NUL).
    """
    return _Placer(doc, diff, exact=exact).run()


def _header_of(hunk: Hunk) -> str:
    if hunk.old_start is None:
        return "@@"
    return f"@@ -{hunk.old_start},{len(hunk.old)} +{hunk.new_start},{len(hunk.new)} @@"


class _Placer:
    def __init__(self, doc: Document, diff: FileDiff, *, exact: bool) -> None:
        self.doc = doc
        self.diff = diff
        self.exact = exact
        text = doc.text
        self.final = text.endswith(LF) or not text
        self.lines = lines_of(text)
        self.file = FileLines(self.lines, text, passes=SEARCH_PASSES, allowance=SEARCH_LINES)
        self.path = doc.name or diff.new_path or diff.old_path or "the file"
        self.total = len(diff.hunks)
        self._bounds: list[int | None] | None = None  # the order constraint, made once
        self.strict = False  # the order constraint binds at the stated line too

    @property
    def spent(self) -> bool:
        return self.file.spent

    # -- the main loop ---------------------------------------------------------------------

    def run(self) -> Compiled:
        """Place every hunk; when that is refused, once more with the order constraint
        binding at the stated lines too: a hunk whose stated place leaves no room for the
        hunks after it goes to a place that does (a diff that places in full already keeps
        the order, so the second pass changes only what the first refused)."""
        budget = self.file.budget
        try:
            return self._pass()
        except (AmbiguousMatch, NoMatch, OverlappingEdits):
            if len(self.diff.hunks) < 2 or self.spent:
                raise
        self.strict, self.file.budget = True, budget
        return self._pass()

    def _pass(self) -> Compiled:
        placed: list[_Placed] = []
        offset = 0  # where the previous hunk was found minus where it said it was
        low = 0  # the first line the next hunk may start at
        for index, hunk in enumerate(self.diff.hunks):
            with error_context(Frame("hunk", index, self.total), path=self.path):
                expected = None
                if hunk.old_start is not None:
                    stated = hunk.old_start - 1 if hunk.old else hunk.old_start
                    expected = stated + offset
                spot = self._place(index, hunk, expected, low, placed)
                size = len(spot.new) if spot.already else len(hunk.old)
                if expected is not None and hunk.old_start is not None:
                    # Where its old lines end against where it said they did: the hunks after
                    # it are that far off too (past new lines already there, by their count).
                    offset = spot.at + size - (expected - offset + len(hunk.old))
                placed.append(spot)
                low = spot.at + size
                self.doc.check_writable(LF.join(spot.new), f"hunks[{index}]")
        return self._compiled(placed)

    def _place(
        self, index: int, hunk: Hunk, expected: int | None, low: int, placed: list[_Placed]
    ) -> _Placed:
        n = len(self.lines)
        old = hunk.old
        at_eof = hunk.old_ends_without_newline or hunk.new_ends_without_newline
        if not old:
            return self._insertion(index, hunk, expected, low, placed)
        if (
            expected is not None
            and self.file.exact_at(expected, old, low, at_eof=at_eof)
            and self._allowed(index, expected)
        ):
            return self._done_around(index, expected, old, hunk, low, expected) or _Placed(
                index, expected, hunk.new, "exact", None, 0
            )
        try:
            places = self.file.exact_places(old, low, n - len(old), at_eof)
            if places:
                at = self._choose(index, hunk, places, expected, "exact")
                return self._done_around(index, at, old, hunk, low, expected) or _Placed(
                    index, at, hunk.new, "exact", None, self._offset(at, expected)
                )
            before = self.file.exact_places(old, 0, min(low - 1, n - len(old)), at_eof)
            if before:
                raise self._overlap(index, hunk, before[0], placed)
            if not self.exact:
                loose = self._loose(index, hunk, expected, low, at_eof)
                if loose is not None:
                    return loose
        except Spent:
            pass
        done = self._new_lines_there(index, hunk, expected, low)
        if done is not None:
            return done
        raise self._not_found(index, hunk, expected)

    def _allowed(self, index: int, at: int) -> bool:
        """Whether the stated place ``at`` may be taken as it is: not in the second pass, or
        it leaves room for the hunks after it."""
        bound = self._bound(index) if self.strict else None
        return bound is None or at <= bound

    def _insertion(
        self, index: int, hunk: Hunk, expected: int | None, low: int, placed: list[_Placed]
    ) -> _Placed:
        """A hunk without old lines: at its stated line (a bare one only where one place is
        left: an empty file, or the end of the file right after the previous hunk)."""
        n = len(self.lines)
        if expected is None:
            there = n - len(hunk.new)
            if self.file.added_already(hunk.new, there, low):
                return self._already(index, there, None, hunk.new)
            if low != n:
                raise self._ambiguous(index, hunk, [low, n], "exact", None)
            return _Placed(index, n, hunk.new, "exact", None, None)
        if self.file.added_already(hunk.new, expected, low):
            return self._already(index, expected, expected, hunk.new)
        if expected < low:
            raise self._overlap(index, hunk, expected, placed)
        if expected > n:
            raise self._not_found(index, hunk, expected)
        return _Placed(index, expected, hunk.new, "exact", None, 0)

    # -- a diff sent again -------------------------------------------------------------

    def _already(self, index: int, at: int, expected: int | None, new: Sequence[str]) -> _Placed:
        """Hunk ``index``, whose ``new`` lines start at line ``at`` already: placed there."""
        return _Placed(index, at, tuple(new), "exact", _ALREADY, self._offset(at, expected), True)

    def _done_around(
        self,
        index: int,
        at: int,
        old: Sequence[str],
        hunk: Hunk,
        low: int,
        expected: int | None,
        new: Sequence[str] | None = None,
    ) -> _Placed | None:
        """The hunk as already applied when the file reads as its new lines (``new``, the
        hunk's own unless corrected) around its old ones, found at ``at``
        (:meth:`FileLines.done_around`, told where the hunk adds its lines)."""
        new = hunk.new if new is None else new
        kinds = tuple(kind for kind, _ in hunk.lines)
        start = self.file.done_around(at, old, new, low, kinds)
        return None if start is None else self._already(index, start, expected, new)

    def _new_lines_there(
        self, index: int, hunk: Hunk, expected: int | None, low: int
    ) -> _Placed | None:
        """A hunk whose old lines are not in the file, as already applied when its new lines
        are: at its stated place, or at their one place after the previous hunk."""
        new = hunk.new
        if new == hunk.old or not new:
            return None
        if expected is not None and self.file.exact_at(expected, new, low, at_eof=False):
            at: int | None = expected
        elif len(LF.join(new).strip()) < ALREADY_CHARS:
            return None
        else:
            try:
                places = self.file.exact_places(new, low, len(self.lines) - len(new), False)
            except Spent:
                places = []
            at = places[0] if len(places) == 1 else None
        if at is None:
            return None
        return self._already(index, at, expected, new)

    def _choose(
        self,
        index: int,
        hunk: Hunk,
        places: list[int],
        expected: int | None,
        rung: str,
    ) -> int:
        """The one place to use of those found on one rung (:func:`.place.order.choose`): of
        the places that leave room for the hunks after it (they must follow it in the file),
        the only one, at any distance from the stated line, or the one exactly at the stated
        line (shifted by the offset of the hunks before); else refuse them all."""
        got = choose(places, stated=expected, bound=self._bound(index))
        if isinstance(got, int):
            return got
        raise self._ambiguous(index, hunk, got, rung, expected)

    def _bound(self, index: int) -> int | None:
        """The last line hunk ``index`` may start at with room for every hunk after it."""
        if self._bounds is None:
            blocks = [forms(h.old) if h.old else [] for h in self.diff.hunks]
            self._bounds = latest_starts(self.file.keys(), blocks)
        return self._bounds[index]

    @staticmethod
    def _offset(at: int, expected: int | None) -> int | None:
        return None if expected is None else at - expected

    # -- the ladder ----------------------------------------------------------------------

    def _loose(
        self, index: int, hunk: Hunk, expected: int | None, low: int, at_eof: bool
    ) -> _Placed | None:
        """The hunk on the first tolerant rung that finds its old lines after ``low``, at the
        nearest place; None when no rung finds them (or the hunk only changes what the rung
        ignores, which is explained as not found)."""
        old = hunk.old
        if not any(line.strip() for line in old):
            return None
        lines = self.lines
        hits = self.file.loose(old, low)
        if at_eof:
            hits = [h for h in hits if h.line + len(old) == len(lines)]
        if not hits:
            return None
        by_line = {h.line: h for h in hits}
        at = self._choose(index, hunk, sorted(by_line), expected, hits[0].rung)
        hit: SeekHit = by_line[at]
        found = lines[at : at + len(old)]
        try:
            new = self.file.correct(hit, hunk.new)
        except OnlyIgnored:
            # It changes only what the rung ignores, and the file already reads so.
            return self._already(index, at, expected, found)
        except Uncorrectable as exc:
            raise uncorrectable(
                lines,
                at,
                at + len(old),
                what=self._name(index, hunk),
                rung=hit.rung,
                reason=str(exc),
                search=LF.join(old) + LF,
                data=self._data(index, hunk, expected),
                path=self.path,
                where=self._where(index),
                fix="Send the hunk's context and removed lines exactly as the file has them.",
            ) from None
        done = self._done_around(index, at, found, hunk, low, expected, new)
        if done is not None:
            return done
        return _Placed(
            index,
            at,
            tuple(new),
            used(hit, found),
            explain(hit, found, "the hunk"),
            self._offset(at, expected),
        )

    # -- the plan ------------------------------------------------------------------------

    def _compiled(self, placed: list[_Placed]) -> Compiled:
        reps: list[_LineRep] = []
        applied: list[AppliedEdit] = []
        shift = 0  # lines added so far minus lines removed
        desired = self.final
        n = len(self.lines)
        for spot in placed:
            hunk = self.diff.hunks[spot.index]
            applied.append(
                AppliedEdit(
                    spot.index,
                    0 if spot.already else 1,
                    (spot.at + shift + 1,),
                    match=spot.rung,
                    note=spot.note,
                    offset=spot.offset,
                    already_applied=spot.already,
                )
            )
            if spot.already:
                continue
            shift += len(hunk.new) - len(hunk.old)
            reps.extend(_runs(hunk, spot))
            if spot.at + len(hunk.old) == n:
                if hunk.new_ends_without_newline:
                    desired = False
                elif hunk.old_ends_without_newline:
                    desired = True
        touches_end = bool(reps) and reps[-1][1] == n
        # The text's last break needs setting unless it is there and stays.
        if not (self.final and desired) and (touches_end or desired != self.final):
            reps = self._with_tail(reps, desired)
        return Compiled(Plan(tuple(self._replacements(reps, desired))), tuple(applied))

    def _with_tail(self, reps: list[_LineRep], desired: bool) -> list[_LineRep]:
        """``reps`` with the last one (or a new one) reaching the end of the file and holding
        at least one whole line when it can, so that the final line break can be set there."""
        n = len(self.lines)
        if reps and reps[-1][1] == n:
            a, _b, tail = reps.pop()
            tail = list(tail)
        elif n:
            a, tail = n - 1, [self.lines[n - 1]]
        else:
            a, tail = 0, []
        while a > 0 and (not tail or a == n):
            if reps and reps[-1][1] == a:
                a, _b, before = reps.pop()
                tail = [*before, *tail]
            else:
                a -= 1
                tail = [self.lines[a], *tail]
        reps.append((a, n, tail))
        return reps

    def _replacements(self, reps: list[_LineRep], desired: bool) -> list[Replacement]:
        text = self.doc.text
        n = len(self.lines)
        wanted = {a for a, _b, _ in reps} | {b for _a, b, _ in reps}
        offsets = line_offsets(self.lines, wanted)
        out = []
        for a, b, new in reps:
            if b == n and not (self.final and desired):
                # The tail: up to the end of the text, its last break as the diff says.
                body = LF.join(new) + (LF if new and desired else "")
                out.append(Replacement(offsets[a] if a < n else len(text), len(text), body))
            else:
                out.append(Replacement(offsets[a], offsets[b], "".join(x + LF for x in new)))
        return out

    # -- errors --------------------------------------------------------------------------

    def _name(self, index: int, hunk: Hunk) -> str:
        return (
            f"hunk {index + 1} of {self.total} of {self.path} ({_header_of(hunk)}, diff line "
            f"{hunk.line})"
        )

    def _where(self, index: int) -> tuple[Frame]:
        """A hunk's frame; the messages that carry :meth:`_data` start with :meth:`_name`,
        which says it already."""
        return (Frame("hunk", index, self.total, said=True),)

    def _data(self, index: int, hunk: Hunk, expected: int | None) -> dict[str, Any]:
        return {
            "hunk": index + 1,
            "diff_line": hunk.line,
            "stated_line": None if expected is None else expected + 1,
        }

    def _ambiguous(
        self, index: int, hunk: Hunk, places: list[int], rung: str, expected: int | None
    ) -> AmbiguousMatch:
        near = (
            " after the previous hunk"
            if expected is None
            else f", none of them at its stated line {expected + 1}"
        )
        return ambiguous(
            self.lines,
            places,
            len(hunk.old),
            what=self._name(index, hunk),
            rung=rung,
            why=near,
            tip="add context lines that only the place you mean has, or give the line "
            "numbers of the place you mean.",
            more=len(places) >= MAX_LISTED,
            data=self._data(index, hunk, expected),
            path=self.path,
            where=self._where(index),
            suggestions=[
                "Give the hunk the line numbers of the place you mean (its old lines must be "
                "there), or add a context line that only that place has."
            ],
        )

    def _overlap(self, index: int, hunk: Hunk, at: int, placed: list[_Placed]) -> OverlappingEdits:
        end = at + len(hunk.old)
        other = placed[-1]
        for spot in placed:
            size = len(self.diff.hunks[spot.index].old)
            if spot.at < end and at < spot.at + size:
                other = spot
                break
        return overlapping(
            other.index,
            index,
            at + 1,
            what=f"{self._name(index, hunk)} fits only at line {at + 1}, which is not after "
            f"hunk {other.index + 1} (lines {other.at + 1}-"
            f"{other.at + len(self.diff.hunks[other.index].old)})",
            tip="hunks must be in file order and must not share lines: merge them into one hunk",
            data={**self._data(index, hunk, None), "hunks": [other.index + 1, index + 1]},
            path=self.path,
            where=self._where(index),
        )

    def _not_found(self, index: int, hunk: Hunk, expected: int | None) -> NoMatch:
        old = LF.join(hunk.old) + LF
        new = LF.join(hunk.new) + LF
        base = mismatch_error(
            CountMismatch(index, 1, 0, self.doc.text, (), False),
            old,
            new,
            self.path,
            self.total,
            what="the hunk's old lines",
        )
        data = {**self._data(index, hunk, expected), **base.data}
        parts = [
            f"{self._name(index, hunk)}: its old lines (context and removed) are not in "
            "the file" + (" after the previous hunk" if index else "")
        ]
        n = len(self.lines)
        if expected is not None and n:
            first = min(max(expected - NEAR, 0), max(n - 1, 0))
            last = min(n, expected + len(hunk.old) + NEAR)
            shown = self.lines[first:last]
            data["stated_region"] = {
                "start_line": first + 1,
                "end_line": first + len(shown),
                "content": excerpt(LF.join(shown)),
            }
            parts += [
                "",
                f"The file's lines at the stated place (lines {first + 1}-{first + len(shown)}):",
                listing([excerpt(x, 200) for x in shown], first + 1),
            ]
        if (
            expected is not None
            and self.file.exact_at(expected, hunk.new, 0, at_eof=False)
            and hunk.new != hunk.old
        ):
            data["already_applied"] = True
            parts += ["", "The hunk's new lines are at the stated place: it looks already applied."]
        if self.spent:
            data["search_spent"] = True
            parts += [
                "",
                f"So many hunks of this diff were not at their stated lines (searching the file "
                f"over {SEARCH_PASSES} times) that the rest are looked for only at their stated "
                "lines; give hunks the line numbers where their old lines are.",
            ]
        detail = base.message.split(LF, 1)[1] if LF in base.message else ""
        return NoMatch(
            LF.join(parts) + (LF + detail if detail else ""),
            path=self.path,
            where=self._where(index),
            data=data,
            suggestions=[
                "Copy the context and removed lines exactly from the numbered lines above "
                "(without the numbers), or re-read the file and make the diff again.",
            ],
        )


def _runs(hunk: Hunk, spot: _Placed) -> list[_LineRep]:
    """The changed runs of a placed hunk, as line replacements (context lines stay)."""
    out: list[_LineRep] = []
    i = j = 0  # in the hunk's old and new lines
    run: tuple[int, int] | None = None  # where the current run started (old, new)
    for kind, _text in [*hunk.lines, (" ", "")]:
        if kind == " ":
            if run is not None:
                out.append((spot.at + run[0], spot.at + i, list(spot.new[run[1] : j])))
                run = None
            i += 1
            j += 1
            continue
        if run is None:
            run = (i, j)
        if kind == "-":
            i += 1
        else:
            j += 1
    return out


__all__ = ["FileDiff", "Hunk", "compile_hunks", "new_file_text", "parse_diff"]
