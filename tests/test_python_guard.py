"""The Python guard compiles only the region an edit touched, and refuses exactly what the
whole-module compile refuses, with the same line, column and message."""

from __future__ import annotations

from collections import Counter

import pytest

from editguard.core.plan import Plan, Replacement
from editguard.validate import python
from tests.python_breakages import compile_whole, python_sources, random_edit, seeded


def edit(text: str, old: str, new: str) -> tuple[str, Plan]:
    at = text.index(old)
    plan = Plan((Replacement(at, at + len(old), new),))
    return plan.apply_to_text(text), plan


def checked(old: str, new: str, plan: Plan) -> tuple[int, int, str] | None:
    """The guard's verdict, the old text known to compile, at any size."""
    assert python.check(old) is None
    return python.check_edit(old, new, plan, min_size=0)


FUNCTIONS = "".join(f"def f{i}(a, b):\n    x = a + b * {i}\n    return x\n\n" for i in range(20))


def test_an_edit_inside_one_function_compiles_only_its_region() -> None:
    new, plan = edit(FUNCTIONS, "a + b * 7", "b + a * 7")
    python.check(FUNCTIONS)
    assert python.region_accepts(FUNCTIONS, new, plan)
    # ... and the new text is then known to compile, so the next edit is judged by region too.
    newer, plan2 = edit(new, "a + b * 12", "a - b * 12")
    assert python.region_accepts(new, newer, plan2)


def test_a_text_never_seen_compiling_is_compiled_whole() -> None:
    text = FUNCTIONS + "def unseen(): pass\n"
    new, plan = edit(text, "a + b * 7", "b + a * 7")
    assert not python.region_accepts(text, new, plan)
    assert python.check_edit(text, new, plan, min_size=0) is None


FUTURE = "from __future__ import annotations\n\n" + FUNCTIONS
FLUFL = "from __future__ import barry_as_FLUFL\n\n" + FUNCTIONS
DECORATED = "import functools\n\n@functools.cache\ndef f(): pass\n\n" + FUNCTIONS
CLASS = "class A:\n    def m(self):\n        return 1\n\n    def n(self):\n        return 2\n\n"


@pytest.mark.parametrize(
    ("old", "find", "replace"),
    [
        # A walrus in an annotation is an error only under `from __future__ import annotations`.
        (FUTURE, "def f3(a, b)", "def f3(a: (y := 1), b)"),
        (FUNCTIONS, "def f3(a, b)", "def f3(a: (y := 1), b)"),
        # barry_as_FLUFL makes `!=` an error.
        (FLUFL, "a + b * 5", "a != b * 5"),
        (FLUFL, "a + b * 5", "a <> b * 5"),
        # A future import below other code, or code put above the future import.
        (
            FUNCTIONS,
            "    return x\n\ndef f9",
            "    return x\nfrom __future__ import annotations\ndef f9",
        ),
        (FUTURE, "from __future__", "import os\nfrom __future__"),
        (FUTURE, "\n\ndef f0", "\n\nx = 1\ndef f0"),
        # A module-level `global` after the name was bound in an earlier statement.
        ("x = 1\n\n" + FUNCTIONS, "    return x\n\ndef f9", "    return x\nglobal x\ndef f9"),
        # A decorator left without its function, or given a class.
        (DECORATED, "def f(): pass", "f = 1"),
        (DECORATED, "def f(): pass", "class f: pass"),
        # An unclosed string or bracket that swallows the code after the region.
        (FUNCTIONS, "x = a + b * 4", 'x = """a + b * 4'),
        (FUNCTIONS, "x = a + b * 4", "x = (a + b * 4"),
        (FUNCTIONS, "x = a + b * 4", "x = a + b * 4 \\"),
        # The first line of a definition indented: it joins the function before it.
        (FUNCTIONS, "def f6(a, b):", "    def f6(a, b):"),
        (FUNCTIONS, "def f6(a, b):", "  def f6(a, b):"),
        (FUNCTIONS, "def f6(a, b):", "\tdef f6(a, b):"),
        # A clause that continues the statement before the region.
        ("try:\n    pass\nexcept OSError:\n    pass\n\n" + FUNCTIONS, "def f0(a, b):\n", "else:\n"),
        # Stray statements, each refused within its own top-level statement.
        (FUNCTIONS, "    return x\n\ndef f5", "return x\n\ndef f5"),
        (FUNCTIONS, "    x = a + b * 5", "    break"),
        (FUNCTIONS, "    x = a + b * 5", "    nonlocal a"),
        (FUNCTIONS, "    x = a + b * 5", "    await a"),
        (FUNCTIONS, "def f5(a, b)", "def f5(a, a)"),
        (FUNCTIONS, "    return x\n\ndef f5", "    return x\nyield 1\ndef f5"),
        # Tabs and spaces mixed inside one block.
        (FUNCTIONS, "    return x\n\ndef f5", "\treturn x\n\ndef f5"),
        # A carriage return is a line break to the compiler.
        (FUNCTIONS, "x = a + b * 5", "x = a\r+ b * 5"),
        # The last function, in a file without a final line break.
        (FUNCTIONS.rstrip("\n"), "19\n    return x", "19\n    return (x"),
        (FUNCTIONS.rstrip("\n"), "19\n    return x", "19\n    return -x"),
        # A method of a class (the region is the whole class) and code after it.
        (CLASS + FUNCTIONS, "        return 2", "        return 2\n    return 3"),
        (CLASS + FUNCTIONS, "        return 2", "        return 3"),
        # Valid edits: a function added, deleted, renamed.
        (FUNCTIONS, "def f4", "def added():\n    pass\n\ndef f4"),
        (FUNCTIONS, "def f4(a, b):\n    x = a + b * 4\n    return x\n\n", ""),
        (FUNCTIONS, "def f4(", "async def f4("),
    ],
)
def test_the_region_check_refuses_exactly_what_the_whole_compile_refuses(
    old: str, find: str, replace: str
) -> None:
    new, plan = edit(old, find, replace)
    assert checked(old, new, plan) == compile_whole(new)


