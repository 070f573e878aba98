"""NeedleSet finds every occurrence of every needle, overlapping ones too, exactly where
``str.find`` does: with few needles (one find each) and with many (the automaton, on bytes where
the text is within Latin-1 and on str beyond it), across the chunks it scans."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from editguard.core import match
from editguard.core.match import NeedleSet, find_all

from .conftest import examples

# Letters that make many overlaps, one beyond ASCII within Latin-1, one beyond Latin-1 (BMP),
# one beyond the BMP.
ALPHABET = "ab\n é→😀"


def _expected(text: str, needles: list[str], limit: int | None = None) -> dict[int, list[int]]:
    found = {nid: find_all(text, n, limit=limit) for nid, n in enumerate(needles)}
    return {nid: hits for nid, hits in found.items() if hits}


@settings(max_examples=examples(300), deadline=None)
@given(
    text=st.text(alphabet=ALPHABET, max_size=300),
    needles=st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=6), min_size=1, max_size=40),
)
def test_the_scan_finds_what_str_find_finds(text: str, needles: list[str]) -> None:
    needles = list(dict.fromkeys(needles))
    assert NeedleSet(needles).scan(text) == _expected(text, needles)


def test_many_needles_across_chunk_boundaries_in_narrow_and_wide_text() -> None:
    rng = random.Random(7)
    size = 2 * match._SCAN_CHUNK + 1000
    for wide in ("", "é", "→", "😀"):
        # Mostly 'a' and 'b', so that needles occur often and straddle every boundary.
        text = "".join(rng.choice("ab") for _ in range(size))
        if wide:
            text = text[: match._SCAN_CHUNK - 2] + wide + text[match._SCAN_CHUNK - 2 :]
        needles = list(
            dict.fromkeys("".join(rng.choice("ab") for _ in range(12)) for _ in range(40))
        )
        needles += [f"ab{wide}ab", "b" * 11 + "a"] if wide else ["b" * 11 + "a"]
        needles = list(dict.fromkeys(needles))
        assert len(needles) > match._FEW  # the automaton, not find
        assert NeedleSet(needles).scan(text) == _expected(text, needles), wide
        assert NeedleSet(needles).scan(text, limit=3) == _expected(text, needles, limit=3), wide
