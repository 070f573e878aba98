"""Every guarantee editguard gives a file holds for a notebook: a tool that changes its JSON as
text (write_file, apply_patch, apply_diff) leaves a valid notebook or nothing, a notebook invalid as
found is refused as found, undo restores it byte for byte, a batch lands a notebook and a module
together or neither (a commit failing or killed half-way included), the sandbox holds, and a
hostile ``cell`` or a hostile JSON gets a coded refusal, never a traceback or a partial write."""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from editguard import EditError, Workspace

from .conformance import conformance
from .conftest import Snapshot, cli, no_temp_files, set_old_mtime
from .crashes import Faults, Tree, in_child, leftovers, outcome, workspace

NOTEBOOKS = conformance("notebooks") or Path("/nonexistent")
ERRORBARS = "04.03-Errorbars.ipynb"


def _need(name: str) -> Path:
    path = NOTEBOOKS / name
    if not path.is_file():
        pytest.skip(f"{path} is not here")
    return path


def _copy(root: Path, name: str) -> Path:
    """A conformance notebook copied into ``root`` (its mtime in the past)."""
    path = root / name
    shutil.copyfile(_need(name), path)
    set_old_mtime(path)
    return path


def cell(source: list[str], cell_id: str = "c0", **more: Any) -> dict[str, Any]:
    """A code cell of nbformat 4.5, never run."""
    out: dict[str, Any] = {
        "cell_type": "code",
        "execution_count": None,
        "id": cell_id,
        "metadata": {},
        "outputs": [],
        "source": source,
    }
    out.update(more)
    return out


def notebook(cells: list[dict[str, Any]]) -> str:
    """A notebook of nbformat 4.5 as Jupyter writes it."""
    data = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


SMALL = notebook([cell(["x = 1\n", "y = 2"]), cell(["print(x)"], "c1")])


def _refused(code: str, call: Callable[[], object], *paths: Path) -> EditError:
    """``call()`` must fail with ``code`` and leave ``paths`` exactly as they were."""
    before = [Snapshot.of(p) if p.exists() else None for p in paths]
    with pytest.raises(EditError) as caught:
        call()
    assert caught.value.code == code, caught.value.message
    assert [Snapshot.of(p) if p.exists() else None for p in paths] == before
    for path in paths:
        assert no_temp_files(path.parent)
    return caught.value


# -- tools that change the whole JSON as text -------------------------------------------------


