"""core/seek: a block of lines found strictly first, then with tolerances, never looser than
needed, every hit naming the rung that matched; and the correction carried to the new lines."""

from __future__ import annotations

import pytest

from editguard.core.seek import (
    EXACT,
    INDENTATION,
    LADDER,
    LINE_NUMBERS,
    PUNCTUATION,
    TRAILING_WHITESPACE,
    OnlyIgnored,
    SeekHit,
    Uncorrectable,
    correct,
    indent_unit,
    lines_match,
    rung_of,
    seek,
    strip_numbers,
    used,
)

LINES = ["def f():", "    x = 1  ", "    return x", "", "def g():", "    x = 1", "    return x"]


def where(hits: list[SeekHit]) -> list[tuple[int, str]]:
    return [(h.line, h.rung) for h in hits]


TABLE: dict[str, tuple[list[str], dict[str, object], list[tuple[int, str]]]] = {
    "an exact block": (["def g():", "    x = 1"], {}, [(4, "exact")]),
    "exact wins over a place that matches only loosely": (
        ["    x = 1", "    return x"],
        {},
        [(5, "exact")],
    ),
    "trailing whitespace, when nothing matches exactly": (
        ["def f():   ", "    x = 1"],
        {},
        [(0, "trailing_whitespace")],
    ),
    "several places on one rung are all reported": (
        ["    return x"],
        {},
        [(2, "exact"), (6, "exact")],
    ),
    "a ladder without the exact rung sees both places": (
        ["    x = 1", "    return x"],
        {"ladder": (TRAILING_WHITESPACE,)},
        [(1, "trailing_whitespace"), (5, "trailing_whitespace")],
    ),
    "start and end bound the search": (["    return x"], {"start": 3}, [(6, "exact")]),
    "a block past the end is not found": (["    return x", "extra"], {}, []),
    "a uniform indentation shift: the rung that finds one place first decides": (
        ["x = 1", "return x"],
        {},
        [(5, "indentation")],
    ),
    "leading whitespace is not a tolerance without the indentation rung": (
        ["x = 1"],
        {"ladder": (EXACT, TRAILING_WHITESPACE, PUNCTUATION)},
        [],
    ),
    "the end of a line, when the first line may be partial": (
        ["x = 1", "    return x"],
        {"partial_first": True},
        [(5, "exact")],
    ),
    "line numbers must be the lines": (
        ["5\u2502def g():", "6\u2502    x = 1"],
        {},
        [(4, "line_numbers")],
    ),
    "line numbers counted from first_line": (
        ["15\u2502def g():", "16\u2502    x = 1"],
        {"first_line": 11},
        [(4, "line_numbers")],
    ),
    "line numbers of other lines are refused": (["6\u2502def g():", "7\u2502    x = 1"], {}, []),
    "typographic punctuation": (["def f\u2010g():"], {"ladder": (PUNCTUATION,)}, []),
    "an empty pattern is at every position": (
        [],
        {"start": 5},
        [(5, "exact"), (6, "exact"), (7, "exact")],
    ),
}


@pytest.mark.parametrize(("pattern", "options", "hits"), TABLE.values(), ids=TABLE.keys())
def test_seek(pattern: list[str], options: dict[str, object], hits: list[tuple[int, str]]) -> None:
    assert where(seek(LINES, pattern, **options)) == hits  # type: ignore[arg-type]


def test_the_default_ladder_goes_from_strict_to_loose() -> None:
    names = [r.name for r in LADDER]
    assert names[:5] == [
        "exact",
        "trailing_whitespace",
        "punctuation",
        "line_numbers",
        "indentation",
    ]
    sizes = [len(r.tolerances) for r in LADDER]
    assert sizes == sorted(sizes)
    assert names[-1] == "trailing_whitespace+punctuation+line_numbers+indentation"
    assert len(set(names)) == len(names) == 16
    assert lines_match(["a "], ["a"], TRAILING_WHITESPACE)
    assert not lines_match(["a "], ["a"], EXACT)
    assert not lines_match(["a"], ["a", "b"], TRAILING_WHITESPACE)
    assert rung_of("indentation", "trailing_whitespace").name == "trailing_whitespace+indentation"


