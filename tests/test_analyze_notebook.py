"""Problems after an edit of a notebook cell (issue 26): ruff checks the notebook as a whole
(a name one cell defines is known in the cells after it; IPython magics are no syntax errors),
each problem is reported by cell with its line within the cell, and only what the edit
introduced counts: a problem of an untouched cell is not new although its JSON lines moved.
On the real notebooks of ../shared/conformance/notebooks, copied to a temporary folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from editguard import Workspace
from editguard.analyze import Problem
from editguard.analyze.notebook import cells_of, compare_cells, flat, lean
from editguard.analyze.ruff import Ruff
from tests.conformance import conformance

NOTEBOOKS = conformance("notebooks")
pytestmark = pytest.mark.skipif(NOTEBOOKS is None, reason="no conformance notebooks here")
VALID = (
    sorted(p for p in NOTEBOOKS.glob("*.ipynb") if "invalid" not in p.name)
    if NOTEBOOKS is not None
    else []
)
GAUSSIAN = "05.12-Gaussian-Mixtures.ipynb"  # cell 2 imports plt, cell 4 uses it
WITH_IDS = "nbformat-test4.5.ipynb"
MAGICS = "01.07-Timing-and-Profiling.ipynb"


def _copy(root: Path, name: str) -> Path:
    assert NOTEBOOKS is not None
    target = root / name
    shutil.copyfile(NOTEBOOKS / name, target)
    return target


def _edit(
    ws: Workspace, path: str, cell: int | str, old: str, new: str, **more: Any
) -> dict[str, Any]:
    result = ws.edit_file(path, [{"old_text": old, "new_text": new}], cell=cell, **more)
    data: dict[str, Any] = result.model_dump(mode="json")
    return data


def test_a_cell_edit_reports_its_problem_by_cell_and_line_within_it(root: Path) -> None:
    _copy(root, WITH_IDS)
    ws = Workspace([root], analyzers=["ruff"])
    out = _edit(ws, WITH_IDS, "38f37a24", 'print("hello")', 'print("hello", greeting)')
    assert out["written"]
    assert out["problems"] == [
        {
            "path": str(root / WITH_IDS),
            "line": 3,
            "column": 16,
            "analyzer": "ruff",
            "code": "F821",
            "message": "Undefined name `greeting`",
            "text": '3│print("hello", greeting)',
            "cell": 3,
            "cell_id": "38f37a24",
        }
    ]


def test_a_name_an_earlier_cell_defines_is_not_undefined(root: Path) -> None:
    _copy(root, GAUSSIAN)
    ws = Workspace([root], analyzers=["ruff"])
    # plt and np come from cell 2's imports; an unknown name beside them is the one problem.
    out = _edit(ws, GAUSSIAN, 4, "# Generate some data", "# Generate some data\nplt.figure(nope)")
    assert [(p["cell"], p["line"], p["message"]) for p in out["problems"]] == [
        (4, 2, "Undefined name `nope`")
    ]
    assert "cell_id" not in out["problems"][0]  # nbformat 4.4: cells have no id


def test_a_problem_of_an_untouched_cell_is_not_new_when_an_earlier_cell_grows(
    root: Path,
) -> None:
    _copy(root, GAUSSIAN)
    ws = Workspace([root], analyzers=["ruff"])
    first = _edit(ws, GAUSSIAN, 8, "plot_kmeans(kmeans, X)", "plot_kmeans(kmeans, X, missing)")
    assert [(p["cell"], p["message"]) for p in first["problems"]] == [
        (8, "Undefined name `missing`")
    ]
    # Ten lines more in cell 4: every JSON line of cell 8 moves; its problem is not new.
    grown = _edit(ws, GAUSSIAN, 4, "# Generate some data", "# Generate some data" + "\n#" * 10)
    assert grown["problems"] == []
    assert grown["problems_fixed"] == 0
    fixed = _edit(ws, GAUSSIAN, 8, "plot_kmeans(kmeans, X, missing)", "plot_kmeans(kmeans, X)")
    assert fixed["problems"] == []
    assert fixed["problems_fixed"] == 1


def test_magics_and_shell_escapes_are_no_syntax_errors(root: Path) -> None:
    _copy(root, MAGICS)
    ws = Workspace([root], analyzers=["ruff"])
    out = _edit(ws, MAGICS, 7, "%timeit L.sort()", "%timeit L.sort()\n!ls\nfiles = !ls\nL?")
    assert out["problems"] == []
    # A real syntax error is still one (written with warnings: the guard refuses it in strict).
    broken = _edit(
        ws, MAGICS, 10, "%time L.sort()", "%time L.sort()\nif True print(L)", mode="interactive"
    )
    assert [(p["cell"], p["line"], p["code"]) for p in broken["problems"]] == [
        (10, 3, "invalid-syntax")
    ]


def test_diagnostics_of_a_notebook_gives_its_problems_by_cell(root: Path) -> None:
    path = _copy(root, WITH_IDS)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cells"][8]["source"] = ["import os\n", "print(undefined)"]
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    ws = Workspace([root], analyzers=["ruff"])
    out = ws.call("diagnostics", path=WITH_IDS).model_dump(mode="json")
    assert [(p["cell"], p.get("cell_id"), p["line"], p["text"]) for p in out["problems"]] == [
        (8, "8b414a68", 1, "1│import os"),
        (8, "8b414a68", 2, "2│print(undefined)"),
    ]


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_the_notebook_without_outputs_has_the_problems_of_the_file(path: Path, root: Path) -> None:
    """What the analyzers are given (no outputs) gives ruff's findings on the file itself:
    the same cells, numbered the same, at the same lines."""
    ruff = Ruff()
    text = path.read_text(encoding="utf-8")
    target = root / path.name
    target.write_text(text, encoding="utf-8")
    on_disk = ruff.current(str(root), [str(target)]).after[str(target)]
    slim = lean(text)
    assert len(slim) < len(text) or "outputs" not in text
    found, note = ruff._check(str(root), str(target), slim)
    assert note is None
    assert sorted(found, key=str) == sorted(on_disk, key=str)
    assert on_disk or path.name != MAGICS  # the magics notebook has problems to compare


def _p(cell: int, line: int, message: str = "Undefined name `x`") -> Problem:
    return Problem("/n.ipynb", line, 1, "ruff", "F821", message, cell=cell)


def _nb(*sources: str) -> str:
    cells: list[dict[str, Any]] = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "source": s, "execution_count": None}
        for s in sources
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4})


@pytest.mark.parametrize(
    ("old", "new", "before", "after", "new_problems", "fixed"),
    [
        # Cell 0 grew: cell 1's problem is the same one.
        (("a", "print(x)"), ("a\nb\nc", "print(x)"), [_p(1, 1)], [_p(1, 1)], [], []),
        # A cell inserted before it: it is cell 2 now, still the same problem.
        (("a", "print(x)"), ("a", "new", "print(x)"), [_p(1, 1)], [_p(2, 1)], [], []),
        # The same line in another cell: a new problem there.
        (("print(x)", "b"), ("print(x)", "b\nprint(x)"), [_p(0, 1)], [_p(0, 1), _p(1, 2)],
         [_p(1, 2)], []),
        # The cell deleted: its problem is fixed.
        (("a", "print(x)"), ("a",), [_p(1, 1)], [], [], [_p(1, 1)]),
    ],
)  # fmt: skip
def test_problems_are_paired_across_a_cell_edit(
    old: tuple[str, ...],
    new: tuple[str, ...],
    before: list[Problem],
    after: list[Problem],
    new_problems: list[Problem],
    fixed: list[Problem],
) -> None:
    assert compare_cells(before, after, _nb(*old), _nb(*new)) == (new_problems, fixed)


def test_the_flat_text_puts_each_cell_line_at_its_place() -> None:
    cells = cells_of(_nb("a\nb\n", "", "c\nd"))
    assert cells is not None
    laid = flat(cells)
    lines = laid.text.split("\n")
    for cell in cells:
        for n, line in enumerate(cell.source.split("\n"), 1):
            assert lines[laid.line_of(_p(cell.index, n)).line - 1] == line


def test_edit_notebook_reports_an_inserted_cells_problem_and_not_the_one_it_moved(
    root: Path,
) -> None:
    _copy(root, WITH_IDS)
    ws = Workspace([root], analyzers=["ruff"])
    first = _edit(ws, WITH_IDS, 8, 'Image("', 'Image(url, "')
    assert [(p["cell"], p["message"]) for p in first["problems"]] == [(8, "Undefined name `url`")]
    # A cell inserted before cell 8 makes it cell 9: its problem is the same one, not new.
    out = ws.edit_notebook(
        WITH_IDS, [{"op": "insert", "cell_type": "code", "source": "print(nowhere)", "after": 3}]
    ).model_dump(mode="json")
    assert [(p["cell"], p["line"], p["message"], p["text"]) for p in out["problems"]] == [
        (4, 1, "Undefined name `nowhere`", "1│print(nowhere)")
    ]
    assert out["problems_fixed"] == 0


def test_two_cell_edits_of_one_notebook_in_a_batch_bring_the_problems_of_both(root: Path) -> None:
    _copy(root, GAUSSIAN)
    ws = Workspace([root], analyzers=["ruff"])

    def call(cell: int, old: str, new: str) -> dict[str, Any]:
        edits = [{"old_text": old, "new_text": new}]
        return {"tool": "edit_file", "arguments": {"path": GAUSSIAN, "cell": cell, "edits": edits}}

    out = ws.batch(
        [
            call(4, "# Generate some data", "# Generate some data\nprint(first)"),
            call(8, "plot_kmeans(kmeans, X)", "plot_kmeans(kmeans, X, second)"),
        ]
    ).model_dump(mode="json")
    assert sorted((p["cell"], p["message"]) for p in out["problems"]) == [
        (4, "Undefined name `first`"),
        (8, "Undefined name `second`"),
    ]
