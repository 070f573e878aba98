"""Codex's apply_patch language, pure: the parser (every grammar element and error), one file's
update compiled to a plan (tables of before, patch, after bytes), Codex's own scenarios at the
pure level, and a property: a patch made from two line lists turns the one into the other."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from editguard.core.document import Document, decode
from editguard.core.formats.codex_patch import (
    AddFile,
    DeleteFile,
    PatchOp,
    UpdateChunk,
    UpdateFile,
    add_file_text,
    compile_update,
    parse_patch,
)
from editguard.core.listing import listing
from editguard.core.plan import render
from editguard.errors import EditError, InvalidPatch
from tests.conformance import conformance
from tests.release_pairs import configobj_commit

SCENARIOS = conformance("codex-apply-patch") or Path("/nonexistent")


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


def update(body: str, path: str = "f.txt") -> UpdateFile:
    """The one update hunk of a patch whose chunks are ``body``."""
    op = parse_patch(f"*** Begin Patch\n*** Update File: {path}\n{body}*** End Patch\n")[0]
    assert isinstance(op, UpdateFile)
    return op


def applied_bytes(before: bytes, body: str, *, exact: bool = False) -> bytes:
    doc = decode(before)
    return b"".join(render(doc, compile_update(doc, update(body), exact=exact).plan))


def chunk(
    old: tuple[str, ...],
    new: tuple[str, ...],
    line: int,
    context: str | None = None,
    *,
    eof: bool = False,
    kinds: str | None = None,
) -> UpdateChunk:
    """A chunk as parsed; by default its old lines removed, then its new lines added."""
    kinds = "-" * len(old) + "+" * len(new) if kinds is None else kinds
    return UpdateChunk(context, old, new, eof, line, kinds)


# -- the parser -----------------------------------------------------------------------------

PARSED: dict[str, tuple[str, tuple[PatchOp, ...]]] = {
    "an add hunk takes its plus lines": (
        patch("*** Add File: a.txt", "+one", "+", "+three"),
        (AddFile("a.txt", ("one", "", "three"), 2),),
    ),
    "an add hunk may have no lines": (patch("*** Add File: empty"), (AddFile("empty", (), 2),)),
    "a delete hunk names its path": (patch("*** Delete File: d.txt"), (DeleteFile("d.txt", 2),)),
    "an update takes a move and chunks of context, removed and added lines": (
        patch("*** Update File: a", "*** Move to: b/c", "@@", " keep", "-old", "+new"),
        (UpdateFile("a", "b/c", (chunk(("keep", "old"), ("keep", "new"), 4, kinds=" -+"),), 2),),
    ),
    "the first chunk may omit its @@ line": (
        patch("*** Update File: a", "-x", "+y"),
        (UpdateFile("a", None, (chunk(("x",), ("y",), 3),), 2),),
    ),
    "an @@ line with text is the chunk's context": (
        patch("*** Update File: a", "@@ def f():", "-x", "+y", "@@ def g():", "-z"),
        (
            UpdateFile(
                "a",
                None,
                (chunk(("x",), ("y",), 3, "def f():"), chunk(("z",), (), 6, "def g():")),
                2,
            ),
        ),
    ),
    "an @@ line with only whitespace after it is a bare @@": (
        patch("*** Update File: a", "@@   ", "-x"),
        (UpdateFile("a", None, (chunk(("x",), (), 3),), 2),),
    ),
    "an empty line inside a chunk is an empty context line": (
        patch("*** Update File: a", "@@", " a", "", "-b"),
        (UpdateFile("a", None, (chunk(("a", "", "b"), ("a", ""), 3, kinds="  -"),), 2),),
    ),
    "end of file ends a chunk that must match at the end": (
        patch("*** Update File: a", "@@", "-x", "+y", "*** End of File", "", "@@", "-z"),
        (UpdateFile("a", None, (chunk(("x",), ("y",), 3, eof=True), chunk(("z",), (), 8)), 2),),
    ),
    "several hunks follow each other with their patch lines": (
        patch("*** Add File: n", "+c", "*** Delete File: d", "*** Update File: m", "@@", "-a"),
        (
            AddFile("n", ("c",), 2),
            DeleteFile("d", 4),
            UpdateFile("m", None, (chunk(("a",), (), 6),), 5),
        ),
    ),
    "hunk headers may be padded with whitespace": (
        patch("  *** Update File: foo.txt ", "@@", "-old", "+new"),
        (UpdateFile("foo.txt", None, (chunk(("old",), ("new",), 3),), 2),),
    ),
    "a header padded with a tab ends the chunk before it": (
        patch("*** Update File: a", "@@", "-x", "\t*** Delete File: b"),
        (UpdateFile("a", None, (chunk(("x",), (), 3),), 2), DeleteFile("b", 5)),
    ),
    "a header after a space inside a chunk is a context line, as Codex reads it": (
        patch("*** Update File: a", "@@", "-x", " *** Update File: b.txt", "+y"),
        (
            UpdateFile(
                "a",
                None,
                (
                    chunk(
                        ("x", "*** Update File: b.txt"),
                        ("*** Update File: b.txt", "y"),
                        3,
                        kinds="- +",
                    ),
                ),
                2,
            ),
        ),
    ),
    "markers may be padded with whitespace": (
        " *** Begin Patch \n*** Delete File: a\n\t*** End Patch  \n",
        (DeleteFile("a", 2),),
    ),
    "blank lines around the patch are ignored": (
        "\n\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n",
        (DeleteFile("a", 4),),
    ),
    "a patch with CRLF line breaks reads as with LF": (
        "*** Begin Patch\r\n*** Update File: a\r\n@@\r\n-x\r\n+y\r\n*** End Patch\r\n",
        (UpdateFile("a", None, (chunk(("x",), ("y",), 3),), 2),),
    ),
}


@pytest.mark.parametrize(("text", "ops"), PARSED.values(), ids=PARSED.keys())
def test_the_parser_reads_every_grammar_element(text: str, ops: tuple[PatchOp, ...]) -> None:
    assert parse_patch(text) == ops


@pytest.mark.parametrize(
    "first",
    ["<<'EOF'", "<<EOF", '<<"EOF"', "apply_patch <<'EOF'", "apply_patch <<EOF", "<< 'EOF'"],
)
def test_a_patch_wrapped_in_a_heredoc_is_read_as_the_patch_inside(first: str) -> None:
    text = f"{first}\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n"
    assert parse_patch(text) == (DeleteFile("a", 3),)


def test_a_heredoc_may_use_another_delimiter_and_crlf_breaks() -> None:
    text = (
        "apply_patch <<'PATCH'\r\n*** Begin Patch\r\n*** Delete File: a\r\n*** End Patch\r\nPATCH"
    )
    assert parse_patch(text) == (DeleteFile("a", 3),)


ERRORS: dict[str, tuple[str, int]] = {
    "an empty text": ("", 1),
    "a patch without hunks (005)": (patch(), 2),
    "no begin marker": ("*** Update File: a\n@@\n-x\n*** End Patch\n", 1),
    "no end marker": ("*** Begin Patch\n*** Add File: a\n+x\n", 3),
    "a begin marker alone": ("*** Begin Patch\n", 1),
    "an invalid hunk header (013)": (patch("*** Frobnicate File: foo"), 2),
    "a blank line where a hunk header belongs": (
        patch("*** Add File: a", "+x", "", "*** Delete File: b"),
        4,
    ),
    "an update without chunks (008)": (patch("*** Update File: foo.txt"), 2),
    "a chunk line that starts otherwise": (patch("*** Update File: a", "@@", "-x", "oops"), 5),
    "a first chunk line that starts otherwise": (patch("*** Update File: a", "oops"), 3),
    "a second chunk without @@": (
        patch("*** Update File: a", "-x", "*** End of File", "-y"),
        5,
    ),
    "an @@ line without lines": (patch("*** Update File: a", "@@", "@@", "-x"), 3),
    "an @@ line at the end": (patch("*** Update File: a", "@@ ctx"), 3),
    "end of file before any line": (patch("*** Update File: a", "@@", "*** End of File"), 4),
    "an add hunk without a path": (patch("*** Add File:   "), 2),
    "a delete hunk without a path": (patch("*** Delete File:"), 2),
    "a move without a path": (patch("*** Update File: a", "*** Move to: ", "-x"), 3),
    "a heredoc without a patch inside": ("<<'EOF'\nEOF\n", 1),
    "a heredoc around a patch without an end marker": (
        "<<'EOF'\n*** Begin Patch\n*** Delete File: a\nEOF\n",
        3,
    ),
}


@pytest.mark.parametrize(("text", "line"), ERRORS.values(), ids=ERRORS.keys())
def test_a_malformed_patch_is_refused_naming_the_line_at_fault(text: str, line: int) -> None:
    with pytest.raises(InvalidPatch) as err:
        parse_patch(text)
    assert err.value.code == "INVALID_PATCH"
    assert err.value.data["line"] == line


def test_an_empty_update_names_its_path() -> None:
    with pytest.raises(InvalidPatch) as err:
        parse_patch(patch("*** Update File: foo.txt"))
    assert err.value.data == {"line": 2, "path": "foo.txt"}


@pytest.mark.parametrize(
    ("lines", "text"), [((), ""), (("a",), "a\n"), (("a", "", "b"), "a\n\nb\n")]
)
def test_an_added_file_ends_every_line_with_a_line_break(lines: tuple[str, ...], text: str) -> None:
    assert add_file_text(AddFile("x", lines, 2)) == text


# -- one file's update ----------------------------------------------------------------------

UPDATES: dict[str, tuple[bytes, str, bytes]] = {
    "a replaced line in the middle": (b"a\nb\nc\n", "@@\n a\n-b\n+B\n c\n", b"a\nB\nc\n"),
    "chunks apply one after the other": (
        b"1\n2\n3\n4\n",
        "@@\n-2\n+two\n@@\n-4\n+four\n",
        b"1\ntwo\n3\nfour\n",
    ),
    "a deletion only": (b"a\nb\nc\n", "@@\n a\n-b\n c\n", b"a\nc\n"),
    "CRLF lines keep CRLF and new lines take it": (
        b"one\r\ntwo\r\nthree\r\n",
        "@@\n-one\n+ONE\n two\n+between\n three\n",
        b"ONE\r\ntwo\r\nbetween\r\nthree\r\n",
    ),
    "mixed endings: untouched breaks stay, new ones take the usual ending": (
        b"a\r\nb\rc\nd\r\n",
        "@@\n a\n b\n-c\n+C\n d\n",
        b"a\r\nb\rC\r\nd\r\n",
    ),
    "a missing final newline stays when the last line is untouched": (
        b"a\nb\nc",
        "@@\n-a\n+A\n",
        b"A\nb\nc",
    ),
    "a replaced last line without a break gets one (014)": (
        b"a\nb",
        "@@\n a\n-b\n+B\n+C\n",
        b"a\nB\nC\n",
    ),
    "lines added after a last line without a break": (b"a", "@@\n+b\n", b"a\nb\n"),
    "without a final break, a replaced last line then an addition (one break between)": (
        b"a\nb",
        "@@\n-b\n+B\n@@\n+c\n",
        b"a\nB\nc\n",
    ),
    "without a final break, two additions at the end (one break between)": (
        b"a\nb",
        "@@\n+c\n@@\n+d\n",
        b"a\nb\nc\nd\n",
    ),
    "without a final break, one chunk replacing the last line and adding": (
        b"a\nb",
        "@@\n-b\n+B\n+c\n",
        b"a\nB\nc\n",
    ),
    "without a final break, a deleted last line then an addition": (
        b"a\nb",
        "@@\n-b\n@@\n+c\n",
        b"a\nc\n",
    ),
    "without a final break, CRLF: a replaced last line then an addition": (
        b"a\r\nb",
        "@@\n-b\n+B\n@@\n+c\n",
        b"a\r\nB\r\nc\r\n",
    ),
    "without a final break, CRLF: an addition only": (b"a\r\nb", "@@\n+c\n", b"a\r\nb\r\nc\r\n"),
    "a pure addition goes at the end of the file (016)": (
        b"line1\nline2\n",
        "@@\n+added 1\n+added 2\n",
        b"line1\nline2\nadded 1\nadded 2\n",
    ),
    "a pure addition with an @@ line goes right after that line": (
        b"def a():\n    pass\ndef b():\n    pass\n",
        "@@ def a():\n+    # A.\n",
        b"def a():\n    # A.\n    pass\ndef b():\n    pass\n",
    ),
    "a pure addition with an @@ line and the end-of-file marker goes at the end": (
        b"def a():\n    pass\n",
        "@@ def a():\n+x = 1\n*** End of File\n",
        b"def a():\n    pass\nx = 1\n",
    ),
    "a pure addition goes before a final empty line": (b"a\n\n", "@@\n+b\n", b"a\nb\n\n"),
    "a pure addition to an empty file": (b"", "@@\n+a\n", b"a\n"),
    "an append comes after another chunk's lines that end at the end (Codex)": (
        b"x\ny\n",
        "@@\n+appended\n@@\n y\n+after y\n",
        b"x\ny\nafter y\nappended\n",
    ),
    "an append after a chunk whose lines end at the end, in chunk order": (
        b"x\ny\n",
        "@@\n y\n+after y\n@@\n+appended\n",
        b"x\ny\nafter y\nappended\n",
    ),
    "an append comes after a pure addition right after its @@ line at the end": (
        b"x\ny\n",
        "@@\n+c\n@@ y\n+d\n",
        b"x\ny\nd\nc\n",
    ),
    "an append comes before a chunk that starts at the final empty line (Codex)": (
        b"a\n\n",
        "@@\n+X\n@@\n-\n+z\n",
        b"a\nX\nz\n",
    ),
    "an append before a final empty line after a chunk that ends there": (
        b"a\nb\n\n",
        "@@\n-a\n+A\n@@\n+X\n@@\n b\n",
        b"A\nb\nX\n\n",
    ),
    "the end-of-file marker picks the last of two identical blocks": (
        b"x\ny\nx\ny\n",
        "@@\n x\n-y\n+Y\n*** End of File\n",
        b"x\ny\nx\nY\n",
    ),
    "an end-of-file chunk not at the end is sought from the cursor": (
        b"x\ny\nz\n",
        "@@\n-x\n+X\n*** End of File\n",
        b"X\ny\nz\n",
    ),
    "an @@ line narrows the search to the second of two identical blocks": (
        b"def a():\n    return 1\ndef b():\n    return 1\n",
        "@@ def b():\n-    return 1\n+    return 2\n",
        b"def a():\n    return 1\ndef b():\n    return 2\n",
    ),
    "an indented @@ line is found without its indentation": (
        b"class A:\n    def f(self):\n        return 1\n",
        "@@ def f(self):\n-        return 1\n+        return 2\n",
        b"class A:\n    def f(self):\n        return 2\n",
    ),
    "exactly, an @@ line tells two places apart": (
        b"a\nx\nb\nx\n",
        "@@ b\n-x\n+y\n",
        b"a\nx\nb\ny\n",
    ),
    "an empty last old line that stands for the final break is dropped": (
        b"a\nb\n",
        "@@\n-b\n+c\n\n",
        b"a\nc\n",
    ),
    "an empty last context line that the file has is kept": (
        b"a\n\nb\n",
        "@@\n-a\n+A\n\n",
        b"A\n\nb\n",
    ),
    "Unicode text (019)": (
        "line1\nnaïve café\nline3\n".encode(),
        "@@\n line1\n-naïve café\n+naïve café ✅\n",
        "line1\nnaïve café ✅\nline3\n".encode(),
    ),
    "a UTF-8 BOM stays": (b"\xef\xbb\xbfa\nb\n", "@@\n-b\n+c\n", b"\xef\xbb\xbfa\nc\n"),
    "trailing whitespace the patch lacks is found, the file's kept on its kept lines": (
        b"a  \nb\t\n",
        "@@\n a\n-b\n+c\n",
        b"a  \nc\n",
    ),
    "typographic quotes in the patch for the file's ASCII ones": (
        b'say("hi")\nend\n',
        "@@\n-say(\u201chi\u201d)\n+say(\u201cbye\u201d)\n end\n",
        b'say("bye")\nend\n',
    ),
    "a block sent one level shallower has its new lines shifted too": (
        b"class A:\n    def f(self):\n        return 1\n",
        "@@\n def f(self):\n-    return 1\n+    return 2\n+    # done\n",
        b"class A:\n    def f(self):\n        return 2\n        # done\n",
    ),
    "a change only in what the rung ignores changes nothing": (
        b"a\nb\n",
        "@@\n-a  \n+a\n",
        b"a\nb\n",
    ),
}


@pytest.mark.parametrize(("before", "body", "after"), UPDATES.values(), ids=UPDATES.keys())
def test_an_update_gives_the_expected_bytes(before: bytes, body: str, after: bytes) -> None:
    assert applied_bytes(before, body) == after


def test_only_the_changed_line_runs_are_replaced() -> None:
    doc = decode(b"one\r\ntwo\r\nthree\r\n")
    plan = compile_update(doc, update("@@\n-one\n+ONE\n two\n+between\n three\n")).plan
    assert [(r.start, r.end, r.text) for r in plan.replacements] == [
        (0, 4, "ONE\n"),
        (8, 8, "between\n"),
    ]
    assert all(r.codes == b"\x01" for r in plan.replacements)


def test_each_chunk_reports_where_its_new_lines_start_in_the_new_file() -> None:
    doc = decode(b"a\nb\nc\nd\n")
    compiled = compile_update(doc, update("@@\n a\n+a2\n+a3\n@@\n-d\n+D\n@@\n+e\n"))
    assert [(e.index, e.lines, e.match) for e in compiled.applied] == [
        (0, (1,), "exact"),
        (1, (6,), "exact"),
        (2, (7,), "exact"),
    ]
    assert compiled.plan.apply_to_text(doc.text) == "a\na2\na3\nb\nc\nD\ne\n"


@pytest.mark.parametrize(
    ("before", "body", "match"),
    [
        (b"a  \nb\n", "@@\n-a\n-b\n+c\n", "trailing_whitespace"),
        (b'say("hi")\n', "@@\n-say(\u201chi\u201d)\n+x\n", "punctuation"),
        (b"    x = 1\n", "@@\n-x = 1\n+x = 2\n", "indentation"),
    ],
)
def test_a_tolerant_match_names_its_rung_and_what_differed(
    before: bytes, body: str, match: str
) -> None:
    compiled = compile_update(decode(before), update(body))
    assert compiled.applied[0].match == match
    assert compiled.applied[0].note


def test_exact_mode_uses_no_tolerance() -> None:
    with pytest.raises(EditError) as err:
        applied_bytes(b"a  \nb\n", "@@\n a\n-b\n+c\n", exact=True)
    assert err.value.code == "NO_MATCH"


def test_an_end_of_file_chunk_fits_the_end_loosely_before_an_exact_place_earlier() -> None:
    doc = decode(b"def a():\n    return None\n\ndef b():\n    return None  \n")
    op = update("@@\n-    return None\n+    return 1\n*** End of File\n", "f.py")
    compiled = compile_update(doc, op)
    assert compiled.plan.apply_to_text(doc.text) == (
        "def a():\n    return None\n\ndef b():\n    return 1\n"
    )
    assert (compiled.applied[0].lines, compiled.applied[0].match) == ((5,), "trailing_whitespace")


@pytest.mark.parametrize(
    ("before", "body", "lines"),
    [
        (b"x = 1 \ny\nx = 1 \n", "@@\n-x = 1\n+x = 2\n", [1, 3]),
        (b"  x\n    x\n", "@@\n-x\n+y\n", [1, 2]),
        (b"  f()\n  f()\n", "@@ f()\n-z\n", [1, 2]),
    ],
)
def test_a_tolerant_match_at_several_places_is_refused_listing_them(
    before: bytes, body: str, lines: list[int]
) -> None:
    with pytest.raises(EditError) as err:
        applied_bytes(before, body)
    assert err.value.code == "AMBIGUOUS_MATCH"
    assert err.value.data["lines"] == lines
    assert err.value.edit_index == 0


LOOSE_FIRST = "def f():\n    x = 1  \n\ndef g():\n    x = 1\n"
NESTED_FIRST = "class A:\n    def g(self):\n        return 1\ndef g(self):\n    return 1\n"


@pytest.mark.parametrize(
    ("before", "body", "chunk_number", "lines"),
    [
        (LOOSE_FIRST, "@@ def f():\n-    x = 1\n+    x = 2\n", 1, [2, 5]),
        (NESTED_FIRST, "@@\n class A:\n@@ def g(self):\n-    return 1\n+    return 2\n", 2, [2, 4]),
    ],
    ids=["the chunk's lines", "the @@ line"],
)
def test_a_loose_place_before_the_first_exact_one_is_refused_listing_both(
    before: str, body: str, chunk_number: int, lines: list[int]
) -> None:
    # Codex takes the first exact place; the loose one before it may be the one meant.
    with pytest.raises(EditError) as err:
        compile_update(Document(before, name="f.py"), update(body, "f.py"))
    error = err.value
    assert error.code == "AMBIGUOUS_MATCH"
    assert error.data["lines"] == lines
    assert error.data["exact_line"] == lines[-1]
    assert error.data["chunk"] == chunk_number
    assert (error.edit_index, error.total_edits) == (chunk_number - 1, chunk_number)
    assert error.path == "f.py"


def test_in_exact_mode_the_first_exact_place_counts_as_codex_has_it() -> None:
    after = applied_bytes(LOOSE_FIRST.encode(), "@@ def f():\n-    x = 1\n+    x = 2\n", exact=True)
    assert after == LOOSE_FIRST.replace("x = 1\n", "x = 2\n").encode()


def test_a_correction_that_cannot_be_carried_over_is_refused() -> None:
    # ASCII quotes for the file's typographic ones, and the new line has ASCII quotes: which?
    with pytest.raises(EditError) as err:
        applied_bytes("say(\u201chi\u201d)\n".encode(), '@@\n-say("hi")\n+say("bye")\n')
    assert err.value.code == "NO_MATCH"
    assert err.value.data["lines"] == [1, 1]


def test_a_chunk_not_found_names_the_chunk_and_shows_similar_lines() -> None:
    doc = Document("def load(self, path):\n    return open(path)\n\nother = 1\n", name="src/app.py")
    op = update("@@\n other = 1\n@@\n-def load(self, paths):\n+def load(self):\n", "src/app.py")
    with pytest.raises(EditError) as err:
        compile_update(doc, op)
    error = err.value
    assert error.code == "NO_MATCH"
    assert (error.edit_index, error.total_edits) == (1, 2)
    assert error.data["chunk"] == 2
    assert error.data["patch_line"] == 5
    assert error.data["similar_content"][0]["start_line"] == 1
    assert "found_before_cursor" not in error.data
    assert "chunk 2 of 2 of the update of src/app.py (patch line 5)" in error.message


def test_a_chunk_found_only_before_the_previous_one_says_where_it_is() -> None:
    with pytest.raises(EditError) as err:
        applied_bytes(b"a\nb\nc\n", "@@\n-c\n+C\n@@\n-a\n+A\n")
    assert err.value.code == "NO_MATCH"
    assert err.value.data["found_before_cursor"] == 1


def test_a_context_line_not_found_is_no_match_naming_the_chunk() -> None:
    with pytest.raises(EditError) as err:
        applied_bytes(b"a\nb\n", "@@ missing()\n-a\n+b\n")
    assert err.value.code == "NO_MATCH"
    assert (err.value.data["chunk"], err.value.data["patch_line"]) == (1, 3)


def test_a_unified_diff_hunk_header_as_context_is_no_match_with_a_hint() -> None:
    with pytest.raises(EditError) as err:
        applied_bytes(b"a\nb\n", "@@ -1,2 +1,2 @@\n-a\n+b\n")
    assert err.value.code == "NO_MATCH"
    assert err.value.data["unified_header"] is True


def test_missing_context_is_no_match_with_nothing_similar_006() -> None:
    with pytest.raises(EditError) as err:
        applied_bytes(b"line1\nline2\n", "@@\n-missing\n+changed\n")
    assert err.value.code == "NO_MATCH"
    assert err.value.data["similar_content"] == []


def test_a_new_line_the_file_encoding_cannot_store_is_refused_naming_the_chunk() -> None:
    with pytest.raises(EditError) as err:
        applied_bytes(b"caf\xe9\nb\n", "@@\n-b\n+\u2705\n")
    assert err.value.code == "ENCODING_ERROR"
    assert err.value.edit_index == 0


def test_an_addition_inside_another_chunks_lines_is_refused() -> None:
    # The pure addition lands before the final empty line, which the next chunk replaces.
    with pytest.raises(EditError) as err:
        applied_bytes(b"a\nb\n\n", "@@\n+x\n@@\n-b\n-\n+c\n")
    assert err.value.code == "OVERLAPPING_EDITS"


@pytest.mark.parametrize(
    "body",
    ["@@\n b\n \n+a\n@@\n+X\n", "@@\n+X\n@@\n b\n \n+a\n"],
    ids=["append after", "append before"],
)
def test_an_append_inside_another_chunks_context_lines_is_refused(body: str) -> None:
    # The append lands before the final empty line, between the chunk's ' b' and ' ': written
    # there it would split them (Codex replaces the chunk's lines after inserting it: lost).
    with pytest.raises(EditError) as err:
        applied_bytes(b"a\nb\n\n", body)
    assert err.value.code == "OVERLAPPING_EDITS"
    assert err.value.data["edits"] == [0, 1]


def test_an_append_reports_its_line_after_another_chunks_lines_at_the_end() -> None:
    doc = decode(b"x\ny\n")
    compiled = compile_update(doc, update("@@\n+appended\n@@\n y\n+after y\n"))
    assert [edit.lines for edit in compiled.applied] == [(4,), (2,)]


def test_a_big_file_with_many_chunks_compiles_without_rescanning_per_chunk() -> None:
    lines = [f"line {i}" for i in range(200_000)]
    doc = Document("\n".join(lines) + "\n")
    body = "".join(
        f"@@\n line {i}\n-line {i + 1}\n+LINE {i + 1}\n" for i in range(0, 200_000, 2000)
    )
    compiled = compile_update(doc, update(body))
    assert len(compiled.plan.replacements) == 100
    assert compiled.applied[-1].lines == (198_001,)


@pytest.mark.parametrize("tail", ["", " "], ids=["exact", "trailing whitespace"])
@pytest.mark.parametrize("kinds", [True, False], ids=["parsed", "built without kinds"])
def test_a_chunk_of_many_repeated_lines_compiles_in_linear_time(tail: str, kinds: bool) -> None:
    # 3000 removed lines against 3000 added ones, all alike: difflib's matcher took minutes.
    size = 3000
    doc = Document(f"x{tail}\n" * size)
    op = update("@@\n" + "-x\n" * size + "+x\n+y\n" * (size // 2))
    if not kinds:
        op = UpdateFile(op.path, None, (chunk(op.chunks[0].old, op.chunks[0].new, 3, kinds=""),), 2)
    compiled = compile_update(doc, op)
    after = compiled.plan.apply_to_text(doc.text).replace(" ", "")
    assert after == "x\ny\n" * (size // 2)
    assert compiled.applied[0].match == ("exact" if not tail else "trailing_whitespace")


# -- Codex's scenarios ----------------------------------------------------------------------


def _scenarios() -> list[str]:
    if not SCENARIOS.is_dir():
        return ["missing"]
    return sorted(p.name for p in SCENARIOS.iterdir() if (p / "patch.txt").is_file())


REFUSED = {
    "005_rejects_empty_patch": "INVALID_PATCH",
    "006_rejects_missing_context": "NO_MATCH",
    "008_rejects_empty_update_hunk": "INVALID_PATCH",
    "013_rejects_invalid_hunk_header": "INVALID_PATCH",
}


def _run_scenario(folder: Path) -> str | None:
    """Check each added and updated file against expected/; the error code, if any."""
    try:
        ops = parse_patch((folder / "patch.txt").read_bytes().decode())
        for op in ops:
            if isinstance(op, AddFile):
                expected = (folder / "expected" / op.path).read_bytes()
                assert add_file_text(op).encode() == expected
            elif isinstance(op, UpdateFile):
                source = folder / "input" / op.path
                if not source.is_file():
                    continue  # a missing file is the tool layer's error (009)
                doc = decode(source.read_bytes())
                out = b"".join(render(doc, compile_update(doc, op).plan))
                assert out == (folder / "expected" / (op.move_to or op.path)).read_bytes()
    except EditError as exc:
        return exc.code
    return None


@pytest.mark.parametrize("name", _scenarios())
def test_codex_scenarios_at_the_pure_level(name: str) -> None:
    if name == "missing":
        pytest.skip(f"{SCENARIOS} is not here")
    if name.startswith("015_"):
        pytest.skip("015 pins Codex's partial writes across files: the tool layer's case")
    assert _run_scenario(SCENARIOS / name) == REFUSED.get(name)


# -- a property -----------------------------------------------------------------------------

_LINES = st.lists(st.text(alphabet="ab \t\u00e9", max_size=4), max_size=8)


def _diff_chunk(old: list[str], new: list[str]) -> str:
    out = ["@@"]
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            out += [" " + line for line in old[i1:i2]]
        else:
            out += ["-" + line for line in old[i1:i2]] + ["+" + line for line in new[j1:j2]]
    return "\n".join(out) + "\n"


@given(_LINES, _LINES)
def test_a_patch_made_from_two_line_lists_turns_the_one_into_the_other(
    old: list[str], new: list[str]
) -> None:
    if not old and not new:
        return
    doc = Document("".join(line + "\n" for line in old))
    compiled = compile_update(doc, update(_diff_chunk(old, new)))
    assert compiled.plan.apply_to_text(doc.text) == "".join(line + "\n" for line in new)


def test_a_deeper_indented_look_alike_before_the_exact_place_does_not_refuse() -> None:
    text = "def f():\n    if x:\n        pass\n    pass\n"
    doc = Document(text, name="f.py")
    op = update("@@ def f():\n-    pass\n+    return\n", "f.py")
    plan = compile_update(doc, op).plan
    assert plan.apply_to_text(text) == "def f():\n    if x:\n        pass\n    return\n"


def test_tolerant_searches_past_their_budget_refuse_instead_of_running_for_minutes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from editguard.core.formats import codex_patch

    monkeypatch.setattr(codex_patch, "TOLERANCE_PASSES", 2)
    monkeypatch.setattr(codex_patch, "TOLERANCE_LINES", 0)
    text = "".join(f"def f{i}():  \n    x = {i}\n" for i in range(50))
    body = "".join(f"@@ def f{i}():\n-    x = {i}\n+    x = -{i}\n" for i in range(50))
    with pytest.raises(EditError) as err:
        compile_update(Document(text, name="f.py"), update(body, "f.py"))
    assert err.value.code == "NO_MATCH"
    assert err.value.data["tolerance_spent"] is True
    # The same chunks, few enough, all land with tolerance for the trailing spaces.
    few = "".join(f"@@ def f{i}():\n-    x = {i}\n+    x = -{i}\n" for i in range(45, 50))
    plan = compile_update(Document(text, name="f.py"), update(few, "f.py")).plan
    assert "    x = -49\n" in plan.apply_to_text(text)


# A test file whose blocks all end alike: a new test appended after the last one's closing
# lines, sent with a bare @@, fits after every block (Codex puts it after the first).
SPEC = (
    'describe("a", () => {\n'
    '  it("x", () => {\n'
    "    if (y) {\n"
    "      z();\n"
    "    }\n"
    "  });\n"
    "});\n"
    'describe("b", () => {\n'
    '  it("w", () => {\n'
    "    if (y) {\n"
    "      q();\n"
    "    }\n"
    "  });\n"
    "});\n"
)
APPENDED = '     }\n   });\n });\n+describe("c", () => {\n+  it("v", () => {});\n+});\n'


def test_a_chunk_whose_lines_fit_at_two_places_is_refused_showing_each_places_lines() -> None:
    with pytest.raises(EditError) as err:
        compile_update(Document(SPEC, name="a.test.ts"), update("@@\n" + APPENDED, "a.test.ts"))
    error = err.value
    assert error.code == "AMBIGUOUS_MATCH"
    assert error.data["lines"] == [5, 12]
    assert error.data["match"] == "exact"
    assert (error.edit_index, error.data["chunk"]) == (0, 1)
    lines = SPEC.splitlines()
    # Each place as read_file numbers it, indentation intact.
    assert listing(lines[4:7], 5) in error.message
    assert listing(lines[11:14], 12) in error.message


@pytest.mark.parametrize(
    "body",
    [
        '@@ describe("b", () => {\n' + APPENDED,
        "@@\n" + APPENDED + "*** End of File\n",
    ],
    ids=["an @@ line only the place meant has before it", "End of File"],
)
def test_a_chunk_told_apart_by_the_patch_lands_at_the_place_it_names(body: str) -> None:
    doc = Document(SPEC, name="a.test.ts")
    after = compile_update(doc, update(body, "a.test.ts")).plan.apply_to_text(SPEC)
    assert after == SPEC + 'describe("c", () => {\n  it("v", () => {});\n});\n'


def test_a_chunk_that_fits_twice_where_only_the_first_leaves_room_for_the_next_lands_there() -> (
    None
):
    # "x" fits at lines 1 and 3, but the next chunk's "a" is only at line 2.
    assert applied_bytes(b"x\na\nx\n", "@@\n-x\n+X\n@@\n-a\n+A\n") == b"X\nA\nx\n"


def test_a_chunk_at_two_places_lands_at_the_one_that_leaves_room_for_the_later_chunks() -> None:
    # A real commit on configobj (tests/release_pairs.py) as apply_patch chunks: chunk 3 fits at
    # lines 745 and 1363, chunk 4 at 924 and 2335, chunk 5 only at 1134. Only chunk 3's first
    # place leaves room for chunks 4 and 5 after it, and then only chunk 4's first.
    before, after, diff = configobj_commit()
    body = re.sub(r"(?m)^@@ .*$", "@@", diff.split("\n", 2)[2])
    assert body.count("@@\n") == 5
    assert applied_bytes(before.encode(), body).decode() == after
    # Without chunk 5, both places of chunks 3 and 4 leave room: chunk 3 is refused.
    three = "@@" + "@@".join(body.split("@@")[1:5])
    with pytest.raises(EditError) as err:
        applied_bytes(before.encode(), three)
    assert (err.value.code, err.value.data["lines"]) == ("AMBIGUOUS_MATCH", [745, 1363])


def test_a_chunk_that_fits_twice_is_refused_in_exact_mode_too() -> None:
    with pytest.raises(EditError) as err:
        applied_bytes(b"x\ny\nx\n", "@@\n-x\n+X\n", exact=True)
    assert (err.value.code, err.value.data["lines"]) == ("AMBIGUOUS_MATCH", [1, 3])


def test_a_loose_place_after_the_exact_one_makes_the_chunk_ambiguous() -> None:
    with pytest.raises(EditError) as err:
        applied_bytes(b"x = 1\ny\nx = 1 \n", "@@\n-x = 1\n+x = 2\n")
    error = err.value
    assert (error.code, error.data["lines"]) == ("AMBIGUOUS_MATCH", [1, 3])
    assert error.data["match"] == "trailing_whitespace"


@pytest.mark.parametrize(
    ("before", "body", "line"),
    [
        # Lines added after the chunk's context: its old lines are still there.
        ("a = 1\nb = 2\nb2 = 22\nc = 3\n", "@@\n a = 1\n b = 2\n+b2 = 22\n", 1),
        # Lines added before it.
        ("import re\nimport os\nimport sys\n", "@@\n+import re\n import os\n import sys\n", 1),
        # Only added lines, right after an @@ line.
        ("def f():\n    first = 1\n    return 1\n", "@@ def f():\n+    first = 1\n", 2),
        # Only added lines, at the end of the file.
        ("x = 1\ndef h():\n    return 3\n", "@@\n+def h():\n+    return 3\n", 2),
        # A changed line: its old line is gone, its new one is there.
        ("x = 1\nLIMIT = 20\ny = 2\n", "@@\n-LIMIT = 10\n+LIMIT = 20\n", 2),
        # The same, found with tolerance for a slipped trailing space.
        ("x = 1\nLIMIT = 20\ny = 2\n", "@@\n x = 1 \n-LIMIT = 10\n+LIMIT = 20\n", 1),
        ("a = 1\nb = 2\nc = 3\n", "@@\n a = 1 \n b = 2\n+c = 3\n", 1),
    ],
    ids=["after", "before", "after @@", "appended", "changed", "changed, loose", "after, loose"],
)
def test_a_chunk_sent_again_is_already_applied_and_changes_nothing(
    before: str, body: str, line: int
) -> None:
    doc = Document(before, name="f.py")
    compiled = compile_update(doc, update(body, "f.py"))
    assert compiled.plan.apply_to_text(before) == before
    (edit,) = compiled.applied
    assert (edit.already_applied, edit.occurrences_replaced, edit.lines) == (True, 0, (line,))


def test_a_short_added_line_that_is_there_is_added_again() -> None:
    # A lone closing line may well be meant twice: its being there says nothing.
    assert applied_bytes(b"f(\n)\n", "@@\n+)\n") == b"f(\n)\n)\n"


@pytest.mark.parametrize("space", ["\u00a0", "\u2002", "\u2009", "\u200a", "\u202f", "\u3000"])
def test_a_unicode_space_is_read_as_a_space_on_the_punctuation_rung(space: str) -> None:
    before = "x = f(a, b)\ny = 2\n"
    after = applied_bytes(before.encode(), f"@@\n-x = f(a,{space}b)\n+x = g(a, b)\n")
    assert after == b"x = g(a, b)\ny = 2\n"


def test_a_unicode_space_never_picks_one_of_two_places() -> None:
    # Both lines read the same once their spaces are plain: which one is meant cannot be told.
    before = "x = f(a,\u2009b)\nx = f(a,\u00a0b)\n".encode()
    with pytest.raises(EditError) as err:
        applied_bytes(before, "@@\n-x = f(a,\u2002b)\n+x = 0\n")
    assert (err.value.code, err.value.data["lines"]) == ("AMBIGUOUS_MATCH", [1, 2])
    # One of them exactly, the other loosely before it: refused too.
    before = "x = f(a,\u2009b)\nx = f(a, b)\n".encode()
    with pytest.raises(EditError) as err:
        applied_bytes(before, "@@\n-x = f(a, b)\n+x = 0\n")
    assert err.value.code == "AMBIGUOUS_MATCH"


def test_exact_chunks_spend_no_tolerance_budget_looking_for_a_second_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from editguard.core.formats import codex_patch

    monkeypatch.setattr(codex_patch, "TOLERANCE_PASSES", 2)
    monkeypatch.setattr(codex_patch, "TOLERANCE_LINES", 0)
    text = "".join(f"def f{i}():\n    x = {i}\n" for i in range(50))
    body = "".join(f"@@\n-    x = {i}\n+    x = -{i}\n" for i in range(49))
    # The last chunk needs tolerance (a trailing space): the budget is still whole for it.
    body += "@@\n def f49(): \n-    x = 49\n+    x = -49\n"
    plan = compile_update(Document(text, name="f.py"), update(body, "f.py")).plan
    assert plan.apply_to_text(text) == text.replace("x = ", "x = -")
