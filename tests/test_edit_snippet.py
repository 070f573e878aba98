"""edit_snippet (issue 25): a snippet with elision markers merged into a file or a symbol by
anchors found in order on the match ladder, everything else refused; on real code in several
languages, through the pure merger, the Python API, the CLI and the MCP server."""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path

import coverage
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters
from mcp_types import TextContent

from editguard import EditError, Workspace
from editguard.core.document import Document
from editguard.core.formats.snippet import compile_snippet

from .conftest import Snapshot, cli, examples, set_old_mtime

TESTS = Path(__file__).parent
CORPUS = TESTS / "corpus"
SAMPLES = TESTS / "symbol_samples"

SIX = (CORPUS / "six-1.15.0-1.16.0/six.py.old").read_text()
P_LIMIT = (CORPUS / "p-limit-6.2.0-7.0.0/index.js.old").read_text()
QUICK_LRU_TS = (CORPUS / "quick-lru-7.0.1-7.1.0/index.d.ts.old").read_text()
GO = (SAMPLES / "go/errors.go.txt").read_text()
RUST = (SAMPLES / "rust/lib.rs.txt").read_text()
CSS = (Path(coverage.__file__).parent / "htmlfiles/style.css").read_text()


def merged(text: str, name: str, snippet: str, **kw: object) -> str:
    compiled = compile_snippet(Document(text, name=name), snippet, **kw)  # type: ignore[arg-type]
    return compiled.plan.apply_to_text(text)


def refusal(text: str, name: str, snippet: str, **kw: object) -> EditError:
    with pytest.raises(EditError) as info:
        compile_snippet(Document(text, name=name), snippet, **kw)  # type: ignore[arg-type]
    return info.value


def lines_of(text: str, first: int, last: int) -> list[str]:
    """Lines ``first`` to ``last`` (1-based, inclusive) of ``text``."""
    return text.split("\n")[first - 1 : last]


# -- the merge, in each comment syntax -------------------------------------------------------


def test_python_a_changed_line_between_context_and_markers() -> None:
    # six.py's _add_doc: the docstring assignment changes, the rest stays.
    snippet = (
        "# ... existing code ...\n"
        "def _add_doc(func, doc):\n"
        '    """Add documentation to a function."""\n'
        "    func.__doc__ = doc.strip()\n"
        "\n"
        "\n"
        "def _import_module(name):\n"
        "# ... existing code ...\n"
    )
    out = merged(SIX, "six.py", snippet)
    assert out == SIX.replace("    func.__doc__ = doc\n", "    func.__doc__ = doc.strip()\n", 1)


@pytest.mark.parametrize(
    "marker",
    [
        "// ... existing code ...",
        "  /* ... */",
        "// ... rest of the function unchanged",
        "\t\t// … remaining lines …",
    ],
)
def test_javascript_every_marker_form(marker: str) -> None:
    snippet = (
        f"{marker}\n\tconst next = () => {{\n\t\tactiveCount -= 1;\n\n\t\tresumeNext();\n{marker}\n"
    )
    out = merged(P_LIMIT, "index.js", snippet)
    assert out == P_LIMIT.replace(
        "\t\tactiveCount--;\n\n\t\tresumeNext", "\t\tactiveCount -= 1;\n\n\t\tresumeNext", 1
    )


def test_typescript_two_changes_in_one_snippet_keep_what_lies_between() -> None:
    # quick-lru's index.d.ts: an option's doc comment and the class's first doc line change.
    snippet = (
        "// ... existing code ...\n"
        "\treadonly maxAge?: number;\n"
        "\n"
        "\t/**\n"
        "\tThe maximum number of items before evicting the least recently used ones.\n"
        "\t*/\n"
        "\treadonly maxSize: number;\n"
        "// ... existing code ...\n"
        "export default class QuickLRU<KeyType, ValueType> extends Map<KeyType, ValueType> "
        "implements Iterable<[KeyType, ValueType]> {\n"
        "// ...\n"
    )
    out = merged(QUICK_LRU_TS, "index.d.ts", snippet)
    assert out == QUICK_LRU_TS.replace(
        "least recently used items.\n\t*/\n\treadonly maxSize",
        "least recently used ones.\n\t*/\n\treadonly maxSize",
    )


