"""Similar regions and what differs: what a model needs to fix its next call."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from editguard import EditError, Workspace
from editguard.core.similar import describe, find_similar, look_alike

from .conftest import examples

CODE = """class Loader:
    def load(self, path):
        with open(path) as f:
            return f.read()

    def save(self, path, data):
        with open(path, "w") as f:
            f.write(data)
"""


@pytest.mark.parametrize(
    ("expected", "found", "kinds"),
    [
        ("a = 1  \nb = 2", "a = 1\nb = 2", ["trailing_whitespace"]),
        ("\tx = 1", "    x = 1", ["tabs_vs_spaces"]),
        ("  x = 1", "    x = 1", ["indentation"]),
        ("x  =  1", "x = 1", ["whitespace"]),
        ("Return X", "return x", ["case"]),
        ("print('hi')", 'print("hi")', ["quotes"]),
        ("print(\u201chi\u201d)", 'print("hi")', ["quotes"]),
        ("a, b; c", "a b c", ["punctuation"]),
        ("if x:\\n    y()", "if x:\n    y()", ["escaping"]),
        ("totally different", "nothing alike here", ["content"]),
        ("return x\n", "return x", ["line_endings"]),
        ("  Return  X", "return x", ["indentation", "whitespace", "case"]),
        # A missing, added or changed letter is not punctuation, nor case.
        ("foo.bar(x)", "fo.bar(x)", ["content"]),
        ("fo.bar(x)", "foo.bar(x)", ["content"]),
        ("retrun x", "return x", ["content"]),
        ("return y", "return x", ["content"]),
        ("Return y", "return x", ["case", "content"]),
        ("x = foo(a, b)", "x = foo(a; b)", ["punctuation"]),
        # Line-number prefixes copied from read_file and other tools.
        ("12\u2502  def f():\n13\u2502      pass", "  def f():\n      pass", ["line_numbers"]),
        ("12|def f():\n13|    pass", "def f():\n    pass", ["line_numbers"]),
        ("  12: def f():\n  13:     pass", "def f():\n    pass", ["line_numbers"]),
        ("L12:def f():\nL13:    pass", "def f():\n    pass", ["line_numbers"]),
        ("    12\tdef f():\n    13\t    pass", "def f():\n    pass", ["line_numbers"]),
        ("12\u2192  x = 1", "x = 1", ["line_numbers", "indentation"]),
        ("12\u2502  x = 1\n13\u2502  y = 2", "   x = 1\n   y = 2", ["line_numbers", "indentation"]),
        # Lines that only one side has.
        ("a = 1\nb = 2\nc = 3", "a = 1\nb = 2\n\nc = 3", ["missing_line"]),
        ("a = 1\n\nb = 2", "a = 1\nb = 2", ["extra_line"]),
        ("import os\na = 1\nb = 2", "a = 1\nb = 2", ["extra_line"]),
        ("a = 1\nc = 3", "a = 1\nb = 2\nc = 3", ["missing_line"]),
        ("    }\n  }", "      }\n    }\n  }", ["missing_line"]),
        ("\t\t\n\tx = 1", "        \n    x = 1", ["tabs_vs_spaces"]),
    ],
)
def test_describe_names_what_differs(expected: str, found: str, kinds: list[str]) -> None:
    assert [d.kind for d in describe(expected, found)] == kinds


def test_indentation_difference_says_what_the_file_uses() -> None:
    (diff,) = describe("  x = 1", "        x = 1")
    assert "8 spaces" in diff.detail
    assert "2 spaces" in diff.detail
    assert (diff.expected, diff.found) == ("  x = 1", "        x = 1")


def test_a_misindented_block_is_found_with_its_exact_lines() -> None:
    wanted = "  def load(self, path):\n      with open(path) as f:\n          return f.read()"
    (best, *_) = find_similar(CODE, wanted)
    assert (best.start_line, best.end_line) == (2, 4)
    assert (
        best.text
        == CODE.splitlines()[1] + "\n" + CODE.splitlines()[2] + "\n" + CODE.splitlines()[3]
    )
    assert best.differences[0].kind == "indentation"
    assert best.similarity > 0.8


def test_a_fragment_of_a_line_is_found_as_that_fragment() -> None:
    (best, *_) = find_similar(CODE, "open(path, 'w')")
    assert best.start_line == 7
    assert best.text == 'open(path, "w")'
    assert [d.kind for d in best.differences] == ["quotes"]


def test_at_most_three_distinct_regions_best_first() -> None:
    text = "".join(f"value_{i} = compute({i})\n" for i in range(200))
    found = find_similar(text, "value_10 = compute(11)")
    assert 1 <= len(found) <= 3
    assert found[0].similarity >= found[-1].similarity
    assert len({r.start_line for r in found}) == len(found)


def test_nothing_similar_gives_nothing() -> None:
    assert find_similar("aaaa\nbbbb\n", "zzzzzzzzzzzzzzzzzzzz\nqqqqqqqqqqqqqq") == []
    assert find_similar("", "x") == []
    assert find_similar("abc\n", "   ") == []


def test_the_search_covers_large_files_in_blocks() -> None:
    lines = [f"row {i:07d} payload {i * 7919 % 10007}" for i in range(250_000)]
    text = "\n".join(lines) + "\n"
    (best, *_) = find_similar(text, "row 0234567 payload  XX")
    assert best.start_line == 234568


def test_each_difference_shows_the_request_line_and_the_file_line_as_they_are() -> None:
    sent = "12\u2502  Return \u201cX\u201d\n13\u2502  y = 1"
    have = '    return "x"\n    y = 1'
    differences = describe(sent, have)
    assert [d.kind for d in differences] == ["line_numbers", "indentation", "case", "quotes"]
    for d in differences:
        assert (d.expected, d.found) == ("12\u2502  Return \u201cX\u201d", '    return "x"')
    assert "'12\u2502'" in differences[0].detail
    assert "read_file" in differences[0].detail
    assert differences[1].detail.endswith("the file has 4 spaces where the request has 2 spaces")


def test_a_line_only_one_side_has_is_shown_with_its_place() -> None:
    (missing,) = describe("a = 1\nc = 3", "a = 1\nb = 2\nc = 3")
    assert (missing.expected, missing.found) == ("", "b = 2")
    assert "after 'a = 1'" in missing.detail
    (extra,) = describe("a = 1\n\nb = 2", "a = 1\nb = 2")
    assert (extra.expected, extra.found) == ("", "")
    assert "blank line" in extra.detail


def test_text_that_differs_is_never_shown_as_100_percent_similar() -> None:
    text = "def f(x):\n    return x\n"
    for needle in ("def f(x):  \n    return x", "def f(x):\n  return x", "def f(x):\n\treturn x"):
        (best, *_) = find_similar(text, needle)
        assert best.similarity <= 0.99
        assert best.differences


def test_short_lines_do_not_fit_inside_a_one_line_search() -> None:
    text = "".join(["    return\n", "    pass\n", "    return x\n"] * 50)
    text += "    return compute_total(items, tax_rate)\n"
    found = find_similar(text, "return compute_totl(items, tax_rate)")
    assert [r.start_line for r in found] == [151]
    # The search text may match inside a line: the line's indentation is no difference.
    assert found[0].text == "return compute_total(items, tax_rate)"
    assert found[0].lines == "    return compute_total(items, tax_rate)"
    assert [d.kind for d in found[0].differences] == ["content"]


def test_a_block_with_a_blank_line_dropped_is_found() -> None:
    text = "\n".join(f"value_{i} = compute({i})" for i in range(30)) + "\n"
    text += "def load(path):\n    data = read(path)\n\n    return parse(data)\n"
    needle = "def load(path):\n    data = read(path)\n    return parse(data)"
    (best, *_) = find_similar(text, needle)
    assert (best.start_line, best.end_line) == (31, 34)
    assert [d.kind for d in best.differences] == ["missing_line"]


def test_a_line_added_before_the_intended_lines_does_not_hide_them() -> None:
    # The added line is a real line of the file, far away: both places are shown.
    lines = [f"setting_{i} = load_setting({i!r})" for i in range(40)]
    text = "\n".join(lines) + "\n"
    needle = f"{lines[3]}\n{lines[30]}\n{lines[31]}"
    shown = [(r.start_line, r.end_line) for r in find_similar(text, needle)]
    assert any(start <= 31 <= end for start, end in shown)
    assert any(start <= 4 <= end for start, end in shown)


def test_a_numbered_block_is_found_without_its_numbers() -> None:
    lines = [f"    item_{i} = build({i})" for i in range(100)]
    text = "\n".join(lines) + "\n"
    needle = "\n".join(f"{n:>3}\u2502{lines[n - 1]}" for n in range(50, 54))
    (best, *_) = find_similar(text, needle)
    assert (best.start_line, best.end_line) == (50, 53)
    assert [d.kind for d in best.differences] == ["line_numbers"]


_PIECES = st.sampled_from(
    [
        "a",
        "b",
        " ",
        "\t",
        "\n",
        "\n",
        "'",
        "\u201c",
        "12",
        "\u2502",
        ":",
        "L",
        "|",
        "\\n",
        "x = 1",
        "}",
    ]
)


@settings(max_examples=examples(300))
@given(st.lists(_PIECES, max_size=40).map("".join), st.lists(_PIECES, max_size=20).map("".join))
def test_every_region_is_real_text_of_the_file_and_differs_below_100_percent(
    text: str, needle: str
) -> None:
    lines = text.split("\n")
    for region in find_similar(text, needle):
        assert 1 <= region.start_line <= region.end_line <= len(lines)
        assert region.lines == "\n".join(lines[region.start_line - 1 : region.end_line])
        assert region.text in region.lines
        assert region.similarity <= 0.99 or region.text == needle
        sent, have = needle.split("\n"), region.text.split("\n")
        for d in region.differences:
            if d.kind not in ("escaping", "line_endings"):
                assert d.expected in [*sent, ""]
                assert d.found in [*have, ""]


# -- blocks that a few regions cannot single out ------------------------------------------------


def test_a_region_takes_in_a_needle_line_just_past_its_end() -> None:
    # Real code: the needle is the line meant (75) and a line from two lines above it (73).
    corpus = Path(__file__).parent / "corpus" / "xlwt-1.2.0-1.3.0" / "xlwt"
    text = (corpus / "UnicodeUtils.py.old").read_text(encoding="latin-1")
    lines = text.split("\n")
    needle = f"{lines[72]}\n{lines[74]}\n"
    regions = find_similar(text, needle)
    assert (regions[0].start_line, regions[0].end_line) == (73, 75)


def test_short_lines_that_stand_everywhere_are_all_named(ws: Workspace, root: Path) -> None:
    sample = Path(__file__).parent / "symbol_samples" / "php" / "LazyString.php.txt"
    text = sample.read_text()
    regions = find_similar(text, "    {\n\n    }\n")
    assert any(r.start_line <= 136 <= r.end_line for r in regions)
    body = "".join(f"function f{i}()\n{{\n}}\n\n" for i in range(40))
    (root / "m.js").write_text(body)
    with pytest.raises(EditError) as caught:
        ws.edit_file("m.js", [{"old_text": "{\n\n}\n", "new_text": "{ }\n"}])
    data = caught.value.data
    shown = {r["start_line"] for r in data["similar_content"]}
    assert sorted(shown | set(data["similar_also_at"])) == [2 + 4 * i for i in range(40)]
    assert "also start at lines" in caught.value.message


def test_look_alike_stays_out_of_long_lines() -> None:
    text = "alpha = compute(1)\nbeta\nalpha = compute(1)\nbeta\n"
    regions = find_similar(text, "alpha = compute(2)\nbeta\n")
    assert regions
    assert look_alike(text, regions[0]) == []
