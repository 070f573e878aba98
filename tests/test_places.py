"""A refusal because a text fits several places (WRONG_COUNT, AMBIGUOUS_MATCH) shows each place's
lines as read_file shows them, indentation intact, capped (issue 22): the one renderer,
:func:`editguard.core.listing.places`, and the refusals that use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from editguard import EditError, Workspace
from editguard.core.listing import (
    PLACE_LINES,
    PLACE_WIDTH,
    PLACES_NAMED,
    PLACES_SHOWN,
    places,
    show_places,
)

from .release_pairs import CORPUS


def test_each_place_is_numbered_lines_with_its_indentation() -> None:
    shown = show_places(
        [(2, 1, ["class A:", "    def run(self):"]), (9, 8, ["        def run(self):"])]
    )
    assert shown == (
        "at line 2:\n1│class A:\n2│    def run(self):\nat line 9:\n8│        def run(self):"
    )


def test_long_places_keep_their_first_and_last_lines_and_count_the_rest() -> None:
    lines = [f"    line {n}" for n in range(1, 21)]
    shown = show_places([(1, 1, lines)]).split("\n")
    assert len(shown) == 1 + PLACE_LINES
    assert shown[1] == " 1│    line 1"
    assert shown[-1] == "20│    line 20"
    assert f"({20 - (PLACE_LINES - 1)} more lines)" in shown[-2]


def test_long_lines_are_cut_and_say_how_much() -> None:
    shown = show_places([(1, 1, ["x" * (PLACE_WIDTH + 50)])])
    assert shown.endswith("... (50 more characters)")


def test_places_past_the_cap_are_named_then_counted() -> None:
    found = [(n, n, [f"line {n}"]) for n in range(1, 9)]
    also = list(range(100, 130))
    shown = show_places(found, 1000, also=also)
    assert [x for x in shown.split("\n") if x.startswith("at line ")] == [
        f"at line {n}:" for n in range(1, PLACES_SHOWN + 1)
    ]
    last = shown.split("\n")[-1]
    named = [*range(PLACES_SHOWN + 1, 9), *also][:PLACES_NAMED]
    assert last == (
        f"and {1000 - PLACES_SHOWN} more place(s), at lines {', '.join(map(str, named))} "
        f"and {1000 - PLACES_SHOWN - PLACES_NAMED} other(s)"
    )


def test_blocks_of_the_file_lines_are_shown_with_the_line_around_each() -> None:
    lines = ["def f():", "    return 1", "", "def g():", "    return 1"]
    assert places(lines, [1, 4], 1) == (
        "at line 2:\n1│def f():\n2│    return 1\n3│\nat line 5:\n4│def g():\n5│    return 1"
    )


def test_wrong_count_shows_the_places_of_real_code_with_the_lines_that_tell_them_apart(
    ws: Workspace, root: Path
) -> None:
    source = CORPUS / "six-1.15.0-1.16.0" / "six.py.old"
    (root / "six.py").write_bytes(source.read_bytes())
    text = source.read_text()
    old = "        return s\n"
    count = text.count(old)
    assert count >= 2
    with pytest.raises(EditError) as err:
        ws.edit_file("six.py", [{"old_text": old, "new_text": "        return t\n"}])
    error = err.value
    assert error.code == "WRONG_COUNT"
    message = error.text()
    lines = text.split("\n")
    for location in error.data["match_locations"][:PLACES_SHOWN]:
        n = location["line_number"]
        # The place's own line, the one before and the one after, each as read_file shows it.
        for k in (n - 1, n, n + 1):
            assert f"{k}│{lines[k - 1]}" in message, k
    assert "│        return s\n" in message
    headers = [x for x in message.split("\n") if x.startswith("at line ") and x.endswith(":")]
    assert len(headers) == min(count, PLACES_SHOWN)


def test_an_ambiguous_chunk_shows_each_place_with_its_context(ws: Workspace, root: Path) -> None:
    (root / "steps.py").write_text(
        "def steps():\n    step()\n    log()\n    done()\n    retry()\n    log()\n    finish()\n"
    )
    chunk = {"old_lines": ["    log()"], "new_lines": ["    log(1)"]}
    with pytest.raises(EditError) as err:
        ws.edit_symbol("steps.py", "steps", chunks=[chunk])
    assert err.value.code == "AMBIGUOUS_MATCH"
    message = err.value.text()
    assert "at line 3:\n2│    step()\n3│    log()\n4│    done()" in message
    assert "at line 6:\n5│    retry()\n6│    log()\n7│    finish()" in message


def test_a_chunk_that_fits_two_places_loosely_shows_both_with_their_lines(
    ws: Workspace, root: Path
) -> None:
    (root / "steps.py").write_text(
        "def steps():\n    step()\n    log('a')\n    done()\n    retry()\n    log('a')\n"
        "    finish()\n"
    )
    chunk = {"old_lines": ["    log(\u2018a\u2019)"], "new_lines": ["    log(\u2018b\u2019)"]}
    with pytest.raises(EditError) as err:
        ws.edit_symbol("steps.py", "steps", chunks=[chunk])
    assert (err.value.code, err.value.data["lines"]) == ("AMBIGUOUS_MATCH", [3, 6])
    message = err.value.text()
    assert "at line 3:\n2│    step()\n3│    log('a')\n4│    done()" in message
    assert "at line 6:\n5│    retry()\n6│    log('a')\n7│    finish()" in message