def test_go_a_marker_inside_a_function_keeps_its_lines_byte_for_byte() -> None:
    snippet = (
        "func Wrap(err error, message string) error {\n"
        '\tif err == nil || message == "" {\n'
        "\t\treturn nil\n"
        "\t// ... existing code ...\n"
        "\t\tcallers(),\n"
        "\t}\n"
        "}\n"
    )
    out = merged(GO, "errors.go", snippet, span=_span(GO, "func Wrap(", "}"))
    assert out == GO.replace(
        "func Wrap(err error, message string) error {\n\tif err == nil {",
        'func Wrap(err error, message string) error {\n\tif err == nil || message == "" {',
    )


def test_rust_a_leading_marker_keeps_the_files_start() -> None:
    lines = RUST.split("\n")
    at = next(i for i, x in enumerate(lines) if x.startswith("impl Hasher for FnvHasher"))
    snippet = "\n".join(
        [
            "// ... existing code ...",
            lines[at],
            "    #[inline(always)]",
            *lines[at + 1 : at + 3],
            "// ...",
            "",
        ]
    )
    want = [*lines[: at + 1], "    #[inline(always)]", *lines[at + 1 :]]
    assert merged(RUST, "lib.rs", snippet) == "\n".join(want)


def test_css_a_block_comment_marker() -> None:
    snippet = (
        "/* ... existing rules ... */\n"
        "p { font-size: .875em; line-height: 1.4em; }\n"
        "\n"
        "table { border-collapse: separate; }\n"
        "\n"
        "td { vertical-align: top; }\n"
        "/* ... */\n"
    )
    out = merged(CSS, "style.css", snippet)
    assert out == CSS.replace(
        "table { border-collapse: collapse; }", "table { border-collapse: separate; }"
    )


def test_html_comment_marker() -> None:
    page = (
        "<html>\n<head>\n  <title>Demo</title>\n</head>\n<body>\n  <p>one</p>\n"
        "  <p>two</p>\n  <p>three</p>\n</body>\n</html>\n"
    )
    snippet = (
        "<!-- ... -->\n<body>\n  <p>one!</p>\n  <p>two</p>\n  <!-- ... existing code ... -->\n"
    )
    assert merged(page, "index.html", snippet) == page.replace("<p>one</p>", "<p>one!</p>")


@pytest.mark.parametrize(
    ("name", "marker"),
    [
        ("App.tsx", "{/* ... existing code ... */}"),
        ("q.sql", "-- ... existing code ..."),
        ("init.lua", "-- ..."),
        ("core.clj", "; ... unchanged ..."),
        ("page.md", "<!-- ... rest of the file ... -->"),
        ("conf.yaml", "# ... other keys unchanged"),
        ("Makefile", "# ... existing code ..."),
    ],
)
def test_other_comment_syntaxes(name: str, marker: str) -> None:
    text = "one\ntwo\nthree\nfour\nfive\nsix\n"
    snippet = f"{marker}\nthree\nFOUR\nfive\n{marker}\n"
    assert merged(text, name, snippet) == text.replace("four", "FOUR")
    # A marker in another comment syntax is no marker here, and no code to write either.
    other = "<!-- ... -->" if "<!--" not in marker else "// ..."
    error = refusal(text, name, snippet.replace(marker, other))
    assert error.code == "INVALID_REQUEST"
    assert "another comment syntax" in error.message
    assert error.data["snippet_line"] == 1


def test_a_marker_of_another_syntax_that_the_file_has_is_its_text() -> None:
    text = "Intro\n```js\n// ...\nfoo()\n```\nEnd\n"
    snippet = "<!-- ... -->\n```js\n// ...\nbar()\n```\n<!-- ... -->\n"
    assert merged(text, "m.md", snippet) == text.replace("foo()", "bar()")
    text = "x = 1\n// ...\ny = 2\nz = 0\n"
    snippet = "# ...\n// ...\ny = 3\nz = 0\n"
    assert merged(text, "m.py", snippet) == text.replace("y = 2", "y = 3")


