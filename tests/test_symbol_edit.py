"""edit_symbol's compile step and its structure check, as tables on strings: no file, no disk."""

from __future__ import annotations

import pytest

from editguard.core.document import Document
from editguard.core.formats.symbol_edit import (
    Chunks,
    ChunkText,
    InsertAfter,
    InsertBefore,
    NewBody,
    SymbolAction,
    Target,
    compile_symbol_edit,
    new_lines_of,
)
from editguard.errors import EditError
from editguard.symbols import find_symbol, symbols_of
from editguard.validate.structure import structure_findings

SOURCE = "import os\n\ndef f(x):\n    y = x + 1\n    return y\n\ndef g():\n    pass\n"


def edited(text: str, target: Target, action: SymbolAction) -> str:
    return compile_symbol_edit(Document(text), target, action).plan.apply_to_text(text)


def whole(text: str, first: str, last_line_end: str) -> Target:
    """The target spanning from ``first`` to the end of the line holding ``last_line_end``."""
    start = text.index(first)
    end = text.index("\n", text.index(last_line_end, start)) + 1
    return Target(
        "t",
        start,
        end,
        text.count("\n", 0, start) + 1,
        text.count("\n", 0, end),
    )


TABLE: dict[str, tuple[str, SymbolAction, str]] = {
    "a chunk inside the body": (
        SOURCE,
        Chunks((ChunkText("    y = x + 1", ["    return y"], ["    return y * 2"], ""),)),
        SOURCE.replace("    return y\n", "    return y * 2\n"),
    ),
    "a chunk's context may differ in trailing whitespace": (
        SOURCE,
        Chunks((ChunkText("def f(x):   ", ["    y = x + 1"], ["    y = x - 1"], "    return y"),)),
        SOURCE.replace("x + 1", "x - 1"),
    ),
    "an insertion between two lines": (
        SOURCE,
        Chunks((ChunkText(["def f(x):"], [], ["    assert x"], ["    y = x + 1"]),)),
        SOURCE.replace("def f(x):\n", "def f(x):\n    assert x\n"),
    ),
    "a new body without a final break gets one": (
        SOURCE,
        NewBody("def f(x):\n    return x"),
        SOURCE.replace("def f(x):\n    y = x + 1\n    return y\n", "def f(x):\n    return x\n"),
    ),
    "an empty new body deletes the symbol": (
        SOURCE,
        NewBody(""),
        SOURCE.replace("def f(x):\n    y = x + 1\n    return y\n", ""),
    ),
    "insert before": (
        SOURCE,
        InsertBefore("@cache"),
        SOURCE.replace("def f(x):", "@cache\ndef f(x):"),
    ),
    "insert after": (
        SOURCE,
        InsertAfter("\ndef h():\n    pass"),
        SOURCE.replace("    return y\n", "    return y\n\ndef h():\n    pass\n"),
    ),
    "CRLF in a new body is normalized": (
        SOURCE,
        NewBody("def f(x):\r\n    return 0\r\n"),
        SOURCE.replace("def f(x):\n    y = x + 1\n    return y\n", "def f(x):\n    return 0\n"),
    ),
}


@pytest.mark.parametrize(("text", "action", "after"), TABLE.values(), ids=TABLE.keys())
def test_each_action_makes_exactly_its_change(text: str, action: SymbolAction, after: str) -> None:
    target = whole(text, "def f", "return y")
    assert edited(text, target, action) == after


def test_a_last_symbol_without_a_final_break_keeps_the_file_without_one() -> None:
    text = "def f():\n    return 1"
    target = Target("f", 0, len(text), 1, 2)
    assert edited(text, target, NewBody("def f():\n    return 2\n")) == "def f():\n    return 2"
    assert edited(text, target, InsertAfter("x = 1\n")) == text + "\nx = 1"


def test_a_new_body_is_refused_where_the_symbol_shares_a_line() -> None:
    text = "class A { f() {} } class B {}\n"
    target = Target("A", 0, len(text), 1, 1, shares_lines=True)
    with pytest.raises(EditError) as err:
        compile_symbol_edit(Document(text), target, NewBody("class A {}"))
    assert (err.value.code, err.value.data["field"]) == ("INVALID_REQUEST", "new_body")
    assert "     1│class A { f() {} } class B {}" in err.value.message


