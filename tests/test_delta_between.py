"""The delta an undo records (:func:`editguard.core.delta.between`): it must take the new bytes
back to the old exactly, and cost what differs, not the bytes between distant changes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from editguard.core import delta
from editguard.core.delta import between, pack_layers, spans, take_back

from .conftest import examples


def test_two_changes_far_apart_in_a_large_file_cost_only_what_changed() -> None:
    # An undo of a change at the top and the bottom of a 400 KB file once kept everything
    # between them.
    lines = [b"line %05d of a large file\r\n" % i for i in range(16000)]
    changed = list(lines)
    changed[3], changed[15990] = b"three\r\n", b"far down\r\n"
    changed[8000:8000] = [b"\r\n", b"inserted\r\n"]
    old, new = b"".join(lines), b"".join(changed)
    layer = between(old, new)
    assert take_back(new, layer) == old
    assert sum(len(s.old) + 24 for s in layer) < 200
    assert len(pack_layers([layer])) < 200


def test_a_small_change_is_one_splice() -> None:
    assert between(b"a\nb\nc\n", b"a\nB\nc\n") == (delta.Splice(2, 1, b"b"),)
    assert between(b"same", b"same") == ()


def test_spans_are_the_stretches_that_differ_with_equal_lines_between() -> None:
    a = [f"line {i}\n" for i in range(100_000)]
    b = list(a)
    b[10], b[50_000], b[99_990] = "ten\n", "middle\n", "far\n"
    del b[70_000:70_003]
    assert spans(a, b, small=4) == [
        (10, 11, 10, 11),
        (50_000, 50_001, 50_000, 50_001),
        (70_000, 70_003, 70_000, 70_000),
        (99_990, 99_991, 99_987, 99_988),
    ]
    assert spans(a, a) == []
    assert spans([], ["x"]) == [(0, 0, 0, 1)]


LINES = st.sampled_from([b"a\n", b"b\r\n", b"\n", b"c", b"\r", *(b"u%d\n" % k for k in range(10))])


@settings(max_examples=examples(400))
@given(st.lists(LINES, max_size=40), st.lists(LINES, max_size=40))
def test_the_new_bytes_always_go_back_to_the_old(old: list[bytes], new: list[bytes]) -> None:
    # With every middle split at its anchors (the threshold set to nothing).
    limit, delta._ONE_SPLICE = delta._ONE_SPLICE, 0
    try:
        layer = between(b"".join(old), b"".join(new))
    finally:
        delta._ONE_SPLICE = limit
    assert take_back(b"".join(new), layer) == b"".join(old)
    starts = [s.start for s in layer]
    assert starts == sorted(starts)


@settings(max_examples=examples(400))
@given(st.lists(LINES, max_size=60), st.lists(LINES, max_size=60))
def test_spans_cover_every_difference(old: list[bytes], new: list[bytes]) -> None:
    # Rebuilding new from old: the lines between the spans are equal on both sides.
    out: list[bytes] = []
    i0 = j0 = 0
    for i1, i2, j1, j2 in spans(old, new, small=0):
        assert old[i0:i1] == new[j0:j1]
        out += old[i0:i1] + new[j1:j2]
        i0, j0 = i2, j2
    assert old[i0:] == new[j0:]
    assert out + old[i0:] == new