def _context_patch(path: Path, line_no: int, new_line: str) -> tuple[str, str]:
    """A Codex patch and a unified diff that replace line ``line_no`` (1-based) of ``path``,
    with three lines of context each side (enough to be unique in a notebook's JSON)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    lo, hi = max(0, line_no - 4), min(len(lines), line_no + 3)
    before, old, after = lines[lo : line_no - 1], lines[line_no - 1], lines[line_no:hi]
    body = [f" {ln}" for ln in before] + [f"-{old}", f"+{new_line}"] + [f" {ln}" for ln in after]
    patch = f"*** Begin Patch\n*** Update File: {path.name}\n@@\n" + "\n".join(body)
    count = len(before) + 1 + len(after)
    diff = (
        f"--- a/{path.name}\n+++ b/{path.name}\n@@ -{lo + 1},{count} +{lo + 1},{count} @@\n"
        + "\n".join(body)
        + "\n"
    )
    return patch + "\n*** End Patch\n", diff


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(n for n, ln in enumerate(lines, 1) if needle in ln)


@pytest.mark.parametrize("tool", ["apply_patch", "apply_diff"])
@pytest.mark.parametrize("breakage", ["lost comma", "unescaped quote"])
def test_a_patch_that_breaks_the_json_is_refused_and_writes_nothing(
    ws: Workspace, root: Path, tool: str, breakage: str
) -> None:
    path = _copy(root, ERRORBARS)
    if breakage == "lost comma":
        at = _line_of(path, '"cell_type": "markdown",')
        new = path.read_text(encoding="utf-8").split("\n")[at - 1].rstrip(",")
    else:
        at = _line_of(path, "plt.style.use")
        new = '    "plt.style.use("seaborn-whitegrid")\\n",'
    patch, diff = _context_patch(path, at, new)
    error = _refused(
        "INVALID_NOTEBOOK",
        lambda: ws.apply_patch(patch) if tool == "apply_patch" else ws.apply_diff(diff),
        path,
    )
    assert error.data["as_found"] is False
    assert error.data["line"] == at + (breakage == "lost comma")  # where the JSON breaks


@pytest.mark.parametrize("tool", ["safe_edit", "edit_lines", "write_file"])
# edit_lines numbers lines within a cell, so it needs one: without it, its lines of the JSON are
# refused (INVALID_REQUEST), never written.
def test_every_tool_that_writes_the_json_as_text_is_held_to_the_check(
    ws: Workspace, root: Path, tool: str
) -> None:
    path = root / "a.ipynb"
    path.write_text(SMALL, encoding="utf-8")
    set_old_mtime(path)
    broken = SMALL.replace('"id": "c1",', '"id": "c1"', 1)  # a lost comma
    line = SMALL.split("\n").index('   "id": "c1",') + 1
    calls = {
        "safe_edit": lambda: ws.safe_edit("a.ipynb", content=broken),
        "edit_lines": lambda: ws.edit_lines(
            "a.ipynb", [{"type": "replace", "line_number": line, "text": '   "id": "c1"'}]
        ),
        "write_file": lambda: ws.write_file("a.ipynb", broken),
    }
    if tool == "edit_lines":
        _refused("INVALID_REQUEST", calls[tool], path)
        return
    error = _refused("INVALID_NOTEBOOK", calls[tool], path)
    assert (error.data["as_found"], error.data["line"]) == (False, line + 1)


def test_a_patch_that_adds_an_invalid_notebook_changes_no_file(ws: Workspace, root: Path) -> None:
    module = root / "m.py"
    module.write_text(MODULE, encoding="utf-8")
    set_old_mtime(module)
    update = "*** Update File: m.py\n@@\n-    return 1\n+    return 2\n"

    def adding(name: str, text: str) -> str:
        lines = "".join(f"+{line}\n" for line in text.rstrip("\n").split("\n"))
        return f"*** Begin Patch\n*** Add File: {name}\n{lines}{update}*** End Patch\n"

    error = _refused("INVALID_NOTEBOOK", lambda: ws.apply_patch(adding("b.ipynb", "{}")), module)
    assert error.data["as_found"] is False
    assert not (root / "b.ipynb").exists()
    diff = "--- /dev/null\n+++ b/n.ipynb\n@@ -0,0 +1,1 @@\n+{}\n"
    _refused("INVALID_NOTEBOOK", lambda: ws.apply_diff(diff), module)
    assert not (root / "n.ipynb").exists()
    assert ws.apply_patch(adding("g.ipynb", SMALL)).written
    assert (root / "g.ipynb").read_text(encoding="utf-8") == SMALL
    assert module.read_text(encoding="utf-8") == MODULE.replace("1", "2")
    # Deleting a notebook is deleting a file: nothing to check.
    assert ws.apply_patch("*** Begin Patch\n*** Delete File: g.ipynb\n*** End Patch\n").written
    assert not (root / "g.ipynb").exists()


def test_a_patch_that_keeps_the_json_valid_lands(ws: Workspace, root: Path) -> None:
    path = _copy(root, ERRORBARS)
    at = _line_of(path, "plt.style.use")
    old = path.read_text(encoding="utf-8")
    new_line = old.split("\n")[at - 1].replace("plt.style.use", "plt.style.use  ")
    patch, _ = _context_patch(path, at, new_line)
    assert ws.apply_patch(patch).written
    lines = old.split("\n")
    lines[at - 1] = new_line
    assert path.read_text(encoding="utf-8") == "\n".join(lines)


def test_write_file_of_a_notebook_with_a_duplicate_id_is_refused(ws: Workspace, root: Path) -> None:
    path = root / "a.ipynb"
    path.write_text(SMALL, encoding="utf-8")
    twice = notebook([cell(["x = 1"], "same"), cell(["y = 2"], "same")])
    error = _refused("INVALID_NOTEBOOK", lambda: ws.write_file("a.ipynb", twice), path)
    assert error.data["where"] == "cells[0].id"
    assert error.data["as_found"] is False


def test_write_file_of_a_new_valid_notebook_creates_it(ws: Workspace, root: Path) -> None:
    result = ws.write_file("new/made.ipynb", SMALL)
    assert result.written
    assert (root / "new/made.ipynb").read_text(encoding="utf-8") == SMALL


@pytest.mark.parametrize(
    "content",
    ["{}", "not json", notebook([cell(["x"], "$bad")]), SMALL[:-3], SMALL + "}"],
    ids=["empty object", "not json", "bad id", "cut short", "trailing brace"],
)
def test_write_file_of_a_new_invalid_notebook_creates_nothing(
    ws: Workspace, root: Path, content: str
) -> None:
    error = _refused("INVALID_NOTEBOOK", lambda: ws.write_file("new/bad.ipynb", content))
    assert error.data["as_found"] is False
    assert not (root / "new").exists()


def test_write_file_may_create_an_empty_notebook_file_but_not_empty_a_notebook(
    ws: Workspace, root: Path
) -> None:
    # An empty .ipynb is no notebook yet (`touch`, or VS Code's new notebook before its first
    # save, which opens one as an empty notebook): made as asked. A notebook emptied is refused.
    assert ws.write_file("empty.ipynb", "").written
    assert (root / "empty.ipynb").read_bytes() == b""
    (root / "a.ipynb").write_text(SMALL, encoding="utf-8")
    _refused("INVALID_NOTEBOOK", lambda: ws.write_file("a.ipynb", ""), root / "a.ipynb")
    # The empty file gets its first content whole, checked as any notebook.
    _refused("INVALID_NOTEBOOK", lambda: ws.write_file("empty.ipynb", "{}"), root / "empty.ipynb")
    assert ws.write_file("empty.ipynb", SMALL).written


@pytest.mark.parametrize("name", ["nbformat-invalid.ipynb", "nbformat-invalid_cell_id.ipynb"])
def test_an_invalid_notebook_is_refused_as_found_until_a_write_repairs_it(
    ws: Workspace, root: Path, name: str
) -> None:
    path = _copy(root, name)
    text = path.read_text(encoding="utf-8")
    edits = [{"old_text": "a", "new_text": "b"}]
    error = _refused("INVALID_NOTEBOOK", lambda: ws.edit_file(name, edits, cell=0), path)
    assert error.data["as_found"] is True
    # Without `cell` too: the notebook is refused before any cell is tried.
    _refused("INVALID_NOTEBOOK", lambda: ws.edit_file(name, edits), path)
    # A write that leaves it invalid (here: one more line at the end) is refused as found.
    error = _refused("INVALID_NOTEBOOK", lambda: ws.write_file(name, text + "\n"), path)
    assert error.data["as_found"] is True
    # One that repairs it lands.
    data = json.loads(text)
    data["nbformat_minor"] = 5
    data["cells"] = [cell(["x = 1"], "fixed")]
    repaired = json.dumps(data, indent=1) + "\n"
    assert ws.write_file(name, repaired).written
    assert path.read_text(encoding="utf-8") == repaired


def test_a_patch_that_repairs_an_invalid_notebook_lands(ws: Workspace, root: Path) -> None:
    name = "nbformat-invalid_cell_id.ipynb"
    path = _copy(root, name)
    text = path.read_text(encoding="utf-8")
    at = _line_of(path, "$illegal_chars")
    line = text.split("\n")[at - 1]
    _, diff = _context_patch(path, at, line.replace("$illegal_chars", "still$bad"))
    _refused("INVALID_NOTEBOOK", lambda: ws.apply_diff(diff), path)
    _, diff = _context_patch(path, at, line.replace("$illegal_chars", "legal-id"))
    assert ws.apply_diff(diff).written
    assert path.read_text(encoding="utf-8") == text.replace("$illegal_chars", "legal-id")


def test_move_file_and_create_directory_treat_a_notebook_as_any_file(
    ws: Workspace, root: Path
) -> None:
    path = _copy(root, "nbformat-invalid.ipynb")  # moved as it is, invalid or not
    data = path.read_bytes()
    assert ws.move_file("nbformat-invalid.ipynb", "sub/moved.ipynb").written
    assert (root / "sub/moved.ipynb").read_bytes() == data
    assert not path.exists()
    ws.create_directory("folder.ipynb")
    assert (root / "folder.ipynb").is_dir()
    ws.undo()
    ws.undo()
    assert path.read_bytes() == data
    assert not (root / "folder.ipynb").exists()


# -- history and undo ------------------------------------------------------------------------


def test_undo_of_a_cell_edit_restores_the_notebook_byte_for_byte(ws: Workspace, root: Path) -> None:
    path = _copy(root, "02.07-Fancy-Indexing.ipynb")
    before = path.read_bytes()
    edited = ws.edit_file(
        path.name, [{"old_text": "import numpy as np", "new_text": "import numpy"}], cell=3
    )
    assert edited.written
    after = path.read_bytes()
    assert after != before
    changes = ws.history(path.name).changes
    assert changes[0].tool == "edit_file"
    assert [f.path for f in changes[0].files] == [path.name]
    assert "-import numpy as np" in (
        ws.history(change_id=changes[0].id).changes[0].files[0].diff or ""
    )
    undone = ws.undo()
    assert undone.undone == [changes[0].id]
    assert path.read_bytes() == before
    # Undo of the undo is a redo: the edited bytes again, then back.
    assert undone.change_id is not None
    ws.undo(undone.change_id)
    assert path.read_bytes() == after
    ws.undo()
    assert path.read_bytes() == before


def test_undo_steps_back_over_several_cell_edits_and_a_write(ws: Workspace, root: Path) -> None:
    path = root / "a.ipynb"
    path.write_text(SMALL, encoding="utf-8")
    states = [path.read_bytes()]
    ws.edit_file("a.ipynb", [{"old_text": "y = 2", "new_text": "y = 3"}], cell="c0")
    states.append(path.read_bytes())
    ws.edit_file("a.ipynb", [{"old_text": "print(x)", "new_text": "print(y)"}], cell=1)
    states.append(path.read_bytes())
    ws.write_file("a.ipynb", notebook([cell(["z = 0"])]))
    states.append(path.read_bytes())
    assert len(set(states)) == 4
    for want in reversed(states[:-1]):
        ws.undo(path="a.ipynb")
        assert path.read_bytes() == want


def test_undo_of_a_structural_edit_and_a_batch_restores_the_notebook(
    ws: Workspace, root: Path
) -> None:
    path = _copy(root, "nbformat-test4.5.ipynb")
    (root / "mod.py").write_text(MODULE, encoding="utf-8")
    before = path.read_bytes()
    ws.edit_notebook(
        path.name,
        [
            {"op": "insert", "cell_type": "code", "source": "y = 2", "after": 3},
            {"op": "move", "cell": 0, "before": -1},
            {"op": "delete", "cell": 1},
        ],
    )
    moved = path.read_bytes()
    ws.batch(
        [
            {
                "tool": "edit_file",
                "arguments": {
                    "path": path.name,
                    "cell": "38f37a24",
                    "edits": [{"old_text": "import", "new_text": "import  "}],
                },
            },
            _module_call("return 1", "return 2"),
        ]
    )
    assert len({before, moved, path.read_bytes()}) == 3
    ws.undo()
    assert (path.read_bytes(), (root / "mod.py").read_text(encoding="utf-8")) == (moved, MODULE)
    ws.undo()
    assert path.read_bytes() == before


def test_an_undo_through_the_cli_restores_the_notebook(root: Path) -> None:
    path = _copy(root, "nbformat-test4.5.ipynb")
    before = path.read_bytes()
    args = {
        "path": path.name,
        "cell": "38f37a24",
        "edits": [{"old_text": "import", "new_text": "import  "}],
    }
    code, out = cli(root, "edit_file", args)
    assert (code, out["written"], out["cell_id"]) == (0, True, "38f37a24")
    assert path.read_bytes() != before
    code, out = cli(root, "history", {"path": path.name})
    assert (code, out["changes"][0]["tool"]) == (0, "edit_file")
    code, out = cli(root, "undo", {})
    assert (code, out["written"]) == (0, True)
    assert path.read_bytes() == before


# -- batch and transactions ------------------------------------------------------------------

MODULE = "def f():\n    return 1\n"


def _pair(root: Path) -> tuple[Path, Path]:
    (root / "a.ipynb").write_text(SMALL, encoding="utf-8")
    (root / "mod.py").write_text(MODULE, encoding="utf-8")
    for p in (root / "a.ipynb", root / "mod.py"):
        set_old_mtime(p)
    return root / "a.ipynb", root / "mod.py"


def _cell_call(old: str, new: str) -> dict[str, Any]:
    return {
        "tool": "edit_file",
        "arguments": {
            "path": "a.ipynb",
            "cell": "c0",
            "edits": [{"old_text": old, "new_text": new}],
        },
    }


def _module_call(old: str, new: str) -> dict[str, Any]:
    return {
        "tool": "edit_file",
        "arguments": {"path": "mod.py", "edits": [{"old_text": old, "new_text": new}]},
    }


def test_a_batch_changes_a_notebook_cell_and_a_module_together(ws: Workspace, root: Path) -> None:
    nb, mod = _pair(root)
    result = ws.batch([_cell_call("y = 2", "y = f()"), _module_call("return 1", "return 2")])
    assert result.written
    assert json.loads(nb.read_text(encoding="utf-8"))["cells"][0]["source"] == [
        "x = 1\n",
        "y = f()",
    ]
    assert mod.read_text(encoding="utf-8") == MODULE.replace("1", "2")
    # One history entry for both, and one undo takes both back.
    assert {f.path for f in ws.history().changes[0].files} == {"a.ipynb", "mod.py"}
    ws.undo()
    assert (nb.read_text(encoding="utf-8"), mod.read_text(encoding="utf-8")) == (SMALL, MODULE)


@pytest.mark.parametrize(
    ("calls", "code"),
    [
        (
            [_cell_call("y = 2", "y = 3"), _module_call("return 1", "return (1")],
            "VALIDATION_FAILED",
        ),
        ([_module_call("return 1", "return 2"), _cell_call("y = 2", "y = (")], "VALIDATION_FAILED"),
        ([_module_call("return 1", "return 2"), _cell_call("no such text", "y")], "NO_MATCH"),
    ],
    ids=["module breaks", "cell breaks", "cell has no match"],
)
def test_a_batch_with_a_failing_call_leaves_notebook_and_module_as_they_were(
    ws: Workspace, root: Path, calls: list[dict[str, Any]], code: str
) -> None:
    nb, mod = _pair(root)
    error = _refused(code, lambda: ws.batch(calls), nb, mod)
    assert error.data["call"] == 1


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> Faults:
    """Every journal system call wrapped: counted, and failing on demand."""
    return Faults().install(monkeypatch.setattr)


def _batch_of_two(root: Path, journals: Path) -> None:
    workspace(root, journals).batch(
        [_cell_call("y = 2", "y = f()"), _module_call("return 1", "return 2")]
    )


def test_a_write_failing_at_any_step_of_the_commit_leaves_both_files(
    tmp_path: Path, faults: Faults
) -> None:
    # The fault (a disk refusing a write, rename or fsync) cannot be made on demand on a real
    # disk: it is injected into the journal's system calls, as tests/test_journal.py does.
    count_root, count_journal = tmp_path / "count", tmp_path / "count-journal"
    count_root.mkdir()
    _pair(count_root)
    faults.fail("none", 0, 0)
    _batch_of_two(count_root, count_journal)
    reached = dict(faults.calls)
    steps = [(call, at) for call, n in reached.items() for at in range(1, n + 1)]
    assert len(steps) > 5
    for call, at in steps:
        root, journals = tmp_path / f"{call}{at}", tmp_path / f"{call}{at}-journal"
        root.mkdir()
        _pair(root)
        old = Tree.of(root)
        faults.fail(call, at, errno.EIO)
        with pytest.raises(EditError) as caught:
            _batch_of_two(root, journals)
        faults.off()
        assert caught.value.code == "WRITE_FAILED", f"{call} #{at}"
        assert Tree.of(root) == old, f"{call} #{at}"
        assert leftovers(root, journals) == [], f"{call} #{at}"


@pytest.mark.slow
def test_a_batch_killed_at_any_step_of_its_commit_is_all_old_or_all_new(tmp_path: Path) -> None:
    ref_root, ref_journal = tmp_path / "ref", tmp_path / "ref-journal"
    ref_root.mkdir()
    _pair(ref_root)
    _batch_of_two(ref_root, ref_journal)
    new = Tree.of(ref_root)
    seen = {"old": 0, "new": 0}
    at = 1
    while True:
        root, journals = tmp_path / f"{at}", tmp_path / f"{at}-journal"
        root.mkdir()
        _pair(root)
        old = Tree.of(root)
        killed = in_child(functools.partial(_batch_of_two, root, journals), kill_at=at)
        workspace(root, journals)  # the next start recovers
        state = outcome(root, old, new)
        assert state != "mixed", f"killed before journal call {at}"
        assert leftovers(root, journals) == [], f"killed before journal call {at}"
        if not killed:
            break
        seen[state] += 1
        at += 1
    assert seen["old"] > 3
    assert seen["new"] >= 1


# -- the sandbox -----------------------------------------------------------------------------


def test_a_notebook_outside_the_roots_is_refused(tmp_path: Path, root: Path) -> None:
    outside = tmp_path / "outside.ipynb"
    outside.write_text(SMALL, encoding="utf-8")
    ws = Workspace([root])
    edits = [{"old_text": "y = 2", "new_text": "y = 3"}]
    _refused("OUTSIDE_ROOT", lambda: ws.edit_file(str(outside), edits, cell=0), outside)
    _refused("OUTSIDE_ROOT", lambda: ws.edit_file("../outside.ipynb", edits, cell=0), outside)
    _refused("OUTSIDE_ROOT", lambda: ws.write_file("../outside.ipynb", SMALL), outside)


def test_a_notebook_reached_through_a_symlink_to_outside_is_refused(
    tmp_path: Path, root: Path
) -> None:
    outside = tmp_path / "outside.ipynb"
    outside.write_text(SMALL, encoding="utf-8")
    (root / "link.ipynb").symlink_to(outside)
    (tmp_path / "dir").mkdir()
    (root / "dirlink").symlink_to(tmp_path / "dir")
    ws = Workspace([root])
    edits = [{"old_text": "y = 2", "new_text": "y = 3"}]
    _refused("OUTSIDE_ROOT", lambda: ws.edit_file("link.ipynb", edits, cell=0), outside)
    _refused("OUTSIDE_ROOT", lambda: ws.read_file("link.ipynb"), outside)
    _refused("OUTSIDE_ROOT", lambda: ws.write_file("dirlink/new.ipynb", SMALL))
    assert not (tmp_path / "dir/new.ipynb").exists()


def test_a_notebook_in_editguards_state_folder_is_out_of_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    state = home / ".local/state/editguard"
    (state / "history").mkdir(parents=True)
    monkeypatch.delenv("EDITGUARD_JOURNAL", raising=False)
    monkeypatch.delenv("EDITGUARD_HISTORY", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local/state"))
    planted = state / "history/planted.ipynb"
    planted.write_text(SMALL, encoding="utf-8")
    ws = Workspace([home])
    name = ".local/state/editguard/history/planted.ipynb"
    edits = [{"old_text": "y = 2", "new_text": "y = 3"}]
    for call in (
        lambda: ws.edit_file(name, edits, cell=0),
        lambda: ws.edit_file(name, edits),
        lambda: ws.write_file(name, SMALL.replace("y = 2", "y = 3")),
        lambda: ws.write_file(".local/state/editguard/history/new.ipynb", SMALL),
        lambda: ws.read_file(name),
    ):
        error = _refused("OUTSIDE_ROOT", call, planted)
        assert error.data["reason"] == "editguard_state"
    assert not (state / "history/new.ipynb").exists()


# -- hostile arguments -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "code"),
    [
        ("x" * 1_000_000, "CELL_NOT_FOUND"),
        (-3, "CELL_NOT_FOUND"),
        (2, "CELL_NOT_FOUND"),
        (2**70, "CELL_NOT_FOUND"),
        ("001", "CELL_NOT_FOUND"),
        (" 1", "CELL_NOT_FOUND"),
        ("+1", "CELL_NOT_FOUND"),
        ("1e0", "CELL_NOT_FOUND"),
        ("\u00b9", "CELL_NOT_FOUND"),  # a superscript one: str.isdigit() holds, int() raises
        ("\u0661", "CELL_NOT_FOUND"),  # an Arabic-Indic one: int() reads it, no cell is named so
        ("../c0", "CELL_NOT_FOUND"),
        ("c0\x00", "CELL_NOT_FOUND"),
        ("", "CELL_NOT_FOUND"),
        (True, "INVALID_REQUEST"),
        (False, "INVALID_REQUEST"),
        (1.0, "INVALID_REQUEST"),
        ([0], "INVALID_REQUEST"),
        ({"id": "c0"}, "INVALID_REQUEST"),
    ],
    ids=lambda v: repr(v)[:12],
)
def test_a_hostile_cell_argument_is_a_coded_refusal(
    ws: Workspace, root: Path, ref: Any, code: str
) -> None:
    path = root / "a.ipynb"
    path.write_text(SMALL, encoding="utf-8")
    edits = [{"old_text": "x", "new_text": "z"}]
    error = _refused(
        code, lambda: ws.call("edit_file", path="a.ipynb", edits=edits, cell=ref), path
    )
    assert len(error.message) < 2000
    if code == "CELL_NOT_FOUND":
        assert [c["index"] for c in error.data["cells"]] == [0, 1]


CELL_TOOLS: dict[str, dict[str, Any]] = {
    "edit_file": {"edits": [{"old_text": "x = 1", "new_text": "x = 2"}], "dry_run": True},
    "edit_lines": {
        "edits": [{"type": "replace", "line_number": 1, "text": "x = 2"}],
        "dry_run": True,
    },
    "safe_edit": {"search_replace": {"search": "x = 1", "replace": "x = 2"}, "mode": "verify_only"},
    "edit_symbol": {"symbol": "f", "new_body": "    return 3", "dry_run": True},
    "edit_snippet": {"snippet": "def f():\n    return 5\n", "dry_run": True},
    "list_symbols": {},
}


@pytest.mark.parametrize("tool", list(CELL_TOOLS))
def test_every_tool_that_takes_a_cell_refuses_a_hostile_one_with_a_code(
    ws: Workspace, root: Path, tool: str
) -> None:
    path = root / "a.ipynb"
    path.write_text(notebook([cell(["x = 1\n", "def f():\n", "    return 1"])]))
    for ref, code in [
        ("x" * 1_000_000, "CELL_NOT_FOUND"),
        ("001", "CELL_NOT_FOUND"),
        ("\u00b9", "CELL_NOT_FOUND"),
        (-5, "CELL_NOT_FOUND"),
        ("c0\x00", "CELL_NOT_FOUND"),
        (True, "INVALID_REQUEST"),
    ]:
        call = functools.partial(ws.call, tool, path="a.ipynb", cell=ref, **CELL_TOOLS[tool])
        error = _refused(code, call, path)
        assert len(error.message) < 2000, repr(ref)[:20]


@pytest.mark.parametrize(("ref", "index"), [(1, 1), (-1, 1), ("1", 1), ("-2", 0), ("c1", 1)])
def test_a_cell_named_as_an_index_or_an_id_is_found(
    ws: Workspace, root: Path, ref: Any, index: int
) -> None:
    (root / "a.ipynb").write_text(SMALL, encoding="utf-8")
    result = ws.edit_file("a.ipynb", [{"old_text": "x", "new_text": "z"}], cell=ref, dry_run=True)
    assert result.cell == index


def test_an_id_made_of_digits_is_the_id_before_the_index(ws: Workspace, root: Path) -> None:
    (root / "a.ipynb").write_text(
        notebook([cell(["a = 0"], "1"), cell(["a = 1"], "0")]), encoding="utf-8"
    )
    result = ws.edit_file("a.ipynb", [{"old_text": "a", "new_text": "b"}], cell="1", dry_run=True)
    assert (result.cell, result.cell_id) == (0, "1")
    result = ws.edit_file("a.ipynb", [{"old_text": "a", "new_text": "b"}], cell=1, dry_run=True)
    assert (result.cell, result.cell_id) == (1, "0")


def test_without_cell_text_twice_in_one_cell_and_once_in_another_is_no_unique_place(
    ws: Workspace, root: Path
) -> None:
    # The edit would fit cell 1 alone (cell 0 has the text twice, occurrences is 1): landing
    # there would be a guess between three places.
    path = root / "a.ipynb"
    path.write_text(
        notebook([cell(["x = 1\n", "x = 1"], "c0"), cell(["x = 1\n", "y = 2"], "c1")]),
        encoding="utf-8",
    )
    edits = [{"old_text": "x = 1", "new_text": "x = 9"}]
    error = _refused("AMBIGUOUS_MATCH", lambda: ws.edit_file("a.ipynb", edits), path)
    assert [c["id"] for c in error.data["cells"]] == ["c0", "c1"]
    # Twice in one cell and nowhere else: that cell's own refusal, naming the cell.
    path.write_text(notebook([cell(["x = 1\n", "x = 1"], "c0"), cell(["y = 2"], "c1")]))
    error = _refused("WRONG_COUNT", lambda: ws.edit_file("a.ipynb", edits), path)
    assert (error.data["cell"], error.data["cell_id"]) == (0, "c0")
    # Once in one cell and nowhere else: it lands there, and says so.
    path.write_text(notebook([cell(["x = 1\n", "z = 1"], "c0"), cell(["y = 2"], "c1")]))
    result = ws.edit_file("a.ipynb", edits)
    assert (result.written, result.cell, result.cell_id) == (True, 0, "c0")


@pytest.mark.parametrize(
    "first",
    [
        ["def f():\n", "    return 1\n", "\n", "def f():\n", "    return 2\n"],
        ["def f():\n", "    return 1\n"],
    ],
    ids=["twice in the first cell", "once, without the chunk"],
)
def test_without_cell_a_symbol_defined_in_two_cells_is_no_unique_place(
    ws: Workspace, root: Path, first: list[str]
) -> None:
    # As in one file that defines f more than once: AMBIGUOUS, though the chunk fits cell 1 only.
    path = root / "a.ipynb"
    path.write_text(notebook([cell(first, "c0"), cell(["def f():\n", "    return 3\n"], "c1")]))
    chunks = [{"old_lines": ["    return 3"], "new_lines": ["    return 4"]}]
    error = _refused("AMBIGUOUS_MATCH", lambda: ws.edit_symbol("a.ipynb", "f", chunks=chunks), path)
    assert [c["id"] for c in error.data["cells"]] == ["c0", "c1"]
    assert ws.edit_symbol("a.ipynb", "f", chunks=chunks, cell="c1").written


def test_text_in_many_cells_is_refused_naming_a_few_and_counting_all(
    ws: Workspace, root: Path
) -> None:
    path = root / "a.ipynb"
    path.write_text(notebook([cell(["x = 1"], f"c{n}") for n in range(300)]), encoding="utf-8")
    edits = [{"old_text": "x = 1", "new_text": "x = 2"}]
    error = _refused("AMBIGUOUS_MATCH", lambda: ws.edit_file("a.ipynb", edits), path)
    assert error.data["count"] == 300
    assert [c["id"] for c in error.data["cells"]] == [f"c{n}" for n in range(50)]
    assert "and 290 more" in error.message
    assert len(error.message) < 1000


# -- hostile JSON ----------------------------------------------------------------------------

BASE = notebook([cell(["x = 1\n", "y = 2"])])
DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE = {
    "deep nesting": BASE.replace('"metadata": {}', '"metadata": {"a": ' + DEEP + "}", 1),
    "duplicated key": BASE.replace(
        '"cell_type": "code",', '"cell_type": "code",\n   "cell_type": "raw",'
    ),
    "duplicated top key": BASE.replace('"nbformat": 4,', '"nbformat": 4,\n "nbformat": 3,'),
    "trailing garbage": BASE + "}garbage",
    "no cells": '{"metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
    "cells not a list": '{"cells": {}, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
    "a cell not an object": '{"cells": [1], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
    "a JSON list": "[]",
    "nbformat 3": BASE.replace('"nbformat": 4', '"nbformat": 3'),
    "nbformat 5": BASE.replace('"nbformat": 4', '"nbformat": 5'),
    "nbformat a string": BASE.replace('"nbformat": 4', '"nbformat": "4"'),
    "a negative minor": BASE.replace('"nbformat_minor": 5', '"nbformat_minor": -1'),
    "metadata a list": BASE.replace('"metadata": {},\n "nbformat"', '"metadata": [],\n "nbformat"'),
    "a number in a source": BASE.replace('"y = 2"', "2"),
    "a string not closed": BASE.replace('"y = 2"', '"y = 2'),
    "a lone surrogate escape": BASE.replace('"y = 2"', '"y = \\udc00"').replace(
        "x = 1", "x = \\ud800"
    ),
}


def _surrogates_kept(before: str, after: str) -> None:
    json.loads(after)  # still JSON, the escapes kept as escapes (no lone surrogate written raw)
    assert "\\ud800" in after
    assert "\\udc00" in after


def _nan_kept(before: str, after: str) -> None:
    # Python's json (and so nbformat) reads NaN: the notebook is edited, the NaN left as it was.
    assert after.count("NaN") == 1
    assert json.loads(after)["metadata"] == json.loads(before)["metadata"]


def _deep_kept(before: str, after: str) -> None:
    assert json.loads(after)["cells"][0]["metadata"] == json.loads(before)["cells"][0]["metadata"]


# The hostile notebooks that are edited (the rest are refused as found).
ACCEPTED = {
    "a lone surrogate escape": _surrogates_kept,
    "a NaN": _nan_kept,
    "nesting Python's json still reads": _deep_kept,
}
HOSTILE["a NaN"] = BASE.replace('"metadata": {}', '"metadata": {"a": NaN}', 1)
HOSTILE["nesting Python's json still reads"] = BASE.replace(
    '"metadata": {}', '"metadata": {"a": ' + "[" * 800 + "]" * 800 + "}", 1
)


@pytest.mark.parametrize("name", list(HOSTILE), ids=list(HOSTILE))
def test_a_hostile_notebook_is_refused_or_edited_never_half_written(
    ws: Workspace, root: Path, name: str
) -> None:
    path = root / "h.ipynb"
    path.write_text(HOSTILE[name], encoding="utf-8", newline="")
    set_old_mtime(path)
    calls: dict[str, Callable[[], object]] = {
        "by cell": lambda: ws.edit_file(
            "h.ipynb", [{"old_text": "x =", "new_text": "z ="}], cell=0
        ),
        "anywhere": lambda: ws.edit_file("h.ipynb", [{"old_text": "x =", "new_text": "w ="}]),
        "whole": lambda: ws.write_file("h.ipynb", HOSTILE[name] + " "),
    }
    # Reading and searching it answer, or refuse with a code (read_file and grep show a notebook
    # by cell where they can); never a traceback, and the file is untouched.
    before = path.read_bytes()
    with contextlib.suppress(EditError):
        ws.read_file("h.ipynb")
    with contextlib.suppress(EditError):
        ws.grep("x =", "h.ipynb")
    assert path.read_bytes() == before
    for how, call in calls.items():
        path.write_text(HOSTILE[name], encoding="utf-8", newline="")
        before = path.read_bytes()
        if name in ACCEPTED:
            call()
            ACCEPTED[name](before.decode(), path.read_text(encoding="utf-8"))
            continue
        with pytest.raises(EditError) as caught:
            call()
        assert caught.value.code == "INVALID_NOTEBOOK", f"{how}: {caught.value.message}"
        assert path.read_bytes() == before, how
    assert no_temp_files(root)


def test_a_notebook_with_a_bom_and_crlf_keeps_both_on_a_cell_edit(
    ws: Workspace, root: Path
) -> None:
    path = root / "h.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + BASE.replace("\n", "\r\n").encode())
    result = ws.edit_file("h.ipynb", [{"old_text": "y = 2", "new_text": "y = 3\nz = 4"}], cell=0)
    assert result.written
    want = (
        b"\xef\xbb\xbf"
        + notebook([cell(["x = 1\n", "y = 3\n", "z = 4"])]).replace("\n", "\r\n").encode()
    )
    assert path.read_bytes() == want


@pytest.mark.slow
def test_a_notebook_of_100000_cells_edits_one(ws: Workspace, root: Path) -> None:
    path = root / "many.ipynb"
    path.write_text(notebook([cell([f"x = {n}"], f"c{n}") for n in range(100_000)]))
    before = path.read_text(encoding="utf-8")
    with contextlib.suppress(EditError):
        ws.read_file("many.ipynb")
    with contextlib.suppress(EditError):
        ws.grep("x = 1", "many.ipynb")
    result = ws.edit_file("many.ipynb", [{"old_text": "x = 99998", "new_text": "y = 1"}], cell=-2)
    assert (result.written, result.cell, result.cell_id) == (True, 99_998, "c99998")
    assert path.read_text(encoding="utf-8") == before.replace('"x = 99998"', '"y = 1"')
    edits = [{"old_text": "x", "new_text": "y"}]
    error = _refused(
        "CELL_NOT_FOUND", lambda: ws.edit_file("many.ipynb", edits, cell=100_000), path
    )
    assert len(error.message) < 2000  # twenty ids named, not 100,000
    assert len(error.data["cells"]) == 50


def test_a_huge_single_line_output_stays_byte_for_byte(ws: Workspace, root: Path) -> None:
    output = {"name": "stdout", "output_type": "stream", "text": "z" * 20_000_000}
    path = root / "big.ipynb"
    path.write_text(notebook([cell(["x = 1"], outputs=[output])]), encoding="utf-8")
    before = path.read_bytes()
    with contextlib.suppress(EditError):
        ws.read_file("big.ipynb")
    with contextlib.suppress(EditError):
        ws.grep("x = 1", "big.ipynb")
    assert ws.edit_file("big.ipynb", [{"old_text": "x = 1", "new_text": "x = 2"}], cell=0).written
    assert path.read_bytes() == before.replace(b'"x = 1"', b'"x = 2"')
    # The same edit with clear_outputs empties it.
    ws.edit_file(
        "big.ipynb", [{"old_text": "x = 2", "new_text": "x = 3"}], cell=0, clear_outputs=True
    )
    assert json.loads(path.read_text(encoding="utf-8"))["cells"][0]["outputs"] == []
    assert os.path.getsize(path) < 1000