@pytest.mark.parametrize(
    ("chunk", "code"),
    [
        (ChunkText("nowhere", [], ["x"], ""), "CHUNK_MISMATCH"),
        (ChunkText("", ["    y = x + 1"], ["    y = 0"], "    return z"), "CHUNK_MISMATCH"),
    ],
)
def test_a_chunk_that_fits_nowhere_is_refused(chunk: ChunkText, code: str) -> None:
    target = whole(SOURCE, "def f", "return y")
    with pytest.raises(EditError) as err:
        compile_symbol_edit(Document(SOURCE), target, Chunks((chunk,)))
    assert err.value.code == code


def test_a_chunk_that_fits_twice_is_ambiguous_and_more_context_settles_it() -> None:
    text = "def f():\n    a()\n    b()\n    a()\n    b()\n"
    target = Target("f", 0, len(text), 1, 5)
    twice = ChunkText(["    a()"], [], ["    x()"], ["    b()"])
    with pytest.raises(EditError) as err:
        compile_symbol_edit(Document(text), target, Chunks((twice,)))
    assert (err.value.code, err.value.data["lines"]) == ("AMBIGUOUS_MATCH", [3, 5])
    once = ChunkText(["def f():", "    a()"], [], ["    x()"], ["    b()"])
    assert edited(text, target, Chunks((once,))) == text.replace("a()\n", "a()\n    x()\n", 1)


@pytest.mark.parametrize(
    ("old", "start", "end", "new", "lines"),
    [
        ("a\nb\nc\n", 2, 4, "B\nB2\n", (2, 3)),
        ("a\nb\n", 4, 4, "c\n", (3, 3)),
        ("a\nb", 3, 3, "\nc", (3, 3)),
        ("a\nb\nc\n", 2, 4, "", (2, 2)),
    ],
)
def test_new_lines_of_says_where_the_new_text_lands(
    old: str, start: int, end: int, new: str, lines: tuple[int, int]
) -> None:
    from editguard.core.plan import Replacement

    assert new_lines_of(old, Replacement(start, end, new)) == lines


# -- the structure check ---------------------------------------------------------------------

CLASS = (
    "class A:\n"
    "    def one(self):\n"
    "        return 1\n"
    "\n"
    "    def two(self):\n"
    "        return 2\n"
    "\n"
    "def top():\n"
    "    pass\n"
)

STRUCTURE: dict[str, tuple[str, str, bool, list[str]]] = {
    "a body change keeps every symbol": (
        "A/one",
        "    def one(self):\n        return 10\n",
        True,
        [],
    ),
    "a dedented method leaves its class": (
        "A/two",
        "def two(self):\n    return 2\n",
        True,
        ["A/two would be two"],
    ),
    "a replacement that is no definition": (
        "A/two",
        "    x = 2\n",
        True,
        ["define nothing directly inside A"],
    ),
    "a new class in the body captures the next method": (
        "A/one",
        "    def one(self):\n        return 1\n\nclass B:\n    pass\n",
        True,
        ["A/two (method) no longer exists under that name path"],
    ),
}


@pytest.mark.parametrize(
    ("name_path", "new", "replaced", "expected"), STRUCTURE.values(), ids=STRUCTURE.keys()
)
def test_the_structure_check_names_what_an_edit_would_break(
    name_path: str, new: str, replaced: bool, expected: list[str]
) -> None:
    before = symbols_of("m.py", CLASS)
    target = find_symbol(before, name_path=name_path)
    span = Target(name_path, target.start, target.end, target.start_line, target.end_line)
    plan = compile_symbol_edit(Document(CLASS), span, NewBody(new)).plan
    new = plan.apply_to_text(CLASS)
    findings = structure_findings("m.py", CLASS, new, plan, before, target, replaced)
    messages = [f.message for f in findings]
    assert len(messages) == len(expected), messages
    for message, part in zip(messages, expected, strict=True):
        assert part in message
    assert all(f.source == "structure" and f.blocking for f in findings)
