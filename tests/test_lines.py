"""Line edits (edit_lines; safe_edit's line_edits): operations, rules, and properties."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from editguard import EditError, Mode, Workspace
from editguard.core.document import Document, decode
from editguard.core.formats import Compiled
from editguard.core.formats.lines import (
    LineEdit,
    LineKind,
    LineOp,
    compile_line_edits,
    compile_line_ops,
)
from editguard.core.plan import render

from .conftest import Snapshot, examples, set_old_mtime

FIVE = "one\ntwo\nthree\nfour\nfive\n"

OPS: dict[str, tuple[str, list[LineOp], str]] = {
    "insert before a line": (
        FIVE,
        [LineOp("insert", 2, "1.5")],
        "one\n1.5\ntwo\nthree\nfour\nfive\n",
    ),
    "insert several lines": (FIVE, [LineOp("insert", 1, "a\nb")], "a\nb\n" + FIVE),
    "insert past the end appends": (FIVE, [LineOp("insert", 99, "six")], FIVE + "six\n"),
    "insert past the end without final newline": ("a\nb", [LineOp("insert", 3, "c")], "a\nb\nc"),
    "insert into an empty file": ("", [LineOp("insert", 1, "x")], "x\n"),
    "several inserts at one line keep their order": (
        FIVE,
        [LineOp("insert", 3, "A"), LineOp("insert", 3, "B")],
        "one\ntwo\nA\nB\nthree\nfour\nfive\n",
    ),
    "delete one line": (FIVE, [LineOp("delete", 3)], "one\ntwo\nfour\nfive\n"),
    "delete a range": (FIVE, [LineOp("delete", 2, end_line=4)], "one\nfive\n"),
    "delete the last line without final newline": ("a\nb", [LineOp("delete", 2)], "a"),
    "replace a whole line": (FIVE, [LineOp("replace", 4, "4")], "one\ntwo\nthree\n4\nfive\n"),
    "replace a line by two": (FIVE, [LineOp("replace", 1, "1\n1b")], "1\n1b\n" + FIVE[4:]),
    "replace text inside a line": (
        "x = foo(foo_bar)\n",
        [LineOp("replace", 1, "baz(", old_text="foo(")],
        "x = baz(foo_bar)\n",
    ),
    "replace a section": (
        FIVE,
        [LineOp("replace_section", 2, "2-4", end_line=4)],
        "one\n2-4\nfive\n",
    ),
    "empty section text deletes": (
        FIVE,
        [LineOp("replace_section", 4, "", end_line=5)],
        "one\ntwo\nthree\n",
    ),
    "numbers refer to the file as read": (
        FIVE,
        [LineOp("delete", 1), LineOp("replace", 5, "5"), LineOp("insert", 3, "+")],
        "two\n+\nthree\nfour\n5\n",
    ),
    "a trailing newline in text is not doubled": (
        FIVE,
        [LineOp("replace", 2, "2\n")],
        "one\n2\nthree\nfour\nfive\n",
    ),
    "insert right before a replaced range": (
        FIVE,
        [LineOp("insert", 2, "+"), LineOp("replace_section", 2, "2", end_line=3)],
        "one\n+\n2\nfour\nfive\n",
    ),
}


def line_ops(text: str, ops: list[LineOp]) -> Compiled:
    """compile_line_ops on a document of ``text``."""
    return compile_line_ops(Document(text), ops)


def line_edits(text: str, edits: list[tuple[int, int, str]]) -> Compiled:
    """compile_line_edits on a document of ``text``, edits as (start, end, new content)."""
    return compile_line_edits(Document(text), [LineEdit(*e) for e in edits])


@pytest.mark.parametrize(("before", "ops", "after"), OPS.values(), ids=OPS.keys())
def test_line_operations(before: str, ops: list[LineOp], after: str) -> None:
    assert line_ops(before, ops).plan.apply_to_text(before) == after


def test_crlf_files_keep_crlf_and_a_missing_final_newline_stays_missing() -> None:
    doc = decode(b"a\r\nb\r\nc")
    compiled = line_ops(doc.text, [LineOp("replace", 2, "B\nB2"), LineOp("insert", 9, "d")])
    assert b"".join(render(doc, compiled.plan)) == b"a\r\nB\r\nB2\r\nc\r\nd"


ERRORS: dict[str, tuple[list[LineOp], str, str]] = {
    "overlapping ranges": (
        [LineOp("delete", 2, end_line=3), LineOp("replace", 3, "x")],
        "OVERLAPPING_EDITS",
        "",
    ),
    "insert inside a replaced range": (
        [LineOp("replace_section", 2, "x", end_line=4), LineOp("insert", 3, "y")],
        "OVERLAPPING_EDITS",
        "",
    ),
    "line past the end": ([LineOp("delete", 6)], "LINE_OUT_OF_RANGE", ""),
    "end line past the end": (
        [LineOp("replace_section", 4, "x", end_line=9)],
        "LINE_OUT_OF_RANGE",
        "",
    ),
    "end before start": ([LineOp("delete", 3, end_line=2)], "INVALID_REQUEST", "edits[0].end_line"),
    "section without end line": (
        [LineOp("replace_section", 3, "x")],
        "INVALID_REQUEST",
        "edits[0].end_line",
    ),
    "insert without text": ([LineOp("insert", 1)], "INVALID_REQUEST", "edits[0].text"),
    "line zero": ([LineOp("delete", 0)], "INVALID_REQUEST", "edits[0].line_number"),
    "old text not in the line": ([LineOp("replace", 2, "x", old_text="zzz")], "NO_MATCH", ""),
    "old text twice in the line": ([LineOp("replace", 1, "x", old_text="o")], "WRONG_COUNT", ""),
}


@pytest.mark.parametrize(("ops", "code", "field"), ERRORS.values(), ids=ERRORS.keys())
def test_line_edit_errors(ops: list[LineOp], code: str, field: str) -> None:
    text = "foo\ntwo\nthree\nfour\nfive\n"
    with pytest.raises(EditError) as err:
        line_ops(text, ops)
    assert err.value.code == code
    if field:
        assert err.value.data["field"] == field


def test_errors_name_the_edits_and_the_file_length() -> None:
    with pytest.raises(EditError) as err:
        line_ops(FIVE, [LineOp("insert", 1, "x"), LineOp("delete", 7)])
    assert (err.value.edit_index, err.value.data["total_lines"]) == (1, 5)
    with pytest.raises(EditError) as err:
        line_ops(FIVE, [LineOp("delete", 1), LineOp("delete", 4), LineOp("delete", 4)])
    assert err.value.data["edits"] == [1, 2]


def test_landed_lines_count_in_the_new_file() -> None:
    compiled = line_ops(FIVE, [LineOp("insert", 1, "a\nb"), LineOp("replace", 3, "3")])
    assert tuple(e.lines[0] for e in compiled.applied) == (1, 5)


def test_safe_edit_line_edits_replace_inclusive_ranges() -> None:
    text = "line 1\nline 2\nline 3\n"
    plan = line_edits(text, [(1, 1, "first"), (3, 3, "")]).plan
    assert plan.apply_to_text(text) == "first\nline 2\n"
    with pytest.raises(EditError) as err:
        line_edits(text, [(1, 2, "x"), (2, 3, "y")])
    assert "overlap" in err.value.message
    with pytest.raises(EditError) as err:
        line_edits(text, [(2, 5, "x")])
    assert "3 line(s)" in err.value.message


# -- the tool ------------------------------------------------------------------------------


@pytest.fixture
def five(root: Path) -> Path:
    path = root / "five.txt"
    path.write_text(FIVE)
    set_old_mtime(path)
    return path


@pytest.mark.parametrize(
    "edits",
    [
        [{"line_number": 2, "type": "Delete"}],
        [{"LineNumber": 2, "Type": "DELETE"}],
        [{"lineNumber": 2, "type": "delete"}],
        json.dumps([{"LineNumber": 2, "Type": "Delete"}]),
    ],
    ids=["canonical", "PascalCase names", "camel case", "edits as a JSON string"],
)
def test_edit_lines_is_lenient_where_models_stumble(ws: Workspace, five: Path, edits: Any) -> None:
    from editguard.tools import tool_named

    tool_named("edit_lines").call(
        ws.context,
        {"path": "five.txt", "editsJson": edits}
        if isinstance(edits, str)
        else {"path": "five.txt", "edits": edits},
    )
    assert five.read_text() == "one\nthree\nfour\nfive\n"


@pytest.mark.parametrize(
    ("edits", "field"),
    [
        ([{"line_number": 2, "type": "Remove"}], "edits[0].type"),
        ([{"line_number": "two", "type": "Delete"}], "edits[0].line_number"),
        ([{"type": "Delete"}], "edits[0].line_number"),
        ([{"line_number": 1, "type": "Delete", "color": "red"}], "edits[0].color"),
        ("[not json", "edits"),
    ],
)
def test_anything_else_malformed_names_the_element_and_field(
    ws: Workspace, five: Path, edits: Any, field: str
) -> None:
    from editguard.tools import tool_named

    snap = Snapshot.of(five)
    with pytest.raises(EditError) as err:
        tool_named("edit_lines").call(ws.context, {"path": "five.txt", "edits": edits})
    assert err.value.code == "INVALID_REQUEST"
    assert err.value.data["field"] == field
    assert Snapshot.of(five) == snap


def test_a_stale_read_is_refused(ws: Workspace, five: Path) -> None:
    version = ws.read_file("five.txt").version
    five.write_text("zero\n" + FIVE)
    with pytest.raises(EditError) as err:
        ws.edit_lines("five.txt", [{"line_number": 2, "type": "Delete"}], expected_version=version)
    assert err.value.code == "STALE_VERSION"


def test_edit_lines_dry_run_and_result(ws: Workspace, five: Path) -> None:
    snap = Snapshot.of(five)
    result = ws.edit_lines(
        "five.txt", [{"line_number": 5, "type": "Replace", "text": "5"}], dry_run=True
    )
    assert Snapshot.of(five) == snap
    assert (result.written, result.would_modify, result.edits_applied[0].lines) == (
        False,
        True,
        [5],
    )
    assert "-five\n+5" in result.diff


def test_an_insert_past_the_end_says_it_was_appended(ws: Workspace, five: Path) -> None:
    result = ws.edit_lines(
        "five.txt",
        [
            {"line_number": 99, "type": "Insert", "text": "six"},
            {"line_number": 1, "type": "Insert", "text": "zero"},
        ],
    )
    assert five.read_text() == "zero\n" + FIVE + "six\n"
    past, first = result.edits_applied
    assert past.lines == [7]
    assert past.note is not None
    assert "99" in past.note
    assert "appended after line 5" in past.note
    assert first.note is None
    # The line after the last is the usual way to append: nothing to say.
    result = ws.edit_lines("five.txt", [{"line_number": 8, "type": "Insert", "text": "seven"}])
    assert result.edits_applied[0].note is None


def test_all_or_nothing(ws: Workspace, five: Path) -> None:
    snap = Snapshot.of(five)
    with pytest.raises(EditError):
        ws.edit_lines(
            "five.txt", [{"line_number": 1, "type": "Delete"}, {"line_number": 9, "type": "Delete"}]
        )
    assert Snapshot.of(five) == snap


# -- properties ----------------------------------------------------------------------------

file_lines = st.lists(st.text(alphabet="abc ", max_size=5), min_size=1, max_size=10)


@st.composite
def files_and_sections(draw: st.DrawFn) -> tuple[str, int, int, str]:
    """A text, a line range in it, and new lines for it (written with a final \\n, so that an
    empty line is a line, not a deletion)."""
    lines = draw(file_lines)
    final = draw(st.booleans())
    text = "\n".join(lines) + ("\n" if final else "")
    count = 0 if not text else len(text.split("\n")) - (1 if text.endswith("\n") else 0)
    assume(count > 0)
    first = draw(st.integers(1, count))
    last = draw(st.integers(first, count))
    new = draw(st.lists(st.text(alphabet="xyz", max_size=4), min_size=1, max_size=3))
    return text, first, last, "\n".join(new) + "\n"


@settings(max_examples=examples(300))
@given(files_and_sections(), st.sampled_from(["\n", "\r\n"]))
def test_a_section_replaced_then_restored_gives_back_the_bytes(
    case: tuple[str, int, int, str], eol: str
) -> None:
    text, first, last, new = case
    data = text.replace("\n", eol).encode()
    doc = decode(data)
    old_section = "\n".join(doc.text.split("\n")[first - 1 : last]) + "\n"
    once = b"".join(
        render(
            doc,
            line_ops(doc.text, [LineOp("replace_section", first, new, end_line=last)]).plan,
        )
    )
    doc2 = decode(once)
    new_last = first + new.count("\n") - 1
    # One empty last line without a final newline is the empty file: nothing to restore.
    assume(doc2.line_count >= new_last)
    # A file left without any line break no longer knows its line-ending style.
    assume("\n" in doc2.text or "\n" not in doc.text)
    back = b"".join(
        render(
            doc2,
            line_ops(
                doc2.text, [LineOp("replace_section", first, old_section, end_line=new_last)]
            ).plan,
        )
    )
    assert back == data


@settings(max_examples=examples(300))
@given(files_and_sections())
def test_no_edit_touches_lines_outside_its_range(case: tuple[str, int, int, str]) -> None:
    text, first, last, new = case
    out = line_ops(text, [LineOp("replace_section", first, new, end_line=last)])
    after = out.plan.apply_to_text(text).split("\n")
    lines = text.split("\n")
    assert after[: first - 1] == lines[: first - 1]
    kept = len(lines) - last  # the lines after the range, and the empty piece a final \n leaves
    assert after[len(after) - kept :] == lines[last:]


# -- batches, with and without a final newline (a model of the rules) -----------------------


def _expected_lines(lines: list[str], ops: list[LineOp]) -> list[str]:
    """The rules, written plainly: numbers as read, inserts before their line in request
    order, a range replaced or removed whole, Replace keeps exactly one line per text line."""
    inserts: dict[int, list[str]] = {}
    ranges: dict[int, tuple[int, list[str]]] = {}
    for op in ops:
        if op.kind == "insert":
            inserts.setdefault(min(op.line, len(lines) + 1), []).extend((op.text or "").split("\n"))
            continue
        last = op.end_line or op.line
        if op.kind == "delete":
            ranges[op.line] = (last, [])
        elif op.kind == "replace_section":
            ranges[op.line] = (last, op.text.split("\n") if op.text else [])
        else:
            ranges[op.line] = (last, (op.text or "").split("\n"))
    out: list[str] = []
    n = 1
    while n <= len(lines) + 1:
        out += inserts.get(n, [])
        if n > len(lines):
            break
        if n in ranges:
            last, new = ranges[n]
            out += new
            n = last + 1
        else:
            out.append(lines[n - 1])
            n += 1
    return out


@st.composite
def batches(draw: st.DrawFn) -> tuple[list[str], bool, list[LineOp]]:
    words = st.sampled_from(["a", "b c", "", "d"])
    lines = draw(st.lists(words, max_size=6))
    final = draw(st.booleans())
    if lines and not final:
        assume(lines[-1] != "")  # "x\n" without a final newline would be read as ["x"]
    ops: list[LineOp] = []
    used: set[int] = set()
    for _ in range(draw(st.integers(1, 4))):
        kinds: list[LineKind] = ["insert", "delete", "replace", "replace_section"]
        kind = draw(st.sampled_from(kinds))
        texts = st.sampled_from(["X", "Y\nZ", ""] if kind != "insert" else ["X", "Y\nZ"])
        if kind == "insert":
            ops.append(LineOp("insert", draw(st.integers(1, len(lines) + 2)), draw(texts)))
            continue
        if not lines:
            continue
        first = draw(st.integers(1, len(lines)))
        last = first if kind == "replace" else draw(st.integers(first, len(lines)))
        if used & set(range(first, last + 1)):
            continue
        used |= set(range(first, last + 1))
        text = None if kind == "delete" else draw(texts)
        ops.append(LineOp(kind, first, text, end_line=None if kind == "replace" else last))
    return lines, final, ops


@settings(max_examples=examples(2000))
@given(batches())
def test_a_batch_of_line_edits_follows_the_rules_with_or_without_a_final_newline(
    case: tuple[list[str], bool, list[LineOp]],
) -> None:
    lines, final, ops = case
    text = "\n".join(lines) + ("\n" if final and lines else "")
    inside = [
        (i, o)
        for i in ops
        if i.kind == "insert"
        for o in ops
        if o.kind != "insert" and o.line < i.line <= (o.end_line or o.line)
    ]
    assume(not inside)  # an insert strictly inside a replaced range is refused (tested above)
    expected = _expected_lines(lines, ops)
    if not final and expected and expected[-1] == "":
        # Ends with an empty line, without a final newline: the same bytes as one line fewer
        # with a final newline, which is what we compare.
        expected, final = expected[:-1], True
    want = "\n".join(expected) + ("\n" if expected and (final or not lines) else "")
    got = line_ops(text, ops).plan.apply_to_text(text)
    assert got == want


@settings(max_examples=examples(1000))
@given(batches())
def test_safe_edit_line_edits_follow_the_same_rules(
    case: tuple[list[str], bool, list[LineOp]],
) -> None:
    lines, final, ops = case
    sections = [
        LineOp("replace_section", o.line, o.text or "", end_line=o.end_line or o.line)
        for o in ops
        if o.kind != "insert"
    ]
    assume(sections)
    text = "\n".join(lines) + ("\n" if final and lines else "")
    expected = _expected_lines(lines, sections)
    if not final and expected and expected[-1] == "":
        expected, final = expected[:-1], True
    want = "\n".join(expected) + ("\n" if expected and final else "")
    edits = [(o.line, o.end_line or o.line, o.text or "") for o in sections]
    assert line_edits(text, edits).plan.apply_to_text(text) == want


def test_the_last_line_deleted_with_the_one_before_edited_in_a_file_without_final_newline(
    ws: Workspace, root: Path
) -> None:
    (root / "b.py").write_bytes(b"x = 1\ny = 2")
    ws.edit_lines(
        "b.py",
        [
            {"line_number": 1, "type": "Replace", "text": "x = 10"},
            {"line_number": 2, "type": "Delete"},
        ],
    )
    assert (root / "b.py").read_bytes() == b"x = 10"
    (root / "c.py").write_bytes(b"x = 1\ny = 2")
    ws.safe_edit(
        "c.py",
        line_edits=[
            {"start_line": 1, "end_line": 1, "new_content": "x = 10"},
            {"start_line": 2, "end_line": 2, "new_content": ""},
        ],
    )
    assert (root / "c.py").read_bytes() == b"x = 10"
    (root / "d.txt").write_bytes(b"a\r\nb")
    ws.edit_lines(
        "d.txt",
        [
            {"line_number": 1, "type": "Delete"},
            {"line_number": 2, "type": "Delete"},
            {"line_number": 3, "type": "Insert", "text": "new"},
        ],
    )
    assert (root / "d.txt").read_bytes() == b"new"


@pytest.mark.parametrize(
    ("edits", "field"),
    [
        ([{"line_number": "two", "type": "Delete"}], "edits[0].line_number"),
        ([{"type": "Delete"}], "edits[0].line_number"),
        ([{"line_number": 1, "type": "Remove"}], "edits[0].type"),
        ([{"line_number": 1, "type": "Delete"}, {"line_number": 2}], "edits[1].type"),
    ],
)
def test_the_python_api_names_the_element_and_field_too(
    ws: Workspace, five: Path, edits: Any, field: str
) -> None:
    snap = Snapshot.of(five)
    with pytest.raises(EditError) as err:
        ws.edit_lines("five.txt", edits)
    assert err.value.code == "INVALID_REQUEST"
    assert err.value.data["field"] == field
    assert field in err.value.message
    assert Snapshot.of(five) == snap


@pytest.mark.parametrize(
    "edit",
    [
        {"LineNumber": 2, "Type": "Replace", "Text": "TWO", "OldText": "two"},
        {"line_number": 2, "type": "replace_section", "EndLine": 3, "Text": "TWO"},
        {"line_number": 2, "type": "REPLACE_SECTION", "end_line": 3, "text": "TWO"},
        {"lineNumber": 2, "type": "ReplaceSection", "endLine": 3, "text": "TWO"},
    ],
    ids=["PascalCase names with OldText", "EndLine", "upper snake case", "camel case"],
)
def test_pascal_case_field_names_and_type_spellings_are_accepted(
    ws: Workspace, five: Path, edit: dict[str, Any]
) -> None:
    ws.edit_lines("five.txt", [edit])
    expected = "one\nTWO\nthree\n" if "OldText" in edit else "one\nTWO\n"
    assert five.read_text() == expected + "four\nfive\n"


def test_the_description_tells_the_model_to_pass_the_version() -> None:
    from editguard.tools import tool_named

    description = tool_named("edit_lines").description
    assert "expected_version" in description
    assert "read_file" in description
    assert "STALE_VERSION" in tool_named("read_file").description


@pytest.mark.parametrize("tool", ["edit_lines", "write_file", "safe_edit"])
def test_interactive_writes_with_warnings_and_verify_only_writes_nothing(
    ws: Workspace, root: Path, tool: str
) -> None:
    good = "def f():\n    return 1\n"

    def call(mode: Mode) -> Any:
        if tool == "edit_lines":
            line = {"line_number": 2, "type": "Replace", "text": "    return (1"}
            return ws.edit_lines("m.py", [line], mode=mode)
        if tool == "write_file":
            return ws.write_file("m.py", "def f(:\n", mode=mode)
        return ws.safe_edit(
            "m.py", search_replace={"search": "return 1", "replace": "return (1"}, mode=mode
        )

    path = root / "m.py"
    path.write_text(good)
    snap = Snapshot.of(path)
    checked = call("verify_only")
    assert not checked.validation.passed
    assert checked.validation.findings
    assert Snapshot.of(path) == snap
    with pytest.raises(EditError) as err:
        call("strict")
    assert err.value.code == "VALIDATION_FAILED"
    assert Snapshot.of(path) == snap
    written = call("interactive")
    assert not written.validation.passed
    assert written.validation.findings
    assert path.read_text() != good


MIXED = b"a\r\nb\nc\r\nd\r\n"


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda ws: ws.edit_file("m.txt", [{"old_text": "b\nc", "new_text": "B\nC"}]), b"B\nC\r\n"),
        (
            lambda ws: ws.safe_edit("m.txt", search_replace={"search": "b\nc", "replace": "B\nC"}),
            b"B\nC\r\n",
        ),
        (
            lambda ws: ws.safe_edit(
                "m.txt", search_replace={"search": "b\\nc", "replace": "B\\nC", "regex": True}
            ),
            b"B\nC\r\n",
        ),
        (
            lambda ws: ws.edit_lines(
                "m.txt",
                [{"line_number": 2, "type": "ReplaceSection", "end_line": 3, "text": "B\nC"}],
            ),
            b"B\nC\r\n",
        ),
        (
            lambda ws: ws.safe_edit(
                "m.txt", line_edits=[{"start_line": 2, "end_line": 2, "new_content": "B\nB2"}]
            ),
            b"B\nB2\r\nc\r\n",
        ),
    ],
    ids=["edit_file", "search_replace", "regex", "edit_lines", "line_edits"],
)
def test_every_tool_keeps_the_endings_of_the_lines_it_replaces_in_a_mixed_file(
    ws: Workspace, root: Path, call: Any, expected: bytes
) -> None:
    (root / "m.txt").write_bytes(MIXED)
    call(ws)
    # Replaced breaks keep their endings by position (b's LF, c's CRLF); an extra break takes
    # the file's usual one (CRLF).
    assert (root / "m.txt").read_bytes() == b"a\r\n" + expected + b"d\r\n"


def test_the_python_api_takes_edits_as_a_json_string_too(ws: Workspace, five: Path) -> None:
    ws.edit_lines("five.txt", json.dumps([{"line_number": 2, "type": "Delete"}]))
    assert five.read_text() == "one\nthree\nfour\nfive\n"
    ws.edit_file("five.txt", '[{"old_text": "three", "new_text": "3"}]')
    assert five.read_text() == "one\n3\nfour\nfive\n"
    with pytest.raises(EditError) as err:
        ws.edit_lines("five.txt", "[not json")
    assert (err.value.code, err.value.data["field"]) == ("INVALID_REQUEST", "edits")


def test_a_malformed_edit_says_which_once(ws: Workspace, five: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.edit_lines("five.txt", [{"line_number": 1, "type": "Delete"}, {"type": "Delete"}])
    assert str(err.value).count("edit 2 of 2") == 1


def test_safe_edit_line_edits_are_not_empty_and_within_the_limit(root: Path, five: Path) -> None:
    ws = Workspace([root], max_edits=3)
    with pytest.raises(EditError) as err:
        ws.safe_edit("five.txt", line_edits=[])
    assert (err.value.code, err.value.data["field"]) == ("INVALID_REQUEST", "line_edits")
    edits = [{"start_line": n, "end_line": n, "new_content": str(n)} for n in range(1, 5)]
    with pytest.raises(EditError) as err:
        ws.safe_edit("five.txt", line_edits=edits)
    assert err.value.code == "TOO_MANY_EDITS"
    assert five.read_text() == FIVE
