"""Find a block of lines inside a longer list of lines: strictly first, then with tolerances.

:func:`seek` tries the rungs of a ladder (:mod:`editguard.core.ladder`: the tolerances, and what
no rung may do) in order, strictest first, and stops at the first rung that matches anything: a
looser rung never adds places to what a stricter one found, so a block that matches exactly
somewhere is never also matched loosely somewhere else. Every hit says which rung matched and how
(:class:`SeekHit`), so a caller can report it, refuse when the number of places is not the one it
expects, and apply the same correction to its new text with :func:`correct`
(:mod:`editguard.core.correct`), which undoes only what the old and new text have in common
(never the change itself, when the change is what the rung ignores).

The search finds candidate places cheaply first (the rarest distinctive line of the block, found
with C-speed searches), keeps those where every line has the block's text once indentation,
trailing whitespace and punctuation are set aside, and only then compares them on each rung.

Pure: lists of strings in, positions out. Every format that matches text by lines reuses it;
the formats import the ladder's and the correction's names from here too (``__all__``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from editguard.core.correct import (
    OnlyIgnored,
    Opcode,
    Uncorrectable,
    correct,
    explain,
    line_opcodes,
    used,
)
from editguard.core.ladder import (
    EXACT,
    INDENT,
    INDENTATION,
    LADDER,
    LF,
    LINE_NUMBERS,
    NUMBERS,
    PUNCTUATION,
    PUNCTUATION_MAP,
    PUNCTUATION_TOLERANCE,
    TRAILING,
    TRAILING_WHITESPACE,
    TYPOGRAPHIC,
    Rung,
    SeekHit,
    columns,
    content_key,
    file_uses_tabs,
    indent_unit,
    lines_match,
    normalize,
    rung_of,
    split_indent,
    strip_numbers,
    tolerance_names,
)

__all__ = [
    "EXACT",
    "INDENT",
    "INDENTATION",
    "LADDER",
    "LINE_NUMBERS",
    "MAX_ANCHOR",
    "MAX_PLACES",
    "NUMBERS",
    "PUNCTUATION",
    "PUNCTUATION_MAP",
    "PUNCTUATION_TOLERANCE",
    "TRAILING",
    "TRAILING_WHITESPACE",
    "TYPOGRAPHIC",
    "OnlyIgnored",
    "Opcode",
    "Rung",
    "SeekHit",
    "Uncorrectable",
    "columns",
    "content_key",
    "correct",
    "explain",
    "file_uses_tabs",
    "indent_unit",
    "line_opcodes",
    "lines_match",
    "normalize",
    "rung_of",
    "seek",
    "strip_numbers",
    "tolerance_names",
    "used",
]

_ANCHORS = 8  # distinct pattern lines counted in the text to pick the rarest as the anchor
MAX_PLACES = 1_000
"""A block that could match at more places than this (on the loosest comparison) gets no
tolerance: no rung could pick one of them, and checking them all on every rung would cost the
file times the block."""
MAX_ANCHOR = 100_000  # a block whose rarest distinctive line the file has more often: no tolerance


# -- the search ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Variant:
    """The pattern as one rung family compares it: raw, or without line-number prefixes."""

    lines: tuple[str, ...]
    numbers: tuple[int, ...] | None
    padded: bool = False


def seek(
    lines: Sequence[str],
    pattern: Sequence[str],
    *,
    start: int = 0,
    end: int | None = None,
    ladder: Sequence[Rung] = LADDER,
    first_line: int = 1,
    partial_first: bool = False,
    indent_unit: int = 4,
    numbering: Callable[[int], int | None] | None = None,
) -> list[SeekHit]:
    """Every place in ``lines[start:end]`` where ``pattern`` occurs, on the first rung of
    ``ladder`` that finds any; ``[]`` when none does.

    Places may overlap (``a a`` occurs twice in ``a a a``). An empty pattern occurs at every
    position from ``start`` to ``end`` included, on the first rung.

    ``first_line`` is the line number of ``lines[0]`` (what pasted line numbers are checked
    against). ``partial_first`` lets the first pattern line match the end of a line (as a search
    text may start in the middle of one), on rungs without indentation tolerance.
    ``indent_unit`` is the width of one indentation level of the file in spaces: how many
    columns a tab stands for when one side indents with tabs and the other with spaces.
    ``numbering`` gives the line number that ``lines[i]`` had as the model read it (``None``
    for a line written since); by default ``first_line + i``.
    """
    if numbering is None:
        numbering = lambda i: first_line + i  # noqa: E731
    stop = len(lines) if end is None else min(end, len(lines))
    size = len(pattern)
    if not size:
        first = ladder[0].name if ladder else EXACT.name
        return [SeekHit(at, first) for at in range(start, stop + 1)]
    # The pattern as sent; without line-number prefixes; without them and one space after.
    variants: list[_Variant | None] = [_Variant(tuple(pattern), None), None, None]
    if any(NUMBERS in r.tolerances for r in ladder):
        for vi, padding in ((1, False), (2, True)):
            stripped = strip_numbers(pattern, padding=padding)
            if stripped is not None:
                variants[vi] = _Variant(*stripped, padding)
    candidates = [
        _plausible(lines, _candidates(lines, start, stop, v.lines), v.lines, partial_first)
        if v is not None
        else []
        for v in variants
    ]
    tabs = _tab_widths(pattern, indent_unit)
    for rung in ladder:
        # A pasted listing holds whole lines; its padding is read as text first.
        tries = (1, 2) if NUMBERS in rung.tolerances else (0,)
        found: list[list[SeekHit]] = []
        for vi in tries:
            variant = variants[vi]
            if variant is None:
                found.append([])
                continue
            whole = partial_first and variant.numbers is None
            found.append(
                [
                    hit
                    for at in candidates[vi]
                    if (hit := _match_at(lines, at, variant, rung, numbering, whole, tabs))
                ]
            )
            if found[0] and INDENT not in rung.tolerances:
                break
        if found and found[0]:
            if len(found) > 1 and found[1]:
                # Read with or without a space of padding, the block fits with shifts one
                # column apart: a new text sent without the numbers cannot be placed.
                other = {h.line: h.shift for h in found[1]}
                return [
                    dataclasses.replace(h, pad_unknown=other.get(h.line, h.shift) != h.shift)
                    for h in found[0]
                ]
            return found[0]
        if len(found) > 1 and found[1]:
            return found[1]
    return []


def _candidates(
    lines: Sequence[str], start: int, stop: int, pattern: Sequence[str]
) -> Sequence[int]:
    """Positions where ``pattern`` may start on some rung: where its rarest distinctive line's
    text appears in a line at the right offset. A superset of every rung's hits, found with
    C-speed searches of one joined copy of the lines; none when a line's text is nowhere."""
    last = stop - len(pattern)
    if last < start:
        return []
    keys = [content_key(p) for p in pattern]
    if not any(keys):  # only blank lines: every position is a candidate
        return range(start, last + 1)
    text = LF.join(lines[start:stop]).translate(PUNCTUATION_MAP)
    longest = sorted({k for k in keys if k}, key=len, reverse=True)[:_ANCHORS]
    counts = {k: text.count(k) for k in longest}
    needle = min(longest, key=lambda k: counts[k])
    if not counts[needle] or counts[needle] > MAX_ANCHOR:
        return []
    anchor = keys.index(needle)
    found: list[int] = []
    line, pos = start, 0
    at = text.find(needle)
    while at >= 0:
        line += text.count(LF, pos, at)
        begin = line - anchor
        if start <= begin <= last and (not found or found[-1] != begin):
            found.append(begin)
        nxt = text.find(LF, at)
        if nxt < 0:
            break
        # Next line: one candidate per line is enough.
        line += 1
        pos = nxt + 1
        at = text.find(needle, pos)
    return found


