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


EXCERPT = 2000  # characters of a request's text that an error echoes back


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``text``, or its first ``limit`` characters and how many more there are: an error
    answers with what was sent, never with all of it."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"
