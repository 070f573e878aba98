"""A refusal always shows the intended lines, and says truly what differs.

Blocks of 1 to 50 lines of real released source files get one mistake each, of every kind a
model makes when it copies lines (``tests/mistaken_blocks.py`` draws them and says which samples it
skips, and why); the regions that a NO_MATCH error shows must include the intended lines, and
the differences it names must be the mistake, told with the request's and the file's real lines.
"""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

import pytest

from editguard import EditError, Workspace
from editguard.core.similar import describe, find_similar
from tests.conftest import read_text
from tests.mistaken_blocks import MISTAKES, SOURCES, Draw, Sample, samples

# Skipped: trivial, repeated or ambiguous blocks, still-matching texts (tests/mistaken_blocks.py).
MAX_SKIP_RATE = 0.12  # over all mistakes
MAX_SKIP_RATE_OF_ONE = 0.25  # of one mistake (a stray line makes more blocks ambiguous)
MIN_SAMPLES = 60  # per mistake, so that a regression cannot hide in a small draw


@cache
def _draw(kind: str) -> Draw:
    return samples(kind)


# What each mistake is, as describe() must name it when the intended text is compared.
NAMED = {
    "typo_changed": {"content"},
    "typo_added": {"content"},
    "typo_removed": {"content"},
    "typo_in_part_of_a_line": {"content"},
    "blank_line_missing": {"missing_line"},
    "blank_line_extra": {"extra_line"},
    "indentation_deeper": {"indentation"},
    "indentation_shallower": {"indentation"},
    "tabs_vs_spaces": {"tabs_vs_spaces"},
    "line_added_at_start": {"extra_line"},
    "line_added_at_end": {"extra_line"},
    "line_dropped_inside": {"missing_line"},
    "trailing_whitespace": {"trailing_whitespace"},
    "curly_quotes": {"quotes"},
    "line_numbers_box": {"line_numbers"},
    "line_numbers_pipe": {"line_numbers"},
    "line_numbers_colon": {"line_numbers"},
    "line_numbers_l_colon": {"line_numbers"},
    "line_numbers_tab": {"line_numbers"},
}


def test_every_mistake_says_what_it_is_named() -> None:
    assert set(NAMED) == set(MISTAKES)


def test_few_samples_are_skipped() -> None:
    draws = [_draw(kind) for kind in sorted(MISTAKES)]
    kept = sum(len(d.samples) for d in draws)
    skipped = sum(sum(d.skipped.values()) for d in draws)
    assert skipped / (kept + skipped) <= MAX_SKIP_RATE
    assert all(d.skip_rate <= MAX_SKIP_RATE_OF_ONE for d in draws), [d.skipped for d in draws]
    assert all(len(d.samples) >= MIN_SAMPLES for d in draws)


@pytest.mark.parametrize("kind", sorted(MISTAKES))
def test_the_intended_lines_are_among_the_regions_shown(kind: str) -> None:
    draw = _draw(kind)
    missed = []
    for sample in draw.samples:
        regions = find_similar(sample.text, sample.needle)
        if not any(sample.overlaps(r.start_line, r.end_line) for r in regions):
            missed.append(f"{sample}: shown {[(r.start_line, r.end_line) for r in regions]}")
        assert all(r.similarity <= 0.99 for r in regions), sample
    assert missed == []


@pytest.mark.parametrize("kind", sorted(MISTAKES))
def test_the_mistake_is_named_with_the_real_lines(kind: str) -> None:
    for sample in _draw(kind).samples:
        differences = describe(sample.needle, sample.intended)
        assert {d.kind for d in differences} == NAMED[kind], sample
        sent, have = sample.needle.split("\n"), sample.intended.split("\n")
        for d in differences:
            assert d.expected in sent or (d.expected == "" and d.kind == "missing_line"), sample
            assert d.found in have or (d.found == "" and d.kind == "extra_line"), sample


