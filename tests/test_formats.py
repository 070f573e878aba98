"""The edit formats' one contract (a Document and a request in, Compiled out, or a coded error),
and the pieces every format shares: the whole-text format, byte-level change detection, the
one N│line listing and the one place where errors get their context."""

from __future__ import annotations

import pytest

from editguard.core.document import Document, decode
from editguard.core.formats import Compiled
from editguard.core.formats.lines import LineEdit, LineOp, compile_line_edits, compile_line_ops
from editguard.core.formats.regex_replace import RegexReplace, compile_regex_replace
from editguard.core.formats.search_replace import SearchReplace, compile_search_replace
from editguard.core.formats.symbol_edit import NewBody, Target, compile_symbol_edit
from editguard.core.formats.whole_text import compile_whole_text, line_ending
from editguard.core.listing import listing
from editguard.core.plan import Plan, Replacement, render
from editguard.errors import EditError, NoMatch, error_context

TEXT = "a = 1\nb = 2\n"


def test_every_format_returns_the_same_compiled_type() -> None:
    doc = Document(TEXT)
    results = [
        compile_search_replace(doc, [SearchReplace("a = 1", "a = 0")]),
        compile_line_ops(doc, [LineOp("replace", 1, "a = 0")]),
        compile_line_edits(doc, [LineEdit(1, 1, "a = 0")]),
        compile_regex_replace(doc, RegexReplace(r"a = \d", "a = 0", regex=True), required=True),
        compile_whole_text(doc, "a = 0\nb = 2\n"),
        compile_symbol_edit(doc, Target("a", 0, 6, 1, 1), NewBody("a = 0")),
    ]
    for compiled in results:
        assert type(compiled) is Compiled
        assert compiled.plan.apply_to_text(TEXT) == "a = 0\nb = 2\n"


def test_a_regex_that_matches_nothing_is_an_error_when_required_else_a_warning() -> None:
    doc = Document(TEXT, name="m.py")
    with pytest.raises(NoMatch) as err:
        compile_regex_replace(doc, RegexReplace("zzz", "y"), required=True)
    assert "m.py" in err.value.message
    compiled = compile_regex_replace(doc, RegexReplace("zzz", "y"), required=False)
    assert (compiled.plan, compiled.applied[0].occurrences_replaced) == (Plan(), 0)
    assert compiled.warnings == ("pattern 'zzz' not found; nothing was changed",)


def test_regex_replacements_report_the_lines_they_land_on() -> None:
    doc = Document("x\nx\ny\nx\n")
    compiled = compile_regex_replace(doc, RegexReplace("x", "x\nx"), required=True)
    assert compiled.applied[0].lines == (1, 3, 6)
    assert compiled.applied[0].occurrences_replaced == 3


WHOLE: dict[str, tuple[bytes, str, bytes, str]] = {
    "LF content takes a CRLF file's endings": (b"a\r\nb\r\n", "x\ny\n", b"x\r\ny\r\n", "CRLF"),
    "CRLF content is written as sent": (b"a\nb\n", "x\r\ny\r\n", b"x\r\ny\r\n", "CRLF"),
    "content that mixes endings keeps each": (b"a\n", "x\r\ny\nz\r", b"x\r\ny\nz\r", "mixed"),
    "a mixed file's new lines take its usual ending": (
        b"a\r\nb\r\nc\n",
        "x\ny\n",
        b"x\r\ny\r\n",
        "CRLF",
    ),
    "a BOM and UTF-16 are kept": (
        "\ufeffa\n".encode("utf-16-le"),
        "\u00e9\n",
        "\ufeff\u00e9\n".encode("utf-16-le"),
        "LF",
    ),
    "no line break at all": (b"a\n", "x", b"x", "none"),
}


@pytest.mark.parametrize(("old", "content", "new", "style"), WHOLE.values(), ids=WHOLE.keys())
def test_whole_text_keeps_the_file_and_writes_the_content(
    old: bytes, content: str, new: bytes, style: str
) -> None:
    doc = decode(old)
    compiled = compile_whole_text(doc, content)
    assert b"".join(render(doc, compiled.plan)) == new
    assert line_ending(doc, compiled) == style


def test_whole_text_refuses_a_nul_naming_the_content_field() -> None:
    with pytest.raises(EditError) as err:
        compile_whole_text(Document("a\n", name="a.txt"), "x\x00")
    assert (err.value.code, err.value.data["field"]) == ("INVALID_REQUEST", "content")


@pytest.mark.parametrize(
    ("old", "content", "modifies"),
    [
        (b"a\nb\n", "a\nb\n", False),
        (b"a\r\nb\r\n", "a\nb\n", False),  # \n takes the file's CRLF: the same bytes
        (b"a\nb\n", "a\r\nb\r\n", True),  # the same text, other bytes
        (b"a\r\nb\nc\n", "a\r\nb\nc\n", False),  # a mixed file given back as it is
        (b"a\r\nb\nc\n", "a\nb\nc\n", True),  # a mixed file made uniform
        (b"a\nb\n", "a\nc\n", True),
    ],
)
def test_a_plan_modifies_the_file_exactly_when_its_bytes_change(
    old: bytes, content: str, modifies: bool
) -> None:
    doc = decode(old)
    plan = compile_whole_text(doc, content).plan
    assert plan.modifies(doc) is modifies
    assert (b"".join(render(doc, plan)) != old) is modifies


def test_plan_modifies_looks_at_the_breaks_a_request_asked_for() -> None:
    doc = decode(b"a\r\nb\nc\r\nd\n")
    same = Replacement(4, 6, "c\n", bytes([1]), asked=True)  # c's own CRLF
    other = Replacement(4, 6, "c\n", bytes([0]), asked=True)
    assert not Plan((same,)).modifies(doc)
    assert Plan((other,)).modifies(doc)
    assert Plan((Replacement(0, 0, ""), other)).modifies(doc)
    # Endings that only follow from the edits (the same text taken out and put back) do not
    # make a change of their own.
    assert not Plan((Replacement(4, 6, "c\n", bytes([0])),)).modifies(doc)


def test_the_listing_numbers_lines_in_one_form() -> None:
    assert listing(["a", "b"], 9) == " 9│a\n10│b"
    assert listing(["x"], 40, width=6) == "    40│x"
    assert listing([], 1) == ""


def test_error_context_fills_only_what_the_error_lacks() -> None:
    with pytest.raises(EditError) as err, error_context(path="a.py", edit_index=1, total_edits=3):
        raise NoMatch("nothing")
    assert (err.value.path, err.value.edit_index, err.value.total_edits) == ("a.py", 1, 3)
    assert str(err.value).startswith("NO_MATCH: edit 2 of 3: nothing")
    with (
        pytest.raises(EditError) as err,
        error_context(path="outer.py", edit_index=0, total_edits=2),
        error_context(path="inner.py"),
    ):
        raise NoMatch("x", edit_index=1)
    assert (err.value.path, err.value.edit_index, err.value.total_edits) == ("inner.py", 1, 2)
    with pytest.raises(EditError) as err, error_context(total_edits=5):
        raise NoMatch("x")
    assert err.value.total_edits is None  # no edit index, so no "of n" either