# -- whole texts and symbols -----------------------------------------------------------------


def test_a_whole_file_without_markers_is_its_new_content() -> None:
    # Its first and last lines are the file's first and last: the whole new text.
    compiled = compile_snippet(Document("a = 1\nb = 2\nc = 3\n", name="a.py"), "a = 1\nc = 3\n")
    assert compiled.plan.apply_to_text("a = 1\nb = 2\nc = 3\n") == "a = 1\nc = 3\n"
    assert compiled.applied[0].note == (
        "the snippet has no marker line, so it replaced all of a.py (3 lines) with its 2 lines"
    )


def test_a_fragment_without_markers_replaces_only_the_lines_between_its_first_and_last() -> None:
    # Regression (FRAGMENT): the fragment was taken as the whole file, deleting def f.
    old = "import os\n\nimport six\nfrom x import y\n\ndef f():\n    return 1\n"
    out = merged(old, "m.py", "import os\n\nfrom x import y\n")
    assert out == old.replace("import six\n", "")


def test_a_fragment_without_markers_whose_edge_line_is_not_in_the_file_is_refused() -> None:
    with pytest.raises(EditError) as caught:
        compile_snippet(Document("a = 1\nb = 2\n", name="a.py"), "a = 3\n")
    assert caught.value.code == "NO_MATCH"
    assert any("write_file" in s for s in caught.value.suggestions)


def test_a_fragment_without_markers_that_changes_nothing_is_refused() -> None:
    # The lines it leaves out are not removed: it says nothing, so it is refused, not a no-op.
    with pytest.raises(EditError, match="changes nothing") as caught:
        compile_snippet(Document("a = 1\nb = 2\nc = 3\n", name="a.py"), "b = 2\n")
    assert caught.value.code == "INVALID_REQUEST"


def test_a_blank_line_next_to_a_marker_where_the_file_has_code_is_refused() -> None:
    # Regression (BLANK_EDGE): "import six" between the marker and the blank line was kept.
    old = "import os\n\nimport six\nfrom x import y\n\ndef f():\n    return 1\n"
    snippet = "# ... existing code ...\n\nfrom x import y\n# ... existing code ..."
    with pytest.raises(EditError, match="line 2 of the snippet is blank") as caught:
        compile_snippet(Document(old, name="m.py"), snippet)
    assert caught.value.code == "AMBIGUOUS_MATCH"


def test_a_blank_line_next_to_a_marker_is_refused_when_the_kept_text_has_another() -> None:
    # The blank line may be the file's next one, or the one before "d = 4" (deleting c).
    old = "a = 1\nb = 2\n\nc = 3\n\nd = 4\n"
    snippet = "a = 1\nx = 9\nb = 2\n\n# ... existing code ...\n"
    with pytest.raises(EditError) as caught:
        compile_snippet(Document(old, name="m.py"), snippet)
    assert caught.value.code == "AMBIGUOUS_MATCH"
    # With one blank line in the kept text, it is that one.
    out = merged("a = 1\nb = 2\n\nc = 3\n", "m.py", snippet)
    assert out == "a = 1\nx = 9\nb = 2\n\nc = 3\n"


def test_a_whole_symbol_without_markers_replaces_the_symbol() -> None:
    span = _span(GO, "func Errorf(", "}")
    new = "func Errorf(format string, args ...interface{}) error {\n\treturn nil\n}\n"
    out = merged(GO, "errors.go", new, span=span)
    before, after = GO.split("func Errorf(", 1)
    assert out == before + new + after.split("\n}\n", 1)[1]


def test_a_leading_marker_in_a_symbol_keeps_the_symbols_start() -> None:
    # "cause: err," is in three functions; inside Wrap, once. The symbol's start stays.
    span = _span(GO, "func Wrap(", "}")
    snippet = (
        '// ...\n\t\tcause: err,\n\t\tmsg:   message + "!",\n\t}\n\treturn &withStack{\n// ...\n'
    )
    out = merged(GO, "errors.go", snippet, span=span)
    first, _last = span
    assert lines_of(out, 1, first + 5) == lines_of(GO, 1, first + 5)
    assert lines_of(out, first + 6, first + 6) == ['\t\tmsg:   message + "!",']
    assert out.count("\n") == GO.count("\n")
    assert refusal(GO, "errors.go", snippet).code == "AMBIGUOUS_MATCH"  # in the whole file