def _refused(sample: Sample, ws: Workspace, root: Path) -> EditError | None:
    """The error of the real edit_file call, None when the edit was applied (a tolerant
    match may correct some mistakes instead of refusing them)."""
    name = sample.source.name
    shutil.copyfile(sample.source, root / name)
    try:
        ws.edit_file(name, [{"old_text": sample.needle, "new_text": "x"}])
    except EditError as error:
        return error
    return None


@pytest.mark.parametrize("kind", sorted(MISTAKES))
def test_a_refused_edit_shows_the_intended_lines(kind: str, ws: Workspace, root: Path) -> None:
    refused = 0
    for sample in samples(kind, per_file=2).samples:
        error = _refused(sample, ws, root)
        if error is None or error.code != "NO_MATCH":
            continue
        refused += 1
        similar = error.data.get("similar_content", [])
        # A text found only with a tolerance that cannot carry over to new_text is refused with
        # the lines it matched instead.
        located = error.data.get("match_locations", [])
        shown = [(r["start_line"], r["end_line"]) for r in similar] + [
            (r["line_number"], r.get("end_line", r["line_number"])) for r in located
        ]
        assert any(sample.overlaps(start, end) for start, end in shown), f"{sample}: {shown}"
        assert all(r["similarity"] <= 0.99 for r in similar)
        assert "100% similar" not in error.text()
    # A typo is never corrected by tolerant matching: those edits, at least, are refused.
    assert refused or not kind.startswith("typo")


def test_the_sources_are_real_released_files() -> None:
    assert len(SOURCES) >= 20
    assert not [p for p in SOURCES if p.name.startswith("handwritten_")]


# -- the error as a model reads it ------------------------------------------------------------

CODE = "".join(
    f"def step_{i}(state):\n    state.count += {i}\n    return state\n\n" for i in range(60)
)


@pytest.fixture
def code(root: Path) -> Path:
    path = root / "steps.py"
    path.write_text(CODE)
    return path


def test_pasted_line_numbers_are_named_and_a_tip_says_to_drop_them(
    ws: Workspace, code: Path
) -> None:
    numbered = read_text(ws, "steps.py", start_line=41, end_line=43).content
    assert numbered.startswith("41\u2502def step_10(state):")
    # With a typo too: tolerant matching may drop the prefixes, but not correct the typo.
    numbered = numbered.replace("count", "cuont")
    with pytest.raises(EditError) as err:
        ws.edit_file("steps.py", [{"old_text": numbered, "new_text": "x"}])
    (best, *_) = err.value.data["similar_content"]
    assert (best["start_line"], best["end_line"]) == (41, 43)
    prefixes, typo = best["differences"]
    assert prefixes["type"] == "line_numbers"
    assert (prefixes["expected"], prefixes["found"]) == (
        "41\u2502def step_10(state):",
        "def step_10(state):",
    )
    assert typo["type"] == "content"
    assert (typo["expected"], typo["found"]) == (
        "42\u2502    state.cuont += 10",
        "    state.count += 10",
    )
    assert best["similarity"] <= 0.99
    assert any("line-number prefixes" in tip for tip in err.value.suggestions)
    assert "100% similar" not in err.value.text()


def test_a_long_search_text_that_differs_after_the_lines_compared_says_where(
    ws: Workspace, code: Path
) -> None:
    lines = CODE.split("\n")[:60]
    lines[53] = lines[53].replace("count", "total")
    with pytest.raises(EditError) as err:
        ws.edit_file("steps.py", [{"old_text": "\n".join(lines), "new_text": "x"}])
    (best, *_) = err.value.data["similar_content"]
    assert best["start_line"] == 1
    assert best["similarity"] <= 0.99
    (difference,) = best["differences"]
    assert difference["type"] == "content"
    assert difference["detail"].startswith("line 54: ")
    assert (difference["expected"], difference["found"]) == (
        "    state.total += 13",
        "    state.count += 13",
    )