def _plausible(
    lines: Sequence[str], starts: Sequence[int], pattern: Sequence[str], partial_first: bool
) -> list[int]:
    """The starts where every line has the pattern's text once indentation, trailing
    whitespace and punctuation are set aside: what any rung needs, checked once here so that
    the rungs only look at places that can match (a common anchor line may give many)."""
    keys = [content_key(p) for p in pattern]
    cache: dict[int, str] = {}
    out = []
    for at in starts:
        for j, key in enumerate(keys):
            line = cache.get(at + j)
            if line is None:
                line = cache[at + j] = content_key(lines[at + j])
            if line != key and not (j == 0 and partial_first and line.endswith(key)):
                break
        else:
            out.append(at)
            if len(out) > MAX_PLACES:
                return []
    return out


def _tab_widths(pattern: Sequence[str], unit: int) -> tuple[int, ...]:
    """The tab widths to try when tabs meet spaces: the file's indentation unit, then the
    pattern's own (the greatest common divisor of its space indents)."""
    widths = [unit]
    spaces = [len(i) for i in (split_indent(p)[0] for p in pattern) if i and "\t" not in i]
    own = 0
    for width in spaces:
        own = _gcd(own, width)
    if own >= 2 and own not in widths:
        widths.append(own)
    if 4 not in widths:
        widths.append(4)
    return tuple(widths)


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def _match_at(
    lines: Sequence[str],
    at: int,
    variant: _Variant,
    rung: Rung,
    numbering: Callable[[int], int | None],
    partial_first: bool,
    tabs: Sequence[int],
) -> SeekHit | None:
    pattern = variant.lines
    found = lines[at : at + len(pattern)]
    number = 0
    if variant.numbers is not None:
        if any(n != numbering(at + j) for j, n in enumerate(variant.numbers)):
            return None
        number = variant.numbers[0]
    if INDENT in rung.tolerances:
        hit = _match_indented(found, at, pattern, rung, tabs)
        if hit is None:
            return None
        return dataclasses.replace(hit, padded=variant.padded, number=number)
    column = 0
    for j, (f, p) in enumerate(zip(found, pattern, strict=True)):
        nf, np = normalize(f, rung), normalize(p, rung)
        if nf == np:
            continue
        # The end of a line, never nothing: a blank first line is a whole line.
        if j or not partial_first or not np.strip() or not nf.endswith(np):
            return None
        start_at = _start_column(f, len(np), rung)
        if start_at is None:
            return None
        column = start_at
    return SeekHit(at, rung.name, column, 0, 0, pattern, variant.padded, number)