def test_a_closing_line_the_order_cannot_place_is_refused() -> None:
    # Inside Wrap, "\t}" closes three blocks after "if err == nil {": which one ends the part
    # cannot be told.
    span = _span(GO, "func Wrap(", "}")
    snippet = "// ...\n\tif err == nil {\n\t\tpanic(err)\n\t}\n// ...\n"
    error = refusal(GO, "errors.go", snippet, span=span)
    assert error.code == "AMBIGUOUS_MATCH"
    assert error.data["lines"] == [span[0] + 3, span[0] + 7, span[0] + 11]
    # One more line of the file after it tells them apart.
    snippet = "// ...\n\tif err == nil {\n\t\tpanic(err)\n\t}\n\terr = &withMessage{\n// ...\n"
    out = merged(GO, "errors.go", snippet, span=span)
    first = span[0]
    assert lines_of(out, first, first + 4) == [
        "func Wrap(err error, message string) error {",
        "\tif err == nil {",
        "\t\tpanic(err)",
        "\t}",
        "\terr = &withMessage{",
    ]
    assert out.count("\n") == GO.count("\n")


# -- refusals ---------------------------------------------------------------------------------


def test_an_anchor_not_found_shows_the_similar_lines() -> None:
    snippet = "# ...\ndef _add_doc(func, docs):\n    func.__doc__ = doc\n# ...\n"
    error = refusal(SIX, "six.py", snippet)
    assert error.code == "NO_MATCH"
    assert "line 2 of the snippet is next to a marker" in error.message
    assert "def _add_doc(func, doc):" in error.message  # the real line, numbered
    assert error.data["snippet_line"] == 2
    assert error.data["similar_content"]


def test_the_order_tells_two_places_apart() -> None:
    text = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"
    # "    x = 1" and "    return x" are in both functions: alone, the part fits either.
    snippet = "# ...\n    x = 1\n    y = 0\n    return x\n# ...\n"
    error = refusal(text, "m.py", snippet)
    assert error.code == "AMBIGUOUS_MATCH"
    assert error.data["lines"] == [2, 7]
    assert "at line 2:" in error.message
    assert "at line 7:" in error.message
    # Followed by "def b():", only the first place leaves room for it.
    snippet = "# ...\n    x = 1\n    y = 0\n    return x\n# ...\ndef b():\n# ...\n"
    assert merged(text, "m.py", snippet) == text.replace("x = 1\n", "x = 1\n    y = 0\n", 1)
    # Preceded by it, only the second.
    snippet = "# ...\ndef b():\n    x = 1\n    y = 0\n    return x\n"
    want = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    y = 0\n    return x\n"
    assert merged(text, "m.py", snippet) == want


def test_anchors_out_of_order_are_refused() -> None:
    text = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    error = refusal(text, "m.py", "def b():\n# ...\ndef a():\n# ...\n")
    assert error.code == "NO_MATCH"
    assert "must come in the file's order" in error.message
    assert error.data["lines"] == [1]


def test_in_a_symbol_the_similar_lines_are_the_symbols() -> None:
    span = _span(GO, "func Wrap(", "}")
    error = refusal(GO, "errors.go", "// ...\n\t\tmsg: message,\n// ...\n", span=span)
    assert error.code == "NO_MATCH"
    assert error.data["similar_content"][0]["start_line"] == span[0] + 6
    assert all(span[0] <= r["start_line"] <= span[1] for r in error.data["similar_content"])


def test_two_markers_in_a_row_only_markers_and_nothing_are_refused() -> None:
    error = refusal(
        SIX, "six.py", "# ...\ndef _add_doc(func, doc):\n# ...\n\n# ... existing code ...\n"
    )
    assert error.code == "INVALID_REQUEST"
    assert error.data["lines"] == [3, 5]
    assert "two markers" in error.message
    error = refusal(SIX, "six.py", "# ...\n\n# ... existing code ...\n")
    assert error.code == "INVALID_REQUEST"
    assert "only elision markers" in error.message
    assert refusal(SIX, "six.py", "").code == "INVALID_REQUEST"


