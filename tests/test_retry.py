"""A retried edit lands once (issue 22): where the file already reads as an edit's result, the
edit is reported already applied, a success that changes nothing; never a second copy, never a
success where the file does not read as the result.

The rule is in :mod:`editguard.core.landed`; these tests drive it through the engine, the
Python API, the CLI and the MCP server, on real code (the release corpus of tests/corpus and
the made-up edits of tests/mistakes.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters

from editguard import EditError, Workspace
from editguard.core.document import decode
from editguard.core.formats.search_replace import SearchReplace, compile_search_replace
from editguard.core.landed import reader_of, stands_alone

from .conftest import Snapshot, examples, set_old_mtime
from .conftest import run_cli as cli
from .mistakes import MISTAKES, mistake_cases, real_edits
from .release_pairs import CORPUS
from .test_mcp import STATE_ENV

E = SearchReplace


def compiled(text: str, *edits: SearchReplace) -> tuple[str, list[Any]]:
    """The text after the edits, and what each did."""
    doc = decode(text.encode())
    out = compile_search_replace(doc, edits)
    return out.plan.apply_to_text(doc.text), list(out.applied)


def reads_as_result(text: str, old: str, new: str, lines: tuple[int, ...]) -> bool:
    """The independent check of a claim "already applied at ``lines``": put ``old`` back in
    place of the copy of ``new`` that starts on each line; the naive edit (count, replace) of
    that text must give ``text`` again."""
    starts = []
    for line in lines:
        bol = 0 if line == 1 else [i for i, c in enumerate(text) if c == "\n"][line - 2] + 1
        eol = text.find("\n", bol)
        at = text.find(new, bol)
        if at < 0 or (eol >= 0 and at > eol):
            return False
        starts.append(at)
    before, pos = [], 0
    for at in sorted(starts):
        if at < pos:
            return False
        before += [text[pos:at], old]
        pos = at + len(new)
    before.append(text[pos:])
    source = "".join(before)
    return source.count(old) == len(lines) and source.replace(old, new) == text


# -- the engine --------------------------------------------------------------------------

SIX = (CORPUS / "six-1.15.0-1.16.0" / "six.py.old").read_text()


def test_an_insertion_after_its_old_text_sent_twice_lands_once() -> None:
    old = "import functools\n"
    new = "import functools\nimport inspect  # added\n"
    once, _ = compiled(SIX, E(old, new))
    twice, applied = compiled(once, E(old, new))
    assert twice == once
    assert once.count("import inspect  # added") == 1
    edit = applied[0]
    assert (edit.already_applied, edit.occurrences_replaced) == (True, 0)
    assert edit.lines == (once[: once.index(new)].count("\n") + 1,)
    assert "already applied" in edit.note


def test_an_edit_that_wraps_its_old_text_sent_twice_lands_once() -> None:
    old = "def with_metaclass(meta, *bases):\n"
    new = "@deprecated('use the class keyword')\ndef with_metaclass(meta, *bases):\n"
    once, _ = compiled(SIX, E(old, new))
    twice, applied = compiled(once, E(old, new))
    assert twice == once
    assert applied[0].already_applied


def test_a_changed_line_sent_twice_is_already_applied_where_the_old_line_is_gone() -> None:
    old = '    return s.encode("latin-1")\n'
    assert SIX.count(old) == 1
    new = '    return s.encode("latin-1", "strict")\n'
    once, _ = compiled(SIX, E(old, new))
    twice, applied = compiled(once, E(old, new))
    assert twice == once
    assert applied[0].already_applied
    assert reads_as_result(once, old, new, applied[0].lines)


def test_an_edit_expected_at_several_places_is_applied_only_when_all_read_as_new() -> None:
    text = "def a():\n    log('x')\n\ndef b():\n    log('x')\n"
    new = "    log('x')\n    flush_all()\n"
    once, _ = compiled(text, E("    log('x')\n", new, 2))
    twice, applied = compiled(once, E("    log('x')\n", new, 2))
    assert twice == once
    assert (applied[0].already_applied, applied[0].lines) == (True, (2, 6))
    # One place done by hand, the other not: which was meant cannot be told.
    half = text.replace("    log('x')\n", new, 1)
    with pytest.raises(EditError) as err:
        compiled(half, E("    log('x')\n", new, 2))
    assert err.value.code == "AMBIGUOUS_MATCH"
    assert (err.value.data["applied_lines"], err.value.data["pending_lines"]) == ([2], [6])


def test_old_text_also_elsewhere_is_a_wrong_count_not_a_second_copy() -> None:
    text = "import os\nimport os.path  # kept\n\nx = 1\n"
    new = "import os\nimport sys  # needed\n"
    once, _ = compiled(text, E("import os\n", new))
    elsewhere = once + "import os\n"
    with pytest.raises(EditError) as err:
        compiled(elsewhere, E("import os\n", new))
    assert err.value.code == "WRONG_COUNT"


def test_old_text_gone_and_new_text_at_one_place_is_already_applied() -> None:
    old = "    if PY2:\n        return True\n"
    text = "def check():\n" + old + "    return False\n"
    new = "    if PY3:\n        return False\n"
    once, _ = compiled(text, E(old, new))
    twice, applied = compiled(once, E(old, new))
    assert twice == once
    assert applied[0].already_applied
    assert reads_as_result(once, old, new, applied[0].lines)


@pytest.mark.parametrize(
    ("text", "old", "new", "why"),
    [
        # new_text twice: not the result of an edit expected once.
        (
            "value = compute(a)\nvalue = compute(a)\n",
            "value = compute(b)\n",
            "value = compute(a)\n",
            "two places",
        ),
        # Lines removed: what is left was in the file before the edit too.
        (
            "first_line = 1\nsecond_line = 2\nthird = 3\n",
            "first_line = 1\nsecond_line = 2\nthird = 4\n",
            "first_line = 1\nsecond_line = 2\n",
            "a deletion",
        ),
        # A line alike to old_text away from new_text: a mis-copied old_text may mean it.
        (
            "result = compute(alpha)\nother = 1\nresult = compute(beta)\n",
            "result = compute(alpah)\n",
            "result = compute(beta)\n",
            "a look-alike",
        ),
        # Too short to tell.
        ("x = 2\n", "x = 1\n", "x = 2\n", "short"),
    ],
)
def test_a_new_text_found_proves_nothing_when(text: str, old: str, new: str, why: str) -> None:
    with pytest.raises(EditError) as err:
        compiled(text, E(old, new))
    assert err.value.code == "NO_MATCH", why


def test_a_retry_in_a_call_whose_other_edits_are_new_lands_those_only() -> None:
    add = E("import functools\n", "import functools\nimport inspect  # added\n")
    once, _ = compiled(SIX, add)
    rename = E("def _add_doc(func, doc):\n", "def _set_doc(func, doc):\n")
    later = E("PY34 = sys.version_info[0:2] >= (3, 4)\n", "PY34 = True  # always\n")
    after, applied = compiled(once, rename, add, later)
    assert after == once.replace(rename.old_text, rename.new_text).replace(
        later.old_text, later.new_text
    )
    assert [e.already_applied for e in applied] == [False, True, False]
    # The line named is in the text the call wrote (edits before and after it shift none here,
    # but the line is counted in the new text).
    line = applied[1].lines[0]
    assert after.split("\n")[line - 1] == "import functools"


def test_the_same_edit_twice_in_one_call_lands_once() -> None:
    add = E("import functools\n", "import functools\nimport inspect  # added\n")
    after, applied = compiled(SIX, add, add)
    assert after.count("import inspect  # added") == 1
    assert [e.already_applied for e in applied] == [False, True]


def test_an_edit_landed_with_an_indentation_correction_is_applied_when_retried() -> None:
    text = "class A:\n\tdef run(self):\n\t\tstart()\n\t\tfinish()\n"
    old = "    def run(self):\n        start()\n"
    new = "    def run(self):\n        start()\n        log('started')\n"
    once, applied = compiled(text, E(old, new))
    assert applied[0].match != "exact"
    assert "\t\tlog('started')\n" in once
    twice, applied = compiled(once, E(old, new))
    assert twice == once
    assert applied[0].already_applied


@pytest.mark.parametrize(
    ("text", "at", "old", "new", "alone"),
    [
        ("xyNEW", 2, "aba", "NEW", True),
        ("abNEW", 2, "aba", "NEW", False),  # "ab" + "aba": "aba" also at 0
        ("NEWba", 0, "aba", "NEW", False),  # "aba" + "ba": "aba" also at 2
        ("NEWxy", 0, "aba", "NEW", True),
    ],
)
def test_a_copy_stands_alone_only_when_putting_old_back_adds_no_other_old(
    text: str, at: int, old: str, new: str, alone: bool
) -> None:
    assert stands_alone(reader_of(text), len(text), at, old, new) is alone


# -- safe_edit's search_replace and edit_symbol's chunks ----------------------------------


def test_a_safe_edit_literal_replacement_sent_twice_lands_once(ws: Workspace, root: Path) -> None:
    (root / "six.py").write_text(SIX)
    sr = {"search": "import functools\n", "replace": "import functools\nimport inspect  # x\n"}
    first = ws.safe_edit("six.py", search_replace=sr)
    set_old_mtime(root / "six.py")
    landed = Snapshot.of(root / "six.py")
    again = ws.safe_edit("six.py", search_replace=sr)
    assert (first.already_applied, again.already_applied) == ([], [0])
    assert (again.written, again.replacements) == (False, 0)
    assert again.note is not None
    assert Snapshot.of(root / "six.py") == landed


def test_a_replace_all_whose_places_are_partly_done_is_refused(ws: Workspace, root: Path) -> None:
    text = "load_config(a)\nload_config_file(b)\nload_config(c)\n"
    (root / "m.py").write_text(text)
    snap = Snapshot.of(root / "m.py")
    with pytest.raises(EditError) as err:
        ws.safe_edit(
            "m.py", search_replace={"search": "load_config", "replace": "load_config_file"}
        )
    assert err.value.code == "AMBIGUOUS_MATCH"
    assert (err.value.data["applied_lines"], err.value.data["pending_lines"]) == ([2], [1, 3])
    assert Snapshot.of(root / "m.py") == snap


def test_a_safe_edit_replacement_whose_search_is_gone_is_already_applied(
    ws: Workspace, root: Path
) -> None:
    (root / "six.py").write_text(SIX)
    sr = {"search": "def _add_doc(func, doc):", "replace": "def _set_doc(func, doc):"}
    ws.safe_edit("six.py", search_replace=sr)
    again = ws.safe_edit("six.py", search_replace=sr)
    assert (again.written, again.already_applied) == (False, [0])


WORKER = (
    "class Worker:\n"
    "    def process(self, items):\n"
    "        total = 0\n"
    "        for item in items:\n"
    "            total += item\n"
    "        return total\n"
)


@pytest.mark.parametrize(
    "chunk",
    [
        # An insertion after a context line, nothing after it.
        {
            "context_before": ["        total = 0"],
            "old_lines": [],
            "new_lines": ["        seen = 0"],
        },
        # Old lines kept first, a line added after them, no context.
        {
            "old_lines": ["            total += item"],
            "new_lines": ["            total += item", "            seen += 1"],
        },
        # An insertion between two context lines (it no longer fits once done).
        {
            "context_before": ["        total = 0"],
            "old_lines": [],
            "new_lines": ["        seen = 0  # counted"],
            "context_after": ["        for item in items:"],
        },
        # A changed line.
        {"old_lines": ["        return total"], "new_lines": ["        return total, len(items)"]},
    ],
)
def test_an_edit_symbol_chunk_sent_twice_lands_once(
    ws: Workspace, root: Path, chunk: dict[str, Any]
) -> None:
    (root / "w.py").write_text(WORKER)
    first = ws.edit_symbol("w.py", "Worker/process", chunks=[chunk])
    assert first.written
    landed = (root / "w.py").read_text()
    again = ws.edit_symbol("w.py", "Worker/process", chunks=[chunk])
    assert (again.written, again.already_applied) == (False, [0])
    assert (root / "w.py").read_text() == landed
    assert "already applied" in again.notes[0]


# -- real edits -------------------------------------------------------------------------


def test_every_real_edit_sent_again_writes_nothing_and_containment_is_always_recognised(
    tmp_path: Path,
) -> None:
    ws = Workspace([tmp_path], prewarm=False)
    recognised = contained = tried = 0
    for edit in real_edits():
        if edit.new_text in edit.old_text:
            # A deletion: the text it leaves was there before it too, so a retry cannot be
            # told from a first attempt (a retry deletes again wherever old_text still is).
            continue
        tried += 1
        target = tmp_path / edit.file_name
        target.write_bytes(edit.expected)
        text = decode(edit.expected).text
        request = [{"old_text": edit.old_text, "new_text": edit.new_text}]
        try:
            result = ws.edit_file(edit.file_name, request, mode="interactive")
        except EditError:
            assert target.read_bytes() == edit.expected, edit.source
            inside = edit.old_text in edit.new_text and len(edit.new_text.strip()) >= 8
            # Old text inside new text is always recognised, unless it is also elsewhere.
            assert not inside or text.count(edit.old_text) > 1, edit.source
            continue
        assert not result.written, edit.source
        assert target.read_bytes() == edit.expected, edit.source
        assert result.already_applied == [0], edit.source
        lines = tuple(result.edits_applied[0].lines)
        assert reads_as_result(text, edit.old_text, edit.new_text, lines), edit.source
        recognised += 1
        contained += edit.old_text in edit.new_text
    # Measured: 176 of the 236 that are not deletions; the others are refused (NO_MATCH: a
    # look-alike of old_text elsewhere, fewer lines, too short to tell).
    assert recognised * 10 >= tried * 7, (recognised, tried)
    assert contained > 10


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.kind for m in MISTAKES])
def test_a_mis_copied_retry_never_lands_a_second_copy(mistake: Any, tmp_path: Path) -> None:
    ws = Workspace([tmp_path], prewarm=False)
    for case in mistake_cases(mistake)[::4]:
        edit = case.edit
        if edit.new_text in edit.old_text:
            continue  # a deletion (see above)
        if case.old_text in decode(edit.expected).text:
            continue  # the mistake names text that is in the file: another edit, not a retry
        target = tmp_path / edit.file_name
        target.write_bytes(edit.expected)
        request = [{"old_text": case.old_text, "new_text": case.new_text}]
        try:
            result = ws.edit_file(edit.file_name, request, mode="interactive")
        except EditError:
            assert target.read_bytes() == edit.expected, edit.source
            continue
        assert not result.written, edit.source
        assert result.already_applied == [0], edit.source


REAL_FILES = [
    CORPUS / "six-1.15.0-1.16.0" / "six.py.old",
    CORPUS / "p-limit-6.2.0-7.0.0" / "index.js.old",
    CORPUS / "pyperclip-1.8.0-1.8.1" / "src" / "pyperclip" / "__init__.py.old",
]


@st.composite
def edits_of_real_lines(draw: st.DrawFn) -> tuple[str, SearchReplace]:
    """A real file and an edit made of its own lines: old and new text are runs of the file's
    lines (or of the file's lines with one changed), the worst case for a new text found by
    chance."""
    text = draw(st.sampled_from(REAL_FILES)).read_text()
    lines = text.split("\n")

    def run() -> str:
        first = draw(st.integers(0, len(lines) - 2))
        size = draw(st.integers(1, 4))
        return "".join(line + "\n" for line in lines[first : first + size])

    old, new = run(), run()
    if draw(st.booleans()):
        new = old + new  # old inside new, like an insertion
    count = draw(st.integers(1, 2))
    if text.count(old) == count and draw(st.booleans()):
        text = text.replace(old, new)  # the edit landed once already: this is a retry
    if draw(st.integers(0, 3)) == 0:
        old = old.replace("s", "z", 1)  # a slip: old no longer in the file
    return text, E(old, new, count)


@settings(max_examples=examples(500), deadline=None)
@given(edits_of_real_lines())
def test_already_applied_is_only_ever_said_of_a_file_that_reads_as_the_result(
    case: tuple[str, SearchReplace],
) -> None:
    text, edit = case
    try:
        after, applied = compiled(text, edit)
    except EditError as error:
        event(error.code)
        return
    event(f"already applied: {applied[0].already_applied}")
    if applied[0].already_applied:
        assert after == text
        assert reads_as_result(text, edit.old_text, edit.new_text, applied[0].lines)


# -- through every front end -------------------------------------------------------------

APP = (CORPUS / "pyperclip-1.8.0-1.8.1" / "src" / "pyperclip" / "__main__.py.old").read_bytes()
OLD = "import sys\n"
NEW = "import sys\nimport logging  # retried\n"


def test_a_retry_through_the_cli_lands_once_and_records_one_change(root: Path) -> None:
    (root / "main.py").write_bytes(APP)
    assert decode(APP).text.count(OLD) == 1
    call = json.dumps({"path": "main.py", "edits": [{"old_text": OLD, "new_text": NEW}]})
    code, first = cli(root, "call", "edit_file", call)
    assert (code, first["written"]) == (0, True)
    set_old_mtime(root / "main.py")
    landed = Snapshot.of(root / "main.py")
    code, again = cli(root, "call", "edit_file", call)
    assert code == 0
    assert (again["written"], again["already_applied"], again["diff"]) == (False, [0], "")
    assert again["version"] == first["version"]
    assert Snapshot.of(root / "main.py") == landed
    assert landed.data.decode().count("import logging  # retried") == 1
    code, history = cli(root, "call", "history", json.dumps({"path": "main.py"}))
    assert code == 0
    assert len(history["changes"]) == 1


@pytest.mark.anyio
async def test_a_retry_over_mcp_stdio_lands_once(root: Path) -> None:
    (root / "main.py").write_bytes(APP)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(root), "--log-level", "WARNING"],
        env=STATE_ENV,
    )
    call = {"path": "main.py", "edits": [{"old_text": OLD, "new_text": NEW}]}
    async with Client(params) as client:
        first = await client.call_tool("edit_file", call)
        again = await client.call_tool("edit_file", call)
    assert not first.is_error
    assert not again.is_error
    assert again.structured_content is not None
    assert again.structured_content["already_applied"] == [0]
    assert again.structured_content["written"] is False
    assert (root / "main.py").read_text().count("import logging  # retried") == 1


def test_a_batch_that_repeats_a_call_lands_it_once(ws: Workspace, root: Path) -> None:
    (root / "main.py").write_bytes(APP)
    call = {
        "tool": "edit_file",
        "arguments": {"path": "main.py", "edits": [{"old_text": OLD, "new_text": NEW}]},
    }
    result = ws.batch([call, call])
    assert result.written
    assert [r["already_applied"] for r in result.results] == [[], [0]]
    assert (root / "main.py").read_text().count("import logging  # retried") == 1
    # The whole batch again: every call already applied, nothing written, nothing recorded.
    set_old_mtime(root / "main.py")
    landed = Snapshot.of(root / "main.py")
    again = ws.batch([call, call])
    assert not again.written
    assert [r["already_applied"] for r in again.results] == [[0], [0]]
    assert Snapshot.of(root / "main.py") == landed
    assert len(ws.history(path="main.py").changes) == 1


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