def test_punctuation_maps_only_punctuation() -> None:
    lines = ['say("it\'s - ok...")', "x\u00a0= 1"]
    hit = seek(lines, ["say(\u201cit\u2019s \u2013 ok\u2026\u201d)"], ladder=(PUNCTUATION,))
    assert where(hit) == [(0, "punctuation")]
    assert where(seek(lines, ["x = 1"], ladder=(PUNCTUATION,))) == [(1, "punctuation")]
    # A letter is never a tolerance: "é" is not "e", "O" is not "0".
    assert seek(["caf\u00e9 = 0"], ["cafe = 0"]) == []
    assert seek(["x = 0"], ["x = O"]) == []


def test_indentation_tabs_and_spaces_by_the_file_unit() -> None:
    tabbed = ["func f() {", "\tif x {", "\t\treturn 1", "\t}", "}"]
    hits = seek(tabbed, ["    if x {", "        return 1", "    }"])
    assert where(hits) == [(1, "indentation")]
    assert (hits[0].shift, hits[0].tab) == (0, 4)
    spaced = ["def f():", "  if x:", "    return 1"]
    hits = seek(spaced, ["\tif x:", "\t\treturn 1"], indent_unit=2)
    assert where(hits) == [(1, "indentation")]
    assert hits[0].tab == 2


def test_blank_lines_are_never_skipped_added_or_merged() -> None:
    lines = ["a = 1", "", "b = 2", "c = 3"]
    assert seek(lines, ["a = 1", "b = 2"]) == []
    assert seek(lines, ["a = 1", "", "", "b = 2"]) == []
    assert where(seek(lines, ["  a = 1", "", "  b = 2"])) == [(0, "indentation")]


def test_strip_numbers_needs_every_line() -> None:
    assert strip_numbers(["1\u2502a", "2\u2502b"]) == (("a", "b"), (1, 2))
    assert strip_numbers(["  L9: a", "  L10: b"]) == ((" a", " b"), (9, 10))
    assert strip_numbers(["  L9: a", "  L10: b"], padding=True) == (("a", "b"), (9, 10))
    assert strip_numbers(["9: a", "10:b"], padding=True) is None
    assert strip_numbers(["1\u2502a", "b"]) is None
    assert strip_numbers(["12\tx"]) == (("x",), (12,))
    assert strip_numbers([]) is None


def test_indent_unit_reads_the_file() -> None:
    assert indent_unit(["a:", "  b:", "    c", "  d"]) == 2
    assert indent_unit(["a:", "    b"]) == 4
    assert indent_unit(["\ta", "\t\tb"]) == 4  # tabs say nothing of spaces: the default


# -- correct -------------------------------------------------------------------------------------


def hit_for(found: list[str], old: list[str], rung: str = "indentation") -> SeekHit:
    hits = seek(found, old, ladder=[r for r in LADDER if r.name == rung])
    assert len(hits) == 1, hits
    return hits[0]


def test_correct_shifts_new_lines_and_keeps_unchanged_ones_byte_for_byte() -> None:
    found = ["    if x:  ", "        go()"]
    old = ["if x:", "    go()"]
    hit = hit_for(found, old, "trailing_whitespace+indentation")
    assert correct(hit, found, ["if x:", "    go(1)", "    stop()"]) == [
        "    if x:  ",
        "        go(1)",
        "        stop()",
    ]


def test_correct_compares_many_repeated_lines_within_a_budget() -> None:
    # difflib's matcher is cubic on repeated lines: 3000 against 3000 took minutes.
    found = ["x "] * 3000
    hit = SeekHit(0, TRAILING_WHITESPACE.name, pattern=("x",) * 3000)
    written = correct(hit, found, ["x", "y"] * 1500)
    assert [line.rstrip() for line in written] == ["x", "y"] * 1500
    assert written[0] == "x "  # the lines both start with are kept as the file has them


def test_correct_writes_the_file_s_tabs() -> None:
    found = ["\tif x {", "\t\treturn 1"]
    hit = hit_for(found, ["    if x {", "        return 1"])
    assert correct(hit, found, ["    if x {", "        return 2", "      // aligned"]) == [
        "\tif x {",
        "\t\treturn 2",
        "\t  // aligned",
    ]