# -- the ladder -----------------------------------------------------------------------------------


def test_trailing_whitespace_on_an_anchor_is_matched_and_reported() -> None:
    text = "def f():\n    a = 1   \n    b = 2\n    return a + b\n"
    compiled = compile_snippet(
        Document(text, name="m.py"), "# ...\n    a = 1\n    b = 3\n    return a + b\n"
    )
    assert compiled.applied[0].match == "trailing_whitespace"
    # The anchor is written as the file has it; the changed line as sent.
    assert compiled.plan.apply_to_text(text) == text.replace("b = 2", "b = 3")


def test_an_indentation_slip_is_corrected_for_the_whole_segment() -> None:
    # The snippet is sent one tab short; the file's indentation is put back on every line.
    snippet = "// ...\nconst next = () => {\n\tactiveCount -= 1;\n\n\tresumeNext();\n// ...\n"
    compiled = compile_snippet(Document(P_LIMIT, name="index.js"), snippet)
    assert compiled.applied[0].match == "indentation"
    assert compiled.applied[0].note
    assert "indentation off by" in compiled.applied[0].note
    assert compiled.plan.apply_to_text(P_LIMIT) == P_LIMIT.replace(
        "\t\tactiveCount--;\n\n\t\tresumeNext", "\t\tactiveCount -= 1;\n\n\t\tresumeNext", 1
    )


def test_exact_finds_anchors_exactly_only() -> None:
    text = "def f():\n    a = 1   \n    b = 2\n"
    assert refusal(text, "m.py", "# ...\n    a = 1\n    b = 3\n", exact=True).code == "NO_MATCH"


# -- what is code, not a marker --------------------------------------------------------------


def test_python_ellipsis_and_javascript_rest_are_code() -> None:
    text = "class P:\n    def f(self):\n        pass\n\n    def g(self):\n        return 1\n"
    snippet = "    def f(self):\n        ...\n\n    def g(self):\n# ...\n"
    assert merged(text, "p.py", snippet) == text.replace("        pass\n", "        ...\n")
    js = "function f(a, b) {\n  return g(a, b);\n}\n\nfunction h() {}\n"
    snippet = "function f(a, b) {\n  return g(...[a, b]);\n}\n// ...\n"
    assert merged(js, "f.js", snippet) == js.replace("g(a, b)", "g(...[a, b])")


def test_a_files_own_marker_like_comment_next_to_the_same_line_is_text() -> None:
    text = "def f():\n    # ...\n    a = 1\n    b = 2\n    return a\n\n\ndef g():\n    pass\n"
    # The snippet copies the file's "# ..." with the line below it: it is the file's comment.
    snippet = "def f():\n    # ...\n    a = 5\n    b = 2\n# ...\n"
    assert merged(text, "m.py", snippet) == text.replace("a = 1", "a = 5")


def test_a_marker_like_comment_that_reads_both_ways_is_refused() -> None:
    text = "def f():\n    # ...\n    a = 1\n    return a\n"
    # As a marker it keeps "a = 1"; as the file's comment, the snippet is the whole new file.
    error = refusal(text, "m.py", "def f():\n    # ...\n    return a\n")
    assert error.code == "AMBIGUOUS_MATCH"
    assert "line 2 of the snippet" in error.message


def test_blank_lines_next_to_a_marker_are_the_files() -> None:
    text = "a = 1\n\n\nb = 2\nx = 0\nc = 3\n\n\nd = 4\n"
    # Three blank lines before the part, one after: the file's two and two stay.
    snippet = "# ...\n\n\n\nb = 2\nx = 1\nc = 3\n\n# ...\n"
    assert merged(text, "m.py", snippet) == text.replace("x = 0", "x = 1")


# -- real release changes -------------------------------------------------------------------


