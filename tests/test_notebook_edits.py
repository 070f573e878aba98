"""Edits that address a notebook's cell: edit_file, edit_lines, safe_edit, edit_symbol,
edit_snippet and list_symbols work on one cell's source as on a file, on real notebooks
(``../shared/conformance/notebooks``, copied into a temporary folder), and every byte of the
file outside that cell's source stays as it was."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from mcp import Client

from editguard import EditError, Workspace
from editguard.core.notebook.model import read_notebook
from editguard.mcp_server import EditguardServer
from tests.conformance import conformance
from tests.conftest import Snapshot

NOTEBOOKS = conformance("notebooks")
needs_notebooks = pytest.mark.skipif(
    NOTEBOOKS is None, reason="../shared/conformance is not beside the project"
)
pytestmark = needs_notebooks

COMMENT = "  # edited ±"


def copy(name: str, root: Path) -> Path:
    """A writable copy of one of the conformance notebooks in ``root``."""
    assert NOTEBOOKS is not None
    target = root / name
    shutil.copyfile(NOTEBOOKS / name, target)
    target.chmod(target.stat().st_mode | stat.S_IWUSR)
    return target


@dataclass(frozen=True)
class Target:
    """A code cell of a notebook to edit: its file, how the call names it, its index."""

    notebook: str
    ref: int | str
    index: int
    what: str  # how the file is written


TARGETS = [
    Target("02.07-Fancy-Indexing.ipynb", 3, 3, "Jupyter: indent 1, sorted keys, non-ASCII"),
    Target("04.03-Errorbars.indent2-ascii.ipynb", 4, 4, "indent 2, ASCII escapes, no final LF"),
    Target("nbformat-test4.5.ipynb", "38f37a24", 3, "nbformat 4.5, addressed by id"),
    Target("v1-02.08-Sorting.ipynb", 4, 4, "nbformat 4.0"),
]


def source_of(path: Path, index: int) -> str:
    return "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][index]["source"])


def first_line(source: str) -> str:
    return source.split("\n", 1)[0]


# Each tool's call that changes a cell's source, and the source it must leave; ``cell`` is
# what the call names (None: no cell named).
Call = Callable[[Workspace, str, str, "int | str | None"], Any]


def _edit_file(ws: Workspace, path: str, source: str, cell: int | str | None) -> Any:
    first = first_line(source)
    return ws.edit_file(path, [{"old_text": first, "new_text": first + COMMENT}], cell=cell)


def _edit_lines(ws: Workspace, path: str, source: str, cell: int | str | None) -> Any:
    edit = {"line_number": 1, "type": "Replace", "text": first_line(source) + COMMENT}
    return ws.edit_lines(path, [edit], cell=cell)


def _safe_edit(ws: Workspace, path: str, source: str, cell: int | str | None) -> Any:
    first = first_line(source)
    return ws.safe_edit(
        path, search_replace={"search": first, "replace": first + COMMENT}, cell=cell
    )


def _edit_snippet(ws: Workspace, path: str, source: str, cell: int | str | None) -> Any:
    first, rest = source.split("\n", 1)
    snippet = first + "\nedited = '±'\n" + rest
    return ws.call("edit_snippet", path=path, snippet=snippet, cell=cell)


def _edit_symbol(ws: Workspace, path: str, source: str, cell: int | str | None) -> Any:
    chunk = {"old_lines": ["    return 1"], "new_lines": ["    return '±'"]}
    return ws.edit_symbol(path, "edited", chunks=[chunk], cell=cell)


def _commented(source: str) -> str:
    first = first_line(source)
    return source.replace(first, first + COMMENT, 1)


def _snippet_result(source: str) -> str:
    first, rest = source.split("\n", 1)
    return first + "\nedited = '±'\n" + rest


def _symbol_result(source: str) -> str:
    return source.replace("    return 1", "    return '±'", 1)


TOOLS: dict[str, tuple[Call, Callable[[str], str]]] = {
    "edit_file": (_edit_file, _commented),
    "edit_lines": (_edit_lines, _commented),
    "safe_edit": (_safe_edit, _commented),
    "edit_snippet": (_edit_snippet, _snippet_result),
    "edit_symbol": (_edit_symbol, _symbol_result),
}
# Those that may go without `cell`: what they look for lands in the one cell it fits.
SEARCHING = ["edit_file", "safe_edit", "edit_snippet", "edit_symbol"]


def add_function(ws: Workspace, path: str, target: Target) -> None:
    """Give the target cell a function ``edited`` (at its end), for edit_symbol to edit."""
    lines = source_of(Path(ws.context.sandbox.roots[0]) / path, target.index).count("\n") + 1
    text = "\n\ndef edited():\n    return 1"
    ws.edit_lines(
        path, [{"line_number": lines + 1, "type": "Insert", "text": text}], cell=target.ref
    )


def assert_only_the_source_changed(before: str, after: str, index: int, new_source: str) -> None:
    """Everything outside the cell's source value is byte for byte as it was; the source is
    the list of lines Jupyter writes; the notebook validates."""
    field = read_notebook(before, "x.ipynb").cells[index].fields["source"]
    tail = len(before) - field.end
    assert after[: field.start] == before[: field.start]
    assert after[len(after) - tail :] == before[field.end :]
    data = json.loads(after)
    assert data["cells"][index]["source"] == new_source.splitlines(keepends=True)
    assert_valid(after)


def assert_valid(text: str) -> None:
    """``text`` is a notebook that nbformat's own validator accepts."""
    notebook = nbformat.reads(text, as_version=nbformat.NO_CONVERT)  # type: ignore[no-untyped-call]
    nbformat.validate(notebook)


