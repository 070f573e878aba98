"""Diffs rendered from plans: valid unified diffs that turn the old text into the new one."""

from __future__ import annotations

import difflib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from editguard.core.diff import render_diff
from editguard.core.plan import Plan, Replacement

from .conftest import examples

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")


def patch(old: str, diff: str) -> str:
    """Apply a unified diff to ``old``, checking every context and removed line on the way."""
    src = old.splitlines(keepends=True)
    out: list[str] = []
    at = 0
    lines = diff.splitlines()
    assert lines[0].startswith("--- a/")
    assert lines[1].startswith("+++ b/")
    i = 2
    while i < len(lines):
        m = HUNK.match(lines[i])
        assert m, lines[i]
        start, count = int(m.group(1)), int(m.group(2) or 1)
        first = start - 1 if count else start
        out += src[at:first]
        at = first
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, body = lines[i][0], lines[i][1:]
            no_newline = i + 1 < len(lines) and lines[i + 1] == "\\ No newline at end of file"
            text = body + ("" if no_newline else "\n")
            if tag in " -":
                assert src[at] == text, (src[at], text)
                at += 1
            if tag in " +":
                out.append(text)
            i += 2 if no_newline else 1
    out += src[at:]
    return "".join(out)


def test_one_changed_line_gives_one_hunk_with_three_lines_of_context() -> None:
    text = "".join(f"l{i}\n" for i in range(1, 21))
    start = text.index("l10")
    diff = render_diff(text, Plan((Replacement(start, start + 3, "ten"),)), "f.txt")
    assert diff.splitlines() == [
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -7,7 +7,7 @@",
        " l7",
        " l8",
        " l9",
        "-l10",
        "+ten",
        " l11",
        " l12",
        " l13",
    ]


def test_a_missing_final_newline_is_marked() -> None:
    diff = render_diff("a\nb", Plan((Replacement(2, 3, "c"),)), "f")
    assert diff.splitlines()[-4:] == [
        "-b",
        "\\ No newline at end of file",
        "+c",
        "\\ No newline at end of file",
    ]


def test_adding_the_final_newline_shows_it() -> None:
    diff = render_diff("a", Plan((Replacement(1, 1, "\n"),)), "f")
    assert diff.splitlines()[2:] == ["@@ -1 +1 @@", "-a", "\\ No newline at end of file", "+a"]


def test_an_unchanged_plan_gives_an_empty_diff() -> None:
    assert render_diff("abc\n", Plan((Replacement(0, 3, "abc"),)), "f") == ""
    assert render_diff("abc\n", Plan(), "f") == ""


def test_distant_changes_get_separate_hunks_with_shifted_new_numbers() -> None:
    text = "".join(f"{i}\n" for i in range(1, 41))
    a = text.index("5\n")
    b = text.index("30\n")
    diff = render_diff(text, Plan((Replacement(a, a, "new\n"), Replacement(b, b + 3, ""))), "f")
    headers = [line for line in diff.splitlines() if line.startswith("@@")]
    assert headers == ["@@ -2,6 +2,7 @@", "@@ -27,7 +28,6 @@"]


def test_the_diff_matches_difflib_on_a_simple_change() -> None:
    old = "".join(f"line {i}\n" for i in range(30))
    start = old.index("line 12")
    plan = Plan((Replacement(start, start + 7, "LINE 12\nextra"),))
    new = plan.apply_to_text(old)
    expected = "".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/f", "b/f")
    )
    assert render_diff(old, plan, "f") == expected


@st.composite
def texts_and_plans(draw: st.DrawFn) -> tuple[str, Plan]:
    text = draw(st.text(alphabet="ab\n", max_size=60))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    reps = []
    for lo, hi in zip(cuts[::2], cuts[1::2], strict=False):
        reps.append(Replacement(lo, hi, draw(st.text(alphabet="ab\n", max_size=6))))
    return text, Plan(tuple(reps))


@settings(max_examples=examples(500))
@given(texts_and_plans())
def test_applying_the_diff_to_the_old_text_gives_the_new_text(case: tuple[str, Plan]) -> None:
    text, plan = case
    diff = render_diff(text, plan, "f")
    new = plan.apply_to_text(text)
    if new == text:
        assert diff == ""
    else:
        assert patch(text, diff) == new


def _one_span(old: str, new: str) -> Plan:
    """The change as one replacement between the texts' common start and end: all that a
    multi-file change (or an undo) knows of a file when its history records it."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return Plan((Replacement(head, len(old) - tail, new[head : len(new) - tail]),))


def test_a_span_over_the_match_budget_still_shows_only_the_changed_lines() -> None:
    # 6,000 lines between the first and the last change: too many for difflib's matcher,
    # which once made the whole span one removed and one added block (cut at the cap, and
    # counted as thousands of lines by the history).
    lines = [f"line {i}\n" for i in range(6000)]
    changed = list(lines)
    changed[10], changed[5990] = "ten\n", "far\n"
    changed[3000:3000] = ["mid\n", "\n", "\n"]
    old, new = "".join(lines), "".join(changed)
    diff = render_diff(old, _one_span(old, new), "f", max_lines=2000)
    assert patch(old, diff) == new
    assert [line for line in diff.splitlines()[2:] if line[:1] in "+-"] == [
        "-line 10",
        "+ten",
        "+mid",
        "+",
        "+",
        "-line 5990",
        "+far",
    ]


@settings(max_examples=examples(300))
@given(
    st.lists(st.sampled_from(["a\n", "b\n", "\n", "x", *(f"u{k}\n" for k in range(12))])),
    st.lists(st.sampled_from(["a\n", "b\n", "\n", "x", *(f"u{k}\n" for k in range(12))])),
)
def test_a_diff_over_the_budget_is_still_a_valid_diff(old: list[str], new: list[str]) -> None:
    # With no budget at all, every span is matched through its unique lines only.
    import editguard.core.diff as module

    old_text, new_text = "".join(old), "".join(new)
    budget, module._MATCH_BUDGET = module._MATCH_BUDGET, 0
    try:
        diff = render_diff(old_text, _one_span(old_text, new_text), "f")
    finally:
        module._MATCH_BUDGET = budget
    if old_text == new_text:
        assert diff == ""
    else:
        assert patch(old_text, diff) == new_text
