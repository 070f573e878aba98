"""Similar regions and what differs: what a model needs to fix its next call."""

from __future__ import annotations

import pytest

from editguard.core.similar import describe, find_similar

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