@pytest.mark.parametrize("tool", list(TOOLS))
@pytest.mark.parametrize("target", TARGETS, ids=[t.notebook for t in TARGETS])
def test_a_cell_edited_by_each_tool_leaves_every_other_byte_as_it_was(
    tool: str, target: Target, root: Path
) -> None:
    path = copy(target.notebook, root)
    ws = Workspace([root])
    if tool == "edit_symbol":
        add_function(ws, target.notebook, target)
    before = path.read_text(encoding="utf-8")
    source = source_of(path, target.index)
    call, expected = TOOLS[tool]
    result = call(ws, target.notebook, source, target.ref)
    after = path.read_text(encoding="utf-8")
    assert_only_the_source_changed(before, after, target.index, expected(source))
    assert result.cell == target.index
    assert result.cell_id == (target.ref if isinstance(target.ref, str) else None)
    assert result.written
    # The diff is the cell's, its lines numbered within the cell.
    assert result.diff.startswith(f"--- a/{target.notebook}#cell {target.index}")
    first_hunk = int(result.diff.split("@@ -", 1)[1].split(",", 1)[0])
    assert first_hunk <= source.count("\n") + 1
    if "ascii" in target.notebook:
        # Written as the file writes: non-ASCII escaped, still no final line break.
        assert after.isascii()
        assert after.count("\\u00b1") == before.count("\\u00b1") + 1
        assert not after.endswith("\n")


@pytest.mark.parametrize("tool", SEARCHING)
@pytest.mark.parametrize("target", TARGETS, ids=[t.notebook for t in TARGETS])
def test_without_cell_a_search_lands_in_the_one_cell_it_fits(
    tool: str, target: Target, root: Path
) -> None:
    path = copy(target.notebook, root)
    ws = Workspace([root])
    if tool == "edit_symbol":
        add_function(ws, target.notebook, target)
    before = path.read_text(encoding="utf-8")
    source = source_of(path, target.index)
    call, expected = TOOLS[tool]
    result = call(ws, target.notebook, source, None)
    assert result.cell == target.index
    assert_only_the_source_changed(
        before, path.read_text(encoding="utf-8"), target.index, expected(source)
    )


def test_edit_lines_without_cell_on_a_notebook_asks_for_the_cell(root: Path) -> None:
    path = copy("nbformat-test4.5.ipynb", root)
    was = Snapshot.of(path)
    with pytest.raises(EditError) as caught:
        Workspace([root]).edit_lines(
            "nbformat-test4.5.ipynb", [{"line_number": 1, "type": "Insert", "text": "# x"}]
        )
    assert caught.value.code == "INVALID_REQUEST"
    assert caught.value.data["field"] == "cell"
    assert Snapshot.of(path) == was


def test_safe_edit_line_edits_without_cell_are_refused_and_content_is_the_whole_file(
    root: Path,
) -> None:
    path = copy("nbformat-test4.5.ipynb", root)
    ws = Workspace([root])
    with pytest.raises(EditError) as caught:
        ws.safe_edit(
            "nbformat-test4.5.ipynb",
            line_edits=[{"start_line": 1, "end_line": 1, "new_content": "x"}],
        )
    assert caught.value.code == "INVALID_REQUEST"
    # content without cell is the notebook's JSON, checked as a notebook.
    with pytest.raises(EditError) as caught:
        ws.safe_edit("nbformat-test4.5.ipynb", content="not json")
    assert caught.value.code == "INVALID_NOTEBOOK"
    # With cell, content is that cell's whole new source.
    before = path.read_text(encoding="utf-8")
    ws.safe_edit("nbformat-test4.5.ipynb", content="print('whole')\n", cell="38f37a24")
    assert_only_the_source_changed(before, path.read_text(encoding="utf-8"), 3, "print('whole')\n")