def test_a_carriage_return_never_misplaces_a_region() -> None:
    # The compiler reads "\r" as a line break: a region holding one is compiled whole, or the
    # definitions after it would be looked for a line too far (here: a "def" inside a string).
    text = FUNCTIONS + 'def f20(): return """\ndef fake(): 1\n"""\n\ndef f21(): pass\n'
    span = "a + b * 19\n    return x\n\ndef f20()"
    first, plan = edit(text, span, '"""a\rb"""' + span[10:])
    assert checked(text, first, plan) is None
    second, plan = edit(first, '1\n"""\n', "1\nx = 1\n")
    assert python.check_edit(first, second, plan, min_size=0) == compile_whole(second)


def chain(name: str, text: str, seed: int, edits: int) -> Counter[str]:
    """Random edits one after the other (a valid one becomes the next edit's text), each
    checked against the whole compile. Counts what was decided how."""
    rng = seeded(name, seed)
    counts: Counter[str] = Counter()
    old = text
    python.check(old)
    for _ in range(edits):
        kind, plan = random_edit(old, rng)
        new = plan.apply_to_text(old)
        expected = compile_whole(new)
        by_region = python.region_accepts(old, new, plan)
        assert not (by_region and expected is not None), (name, kind, plan, expected)
        got = python.check_edit(old, new, plan, min_size=0)
        assert got == expected, (name, kind, plan)
        counts["refused" if expected else "region" if by_region else "whole"] += 1
        if expected is None:
            old = new
    return counts


def test_random_edits_of_real_code_get_the_whole_compiles_verdict() -> None:
    counts: Counter[str] = Counter()
    for name, text in python_sources():
        counts += chain(name, text, seed=1, edits=12)
    # Both paths ran, and many valid edits were judged by their region alone (the others lie in
    # a class or a small file, where the region would be over half the text).
    assert counts["refused"] > 100
    assert counts["region"] > 100


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3])
def test_many_random_edits_of_real_and_installed_code_agree(seed: int) -> None:
    counts: Counter[str] = Counter()
    for name, text in python_sources(installed=25):
        counts += chain(name, text, seed=seed, edits=20)
    assert counts["region"] > 500
