"""``edit_file``'s language: exact search/replace edits, applied in sequence, compiled to a plan.

Semantics: edit *k* sees the text as edits 0..k-1 left it, counts the non-overlapping
occurrences of its ``old_text`` there, and replaces all of them when the count equals
``occurrences``; otherwise nothing at all is written.

How it stays fast: the text is never rebuilt between edits. The state after each edit is an
*overlay* on the original text (:mod:`editguard.core.overlay`): sorted, disjoint regions
``[a, b)`` of the original, each replaced by its current string. Occurrences of a needle are
then of two kinds:

* *clean* ones, wholly inside original text that no region covers. All needles are found in the
  original in one pass up front (:class:`~editguard.core.match.NeedleSet`); an occurrence stays
  valid as long as no region intersects it.
* *dirty* ones, touching text that an earlier edit wrote (or spanning a deletion). Any such
  occurrence touches the text of the edit that last changed that spot, so right after each
  replacement the text around it is scanned for the needles of the *later* edits, and a hit
  marks that edit for a closer look at just those regions.

So an independent batch costs one pass over the file plus work around each replacement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from editguard.core.diagnosis import (
    CountMismatch,
    landed_note,
    loosely_and_applied,
    mismatch_error,
    partly_applied,
)
from editguard.core.document import LF, Document, line_numbers, normalize_newlines
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.formats.place.text import Place, Refusal, tolerant_places
from editguard.core.landed import (
    copy_around,
    judge,
    new_in_place,
    reader_of,
    telling,
)
from editguard.core.match import NeedleSet, find_all, find_separate
from editguard.core.overlay import Hit, Key, Overlay, Region
from editguard.core.plan import Plan, Replacement
from editguard.core.seek import indent_unit
from editguard.errors import EncodingError, InvalidRequest, TooManyEdits, error_context

# More places than this for one old_text is no edit a model means (and a one-letter needle in a
# 100 MB file would be a hundred million positions).
MAX_OCCURRENCES = 500_000


@dataclass(frozen=True, slots=True)
class SearchReplace:
    """One edit: replace ``old_text`` by ``new_text``, expected exactly ``occurrences`` times."""

    old_text: str
    new_text: str
    occurrences: int = 1


def validate_edits(edits: Sequence[SearchReplace], max_edits: int) -> None:
    """Reject malformed requests before any file is read.

    Raises:
        InvalidRequest: no edits, an empty ``old_text``, a NUL in ``new_text``, or
            ``occurrences`` below 1.
        TooManyEdits: more than ``max_edits`` edits.
    """
    total = len(edits)
    if total == 0:
        raise InvalidRequest(
            "edits is empty: send at least one {old_text, new_text}",
            data={"field": "edits"},
        )
    if total > max_edits:
        raise TooManyEdits(
            f"{total} edits in one call; the limit is {max_edits}",
            data={"edits": total, "limit": max_edits},
            suggestions=["Split the edits over several calls."],
        )
    for index, edit in enumerate(edits):
        if not edit.old_text:
            raise InvalidRequest(
                "old_text is empty; it must be the exact text to replace (to create or "
                "overwrite a whole file, use write_file)",
                edit_index=index,
                total_edits=total,
                data={"field": f"edits[{index}].old_text"},
            )
        if "\x00" in edit.new_text:
            raise InvalidRequest(
                "new_text contains a NUL character (\\u0000), which would make the file binary",
                edit_index=index,
                total_edits=total,
                data={"field": f"edits[{index}].new_text"},
            )
        if edit.occurrences < 1:
            raise InvalidRequest(
                f"occurrences is {edit.occurrences}; it must be 1 or more",
                edit_index=index,
                total_edits=total,
                data={"field": f"edits[{index}].occurrences"},
            )


def compile_search_replace(
    doc: Document, edits: Sequence[SearchReplace], *, exact: bool = False
) -> Compiled:
    """Compile sequential search/replace edits on ``doc`` into one plan on its original text.

    An ``old_text`` found nowhere exactly is looked for on the tolerance ladder of
    :mod:`editguard.core.seek` (unless ``exact``): it lands when the first rung that finds it
    finds it exactly ``occurrences`` times, with the same correction applied to ``new_text``.

    Call :func:`validate_edits` first (it needs no file).

    Raises:
        EncodingError: a ``new_text`` holds a character the file's encoding cannot store.
        NoMatch, WrongCount: the first edit whose count is off, explained with the text that
            edit saw (the most similar regions, or every match); NO_MATCH also when a
            tolerant match cannot carry its correction over to ``new_text``.
    """
    # A new_text the ladder may correct (a pasted line-number prefix, a typographic quote)
    # is judged by what is written: the plan's texts, after compiling.
    deferred: int | None = None
    for index, edit in enumerate(edits):
        with error_context(edit_index=index, total_edits=len(edits)):
            try:
                doc.check_encodable(edit.new_text)
            except EncodingError:
                if exact:
                    raise
                deferred = index if deferred is None else deferred
    compiled, mismatch = _Compiler(doc, edits, exact=exact).run()
    if deferred is not None and mismatch is None:
        with error_context(edit_index=deferred, total_edits=len(edits)):
            doc.check_encodable("".join(r.text for r in compiled.plan.replacements))
    if mismatch is not None:
        k = mismatch.index
        raise mismatch_error(
            mismatch,
            normalize_newlines(edits[k].old_text),
            normalize_newlines(edits[k].new_text),
            doc.name or "the file",
            len(edits),
        )
    return compiled


class _Compiler(Overlay):
    """The edits of one call compiled on the overlay of the file's text."""

    def __init__(
        self, doc: Document, edits: Sequence[SearchReplace], *, exact: bool = False
    ) -> None:
        super().__init__(doc)
        self.exact = exact
        self.raw_olds = [e.old_text for e in edits]
        self.matches: dict[int, tuple[str, str]] = {}  # edit index: rung, note
        self.olds = [normalize_newlines(e.old_text) for e in edits]
        self.news = [normalize_newlines(e.new_text) for e in edits]
        self.expected = [e.occurrences for e in edits]
        distinct = list(dict.fromkeys(self.olds))
        self.needle_id = {n: i for i, n in enumerate(distinct)}
        self.edits_of: list[list[int]] = [[] for _ in distinct]
        for index, old in enumerate(self.olds):
            self.edits_of[self.needle_id[old]].append(index)
        self.needles = NeedleSet(distinct)
        # The longest needle of the edits after edit k: how much context a scan needs.
        self.longest_after = [0] * (len(edits) + 1)
        for k in range(len(edits) - 1, -1, -1):
            self.longest_after[k] = max(self.longest_after[k + 1], len(self.olds[k]))
        self.suspects: list[list[Region]] = [[] for _ in edits]
        self.already: set[int] = set()  # edits found already applied (core.landed)
        self.landed_at: list[tuple[int, int]] = []  # (original offset, edit) of their copies

    # -- the main loop -------------------------------------------------------------------

    def run(self) -> tuple[Compiled, CountMismatch | None]:
        clean = self.needles.scan(self.text, limit=MAX_OCCURRENCES + 1)
        for k, old in enumerate(self.olds):
            if len(clean.get(self.needle_id[old], ())) > MAX_OCCURRENCES:
                raise TooManyEdits(
                    f"old_text occurs more than {MAX_OCCURRENCES:,} times in the file; make it "
                    "longer so that it names the places you mean",
                    edit_index=k,
                    total_edits=len(self.olds),
                    data={"field": f"edits[{k}].old_text", "limit": MAX_OCCURRENCES},
                )
        counts: list[int] = []
        for k, old in enumerate(self.olds):
            hits = self._occurrences(k, old, clean.get(self.needle_id[old], []))
            if hits and self._landed_around(k, hits):
                counts.append(0)
                continue
            if len(hits) != self.expected[k]:
                places = None if hits or self.exact else self._tolerant(k)
                if places is None:
                    if not hits and self._landed_elsewhere(k):
                        counts.append(0)
                        continue
                    return Compiled(Plan()), self._mismatch(k)
                if not places:  # already applied, on the ladder's rung
                    counts.append(0)
                    continue
                for place in reversed(places):
                    self._replace(k, self.hit_at(place.start, place.end), place.new)
                counts.append(len(places))
                continue
            for hit in reversed(hits):
                self._replace(k, hit)
            counts.append(len(hits))
        plan = Plan(tuple(Replacement(r.a, r.b, r.s, r.codes) for r in self.regions))
        return Compiled(plan, self._applied(counts)), None

    def _occurrences(self, k: int, old: str, original_starts: list[int]) -> list[Hit]:
        length = len(old)
        hits: dict[Key, Hit] = {}
        for p in original_starts:
            if not self.intersects(p, p + length):
                hits[(p, 0)] = Hit((p, 0), (p + length, 0), (None, p), (None, p + length - 1))
        if self.suspects[k]:
            for region in {r.root(): None for r in self.suspects[k]}:
                for hit in self.window_hits(region, old):
                    hits.setdefault(hit.start, hit)
        ordered = sorted(hits.values(), key=lambda h: h.start)
        chosen: list[Hit] = []
        for hit in ordered:
            if not chosen or hit.start >= chosen[-1].end:
                chosen.append(hit)
        return chosen

    # -- replacing one occurrence --------------------------------------------------------

    def _replace(self, k: int, hit: Hit, new: str | None = None) -> None:
        new = self.news[k] if new is None else new
        region, start, end, index = self.splice(k, hit, new)
        self._look_ahead(k, region, start, end, index)

    def _look_ahead(self, k: int, region: Region, core_start: int, core_end: int, at: int) -> None:
        """Scan around the text just written for the needles of later edits."""
        context = self.longest_after[k + 1] - 1
        if context < 0:
            return
        before = self.text_before(at, core_start, context)
        after = self.text_after(at, core_end, context)
        left = "".join(seg.text for seg in before)
        window = left + region.s[core_start:core_end] + "".join(seg.text for seg in after)
        cs, ce = len(left), len(left) + core_end - core_start
        for nid, starts in self.needles.scan(window).items():
            length = len(self.needles.needles[nid])
            # Touching the new text; for a deletion (ce == cs), spanning the junction.
            if any(w < ce and w + length > cs for w in starts):
                for later in self.edits_of[nid]:
                    if later > k:
                        self.suspects[later].append(region)

    # -- the tolerance ladder ------------------------------------------------------------

    def _tolerant(self, k: int) -> list[Place] | None:
        """Edit ``k``'s places on the first rung of the ladder that finds any, each with its
        corrected new text; ``None`` when no rung finds it.

        Raises:
            WrongCount: that rung finds another number of places than expected.
            NoMatch: the correction cannot be carried over to new_text.
        """
        old, new = self.olds[k], self.news[k]
        if not old.strip():
            return None
        text = self.current()
        found = tolerant_places(
            text, old, new, self.expected[k], self._indent_unit(text), self.numbering()
        )
        if found is None:
            return None
        if isinstance(found, Refusal):
            raise found.error(
                text, old, self.doc.name or "the file", k, len(self.olds), bool(self.regions)
            )
        self.matches[k] = (found.rung, found.note)
        judged = judge(
            reader_of(text),
            len(text),
            [(p.start, text[p.start : p.end], p.new) for p in found.places],
            self.expected[k],
        )
        if judged.copies:
            self._note_landed(k, list(judged.copies))
            return []
        if judged.partly:
            raise partly_applied(
                text,
                old,
                list(judged.landed),
                list(judged.pending),
                self.doc.name or "the file",
                k,
                len(self.olds),
            )
        if telling(old, new):
            copies = find_separate(text, new, limit=self.expected[k] + 1)
            if len(copies) == self.expected[k]:
                # Found only loosely, while new_text is in the file exactly: a retry of an
                # edit that landed would land a second time at a look-alike place.
                raise loosely_and_applied(
                    text,
                    old,
                    copies,
                    [p.start for p in found.places],
                    found.rung,
                    self.doc.name or "the file",
                    k,
                    len(self.olds),
                )
        return list(found.places)

    def _indent_unit(self, text: str) -> int:
        return indent_unit(text.split(LF, 5000)[:5000])

    # -- edits already applied (core.landed) --------------------------------------------

    def _landed_around(self, k: int, hits: list[Hit]) -> bool:
        """Whether edit ``k``, whose ``old_text`` occurs in its ``new_text``, is already applied
        at the ``hits`` of its old text (every one inside a copy of the new text, as many
        copies as expected, each standing alone); nothing to look at when old_text is not in
        new_text.

        Raises:
            AmbiguousMatch: the count of hits is right and some, not all, are inside a copy.
        """
        old, new = self.olds[k], self.news[k]
        if not telling(old, new) or old not in new:
            return False
        if len(hits) > self.expected[k] * len(find_all(new, old)):
            return False  # more places than copies could hold: not applied, count is off
        if not self._maybe_inside(hits, old, new):
            return False
        read, size = self.reader()
        starts = [self.position(h.first) for h in hits]
        judged = judge(read, size, [(at, old, new) for at in starts], self.expected[k])
        if judged.copies:
            self._note_landed(k, list(judged.copies))
            return True
        if judged.landed and len(hits) == self.expected[k]:
            raise partly_applied(
                self.current(),
                old,
                list(judged.landed),
                list(judged.pending),
                self.doc.name or "the file",
                k,
                len(self.olds),
            )
        return False

    def _maybe_inside(self, hits: list[Hit], old: str, new: str) -> bool:
        """Whether a hit may lie inside a copy of ``new``: the cheap look first, on the text
        as read, for hits whose surroundings no edit has touched (a first attempt's usual
        case); the others are looked at in the current text."""
        reach = len(new)
        read = reader_of(self.text)
        for hit in hits:
            region, at = hit.first
            if region is not None or self.intersects(max(at - reach, 0), at + reach):
                return True
            if copy_around(read, len(self.text), at, old, new) is not None:
                return True
        return False

    def _landed_elsewhere(self, k: int) -> bool:
        """Whether edit ``k``, whose old text is nowhere (not on the ladder either), is already
        applied: its new text at the expected number of places, each standing alone."""
        text = self.current()
        copies = new_in_place(text, self.olds[k], self.news[k], self.expected[k])
        if copies is None:
            return False
        self.matches.pop(k, None)
        self._note_landed(k, list(copies))
        return True

    def _note_landed(self, k: int, copies: list[int]) -> None:
        """Keep where edit ``k``'s new text already stands (offsets in the current text), to
        name its lines in the new text in the result."""
        for at in copies:
            region, off = self.locate(at)
            if region is None:
                self.landed_at.append((off, k))
            else:
                region.marks.append([k, off])
        self.already.add(k)

    # -- results -------------------------------------------------------------------------

    def _applied(self, counts: list[int]) -> tuple[AppliedEdit, ...]:
        """Where each replacement landed, as 1-based lines of the new text."""
        lines: list[list[int]] = [[] for _ in counts]
        region_lines = line_numbers(self.text, (r.a for r in self.regions))
        shift = 0
        for region, line in zip(self.regions, region_lines, strict=True):
            for k, off in region.marks:
                lines[k].append(line + shift + region.s.count(LF, 0, off))
            shift += region.s.count(LF) - self.text.count(LF, region.a, region.b)
        if self.landed_at:
            # Places in untouched text where an edit's new text already stood.
            self.landed_at.sort()
            at_lines = line_numbers(self.text, (off for off, _ in self.landed_at))
            i, shift = 0, 0
            for (off, k), line in zip(self.landed_at, at_lines, strict=True):
                while i < len(self.regions) and self.regions[i].b <= off:
                    r = self.regions[i]
                    shift += r.s.count(LF) - self.text.count(LF, r.a, r.b)
                    i += 1
                lines[k].append(line + shift)
        out = []
        for k, count in enumerate(counts):
            rung, note = self.matches.get(k, ("exact", None))
            landed = k in self.already
            if landed:
                note = landed_note(sorted(lines[k]), note)
            out.append(
                AppliedEdit(k, count, tuple(sorted(lines[k])), rung, note, already_applied=landed)
            )
        return tuple(out)

    def _mismatch(self, k: int) -> CountMismatch:
        # The error path may be slow: rebuild the text this edit saw and search it plainly.
        current = self.current()
        starts = find_separate(current, self.olds[k], limit=MAX_OCCURRENCES)
        return CountMismatch(
            k, self.expected[k], len(starts), current, tuple(starts), bool(self.regions)
        )