def test_a_symbol_or_a_text_in_two_cells_is_ambiguous_and_names_both(root: Path) -> None:
    # 01.07's cells 16 and 30 (a %%file cell, another language) both define sum_of_lists; only
    # cell 16 is Python. 05.12 has one line found in two cells.
    path = copy("01.07-Timing-and-Profiling.ipynb", root)
    ws = Workspace([root])
    done = ws.edit_symbol(
        "01.07-Timing-and-Profiling.ipynb", "sum_of_lists", insert_before="# one\n", dry_run=True
    )
    assert done.cell == 16
    was = Snapshot.of(path)
    with pytest.raises(EditError) as caught:
        ws.edit_file(
            "01.07-Timing-and-Profiling.ipynb",
            [{"old_text": "L = [random.random() for i in range(100000)]", "new_text": "L = []"}],
        )
    assert caught.value.code == "AMBIGUOUS_MATCH"
    assert [c["index"] for c in caught.value.data["cells"]] == [7, 9]
    ws.edit_file(
        "01.07-Timing-and-Profiling.ipynb",
        [{"old_text": "def sum_of_lists(N):", "new_text": "def sum_of_lists(M):"}],
        cell=16,
    )
    ws.edit_file(
        "01.07-Timing-and-Profiling.ipynb",
        [{"old_text": "def sum_of_lists(M):", "new_text": "def sum_of_lists(N):"}],
        cell=16,
    )
    assert Snapshot.of(path).data == was.data
    # Two Python cells defining the same function: ambiguous, both named.
    ws.edit_lines(
        "01.07-Timing-and-Profiling.ipynb",
        [{"line_number": 2, "type": "Insert", "text": "def sum_of_lists(N):\n    return 0"}],
        cell=10,
    )
    with pytest.raises(EditError) as caught:
        ws.edit_symbol("01.07-Timing-and-Profiling.ipynb", "sum_of_lists", insert_before="# x\n")
    assert caught.value.code == "AMBIGUOUS_MATCH"
    assert [c["index"] for c in caught.value.data["cells"]] == [10, 16]


def test_a_symbol_in_no_cell_is_symbol_not_found_with_the_closest_names(root: Path) -> None:
    copy("05.13-Kernel-Density-Estimation.ipynb", root)
    with pytest.raises(EditError) as caught:
        Workspace([root]).edit_symbol(
            "05.13-Kernel-Density-Estimation.ipynb", "KDEClassifier/fitt", insert_before="# x\n"
        )
    assert caught.value.code == "SYMBOL_NOT_FOUND"
    assert {"cell": 28, "name_path": "KDEClassifier/fit"}.items() <= next(
        c for c in caught.value.data["candidates"] if c["name_path"] == "KDEClassifier/fit"
    ).items()


def test_edit_symbol_by_line_needs_the_cell_and_finds_the_method_within_it(root: Path) -> None:
    path = copy("05.13-Kernel-Density-Estimation.ipynb", root)
    ws = Workspace([root])
    with pytest.raises(EditError) as caught:
        ws.edit_symbol("05.13-Kernel-Density-Estimation.ipynb", line=20, column=9, insert_before="")
    assert caught.value.code == "INVALID_REQUEST"
    before = path.read_text(encoding="utf-8")
    source = source_of(path, 28)
    done = ws.edit_symbol(
        "05.13-Kernel-Density-Estimation.ipynb",
        line=20,
        column=9,
        cell=28,
        chunks=[
            {
                "old_lines": ["        self.classes_ = np.sort(np.unique(y))"],
                "new_lines": ["        self.classes_ = np.unique(y)"],
            }
        ],
    )
    assert done.symbol.name_path == "KDEClassifier/fit"
    assert (done.symbol.start_line, done.new_start_line) == (18, 18)
    new = source.replace("np.sort(np.unique(y))", "np.unique(y)")
    assert_only_the_source_changed(before, path.read_text(encoding="utf-8"), 28, new)


def test_edit_symbol_structure_check_holds_in_a_cell(root: Path) -> None:
    """A new body that defines nothing where the method was is refused by edit_symbol's own
    check (a structure finding), in the cell; interactive mode writes it with the finding."""
    name = "05.13-Kernel-Density-Estimation.ipynb"
    path = copy(name, root)
    ws = Workspace([root])
    was = Snapshot.of(path)
    with pytest.raises(EditError) as caught:
        ws.edit_symbol(name, "KDEClassifier/predict", new_body="    predict = None\n", cell=28)
    assert caught.value.code == "VALIDATION_FAILED"
    assert caught.value.data["cell"] == 28
    assert Snapshot.of(path) == was
    done = ws.edit_symbol(
        name, "KDEClassifier/predict", new_body="    predict = None\n", mode="interactive"
    )
    assert done.cell == 28
    assert [f.source for f in done.validation.findings] == ["structure"]
    assert "def predict(" not in source_of(path, 28)