PAIRS = [
    ("six-1.15.0-1.16.0/six.py", "#"),
    ("configobj-5.0.8-5.0.9/src/configobj/__init__.py", "#"),
    ("p-limit-6.2.0-7.0.0/index.js", "//"),
    ("p-limit-6.2.0-7.0.0/index.d.ts", "//"),
    ("quick-lru-7.0.1-7.1.0/index.js", "//"),
    ("quick-lru-7.0.1-7.1.0/index.d.ts", "//"),
]


def release_changes(pair: str, comment: str) -> tuple[int, list[str]]:
    """Each changed stretch of a real release, sent as a snippet with three lines of context
    and a marker on each side: how many landed exactly as the release has it, and the codes of
    those refused. Asserts that none lands anywhere else."""
    old = (CORPUS / f"{pair}.old").read_text()
    new = (CORPUS / f"{pair}.new").read_text()
    a, b = old.split("\n"), new.split("\n")
    landed = 0
    refused: list[str] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
        if group[0][0] != "equal" or group[-1][0] != "equal":
            continue  # a change at the file's edge has no context line to anchor it
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        indent = b[j1][: len(b[j1]) - len(b[j1].lstrip())]
        marker = f"{indent}{comment} ... existing code ..."
        snippet = "\n".join([marker, *b[j1:j2], marker, ""])
        want = "\n".join([*a[:i1], *b[j1:j2], *a[i2:]])
        try:
            got = merged(old, pair.rsplit("/", 1)[1], snippet)
        except EditError as exc:
            refused.append(exc.code)
            continue
        assert got == want, (group, snippet)
        landed += 1
    return landed, refused


@pytest.mark.parametrize(("pair", "comment"), PAIRS)
def test_each_change_of_a_release_lands_exactly_or_is_refused(pair: str, comment: str) -> None:
    _, refused = release_changes(pair, comment)
    assert set(refused) <= {"NO_MATCH", "AMBIGUOUS_MATCH"}


def test_changes_of_python_and_javascript_releases_land() -> None:
    assert release_changes(*PAIRS[0])[0] >= 1  # six.py
    assert release_changes(*PAIRS[2])[0] >= 1  # p-limit's index.js


# Lines from a small stock, so that files repeat lines (and anchors have several places).
LINE = st.sampled_from(["a = 1", "    return a", "}", "", "    b = 2", "def f():", "x", "  y"])


@settings(max_examples=examples(400), deadline=None)
@given(
    old=st.lists(LINE, min_size=1, max_size=30),
    new=st.lists(LINE, max_size=5),
    where=st.tuples(st.integers(0, 30), st.integers(0, 5)),
    context=st.tuples(st.integers(1, 3), st.integers(1, 3)),
)
def test_a_change_with_context_lands_exactly_or_is_refused(
    old: list[str], new: list[str], where: tuple[int, int], context: tuple[int, int]
) -> None:
    """Lines ``old[i:i+k]`` become ``new``; the snippet is the change with its context lines
    on both sides and a marker beyond each: the merge is the file so changed, or a refusal."""
    i = min(where[0], len(old))
    k = min(where[1], len(old) - i)
    before, after = old[max(i - context[0], 0) : i], old[i + k : i + k + context[1]]
    part = [*before, *new, *after]
    filled = [n for n, line in enumerate(part) if line.strip()]
    if not filled or filled[0] >= len(before) or filled[-1] < len(before) + len(new):
        return  # an edge of the part is a new line, or a blank one next to one: no context
    snippet = "\n".join(["# ...", *part, "# ...", ""])
    text = "\n".join(old) + "\n"
    want = "\n".join([*old[:i], *new, *old[i + k :]]) + "\n"
    try:
        got = merged(text, "m.py", snippet)
    except EditError as exc:
        code = exc.code
    else:
        assert got == want
        return
    assert code == "AMBIGUOUS_MATCH"  # the context is the file's: found, in order


# -- the tool: API, CLI, MCP -----------------------------------------------------------------


