"""A search text placed on the match ladder (edit_file, safe_edit): where an old text is found
when it is not found exactly, and the new text to write there.

:func:`tolerant_places` splits the text an edit sees into lines and asks
:func:`editguard.core.seek.seek` for the old text's lines on the ladder after the exact rung
(the caller has looked exactly already). The first line of the old text may be the end of a
line (a search text often starts after the indentation); the others are whole lines; an old
text that ends with a line break needs one after its last line. On the first rung that finds
anything, the number of places must be the one the edit expects, else it is refused there
(never a looser rung). Each place gets ``new_text`` with the same correction
(:func:`editguard.core.seek.correct`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from editguard.core.diagnosis import CountMismatch, mismatch_error
from editguard.core.document import LF, line_offsets
from editguard.core.formats.place.refusal import uncorrectable
from editguard.core.match import find_separate
from editguard.core.seek import (
    INDENT,
    LADDER,
    NUMBERS,
    PUNCTUATION_MAP,
    PUNCTUATION_TOLERANCE,
    TRAILING,
    TYPOGRAPHIC,
    OnlyIgnored,
    SeekHit,
    Uncorrectable,
    correct,
    explain,
    file_uses_tabs,
    normalize,
    rung_of,
    seek,
    used,
)
from editguard.errors import EditError

MAX_INLINE = 10_000  # places of a one-line text counted (and listed) on its rung


@dataclass(frozen=True, slots=True)
class Place:
    """``text[start:end]`` (non-empty) becomes ``new``."""

    start: int
    end: int
    new: str


@dataclass(frozen=True, slots=True)
class Tolerant:
    """The places of an old text found on rung ``rung``, and the note that says what differed."""

    rung: str
    note: str
    places: tuple[Place, ...]


@dataclass(frozen=True, slots=True)
class Refusal:
    """The first rung that found the old text found it at the wrong number of places
    (``reason`` empty), or its correction cannot be carried over to the new text."""

    rung: str
    expected: int
    starts: tuple[int, ...]
    reason: str = ""
    lines: tuple[int, int] = (0, 0)

    def error(
        self,
        text: str,
        old: str,
        path: str,
        index: int | None,
        total: int | None,
        changed: bool,
    ) -> EditError:
        """The WRONG_COUNT or NO_MATCH error for this refusal, ``old`` being the search text."""
        what = "search" if index is None else "old_text"
        if self.reason:
            first, last = self.lines
            new = "replace" if what == "search" else "new_text"
            return uncorrectable(
                text.split(LF, last),
                first - 1,
                last,
                what=what,
                rung=self.rung,
                reason=self.reason,
                search=old,
                path=path,
                edit_index=index,
                total_edits=total,
                fix=f"Send {what} and {new} exactly as the file has these lines.",
            )
        mismatch = CountMismatch(
            index or 0, self.expected, len(self.starts), text, self.starts, changed, self.rung
        )
        return mismatch_error(mismatch, old, "", path, total, what)


def tolerant_places(
    text: str,
    old: str,
    new: str,
    expected: int,
    indent_unit: int,
    numbering: Callable[[int], int | None] | None = None,
) -> Tolerant | Refusal | None:
    """Where ``old`` (with ``\\n`` breaks, not found exactly) occurs in ``text`` on the first
    rung of the ladder that finds it, and what to write there; ``None`` when no rung does.

    ``numbering`` gives the line number each line of ``text`` had as the model read the file
    (``None`` for lines written since): what pasted line numbers are checked against. A
    one-line ``old`` may stand in the middle of a line: every such place on the rung counts.
    """
    ends = old.endswith(LF)
    pattern = (old[:-1] if ends else old).split(LF)
    lines = text.split(LF)
    # Lines followed by a break (enough for an old text that ends with one), else all lines
    # but the empty one after a final break.
    stop = text.count(LF) if ends or text.endswith(LF) else len(lines)
    hits = seek(
        lines,
        pattern,
        end=stop,
        ladder=LADDER[1:],
        partial_first=True,
        indent_unit=indent_unit,
        numbering=numbering,
    )
    if not hits:
        return None
    rung = hits[0].rung
    # A one-line text, compared by its characters (no indentation or line numbers), may stand
    # in the middle of a line, where the line matcher does not look: count those places too.
    if len(pattern) == 1 and not ends and not {INDENT, NUMBERS} & set(rung.split("+")):
        inline = _inline_places(text, pattern[0], rung)
        if len(inline) != len(hits):
            return Refusal(rung, expected, inline)
    offsets = line_offsets(lines, {h.line for h in hits})
    spans = []
    for hit in hits:
        start = offsets[hit.line] + hit.column
        last = hit.line + len(pattern) - 1
        end = (
            offsets[hit.line]
            + sum(len(line) + 1 for line in lines[hit.line : last])
            + len(lines[last])
        )
        spans.append((start, end + (1 if ends else 0)))
    starts = tuple(s for s, _ in spans)
    overlapping = any(b[0] < a[1] for a, b in itertools.pairwise(spans))
    if len(hits) != expected or overlapping:
        return Refusal(rung, expected, starts)
    new_ends = new.endswith(LF)
    new_lines = (new[:-1] if new_ends else new).split(LF)
    tabs = file_uses_tabs(lines)
    typographic = frozenset(c for c in TYPOGRAPHIC if c in text)
    places = []
    note = name = ""
    for hit, (start, end) in zip(hits, spans, strict=True):
        found = [lines[hit.line][hit.column :], *lines[hit.line + 1 : hit.line + len(pattern)]]
        try:
            written = correct(
                hit, found, new_lines, file_uses_tabs=tabs, file_typographic=typographic
            )
        except OnlyIgnored:
            return None  # the edit is only what the rung ignores: explained as not found
        except Uncorrectable as exc:
            return Refusal(
                rung, expected, (start,), str(exc), (hit.line + 1, hit.line + len(pattern))
            )
        places.append(Place(start, end, LF.join(written) + (LF if new_ends else "")))
        if not note:
            note, name = explain(hit, found), used(hit, found)
    return Tolerant(name, note, tuple(places))


def _inline_places(text: str, line: str, rung: str) -> tuple[int, ...]:
    """Where a one-line text occurs anywhere in ``text`` on ``rung`` (its character
    tolerances; the search text has no trailing whitespace once normalized, so the file's
    cannot change where it occurs): offsets in the normalized text, close to the real ones."""
    tolerances = set(rung.split("+"))
    needle = normalize(line, rung_of(*(tolerances & {TRAILING, PUNCTUATION_TOLERANCE})))
    hay = text.translate(PUNCTUATION_MAP) if PUNCTUATION_TOLERANCE in tolerances else text
    if not needle.strip():
        return ()
    return tuple(find_separate(hay, needle, limit=MAX_INLINE))


__all__ = ["Place", "Refusal", "SeekHit", "Tolerant", "tolerant_places"]