# -- the syntax guard ------------------------------------------------------------------------

BROKEN = ["edit_file", "edit_lines", "safe_edit", "edit_snippet"]


def break_cell(ws: Workspace, tool: str, path: str, cell: int, mode: str = "strict") -> Any:
    """A call that leaves 04.03's cell 4 with an unclosed bracket on its first line."""
    good, bad = "x = np.linspace(0, 10, 50)", "x = np.linspace(0, 10, 50"
    table: dict[str, dict[str, Any]] = {
        "edit_file": {"edits": [{"old_text": good, "new_text": bad}]},
        "edit_lines": {"edits": [{"line_number": 1, "type": "Replace", "text": bad}]},
        "safe_edit": {
            "search_replace": {"search": r"\(0, 10, 50\)", "replace": "(0, 10, 50", "regex": True}
        },
        "edit_snippet": {"snippet": good + "\nif True\ndy = 0.8"},
    }
    return ws.call(tool, path=path, cell=cell, mode=mode, **table[tool])


@pytest.mark.parametrize("tool", list(BROKEN))
def test_the_syntax_guard_refuses_a_broken_code_cell_and_interactive_writes_it(
    tool: str, root: Path
) -> None:
    name = "04.03-Errorbars.ipynb"
    path = copy(name, root)
    ws = Workspace([root])
    was = Snapshot.of(path)
    with pytest.raises(EditError) as caught:
        break_cell(ws, tool, name, 4)
    assert caught.value.code == "VALIDATION_FAILED"
    assert caught.value.data["cell"] == 4
    assert Snapshot.of(path) == was
    done = break_cell(ws, tool, name, 4, mode="interactive")
    assert done.written
    assert not done.validation.passed
    assert done.validation.findings[0].line <= 2  # a line of the cell, not of the JSON
    assert_valid(path.read_text(encoding="utf-8"))


def test_the_syntax_guard_does_not_trip_over_magics_already_in_a_cell(root: Path) -> None:
    name = "01.07-Timing-and-Profiling.ipynb"
    path = copy(name, root)
    ws = Workspace([root])
    # Cell 9 has `%time L.sort()`, cell 12 starts with `%%time`, cell 3 is `%timeit ...`.
    ws.edit_file(name, [{"old_text": "import random", "new_text": "import random  # rng"}], cell=9)
    ws.edit_lines(name, [{"line_number": 2, "type": "Replace", "text": "total = 1"}], cell=12)
    ws.safe_edit(name, search_replace={"search": "100", "replace": "1000"}, cell=3)
    ws.edit_file(
        name,
        [{"old_text": "%timeit sum(range(1000))", "new_text": "!ls\n%timeit sum(range(10))"}],
        cell=3,
    )
    assert source_of(path, 3) == "!ls\n%timeit sum(range(10))"
    assert source_of(path, 12).startswith("%%time\ntotal = 1\n")
    # A real syntax error beside the magics is still found.
    with pytest.raises(EditError) as caught:
        ws.edit_file(name, [{"old_text": 'list:")', "new_text": 'list:"'}], cell=10)
    assert caught.value.code == "VALIDATION_FAILED"


def test_markdown_cells_are_not_syntax_checked(root: Path) -> None:
    name = "nbformat-test4.5.ipynb"
    path = copy(name, root)
    before = path.read_text(encoding="utf-8")
    done = Workspace([root]).edit_file(
        name, [{"old_text": "# nbconvert latex test", "new_text": "# def (: broken ±"}], cell=0
    )
    assert done.validation.findings == []
    assert_only_the_source_changed(before, path.read_text(encoding="utf-8"), 0, "# def (: broken ±")


# -- what writes nothing, what is refused ------------------------------------------------------


@pytest.mark.parametrize("how", ["dry_run", "verify_only"])
@pytest.mark.parametrize("tool", list(TOOLS))
def test_dry_run_and_verify_only_write_nothing(tool: str, how: str, root: Path) -> None:
    target = TARGETS[2]
    path = copy(target.notebook, root)
    ws = Workspace([root])
    if tool == "edit_symbol":
        add_function(ws, target.notebook, target)
    was = Snapshot.of(path)
    source = source_of(path, target.index)
    cell = target.ref
    flag: dict[str, Any] = {"dry_run": True} if how == "dry_run" else {"mode": "verify_only"}
    if tool == "safe_edit":
        flag = {"mode": "verify_only"}  # safe_edit's only way to check without writing
    done = _call_with(ws, tool, target.notebook, source, cell, flag)
    assert getattr(done, "would_modify", None) is True
    assert getattr(done, "written", None) is False
    assert Snapshot.of(path) == was


