"""Find a block of lines inside a longer list of lines: strictly first, then with tolerances.

A *rung* is one way to compare a line of the file with a line of the pattern (exactly, or
ignoring trailing whitespace, ...). :func:`seek` tries the rungs of a ladder in order, strictest
first, and stops at the first rung that matches anything: a looser rung never adds places to
what a stricter one found, so a block that matches exactly somewhere is never also matched
loosely somewhere else. Every hit says which rung matched, so a caller can report it and refuse
when the number of places is not the one it expects.

Pure: lists of strings in, positions out. Every format that matches text by lines reuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rung:
    """A tolerance: two lines match on this rung when their ``key`` is equal."""

    name: str
    key: Callable[[str], str]


EXACT = Rung("exact", lambda line: line)
TRAILING_WHITESPACE = Rung("trailing_whitespace", str.rstrip)

LADDER: tuple[Rung, ...] = (EXACT, TRAILING_WHITESPACE)
"""The default ladder, strictest first."""


@dataclass(frozen=True, slots=True)
class SeekHit:
    """The pattern occurs at ``lines[line : line + len(pattern)]`` on rung ``rung``."""

    line: int
    rung: str


def lines_match(actual: Sequence[str], expected: Sequence[str], rung: Rung = EXACT) -> bool:
    """Whether ``actual`` and ``expected`` are the same lines on ``rung``."""
    key = rung.key
    return len(actual) == len(expected) and all(
        key(a) == key(e) for a, e in zip(actual, expected, strict=True)
    )


def seek(
    lines: Sequence[str],
    pattern: Sequence[str],
    *,
    start: int = 0,
    end: int | None = None,
    ladder: Sequence[Rung] = LADDER,
) -> list[SeekHit]:
    """Every place in ``lines[start:end]`` where ``pattern`` occurs, on the first rung of
    ``ladder`` that finds any; ``[]`` when none does.

    Places may overlap (``a a`` occurs twice in ``a a a``). An empty pattern occurs at every
    position from ``start`` to ``end`` included, on the first rung.
    """
    stop = len(lines) if end is None else min(end, len(lines))
    size = len(pattern)
    last = stop - size
    for rung in ladder:
        keyed = [rung.key(line) for line in lines[start:stop]]
        wanted = [rung.key(p) for p in pattern]
        hits = [
            SeekHit(at, rung.name)
            for at in range(start, last + 1)
            if keyed[at - start : at - start + size] == wanted
        ]
        if hits or not size:
            return hits
    return []