def _start_column(line: str, size: int, rung: Rung) -> int | None:
    """Where in ``line`` the text starts whose normalized form is the last ``size``
    characters of the normalized line."""
    body = line.rstrip() if TRAILING in rung.tolerances else line
    mapped = PUNCTUATION_TOLERANCE in rung.tolerances
    count = 0
    i = len(body)
    while count < size and i > 0:
        i -= 1
        count += len(body[i].translate(PUNCTUATION_MAP)) if mapped else 1
    return i if count == size else None


def _match_indented(
    found: Sequence[str], at: int, pattern: Sequence[str], rung: Rung, tabs: Sequence[int]
) -> SeekHit | None:
    pairs = []
    for f, p in zip(found, pattern, strict=True):
        fi, fb = split_indent(normalize(f, rung))
        pi, pb = split_indent(normalize(p, rung))
        if fb != pb:
            return None
        if fb:
            pairs.append((fi, pi))
    if not pairs:
        return None
    mixed = any(("\t" in fi) != ("\t" in pi) or ("\t" in fi and " " in fi) for fi, pi in pairs)
    for tab in tabs if mixed else tabs[:1]:
        shifts = {columns(fi, tab) - columns(pi, tab) for fi, pi in pairs}
        if len(shifts) == 1:
            return SeekHit(at, rung.name, 0, shifts.pop(), tab, tuple(pattern))
    return None