@pytest.mark.parametrize("tool", list(TOOLS))
def test_a_stale_version_and_a_wrong_cell_are_refused(tool: str, root: Path) -> None:
    target = TARGETS[2]
    path = copy(target.notebook, root)
    ws = Workspace([root])
    if tool == "edit_symbol":
        add_function(ws, target.notebook, target)
    version = ws.read_file(target.notebook).version
    source = source_of(path, target.index)
    # The notebook changes after it was read (another cell).
    ws.edit_file(target.notebook, [{"old_text": "## Pyout", "new_text": "## Out"}], cell=4)
    was = Snapshot.of(path)
    call, _ = TOOLS[tool]
    ref = target.ref
    stale = {"expected_version": version}
    with pytest.raises(EditError) as caught:
        _call_with(ws, tool, target.notebook, source, ref, stale)
    assert caught.value.code == "STALE_VERSION"
    for wrong in ("nope", 99):
        with pytest.raises(EditError) as caught:
            call(ws, target.notebook, source, wrong)
        assert caught.value.code == "CELL_NOT_FOUND"
        assert caught.value.data["cells"][3] == {
            "index": 3,
            "type": "code",
            "id": "38f37a24",
            "first_line": first_line(source),
        }
    assert Snapshot.of(path) == was


def _call_with(
    ws: Workspace, tool: str, path: str, source: str, cell: int | str, extra: dict[str, Any]
) -> Any:
    first = first_line(source)
    table: dict[str, dict[str, Any]] = {
        "edit_file": {"edits": [{"old_text": first, "new_text": first + COMMENT}]},
        "edit_lines": {"edits": [{"line_number": 1, "type": "Replace", "text": first + COMMENT}]},
        "safe_edit": {"search_replace": {"search": first, "replace": first + COMMENT}},
        "edit_snippet": {"snippet": _snippet_result(source)},
        "edit_symbol": {
            "symbol": "edited",
            "chunks": [{"old_lines": ["    return 1"], "new_lines": ["    return 2"]}],
        },
    }
    return ws.call(tool, path=path, cell=cell, **table[tool], **extra)


def test_cell_on_a_file_that_is_no_notebook_is_refused(root: Path) -> None:
    (root / "a.py").write_text("def f():\n    return 1\n")
    ws = Workspace([root])
    for call in (
        lambda: ws.edit_file("a.py", [{"old_text": "1", "new_text": "2"}], cell=0),
        lambda: ws.list_symbols("a.py", cell=0),
    ):
        with pytest.raises(EditError) as caught:
            call()
        assert caught.value.code == "INVALID_REQUEST"
        assert caught.value.data["field"] == "cell"
    assert (root / "a.py").read_text() == "def f():\n    return 1\n"


# -- the match ladder inside a cell -------------------------------------------------------------


def test_the_ladder_works_inside_a_cell_and_says_the_rung(root: Path) -> None:
    name = "05.13-Kernel-Density-Estimation.ipynb"
    path = copy(name, root)
    ws = Workspace([root])
    # A trailing-space slip: the line in the file has none.
    done = ws.edit_file(
        name,
        [
            {
                "old_text": "        self.bandwidth = bandwidth   \n",
                "new_text": "        self.bandwidth = 2 * bandwidth   \n",
            }
        ],
        cell=28,
    )
    assert done.edits_applied[0].match == "trailing_whitespace"
    assert "        self.bandwidth = 2 * bandwidth\n" in source_of(path, 28)
    # An indentation slip: the method's lines sent at the top level.
    old = "def predict(self, X):\n    return self.classes_[np.argmax(self.predict_proba(X), 1)]"
    done = ws.edit_file(
        name, [{"old_text": old, "new_text": old.replace(", 1)", ", axis=1)")}], cell=28
    )
    assert done.cell == 28
    assert done.edits_applied[0].match == "indentation"
    assert "        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]" in source_of(
        path, 28
    )
    # A regex and its occurrences, in the cell only.
    safe = ws.safe_edit(
        name,
        search_replace={"search": r"self\.(\w+)_", "replace": r"self._\1", "regex": True},
        cell=28,
    )
    assert safe.replacements == source_of(path, 28).count("self._")
    assert safe.cell == 28


def test_a_wrong_count_or_no_match_in_the_named_cell_shows_the_cells_lines(root: Path) -> None:
    name = "05.13-Kernel-Density-Estimation.ipynb"
    copy(name, root)
    ws = Workspace([root])
    with pytest.raises(EditError) as caught:
        ws.edit_file(name, [{"old_text": "self.", "new_text": "me."}], cell=28)
    assert caught.value.code == "WRONG_COUNT"
    assert caught.value.data["cell"] == 28
    assert caught.value.path == name
    with pytest.raises(EditError) as caught:
        ws.edit_file(name, [{"old_text": "self.bandwith = bandwidth", "new_text": "x"}], cell=28)
    assert caught.value.code == "NO_MATCH"
    assert caught.value.data["similar_content"][0]["start_line"] == 15


