"""Mis-copied real edits land exactly as meant or are refused; they never write a third file.

Every real edit of ``mistakes.py`` (release hunks and edits of real code in many languages) is
sent to ``edit_file`` as a model mis-copies it: with CRLF, trailing whitespace, typographic
punctuation, line-number prefixes, one indentation level off, tabs for spaces, and
combinations. The file must then hold either exactly the bytes of the exact edit, or its old
bytes with an EditError raised. Traps (a letter, a digit, a name, a blank line, an end line or
inner spaces that differ) must always be refused. And where a tolerance would fit two places, the
edit is refused and both places are named.

These hold whether the tolerant matching ("match ladder") is there or not: without it every
mistake except CRLF is a refusal.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from editguard import EditError, Workspace
from editguard.core.document import decode

from .mistakes import (
    MISTAKES,
    Case,
    Mistake,
    RealEdit,
    apply_exact,
    attempt,
    indent_unit,
    mistake_cases,
    real_edits,
)
from .release_pairs import count_overlapping

MIN_CASES = 15  # every kind applies to at least this many real edits
# Each call costs a few milliseconds (a refusal searches the file for similar lines), so the
# test tries each kind on at most this many edits, spread over the whole list; the benchmark
# (benchmarks/bench_ladder.py) and EDITGUARD_ALL_MISTAKES=1 try every one.
SHARE = None if os.environ.get("EDITGUARD_ALL_MISTAKES") == "1" else 50
AMBIGUOUS_CODES = {"WRONG_COUNT", "AMBIGUOUS_MATCH"}


def _share(cases: list[Case]) -> list[Case]:
    """At most ``SHARE`` of ``cases``, evenly spread (all of them when SHARE is None)."""
    if SHARE is None or len(cases) <= SHARE:
        return cases
    return [cases[i * len(cases) // SHARE] for i in range(SHARE)]


def _describe(case: Case, what: str) -> str:
    return f"{case.edit.source} (lines {case.edit.first_line}-{case.edit.last_line}): {what}"


def test_the_real_edits_are_exact_unique_and_come_from_many_languages() -> None:
    edits = real_edits()
    suffixes = {edit.file_name.rsplit(".", 1)[-1] for edit in edits}

    assert len(edits) >= 200
    assert {"py", "js", "ts", "tsx", "go", "rs", "java", "c", "h", "cs", "rb", "php"} <= suffixes
    assert {edit.indent_unit for edit in edits} >= {"\t", "  ", "    "}
    assert any(1 < edit.last_line - edit.first_line + 1 <= 50 for edit in edits)
    for edit in edits:
        assert count_overlapping(edit.text, edit.old_text) == 1, edit.source
        assert edit.expected == apply_exact(edit.data, edit.old_text, edit.new_text)
        assert edit.expected != edit.data, edit.source
        lines = decode(edit.data).text.split("\n")[edit.first_line - 1 : edit.last_line]
        assert "\n".join(lines).startswith(edit.old_text.rstrip("\n")), edit.source


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.kind for m in MISTAKES])
def test_a_mis_copied_edit_lands_exactly_or_is_refused(mistake: Mistake, tmp_path: Path) -> None:
    cases = mistake_cases(mistake)
    ws = Workspace([tmp_path], prewarm=False)
    failures: list[str] = []
    verdicts: Counter[str] = Counter()

    for case in _share(cases):
        outcome = attempt(ws, tmp_path, case)
        verdicts[outcome.verdict] += 1
        if outcome.verdict == "wrong":
            failures.append(_describe(case, "wrote a file that the exact edit does not give"))
        elif mistake.trap and outcome.verdict == "exact":
            failures.append(_describe(case, "a trap landed"))
        elif mistake.kind == "crlf" and outcome.verdict != "exact":
            failures.append(_describe(case, "CRLF line breaks are read as LF: it must land"))

    assert len(cases) >= MIN_CASES, f"only {len(cases)} real edits suit {mistake.kind}"
    assert not failures, f"{len(failures)} of {len(cases)} ({dict(verdicts)}):\n" + "\n".join(
        failures[:20]
    )


# --------------------------------------------------------------------------------------------
# Ambiguity: a block twice in the file, the copies differing only where a tolerance looks away.


def _shift(text: str, unit: str) -> str:
    return "\n".join(unit + line if line.strip() else line for line in text.split("\n"))


def _pad(text: str, padding: str) -> str:
    return "\n".join(line + padding if line else line for line in text.split("\n"))


def _curl(text: str) -> str:
    return text.replace('"', "\u201c").replace("'", "\u2018")


def _tabs(text: str, unit: str) -> str:
    lines = []
    for line in text.split("\n"):
        tabs, spaces = divmod(len(line) - len(line.lstrip(" ")), len(unit))
        lines.append("\t" * tabs + " " * spaces + line.lstrip(" "))
    return "\n".join(lines)


def _indentation_twins(block: str, unit: str) -> tuple[str, str] | None:
    """The second copy one level deeper; old_text two levels deeper than the first."""
    return _shift(block, unit), _shift(_shift(block, unit), unit)


def _trailing_whitespace_twins(block: str, unit: str) -> tuple[str, str] | None:
    """The second copy with two spaces after each line; old_text with a tab after each."""
    return _pad(block, "  "), _pad(block, "\t")


def _punctuation_twins(block: str, unit: str) -> tuple[str, str] | None:
    """The second copy with curly quotes; old_text with the other curly quotes."""
    if '"' not in block and "'" not in block:
        return None
    return _curl(block), block.replace('"', "\u201d").replace("'", "\u2019")


def _tabs_twins(block: str, unit: str) -> tuple[str, str] | None:
    """A space-indented block; the second copy with tabs; old_text one level deeper (spaces)."""
    if unit == "\t" or not any(line.startswith(unit) for line in block.split("\n")):
        return None
    return _tabs(block, unit), _shift(block, unit)


TWINS = {
    "indentation": _indentation_twins,
    "trailing_whitespace": _trailing_whitespace_twins,
    "punctuation": _punctuation_twins,
    "tabs_vs_spaces": _tabs_twins,
}


def _blocks() -> list[RealEdit]:
    """Real multi-line blocks of several files, one of each file."""
    seen: set[str] = set()
    blocks: list[RealEdit] = []
    for edit in real_edits():
        lines = edit.old_text.count("\n")
        if edit.source.split(" ", 1)[0] in seen or not 2 <= lines <= 12:
            continue
        if not edit.old_text.endswith("\n"):
            continue
        seen.add(edit.source.split(" ", 1)[0])
        blocks.append(edit)
    return blocks


@pytest.mark.parametrize("variant", list(TWINS))
def test_an_old_text_that_fits_two_places_under_a_tolerance_is_refused_naming_both(
    variant: str, tmp_path: Path
) -> None:
    ws = Workspace([tmp_path], prewarm=False)
    tried = 0
    for edit in _blocks():
        twins = TWINS[variant](edit.old_text, edit.indent_unit)
        if twins is None:
            continue
        second, old_text = twins
        base = edit.text if edit.text.endswith("\n") else edit.text + "\n"
        text = f"{base}\n{second}"
        if count_overlapping(text, old_text) or count_overlapping(text, second) != 1:
            continue
        first_line, second_line = edit.first_line, base.count("\n") + 2
        target = tmp_path / "twins.txt"
        target.write_bytes(text.encode())
        tried += 1

        with pytest.raises(EditError) as caught:
            ws.edit_file("twins.txt", [{"old_text": old_text, "new_text": "changed\n"}])

        assert target.read_bytes() == text.encode(), edit.source
        if caught.value.code in AMBIGUOUS_CODES:
            places = {p["line_number"] for p in caught.value.data["match_locations"]}
            assert {first_line, second_line} <= places, edit.source
    assert tried >= 5


def test_the_indent_unit_is_read_from_the_file() -> None:
    assert indent_unit("func f() {\n\treturn 1\n}\n") == "\t"
    assert indent_unit("def f():\n    if x:\n        return 1\n") == "    "
    assert indent_unit("a:\n  b:\n    c: 1\n") == "  "