def test_the_tool_writes_through_the_transaction(root: Path) -> None:
    (root / "errors.go").write_text(GO)
    ws = Workspace([root])
    result = ws.call(
        "edit_snippet",
        path="errors.go",
        symbol="Wrap",
        snippet=(
            "// ...\n\t\tcause: err,\n"
            '\t\tmsg:   message + "!",\n'
            "\t}\n\treturn &withStack{\n// ...\n"
        ),
    )
    out = result.model_dump()
    assert out["written"]
    assert out["would_modify"]
    assert out["edits_applied"] == [
        {
            "index": 0,
            "occurrences_replaced": 1,
            "lines": [_span(GO, "func Wrap(", "}")[0] + 5],
            "match": "exact",
            "note": None,
        }
    ]
    assert '+\t\tmsg:   message + "!",' in out["diff"]
    assert out["validation"]["passed"]
    assert (root / "errors.go").read_text() == GO.replace(
        "\t\tmsg:   message,\n\t}\n\treturn &withStack",
        '\t\tmsg:   message + "!",\n\t}\n\treturn &withStack',
    )


def test_a_crlf_file_keeps_its_line_endings(root: Path) -> None:
    path = root / "m.py"
    path.write_bytes(b"def f():\r\n    a = 1\r\n    b = 2\r\n    return a\r\n")
    Workspace([root]).call(
        "edit_snippet", path="m.py", snippet="# ...\n    a = 1\n    b = 3\n    return a\n"
    )
    assert path.read_bytes() == b"def f():\r\n    a = 1\r\n    b = 3\r\n    return a\r\n"


def test_a_dry_run_writes_nothing(root: Path) -> None:
    path = root / "six.py"
    path.write_text(SIX)
    set_old_mtime(path)
    before = Snapshot.of(path)
    snippet = (
        "# ...\n"
        "def _add_doc(func, doc):\n"
        '    """Add documentation to a function."""\n'
        "    func.__doc__ = doc or ''\n"
        "\n"
        "\n"
        "def _import_module(name):\n"
        "# ...\n"
    )
    out = Workspace([root]).call("edit_snippet", path="six.py", snippet=snippet, dry_run=True)
    assert out.model_dump()["would_modify"]
    assert not out.model_dump()["written"]
    assert "+    func.__doc__ = doc or ''" in out.model_dump()["diff"]
    assert Snapshot.of(path) == before


def test_a_merge_that_removes_a_definition_the_snippet_does_not_name_is_refused(root: Path) -> None:
    path = root / "m.py"
    text = "def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\nx = 1\n"
    path.write_text(text)
    ws = Workspace([root])
    with pytest.raises(EditError) as info:
        ws.call("edit_snippet", path="m.py", snippet="def f():\n    return 3\n\n\nx = 1\n")
    assert "function g (lines 5-6)" in info.value.message
    assert info.value.data["removed"] == [{"name_path": "g", "start_line": 5, "end_line": 6}]
    assert path.read_text() == text
    # Named in the snippet, its removal is meant.
    ws.call("edit_snippet", path="m.py", snippet="def f():\n    return 3  # g is gone\n\n\nx = 1\n")
    assert path.read_text() == "def f():\n    return 3  # g is gone\n\n\nx = 1\n"