# -- list_symbols -------------------------------------------------------------------------------


def test_list_symbols_lists_every_code_cells_symbols_with_its_cell(root: Path) -> None:
    copy("05.13-Kernel-Density-Estimation.ipynb", root)
    copy("01.07-Timing-and-Profiling.ipynb", root)
    copy("nbformat-test4.5.ipynb", root)
    ws = Workspace([root])
    listed = ws.list_symbols("05.13-Kernel-Density-Estimation.ipynb")
    rows = [(s.name_path, s.cell, s.start_line, s.end_line) for s in listed.symbols]
    assert rows[:3] == [
        ("make_data", 4, 1, 5),
        ("KDEClassifier", 28, 4, 35),
        ("KDEClassifier/__init__", 28, 14, 16),
    ]
    only = ws.list_symbols("05.13-Kernel-Density-Estimation.ipynb", cell=4)
    assert [s.name_path for s in only.symbols] == ["make_data"]
    assert ws.list_symbols("05.13-Kernel-Density-Estimation.ipynb", depth=1).symbols[1].cell == 28
    # The %%file cell is another language: its definition is not the kernel's.
    timing = ws.list_symbols("01.07-Timing-and-Profiling.ipynb")
    assert [(s.name_path, s.cell) for s in timing.symbols] == [("sum_of_lists", 16)]
    # Ids where the notebook has them; on the wire, no cell fields for a plain file.
    assert ws.list_symbols("nbformat-test4.5.ipynb").symbols == []
    with pytest.raises(EditError) as caught:
        ws.list_symbols("nbformat-test4.5.ipynb", cell=0)  # a markdown cell
    assert caught.value.code == "INVALID_REQUEST"
    with pytest.raises(EditError) as caught:
        ws.list_symbols("nbformat-test4.5.ipynb", cell="nope")
    assert caught.value.code == "CELL_NOT_FOUND"


def test_list_symbols_gives_ids_and_leaves_cell_fields_out_for_a_plain_file(root: Path) -> None:
    target = TARGETS[2]
    copy(target.notebook, root)
    ws = Workspace([root])
    add_function(ws, target.notebook, target)
    listed = ws.list_symbols(target.notebook).model_dump(mode="json")
    assert listed["symbols"] == [
        {
            "name": "edited",
            "kind": "function",
            "name_path": "edited",
            "start_line": 6,
            "end_line": 7,
            "depth": 0,
            "cell": 3,
            "cell_id": "38f37a24",
        }
    ]
    (root / "a.py").write_text("def f():\n    pass\n")
    plain = ws.list_symbols("a.py").model_dump(mode="json")
    assert "cell" not in plain["symbols"][0]


# -- formatting -----------------------------------------------------------------------------------


def test_format_formats_the_lines_written_in_a_code_cell(root: Path) -> None:
    name = "05.13-Kernel-Density-Estimation.ipynb"
    path = copy(name, root)
    before = path.read_text(encoding="utf-8")
    source = source_of(path, 4)
    done = Workspace([root]).edit_file(
        name,
        [
            {
                "old_text": "def make_data(N, f=0.3, rseed=1):",
                "new_text": "def make_data(N,f=0.3,rseed=2 ):",
            }
        ],
        cell=4,
        format=True,
    )
    new = source.replace("rseed=1", "rseed=2")
    assert_only_the_source_changed(before, path.read_text(encoding="utf-8"), 4, new)
    assert done.formatted == {str(path): "1│def make_data(N, f=0.3, rseed=2):"}


def test_format_leaves_a_cell_with_magics_unformatted_and_says_so(root: Path) -> None:
    name = "01.07-Timing-and-Profiling.ipynb"
    path = copy(name, root)
    done = Workspace([root]).edit_file(
        name, [{"old_text": "import random", "new_text": "import  random"}], cell=9, format=True
    )
    assert done.format_note is not None
    assert "magics" in done.format_note
    assert source_of(path, 9).startswith("import  random\n")


def test_clear_outputs_empties_the_outputs_of_the_cell_edited(root: Path) -> None:
    name = "04.03-Errorbars.ipynb"
    path = copy(name, root)
    ws = Workspace([root])
    ws.edit_lines(
        name,
        [{"line_number": 1, "type": "Replace", "text": "x = np.linspace(0, 10, 40)"}],
        cell=4,
        clear_outputs=True,
    )
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["cells"][4]["outputs"] == []
    assert data["cells"][4]["execution_count"] is None
    assert data["cells"][6]["outputs"]  # another cell keeps its outputs


