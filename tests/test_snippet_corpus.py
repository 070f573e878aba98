"""Safety over the benchmark's corpus: a snippet with elision markers, built from a real change the
way a model writes it, merges into exactly the changed file or is refused; it never gives a third
text. And the clean snippets whose anchor lines are unique do land (a merger that refused
everything would be safe and useless).

The cases come from ``snippets.py`` (``benchmarks/bench_snippet.py`` counts them all); the quick
suite merges a sample spread over every language and kind, the slow test every case.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from editguard.core.markers import marker_lines

from .conftest import examples
from .snippets import (
    KINDS,
    SnippetCase,
    changes,
    merge,
    reproduction,
    sample,
    snippet_cases,
    through_tool,
)

CLEAN_FLOOR = 0.90  # share of the clean cases with unique anchors that must land

# Wrong landings of the merger as it stands, each with its cause (reported with minimal
# reproductions to issue 25): any other wrong landing fails, and so does one of these that no
# longer lands wrong (take it out then: the list only shrinks, down to nothing).
KNOWN_WRONG: dict[str, str] = {}
LANGUAGES = {"py", "js", "ts", "d.ts", "tsx", "go", "rs", "java", "c", "h", "cs", "rb", "php", "md"}


def _judge(cases: list[SnippetCase], folder: Path) -> tuple[list[str], Counter[str], Counter[str]]:
    """Wrong landings (as reproductions), and the verdicts of all cases and of the clean ones
    with unique anchors.

    A wrong merge is wrong, except for a snippet without any marker: by the rules that is the
    whole new text, so the merge is the fragment, and the edit_snippet tool must refuse it (its
    check of removed definitions, its syntax guard). Every wrong merge is also sent to the tool,
    which must not write it.
    """
    wrong: list[str] = []
    verdicts: Counter[str] = Counter()
    clean: Counter[str] = Counter()
    for case in cases:
        outcome = merge(case)
        verdicts[outcome.verdict] += 1
        if case.kind == "clean" and case.anchors_unique:
            clean[outcome.verdict] += 1
        tool = through_tool(case, folder) if outcome.verdict == "wrong" else ""
        landed_wrong = outcome.verdict == "wrong" and (case.kind != "no_markers" or tool == "wrong")
        known = case.label in KNOWN_WRONG
        if landed_wrong and not known:
            wrong.append(reproduction(case, outcome, width=600) + f"\n(the tool: {tool})")
        elif known and not landed_wrong:
            wrong.append(f"{case.label}: no longer lands wrong, take it out of KNOWN_WRONG")
    return wrong, verdicts, clean


def _assert_safe_and_useful(cases: list[SnippetCase], folder: Path, *, floor: bool = True) -> None:
    wrong, verdicts, clean = _judge(cases, folder)
    assert not wrong, f"{len(wrong)} of {len(cases)} not as known ({dict(verdicts)}):\n" + (
        "\n\n".join(wrong[:5])
    )
    if floor:
        landed, total = clean["exact"], sum(clean.values())
        assert total >= 5, "the sample holds too few clean cases with unique anchors"
        assert landed >= CLEAN_FLOOR * total, (
            f"only {landed} of {total} clean snippets with unique anchors landed ({dict(verdicts)})"
        )


def test_the_corpus_holds_snippets_of_real_changes_in_many_languages_and_every_kind() -> None:
    cases = snippet_cases()
    assert len(cases) >= 1000
    assert {case.kind for case in cases} == set(KINDS)
    assert {case.language for case in cases} >= LANGUAGES
    assert {case.origin for case in cases} == {"release", "made-up"}
    assert any(case.span for case in cases)
    assert any(case.span is None for case in cases)
    assert sum(case.kind == "clean" and case.anchors_unique for case in cases) >= 100
    for case in cases:
        assert case.expected != case.old, case.label
        markers = marker_lines(case.snippet, case.name)
        assert bool(markers) == (case.kind != "no_markers"), case.label
        assert len(changes()) > 0


def test_a_snippet_of_the_sample_lands_exactly_or_is_refused(tmp_path: Path) -> None:
    cases = sample(snippet_cases(), examples(400))
    _assert_safe_and_useful(cases, tmp_path, floor=False)


def test_clean_snippets_with_unique_anchors_land(tmp_path: Path) -> None:
    clean = tuple(case for case in snippet_cases() if case.kind == "clean" and case.anchors_unique)
    _assert_safe_and_useful(sample(clean, examples(100)), tmp_path)


@pytest.mark.slow
def test_every_snippet_of_the_corpus_lands_exactly_or_is_refused(tmp_path: Path) -> None:
    _assert_safe_and_useful(list(snippet_cases()), tmp_path)


def _by_anchors(case: SnippetCase) -> str | None:
    """The merge by the issue's rules, for a clean snippet whose anchors are unique: each segment
    between markers replaces the file's lines from where its first line is to where its last line
    is; the lines between segments stay. None when an edge line is not found once."""
    from editguard.core.markers import is_marker, styles_for

    old = case.old.split("\n")
    lo, hi = (case.span[0] - 1, case.span[1]) if case.span else (0, len(old))
    scope = old[lo:hi]
    styles = styles_for(case.name)
    segments: list[list[str]] = [[]]
    for line in case.snippet.split("\n"):
        if is_marker(line, styles):
            segments.append([])
        else:
            segments[-1].append(line)
    out, cursor = [], 0
    for segment in (s for s in segments if s):
        if scope.count(segment[0]) != 1 or scope.count(segment[-1]) != 1:
            return None
        first, last = scope.index(segment[0]), scope.index(segment[-1])
        if first < cursor or last < first:
            return None
        out += scope[cursor:first] + segment
        cursor = last + 1
    out += scope[cursor:]
    return "\n".join(old[:lo] + out + old[hi:])


def test_every_known_wrong_landing_is_a_case_of_the_corpus() -> None:
    labels = {case.label for case in snippet_cases()}
    assert set(KNOWN_WRONG) <= labels


def test_the_expected_text_is_what_the_anchors_say() -> None:
    """The generator's check, merger or not: a clean snippet with unique anchors, merged by its
    anchors in the simplest way, gives the case's expected text."""
    cases = [c for c in snippet_cases() if c.kind == "clean" and c.anchors_unique]
    merged = [(case, _by_anchors(case)) for case in cases]
    found = [(case, text) for case, text in merged if text is not None]
    assert len(found) >= 0.9 * len(cases)
    for case, text in found:
        assert text == case.expected, case.label
