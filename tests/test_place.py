"""One placement (issue 23): the order constraint and the choice of :mod:`editguard.core.formats.
place.order`, checked against brute force, and the refusals of :mod:`.place.refusal` (one code
and one data layout per cause, whichever format refuses)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from editguard.core.formats.place.order import KeyText, choose, forms, latest_starts
from editguard.core.formats.place.refusal import ambiguous, overlapping, uncorrectable
from editguard.core.seek import content_key
from editguard.errors import ChunkMismatch

from .conftest import examples


def _starts(lines: list[str], block: list[str], low: int = 0) -> list[int]:
    keys = [content_key(x) for x in lines]
    want = [content_key(x) for x in block]
    return [s for s in range(low, len(lines) - len(block) + 1) if keys[s : s + len(block)] == want]


def _fits_after(lines: list[str], blocks: list[list[str]], low: int) -> bool:
    """Whether ``blocks`` can all be placed in order, without sharing a line, from ``low``."""
    for block in blocks:
        places = _starts(lines, block, low)
        if not places:
            return False
        low = places[0] + len(block)
    return True


@settings(max_examples=examples(300), deadline=None)
@given(
    lines=st.lists(st.sampled_from(["a", "b", "c", "  a", "b  "]), max_size=14),
    blocks=st.lists(
        st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=2), min_size=1, max_size=4
    ),
)
def test_a_bound_is_the_last_start_that_leaves_room_for_every_later_block(
    lines: list[str], blocks: list[list[str]]
) -> None:
    if not _fits_after(lines, blocks, 0):
        return  # the order is broken somewhere: bounds then say nothing there
    bounds = latest_starts(KeyText(lines), [[tuple(b)] for b in blocks])
    assert bounds[-1] is None  # nothing after the last block
    for k in range(len(blocks) - 1):
        room = [
            s
            for s in _starts(lines, blocks[k])
            if _fits_after(lines, blocks[k + 1 :], s + len(blocks[k]))
        ]
        assert bounds[k] == max(room)


def test_a_block_without_lines_bounds_nothing_and_is_passed_over() -> None:
    lines = ["x", "a", "x", "b"]
    assert latest_starts(KeyText(lines), [[("x",)], [], [("b",)]]) == [2, None, None]


def test_a_later_block_found_nowhere_leaves_the_earlier_ones_unbound() -> None:
    lines = ["x", "a", "x"]
    assert latest_starts(KeyText(lines), [[("x",)], [("zzz",)]]) == [None, None]


def test_a_block_is_found_in_every_form_a_rung_reads() -> None:
    # Pasted line numbers are one form of the block: it bounds by where that form is.
    lines = ["a", "b", "a", "b"]
    assert forms(["1: a", "2: b"])[1:] == [(" a", " b"), ("a", "b")]
    assert latest_starts(KeyText(lines), [[("a",)], forms(["3: b"])]) == [2, None]


@pytest.mark.parametrize(
    ("places", "stated", "bound", "chosen"),
    [
        ([4], None, None, 4),  # one place, however far
        ([1, 7], None, None, [1, 7]),  # a tie
        ([1, 7], 7, None, 7),  # the stated line tells them apart
        ([1, 7], None, 5, 1),  # only the first leaves room for what follows
        ([1, 7], 7, 5, 1),  # the stated place leaves no room: the order decides
        ([1, 4, 7], None, 5, [1, 4]),  # still two after the order: a tie
        ([1, 4, 7], 4, 5, 4),
        ([6, 7], None, 5, 6),  # none leaves room: the first, refused where the next fails
        ([6, 7], 7, 5, 7),
        ([], None, None, []),
    ],
)
def test_choose(
    places: list[int], stated: int | None, bound: int | None, chosen: int | list[int]
) -> None:
    assert choose(places, stated=stated, bound=bound) == chosen


def test_every_choice_is_a_place_or_a_tie_of_two_or_more() -> None:
    for places in itertools.combinations(range(6), 3):
        for stated, bound in itertools.product([None, *range(6)], [None, *range(6)]):
            got = choose(list(places), stated=stated, bound=bound)
            assert got in places if isinstance(got, int) else len(got) >= 2


LINES = ["def f():", "    step()", "    log()", "    step()", "    log()"]


def test_a_tie_is_ambiguous_match_with_each_places_numbered_lines() -> None:
    error = ambiguous(
        LINES, [1, 3], 1, what="chunk 1 of 1", rung="indentation", tip="say which.", first_line=10
    )
    assert (error.code, error.data) == (
        "AMBIGUOUS_MATCH",
        {"lines": [11, 13], "match": "indentation"},
    )
    assert "at line 11:\n10│def f():\n11│    step()\n12│    log()" in error.message
    assert error.suggestions == ["Say which."]


def test_an_uncorrectable_match_has_one_text_and_one_layout_whatever_its_code() -> None:
    refusals = [
        uncorrectable(LINES, 1, 3, what="old_text", rung="indentation", reason="why", search="x"),
        uncorrectable(
            LINES,
            1,
            3,
            what="old_text",
            rung="indentation",
            reason="why",
            search="x",
            error=ChunkMismatch,
        ),
    ]
    assert [error.code for error in refusals] == ["NO_MATCH", "CHUNK_MISMATCH"]
    for error in refusals:
        assert error.data == {
            "search_text": "x",
            "match": "indentation",
            "lines": [2, 3],
            "match_locations": [{"line_number": 2, "end_line": 3}],
        }
        assert error.message.startswith(
            "old_text: not as sent; it matches lines 2-3 with tolerance for indentation, but why."
        )


def test_overlapping_blocks_name_both_and_where_they_meet() -> None:
    error = overlapping(0, 2, 14, what="chunks 1 and 3 share line 14", tip="merge them")
    assert (error.code, error.data) == ("OVERLAPPING_EDITS", {"edits": [0, 2], "line": 14})