def test_a_symbol_renamed_by_its_whole_new_text_is_no_removal(root: Path) -> None:
    path = root / "m.py"
    path.write_text(
        "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    )
    ws = Workspace([root])
    ws.call(
        "edit_snippet", path="m.py", symbol="A/f", snippet="    def h(self):\n        return 1\n"
    )
    assert "def h(self):" in path.read_text()
    # A method the whole new text of its class leaves out is a removal, named.
    with pytest.raises(EditError) as info:
        ws.call(
            "edit_snippet",
            path="m.py",
            symbol="A",
            snippet="class A:\n    def h(self):\n        return 1\n",
        )
    assert "method A/g" in info.value.message


def test_a_symbol_that_shares_a_line_is_not_replaced_whole(root: Path) -> None:
    path = root / "m.js"
    text = "const a = 1; function f() {\n  return a;\n}\n"
    path.write_text(text)
    ws = Workspace([root])
    with pytest.raises(EditError) as info:
        ws.call("edit_snippet", path="m.js", symbol="f", snippet="function f() {\n  return 2;\n}\n")
    assert info.value.code == "INVALID_REQUEST"
    assert "shares a line with other code" in info.value.message
    assert path.read_text() == text


def test_an_unknown_symbol_is_refused(root: Path) -> None:
    (root / "errors.go").write_text(GO)
    with pytest.raises(EditError) as info:
        Workspace([root]).call("edit_snippet", path="errors.go", symbol="Nope", snippet="x\n")
    assert info.value.code == "SYMBOL_NOT_FOUND"


def test_the_cli(root: Path) -> None:
    (root / "index.js").write_text(P_LIMIT)
    snippet = "// ...\n\tconst next = () => {\n\t\tactiveCount -= 1;\n\n\t\tresumeNext();\n// ...\n"
    code, out = cli(root, "edit_snippet", {"path": "index.js", "snippet": snippet})
    assert code == 0, out
    assert out["edits_applied"][0]["match"] == "exact"
    assert "activeCount -= 1;" in (root / "index.js").read_text()
    code, out = cli(root, "edit_snippet", {"path": "index.js", "snippet": "// ...\n// ...\n"})
    assert code == 1
    assert out["error"]["code"] == "INVALID_REQUEST"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_over_mcp_stdio(root: Path, anyio_backend: str) -> None:
    (root / "m.py").write_text("def f():\n    a = 1\n    return a\n")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(root)],
        env={
            **{k: v for k, v in os.environ.items() if k.startswith("EDITGUARD_")},
            "PYTHONPATH": str(TESTS.parent / "src"),
        },
    )
    async with Client(params) as client:
        result = await client.call_tool(
            "edit_snippet",
            {"path": "m.py", "snippet": "def f():\n    a = 2\n    return a\n# ...\n"},
        )
        block = result.content[0]
        assert isinstance(block, TextContent)
        assert not result.is_error, block.text
    assert (root / "m.py").read_text() == "def f():\n    a = 2\n    return a\n"


def _span(text: str, head: str, last: str) -> tuple[int, int]:
    """The 1-based lines from the line that starts with ``head`` to the next line that is
    ``last``."""
    lines = text.split("\n")
    first = next(i for i, x in enumerate(lines) if x.startswith(head))
    end = next(i for i in range(first, len(lines)) if lines[i] == last)
    return first + 1, end + 1


def test_a_shifted_snippet_whose_edge_lines_are_exact_elsewhere_is_refused() -> None:
    # Regression (ELSEWHERE): "*/" and "/**" are exactly at the top level too, so the snippet,
    # one level off, replaced lines 3-16 instead of the inner comment's lines.
    old = (
        "/**\nTop.\n*/\nexport type A = {\n\t/**\n\tOne.\n\t*/\n\ta: 1;\n\n\t/**\n\tTwo.\n\t*/\n"
        "\tb: 2;\n};\n\n/**\nEnd.\n*/\nexport const c = 1;\n"
    )
    snippet = "// ...\n*/\na: 2;\n\n/**\n// ...\n"
    with pytest.raises(EditError, match="one indentation shift off") as caught:
        compile_snippet(Document(old, name="a.ts"), snippet)
    assert caught.value.code == "AMBIGUOUS_MATCH"


def test_a_corrected_segment_keeps_the_files_unchanged_lines_byte_for_byte() -> None:
    # Regression (WHITESPACE): shifted one level back, the whitespace-only line "        "
    # was written empty; a trailing space of the file's own line is kept too.
    old = "class A:\n    def g(self):\n        x = 1\n        \n        y = 2\n        return x \n"
    old += "\n    def h(self):\n        pass\n"
    snippet = "# ...\ndef g(self):\n    x = 1\n    \n    y = 3\n    return x \n# ..."
    assert merged(old, "m.py", snippet) == old.replace("y = 2", "y = 3")


def test_a_line_between_anchors_differing_only_in_what_the_rung_ignores_is_refused() -> None:
    # Trailing spaces on the anchors are a slip; on the line between, the slip or the change.
    old = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n"
    snippet = "# ...\n    a = 1  \n    b = 2  \n    x = 0\n    c = 3  \n# ..."
    with pytest.raises(EditError, match="only in what that rung ignores") as caught:
        compile_snippet(Document(old, name="m.py"), snippet)
    assert caught.value.code == "NO_MATCH"
