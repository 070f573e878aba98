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


PLACES_SHOWN = 5  # places a refusal for several places shows with their lines
PLACE_LINES = 8  # lines shown of each place


def places(lines: Sequence[str], starts: Sequence[int], size: int) -> str:
    """The places ``starts`` (0-based) of a block of ``size`` lines, each as its numbered
    lines (indentation intact), so a model can copy a line that tells them apart; at most
    :data:`PLACES_SHOWN` places of at most :data:`PLACE_LINES` lines, saying what was left out."""
    shown = []
    for start in starts[:PLACES_SHOWN]:
        stop = min(len(lines), start + max(size, 1), start + PLACE_LINES)
        block = listing([excerpt(line, 200) for line in lines[start:stop]], start + 1)
        if start + size > stop:
            block += f"{LF}   ... ({start + size - stop} more lines)"
        shown.append(block)
    if len(starts) > PLACES_SHOWN:
        shown.append(f"... and {len(starts) - PLACES_SHOWN} more places")
    return (LF * 2).join(shown)


EXCERPT = 2000  # characters of a request's text that an error echoes back


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``text``, or its first ``limit`` characters and how many more there are: an error
    answers with what was sent, never with all of it."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"
