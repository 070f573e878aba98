"""Line edits (seed 002's edit_file; seed 000's line_edits): operations, rules, and properties."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from editguard import EditError, Workspace
from editguard.core.document import decode
from editguard.core.formats.lines import LineOp, compile_line_edits, compile_line_ops
from editguard.core.plan import render

from .conftest import Snapshot, set_old_mtime

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


@pytest.mark.parametrize(("before", "ops", "after"), OPS.values(), ids=OPS.keys())
def test_line_operations(before: str, ops: list[LineOp], after: str) -> None:
    assert compile_line_ops(before, ops).plan.apply_to_text(before) == after


def test_crlf_files_keep_crlf_and_a_missing_final_newline_stays_missing() -> None:
    doc = decode(b"a\r\nb\r\nc")
    compiled = compile_line_ops(doc.text, [LineOp("replace", 2, "B\nB2"), LineOp("insert", 9, "d")])
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
        compile_line_ops(text, ops)
    assert err.value.code == code
    if field:
        assert err.value.data["field"] == field


def test_errors_name_the_edits_and_the_file_length() -> None:
    with pytest.raises(EditError) as err:
        compile_line_ops(FIVE, [LineOp("insert", 1, "x"), LineOp("delete", 7)])
    assert (err.value.edit_index, err.value.data["total_lines"]) == (1, 5)
    with pytest.raises(EditError) as err:
        compile_line_ops(FIVE, [LineOp("delete", 1), LineOp("delete", 4), LineOp("delete", 4)])
    assert err.value.data["edits"] == [1, 2]


def test_landed_lines_count_in_the_new_file() -> None:
    compiled = compile_line_ops(FIVE, [LineOp("insert", 1, "a\nb"), LineOp("replace", 3, "3")])
    assert compiled.lines == (1, 5)


def test_safe_edit_line_edits_follow_seed_000() -> None:
    text = "line 1\nline 2\nline 3\n"
    plan = compile_line_edits(text, [(1, 1, "first"), (3, 3, "")]).plan
    assert plan.apply_to_text(text) == "first\nline 2\n"
    with pytest.raises(EditError) as err:
        compile_line_edits(text, [(1, 2, "x"), (2, 3, "y")])
    assert "overlap" in err.value.message
    with pytest.raises(EditError) as err:
        compile_line_edits(text, [(2, 5, "x")])
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
    ids=["canonical", "seed names, upper case", "camel case", "edits as a JSON string"],
)
def test_edit_lines_is_lenient_where_models_stumble(ws: Workspace, five: Path, edits: Any) -> None:
    from editguard.tools import tool_named

    tool_named("edit_lines").call(
        ws,
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
        tool_named("edit_lines").call(ws, {"path": "five.txt", "edits": edits})
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


@settings(max_examples=300)
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
            compile_line_ops(doc.text, [LineOp("replace_section", first, new, end_line=last)]).plan,
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
            compile_line_ops(
                doc2.text, [LineOp("replace_section", first, old_section, end_line=new_last)]
            ).plan,
        )
    )
    assert back == data


@settings(max_examples=300)
@given(files_and_sections())
def test_no_edit_touches_lines_outside_its_range(case: tuple[str, int, int, str]) -> None:
    text, first, last, new = case
    out = compile_line_ops(text, [LineOp("replace_section", first, new, end_line=last)])
    after = out.plan.apply_to_text(text).split("\n")
    lines = text.split("\n")
    assert after[: first - 1] == lines[: first - 1]
    kept = len(lines) - last  # the lines after the range, and the empty piece a final \n leaves
    assert after[len(after) - kept :] == lines[last:]