# -- through the CLI and the MCP server ------------------------------------------------------------

FRONT_CALLS: dict[str, dict[str, Any]] = {
    "edit_file": {"edits": [{"old_text": 'print("hello")', "new_text": 'print("hi ±")'}]},
    "edit_lines": {"edits": [{"line_number": 3, "type": "Replace", "text": 'print("hi ±")'}]},
    "safe_edit": {"search_replace": {"search": r'"hel+o"', "replace": '"hi ±"', "regex": True}},
    "edit_snippet": {"snippet": 'from __future__ import annotations\n\nx = "hi ±"\nprint("hello")'},
    "edit_symbol": {"symbol": "edited", "new_body": 'def edited():\n    print("hi ±")'},
}


def front_setup(root: Path, tool: str) -> tuple[Path, str, str]:
    """The 4.5 notebook in ``root`` (for edit_symbol with a function in cell 3), its text,
    and the source cell 3 must have after the tool's call of :data:`FRONT_CALLS`."""
    target = TARGETS[2]
    path = copy(target.notebook, root)
    source = source_of(path, 3)
    if tool == "edit_symbol":
        add_function(Workspace([root]), target.notebook, target)
        source = source_of(path, 3)
        return (
            path,
            path.read_text(encoding="utf-8"),
            source.replace("    return 1", '    print("hi ±")'),
        )
    new = 'x = "hi ±"\nprint("hello")' if tool == "edit_snippet" else 'print("hi ±")'
    return path, path.read_text(encoding="utf-8"), source.replace('print("hello")', new)


@pytest.mark.parametrize("tool", list(FRONT_CALLS))
def test_each_tool_edits_a_cell_through_the_cli(tool: str, root: Path) -> None:
    path, before, expected = front_setup(root, tool)
    arguments = {"path": path.name, "cell": "38f37a24", **FRONT_CALLS[tool]}
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", "call", tool, json.dumps(arguments)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src")},
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    out = json.loads(proc.stdout)
    assert (out["cell"], out["cell_id"]) == (3, "38f37a24")
    assert_only_the_source_changed(before, path.read_text(encoding="utf-8"), 3, expected)


def test_list_symbols_of_a_notebook_through_the_cli(root: Path) -> None:
    copy("05.13-Kernel-Density-Estimation.ipynb", root)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "editguard",
            "call",
            "list_symbols",
            '{"path": "05.13-Kernel-Density-Estimation.ipynb", "cell": 28, "depth": 1}',
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src")},
    )
    assert proc.returncode == 0, proc.stdout
    symbols = json.loads(proc.stdout)["symbols"]
    assert symbols == [
        {
            "name": "KDEClassifier",
            "kind": "class",
            "name_path": "KDEClassifier",
            "start_line": 4,
            "end_line": 35,
            "depth": 0,
            "cell": 28,
        }
    ]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("tool", [*FRONT_CALLS, "list_symbols"])
async def test_each_tool_edits_a_cell_through_the_mcp_client(
    tool: str, root: Path, anyio_backend: str
) -> None:
    path, before, expected = front_setup(root, "edit_symbol" if tool == "list_symbols" else tool)
    server = EditguardServer(Workspace([root]), log_level="WARNING")
    arguments = {"path": path.name, "cell": "38f37a24", **FRONT_CALLS.get(tool, {})}
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool(tool, arguments)
        assert not result.is_error, result.content
        out = result.structured_content
        assert out is not None
        if tool == "list_symbols":
            assert [(s["name_path"], s["cell"], s["cell_id"]) for s in out["symbols"]] == [
                ("edited", 3, "38f37a24")
            ]
            return
        assert (out["cell"], out["cell_id"]) == (3, "38f37a24")
        # A wrong cell is an error result with its code.
        wrong = await client.call_tool(tool, {**arguments, "cell": "nope"})
        assert wrong.is_error
    assert_only_the_source_changed(before, path.read_text(encoding="utf-8"), 3, expected)


def test_a_snippet_in_a_markdown_cell_takes_html_comment_markers(root: Path) -> None:
    name = "01.07-Timing-and-Profiling.ipynb"
    path = copy(name, root)
    before = path.read_text(encoding="utf-8")
    source = source_of(path, 2)
    lines = source.split("\n")
    assert lines[1] == ""
    snippet = "\n".join(
        [lines[0], "A new line.", "", lines[2], "<!-- ... existing content ... -->"]
    )
    Workspace([root]).call("edit_snippet", path=name, snippet=snippet, cell=2)
    new = "\n".join([lines[0], "A new line.", *lines[1:]])
    assert_only_the_source_changed(before, path.read_text(encoding="utf-8"), 2, new)