def test_correct_refuses_what_it_cannot_know() -> None:
    found = ["    a()", "    b()"]
    hit = hit_for(found, ["a()", "b()"])
    with pytest.raises(Uncorrectable, match="column 0"):
        correct(hit, found, ["a()", "b()", "c()"])
    # A changed line in place of an old one at column 0 is at the block's base.
    assert correct(hit, found, ["a()", "x()"]) == ["    a()", "    x()"]
    deep = hit_for(found, ["        a()", "        b()"])
    with pytest.raises(Uncorrectable, match="before column 0"):
        correct(deep, found, ["  a()"])
    with pytest.raises(OnlyIgnored):
        correct(hit, found, ["a()", "b()"])


def test_correct_maps_punctuation_only_where_the_file_has_ascii() -> None:
    found = ['a = "x"', "b = \u201cy\u201d"]
    old = ["a = \u201cx\u201d", "b = \u201cy\u201d"]
    hit = hit_for(found, old, "punctuation")
    # \u201c stood for '"' on one line and for itself on the other: a changed line holding it
    # cannot be placed.
    with pytest.raises(Uncorrectable, match="both"):
        correct(hit, found, ["a = \u201cz\u201d", "b = \u201cy\u201d"])
    # Lines without them are fine.
    assert correct(hit, found, ["a = 1", "b = \u201cy\u201d"]) == ["a = 1", "b = \u201cy\u201d"]
    found = ['a = "x" - 1']
    hit = hit_for(found, ["a = \u201cx\u201d \u2013 1"], "punctuation")
    assert correct(hit, found, ["a = \u201cw\u201d \u2013 2"]) == ['a = "w" - 2']


def test_used_names_only_the_tolerances_that_mattered() -> None:
    found = ["    go()"]
    hit = hit_for(found, ["go()"], "trailing_whitespace+indentation")
    assert used(hit, found) == "indentation"
    hit = hit_for(["x = 1 "], ["x = 1"], "trailing_whitespace")
    assert used(hit, ["x = 1 "]) == "trailing_whitespace"
    assert LINE_NUMBERS.name == "line_numbers"
    assert INDENTATION.tolerances == frozenset({"indentation"})


def test_correct_undoes_only_what_old_and_new_have_in_common() -> None:
    # The old lines slipped a trailing space onto line 1; the edit removes line 2's.
    found = ["def f():", "    x = 1   ", "    y = 2"]
    hit = hit_for(found, ["def f(): ", "    x = 1   ", "    y = 2"], "trailing_whitespace")
    new = ["def f(): ", "    x = 1", "    y = 3"]
    assert correct(hit, found, new) == ["def f():", "    x = 1", "    y = 3"]
    # Typographic quotes slipped onto line 1; the edit curls line 2's quotes on purpose.
    found = ['a = "x"', 'b = "y"']
    hit = hit_for(found, ["a = \u201cx\u201d", 'b = "y"'], "punctuation")
    new = ["a = \u201cx\u201d", "b = \u201cy\u201d"]
    assert correct(hit, found, new) == ['a = "x"', "b = \u201cy\u201d"]
    # A changed line keeps the quotes it changes, though the rung maps the slipped ones back.
    new = ["a = \u201cx\u201d", "b = \u201cz\u201d"]
    assert correct(hit, found, new) == ['a = "x"', "b = \u201cz\u201d"]
    # The block sent one level deep; the edit turns line 2's indentation into a tab.
    found = ["if a:", "    b()"]
    hit = hit_for(found, ["    if a:", "        b()"])
    assert correct(hit, found, ["    if a:", "    \tb()"]) == ["if a:", "\tb()"]


def test_correct_refuses_an_edit_that_changes_only_what_the_file_already_has() -> None:
    found = ["a", "b"]
    hit = hit_for(found, ["a ", "b "], "trailing_whitespace")
    with pytest.raises(OnlyIgnored):
        correct(hit, found, ["a", "b"])


def test_a_changed_line_keeps_the_tabs_it_puts_for_spaces() -> None:
    # The block sent one level deep; the edit changes line 2 and indents it with a tab.
    found = ["if a:", "    b()"]
    hit = hit_for(found, ["    if a:", "        b()"])
    assert correct(hit, found, ["    if a:", "\t\tc()"]) == ["if a:", "\tc()"]
