"""Properties of the match ladder on generated files: every mistake a model makes in copying
either lands exactly the file the exact edit gives, or is refused; a changed letter, digit or
name is never applied; a block that a tolerance finds twice is refused.

The files are code-like lines, each with a unique name in it, indented with spaces (2 or 4 a
level) or tabs, some with trailing whitespace, quotes or dashes, and blank lines between.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from editguard.core.document import decode
from editguard.core.formats.search_replace import SearchReplace, compile_search_replace
from editguard.errors import EditError

from .conftest import examples

TYPOGRAPHIC = {'"': "\u201c", "'": "\u2019", "-": "\u2013"}


@dataclass(frozen=True)
class Case:
    lines: list[str]
    first: int  # the block is lines[first:last]
    last: int
    new_block: list[str]
    unit: str  # one level of indentation: "  ", "    " or "\t"


@st.composite
def cases(draw: st.DrawFn) -> Case:
    unit = draw(st.sampled_from(["  ", "    ", "\t"]))
    count = draw(st.integers(3, 30))
    lines: list[str] = []
    level = 0
    for n in range(count):
        if lines and draw(st.integers(0, 5)) == 0:
            lines.append("")
            continue
        level = max(0, min(level + draw(st.integers(-1, 1)), 4))
        body = draw(
            st.sampled_from(
                [
                    f"v{n} = call(v{n}, 'a-b')",
                    f'v{n} = "text - {n}"',
                    f"if v{n} > {n}:",
                    f"return v{n} + 1",
                    f"v{n}.go(x, y)  # note - {n}",
                ]
            )
        )
        tail = draw(st.sampled_from(["", "", "", " ", "\t"]))
        lines.append(unit * level + body + tail)
    first = draw(st.integers(0, count - 1))
    last = draw(st.integers(first + 1, min(count, first + 8)))
    assume(any(line.strip() for line in lines[first:last]))
    block = lines[first:last]
    kind = draw(st.sampled_from(["change", "insert", "delete"]))
    at = draw(st.integers(0, len(block) - 1))
    new_block = list(block)
    indent = block[at][: len(block[at]) - len(block[at].lstrip())]
    if kind == "change":
        new_block[at] = indent + f"changed_{at} = {draw(st.integers(0, 99))}"
    elif kind == "insert":
        new_block.insert(at, indent + "inserted()")
    else:
        del new_block[at]
    return Case(lines, first, last, new_block, unit)


def text_of(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def apply(text: str, old: str, new: str) -> str | None:
    """The new text, or None when refused."""
    doc = decode(text.encode())
    try:
        compiled = compile_search_replace(doc, [SearchReplace(old, new)])
    except EditError:
        return None
    return compiled.plan.apply_to_text(doc.text)


def exact_result(case: Case) -> tuple[str, str, str, str]:
    text = text_of(case.lines)
    old = text_of(case.lines[case.first : case.last])
    new = text_of(case.new_block)
    assume(text.count(old) == 1)
    return text, old, new, text.replace(old, new)


def shift(lines: list[str], by: str) -> list[str]:
    return [by + line if line.strip() else line for line in lines]


def retab(lines: list[str], unit: str) -> list[str]:
    out = []
    for line in lines:
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)]
        if unit == "\t":
            out.append(indent.replace("\t", "    ") + body)
        else:
            out.append(indent.replace(unit, "\t") + body)
    return out


def trailing(lines: list[str], copied: set[str], extra: str) -> list[str]:
    return [line + extra if line in copied and line.strip() else line for line in lines]


def typographic(lines: list[str]) -> list[str]:
    return ["".join(TYPOGRAPHIC.get(c, c) for c in line) for line in lines]


def numbered(lines: list[str], first: int) -> list[str]:
    return [f"{n}\u2502{line}" for n, line in enumerate(lines, first + 1)]


MISTAKES = ["indent_deeper", "tabs_spaces", "trailing", "punctuation", "numbers", "numbers_both"]


@settings(
    max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)
@given(case=cases(), mistake=st.sampled_from(MISTAKES))
def test_a_copying_mistake_lands_exactly_or_is_refused(case: Case, mistake: str) -> None:
    text, _old, _new, expected = exact_result(case)
    old_lines = case.lines[case.first : case.last]
    new_lines = case.new_block
    if mistake == "indent_deeper":
        old_lines, new_lines = shift(old_lines, case.unit), shift(new_lines, case.unit)
    elif mistake == "tabs_spaces":
        old_lines, new_lines = retab(old_lines, case.unit), retab(new_lines, case.unit)
    elif mistake == "trailing":
        copied = set(old_lines) & set(new_lines)
        old_lines = [line + "  " if line.strip() else line for line in old_lines]
        new_lines = trailing(new_lines, copied, "  ")
    elif mistake == "punctuation":
        old_lines, new_lines = typographic(old_lines), typographic(new_lines)
    elif mistake == "numbers":
        old_lines = numbered(old_lines, case.first)
    else:
        old_lines = numbered(old_lines, case.first)
        new_lines = numbered(new_lines, case.first)
    old, new = text_of(old_lines), text_of(new_lines)
    got = apply(text, old, new)
    assert got is None or got == expected, (mistake, old, new)


@settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)
@given(case=cases(), data=st.data())
def test_a_changed_letter_or_digit_is_never_applied(case: Case, data: st.DataObject) -> None:
    text, _old, _new, _expected = exact_result(case)
    old_lines = list(case.lines[case.first : case.last])
    candidates = [
        (i, j) for i, line in enumerate(old_lines) for j, c in enumerate(line) if c.isalnum()
    ]
    assume(candidates)
    i, j = data.draw(st.sampled_from(candidates))
    c = old_lines[i][j]
    replacement = data.draw(st.sampled_from([x for x in "aZ7q0" if x != c]))
    old_lines[i] = old_lines[i][:j] + replacement + old_lines[i][j + 1 :]
    # The changed line must name nothing the file has (else it is another, real place).
    assume(old_lines[i].strip() not in {line.strip() for line in case.lines})
    # Plus a tolerated mistake on top, so that only the changed character stops the match.
    shifted = data.draw(st.booleans())
    if shifted:
        old_lines = shift(old_lines, case.unit)
    old = text_of(old_lines)
    assume(old not in text)
    assert (
        apply(text, old, text_of(shift(case.new_block, case.unit) if shifted else case.new_block))
        is None
    )


@settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)
@given(case=cases())
def test_a_block_found_twice_by_a_tolerance_is_refused(case: Case) -> None:
    block = case.lines[case.first : case.last]
    twice = [*case.lines, "def other():", *shift(block, case.unit)]
    text = text_of(twice)
    old = text_of(shift(block, case.unit + case.unit))
    assume(old not in text)
    assume(text.count(text_of(block)) == 1)
    assert apply(text, old, text_of(shift(case.new_block, case.unit + case.unit))) is None
