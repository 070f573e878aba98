"""Whether a search/replace edit has landed already: the rule that keeps a retried edit (a lost
answer, a call sent twice) from landing a second copy.

The rule, for an edit ``old -> new`` expected at ``n`` places, on the text ``T`` the edit sees:

* **A place of old inside a copy of new.** When ``old`` occurs in ``new`` (``new`` adds lines
  after ``old``, wraps it ...), an occurrence of ``old`` in ``T`` may be the one that a first
  attempt wrote. It is *inside a copy* when some occurrence of ``new`` in ``T`` covers it.
  The edit is **already applied** when every place of ``old`` the edit would change is inside
  a copy, those copies are ``n`` distinct places, and each copy *stands alone* (below). When
  its count is right but the places are not so (some inside copies and some not, or not one
  copy each), the edit is refused: it cannot be told whether it landed, and landing it would
  write a second copy inside the copies.
* **old not found, new found.** When ``old`` is nowhere in ``T`` (not exactly, not on the
  tolerance ladder) and ``new`` occurs at exactly ``n`` separate places, each standing alone,
  the edit is already applied, unless that proves nothing: ``new`` has fewer lines than
  ``old`` or no line with text that ``old`` lacks (an edit that removes lines leaves lines
  that were in the file before it too), or a region of ``T`` at least :data:`MISCOPIED`
  alike to ``old`` reaches past the copies' lines (a mis-copied ``old`` may mean that
  region, and ``new`` be a part of it that was there before).
* **old found only loosely, new found exactly.** When ``old`` is found only on the tolerance
  ladder while ``new`` is in ``T`` exactly ``n`` times, the edit is refused (the formats
  check this): it may be a retry that would land a second time at a look-alike place.
* Only a ``new`` of at least :data:`MIN_NEW` characters besides whitespace, and other than
  ``old``, is ever taken as proof (:func:`telling`).
* **Standing alone.** A copy of ``new`` stands alone when putting ``old`` back in its place
  makes no other occurrence of ``old`` across its edges: then the text with every copy put
  back holds ``old`` at exactly those ``n`` places, and the edit applied to it gives ``T``,
  so ``T`` reads as the edit's result. Nothing is reported applied otherwise.

An edit whose ``new`` equals its ``old`` changes nothing anyway and is never looked at here.
Pure: text in, offsets out.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from editguard.core.document import LF, line_numbers
from editguard.core.match import find_all, find_separate
from editguard.core.similar import find_similar

# A new text shorter than this (whitespace aside) found in the file proves little: a retry is
# only recognised by a new text that would rarely be there by chance.
MIN_NEW = 8

# A region at least this alike to an old text found nowhere may be where a mis-copied old
# text meant to land: then its new text found elsewhere proves nothing.
MISCOPIED = 0.8

# Reads ``text[start:end]`` of the text an edit sees (which a format may not hold whole).
Reader = Callable[[int, int], str]


def reader_of(text: str) -> Reader:
    """The reader of a text held whole."""
    return lambda start, end: text[max(start, 0) : end]


def copy_around(read: Reader, size: int, start: int, old: str, new: str) -> int | None:
    """The start of an occurrence of ``new`` that covers the occurrence of ``old`` at ``start``
    (``size``: the text's length), or ``None``. The first such one, scanning left to right."""
    if len(new) <= len(old) or old not in new:
        return None
    lo = max(start + len(old) - len(new), 0)
    hi = min(start + len(new), size)
    window = read(lo, hi)
    for at in find_all(window, new):
        if lo + at <= start:
            return lo + at
    return None


def stands_alone(read: Reader, size: int, at: int, old: str, new: str) -> bool:
    """Whether putting ``old`` back in place of the copy of ``new`` at ``at`` makes ``old``
    occur there and nowhere else across the copy's edges."""
    reach = len(old) - 1
    left = read(max(at - reach, 0), at)
    right = read(at + len(new), min(at + len(new) + reach, size))
    return find_all(left + old + right, old) == [len(left)]


@dataclass(frozen=True, slots=True)
class Judged:
    """Whether the places an edit would change already read as its result: ``copies`` (where
    its new text stands) when they all do, else the places inside a copy (``landed``) and
    those outside (``pending``); both empty when none is inside one."""

    copies: tuple[int, ...] = ()
    landed: tuple[int, ...] = ()
    pending: tuple[int, ...] = ()

    @property
    def partly(self) -> bool:
        """Some places, not all, are inside a copy: whether the edit landed cannot be told."""
        return not self.copies and bool(self.landed)


def judge(
    read: Reader, size: int, places: Sequence[tuple[int, str, str]], expected: int | None
) -> Judged:
    """Judge the places an edit would change, each ``(start, its old text, the new text it
    would get)``, by the rule of this module: the edit is already applied when every place is
    inside a copy of its new text, the copies are ``expected`` (``None``: any number) distinct
    places, and each stands alone."""
    covers = [
        copy_around(read, size, at, old, new) if telling(old, new) else None
        for at, old, new in places
    ]
    if not any(c is not None for c in covers):
        return Judged()
    by_copy = {c: (old, new) for c, (_, old, new) in zip(covers, places, strict=True)}
    copies = tuple(sorted(c for c in by_copy if c is not None))
    if (
        all(c is not None for c in covers)
        and len(copies) == (len(copies) if expected is None else expected)
        and all(b >= a + len(by_copy[a][1]) for a, b in itertools.pairwise(copies))
        and all(stands_alone(read, size, c, *by_copy[c]) for c in copies)
    ):
        return Judged(copies=copies)
    landed = tuple(p[0] for p, c in zip(places, covers, strict=True) if c is not None)
    pending = tuple(p[0] for p, c in zip(places, covers, strict=True) if c is None)
    return Judged(landed=landed, pending=pending)


def new_in_place(text: str, old: str, new: str, expected: int | None) -> tuple[int, ...] | None:
    """Where ``new`` stands in ``text`` in place of an ``old`` found nowhere: its ``expected``
    separate places (``None``: any number), each standing alone, or ``None`` when that is no
    proof (see the module's rule: too short a ``new``, an edit that removes lines, another
    count, or a region alike to ``old`` that reaches past them, which may be the place a
    mis-copied ``old`` meant)."""
    if not telling(old, new) or new.count(LF) < old.count(LF) or not adds_a_line(old, new):
        return None
    copies = find_separate(text, new, limit=None if expected is None else expected + 1)
    if not copies or len(copies) != (len(copies) if expected is None else expected):
        return None
    read = reader_of(text)
    if not all(stands_alone(read, len(text), c, old, new) for c in copies):
        return None
    firsts = line_numbers(text, copies)
    spans = [(f, f + new.count(LF)) for f in firsts]
    for region in find_similar(text, old):
        if region.similarity >= MISCOPIED and not any(
            a <= region.start_line and region.end_line <= b for a, b in spans
        ):
            return None
    return tuple(copies)


def adds_a_line(old: str, new: str) -> bool:
    """Whether ``new`` holds a line with text that is no line of ``old``: an edit made only of
    old's own lines (a deletion, even with a slip in old's other lines) leaves text that was
    in the file before it too."""
    had = set(old.split(LF))
    return any(line.strip() and line not in had for line in new.split(LF))


def telling(old: str, new: str) -> bool:
    """Whether finding ``new`` in the file may tell that the edit ``old -> new`` landed: it
    changes something, and ``new`` is long enough not to be there by chance."""
    return new != old and len(new.strip()) >= MIN_NEW
