"""The one way every tool shows lines of a file: ``  40│text``, number first.

A model is told to strip this prefix before it copies text into an edit, so it must have one
form everywhere: read_file, error messages, chunk mismatches, validation findings.
"""

from __future__ import annotations

from collections.abc import Sequence

LF = "\n"


def listing(lines: Sequence[str], first: int, *, width: int | None = None) -> str:
    """``lines`` numbered from ``first`` (1-based), one per line.

    ``width`` pads the numbers to that many columns; by default, to the widest number shown.
    """
    if width is None:
        width = len(str(first + len(lines) - 1))
    return LF.join(f"{n:>{width}}│{line}" for n, line in enumerate(lines, first))


PLACE_LINES = 8  # lines shown of one place, context included (the rest are counted)
PLACES_SHOWN = 5  # places shown with their lines (the rest are named by line number)
PLACE_WIDTH = 200  # characters of one line shown
PLACES_NAMED = 20  # places left out that are named by their line


def show_places(
    found: Sequence[tuple[int, int, Sequence[str]]],
    total: int | None = None,
    also: Sequence[int] = (),
) -> str:
    """Several places of a file that one text fits, each as read_file shows lines, so that a
    model can copy a line that only the place it means has: the refusal of every format whose
    text fits two places (WRONG_COUNT, AMBIGUOUS_MATCH).

    ``found`` holds, for each place in file order, its line (1-based), the number of the first
    line shown and the lines shown (the place's, with context around it, indentation intact).
    At most :data:`PLACES_SHOWN` places are shown, each with at most :data:`PLACE_LINES` lines
    (its first ones and its last, with how many were left out between), each line cut to
    :data:`PLACE_WIDTH` characters; the places left out are named by their line (up to
    :data:`PLACES_NAMED`, then counted).
    ``also``: the first lines of further places, given without their lines; ``total``: how
    many places there are in all, when ``found`` and ``also`` hold only some of them.
    """
    total = len(found) + len(also) if total is None else total
    shown = [(at, first, lines, _capped(lines)) for at, first, lines in found[:PLACES_SHOWN]]
    blocks = []
    for at, first, lines, rows in shown:
        width = len(str(first + len(lines) - 1))  # as listing() numbers the place's lines
        block = [f"at line {at}:"]
        for offset, text in rows:
            if offset is None:
                block.append(f"{' ' * width}⋮ {text}")
            else:
                block.append(_row(first + offset, text, width))
        blocks.append("\n".join(block))
    rest = [*(at for at, _, _ in found[PLACES_SHOWN:]), *also][:PLACES_NAMED]
    more = total - len(shown)
    if more > 0:
        named = f", at lines {', '.join(map(str, rest))}" if rest else ""
        unnamed = more - len(rest)
        etc = f" and {unnamed} other(s)" if rest and unnamed > 0 else ""
        blocks.append(f"and {more} more place(s){named}{etc}")
    return "\n".join(blocks)


def _capped(lines: Sequence[str]) -> list[tuple[int | None, str]]:
    """A place's lines, numbered from 0, with the middle ones left out past PLACE_LINES (a
    ``None`` number: a note saying how many)."""
    rows: list[tuple[int | None, str]] = [(k, line) for k, line in enumerate(lines)]
    if len(rows) <= PLACE_LINES:
        return rows
    keep = PLACE_LINES - 2
    left_out = len(rows) - keep - 1
    return [*rows[:keep], (None, f"({left_out} more lines)"), rows[-1]]


def _row(number: int, text: str, width: int) -> str:
    if len(text) > PLACE_WIDTH:
        text = f"{text[:PLACE_WIDTH]}... ({len(text) - PLACE_WIDTH:,} more characters)"
    return f"{number:>{width}}│{text}"


def places(lines: Sequence[str], starts: Sequence[int], size: int) -> str:
    """:func:`show_places` for a block of ``size`` lines at each of ``starts`` (0-based
    indexes into ``lines``, the file's lines): each place with the line before and after it."""
    found = []
    for start in starts[:PLACES_SHOWN]:
        lo, hi = max(start - 1, 0), min(start + max(size, 1) + 1, len(lines))
        found.append((start + 1, lo + 1, lines[lo:hi]))
    return show_places(found, len(starts), also=[s + 1 for s in starts[PLACES_SHOWN:]])


EXCERPT = 2000  # characters of a request's text that an error echoes back


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``text``, or its first ``limit`` characters and how many more there are: an error
    answers with what was sent, never with all of it."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"