def test_a_snippet_of_a_file_without_symbols_merges(root: Path) -> None:
    """A kind of file without symbols (text, markdown) has no definition to lose: the
    snippet merges (it was refused as 'symbols are not supported')."""
    (root / "notes.txt").write_text("one\ntwo\nthree\n")
    Workspace([root]).call("edit_snippet", path="notes.txt", snippet="one\n2\nthree\n")
    assert (root / "notes.txt").read_text() == "one\n2\nthree\n"


def test_interactive_safe_edit_found_in_no_cell_changes_nothing_and_warns(root: Path) -> None:
    name = "nbformat-test4.5.ipynb"
    path = copy(name, root)
    was = Snapshot.of(path)
    ws = Workspace([root])
    done = ws.safe_edit(name, search_replace={"search": "zzz", "replace": "y"}, mode="interactive")
    assert not done.would_modify
    assert done.warnings == ["pattern 'zzz' not found; nothing was changed"]
    assert done.cell is None
    with pytest.raises(EditError) as caught:
        ws.safe_edit(name, search_replace={"search": "zzz", "replace": "y"})
    assert caught.value.code == "NO_MATCH"
    # Found in one cell only, interactive: it lands there (the other cells are no fit).
    done = ws.safe_edit(
        name, search_replace={"search": "Lorem", "replace": "Ipsum"}, mode="interactive"
    )
    assert done.cell == 1
    assert Snapshot.of(path) != was


LADDER_SLIPS: dict[str, tuple[dict[str, Any], str, str]] = {
    # tool: (arguments with a slip, the rung the result names, the line the cell then has)
    "safe_edit": (
        {
            "search_replace": {
                "search": "def fit(self, X, y):\n    self.classes_ = np.sort(np.unique(y))",
                "replace": "def fit(self, X, y):\n    self.classes_ = np.unique(y)",
            }
        },
        "indentation",
        "        self.classes_ = np.unique(y)\n",
    ),
    "edit_snippet": (
        {
            "snippet": "    def fit(self, X, y):   \n        self.classes_ = np.unique(y)\n"
            "        training_sets = [X[y == yi] for yi in self.classes_]"
        },
        "trailing_whitespace",
        "        self.classes_ = np.unique(y)\n",
    ),
    "edit_symbol": (
        {
            "symbol": "KDEClassifier/fit",
            "chunks": [
                {
                    "context_before": "def fit(self, X, y):",
                    "old_lines": ["    self.classes_ = np.sort(np.unique(y))"],
                    "new_lines": ["    self.classes_ = np.unique(y)"],
                }
            ],
        },
        "indentation",
        "        self.classes_ = np.unique(y)\n",
    ),
}


@pytest.mark.parametrize("tool", list(LADDER_SLIPS))
def test_each_tool_lands_a_slip_on_the_ladder_inside_a_cell(tool: str, root: Path) -> None:
    name = "05.13-Kernel-Density-Estimation.ipynb"
    path = copy(name, root)
    before = path.read_text(encoding="utf-8")
    source = source_of(path, 28)
    arguments, rung, line = LADDER_SLIPS[tool]
    done = Workspace([root]).call(tool, path=name, cell=28, **arguments)
    result = done.model_dump()
    matched = {
        "safe_edit": lambda: result["match"],
        "edit_snippet": lambda: result["edits_applied"][0]["match"],
        "edit_symbol": lambda: result["chunks_matched"][0],
    }[tool]()
    assert rung in matched
    new = source.replace("        self.classes_ = np.sort(np.unique(y))\n", line)
    assert_only_the_source_changed(before, path.read_text(encoding="utf-8"), 28, new)


def test_clear_outputs_in_a_file_with_its_own_key_order_and_escapes(root: Path) -> None:
    name = "04.03-Errorbars.indent2-ascii.ipynb"
    path = copy(name, root)
    before = path.read_text(encoding="ascii")
    Workspace([root]).safe_edit(
        name,
        search_replace={"search": "dy = 0.8", "replace": "dy = 0.8  # \u00b1"},
        cell=4,
        clear_outputs=True,
    )
    after = path.read_text(encoding="ascii")
    cells = json.loads(after)["cells"]
    assert cells[4]["outputs"] == []
    assert cells[4]["execution_count"] is None
    assert list(cells[4]) == list(json.loads(before)["cells"][4])  # the file's key order
    assert "dy = 0.8  # \\u00b1" in after
    # Before the edited cell and after it, nothing moved.
    first = read_notebook(before, name).cells[4]
    assert after[: first.start] == before[: first.start]
    assert after[len(after) - (len(before) - first.end) :] == before[first.end :]
    assert_valid(after)
