"""core/seek: a block of lines found strictly first, then with tolerances, never looser than
needed, every hit naming the rung that matched."""

from __future__ import annotations

import pytest

from editguard.core.seek import EXACT, LADDER, TRAILING_WHITESPACE, SeekHit, lines_match, seek

LINES = ["def f():", "    x = 1  ", "    return x", "", "def g():", "    x = 1", "    return x"]

TABLE: dict[str, tuple[list[str], dict[str, object], list[SeekHit]]] = {
    "an exact block": (["def g():", "    x = 1"], {}, [SeekHit(4, "exact")]),
    "exact wins over a place that matches only loosely": (
        ["    x = 1", "    return x"],
        {},
        [SeekHit(5, "exact")],
    ),
    "trailing whitespace, when nothing matches exactly": (
        ["def f():   ", "    x = 1"],
        {},
        [SeekHit(0, "trailing_whitespace")],
    ),
    "several places on one rung are all reported": (
        ["    return x"],
        {},
        [SeekHit(2, "exact"), SeekHit(6, "exact")],
    ),
    "a ladder without the exact rung sees both places": (
        ["    x = 1", "    return x"],
        {"ladder": (TRAILING_WHITESPACE,)},
        [SeekHit(1, "trailing_whitespace"), SeekHit(5, "trailing_whitespace")],
    ),
    "start and end bound the search": (["    return x"], {"start": 3}, [SeekHit(6, "exact")]),
    "a block past the end is not found": (["    return x", "extra"], {}, []),
    "leading whitespace is not a tolerance": (["x = 1"], {}, []),
    "an empty pattern is at every position": (
        [],
        {"start": 5},
        [SeekHit(5, "exact"), SeekHit(6, "exact"), SeekHit(7, "exact")],
    ),
}


@pytest.mark.parametrize(("pattern", "options", "hits"), TABLE.values(), ids=TABLE.keys())
def test_seek(pattern: list[str], options: dict[str, object], hits: list[SeekHit]) -> None:
    assert seek(LINES, pattern, **options) == hits  # type: ignore[arg-type]


def test_the_default_ladder_goes_from_strict_to_loose() -> None:
    assert LADDER == (EXACT, TRAILING_WHITESPACE)
    assert lines_match(["a "], ["a"], TRAILING_WHITESPACE)
    assert not lines_match(["a "], ["a"], EXACT)
    assert not lines_match(["a"], ["a", "b"], TRAILING_WHITESPACE)
