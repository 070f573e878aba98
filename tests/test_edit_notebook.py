"""edit_notebook on real notebooks: cells inserted, moved, deleted and replaced land exactly where
asked, ids stay unique, sources are written as Jupyter's line lists, and every cell the edits
did not touch keeps its bytes; the file's own layout (indentation, key order, escaping, final
newline) is kept for what is added."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp_types import TextContent

from editguard import EditError, Workspace
from editguard.core.notebook.model import Notebook, read_notebook
from editguard.core.notebook.write import (
    add_keys,
    cell_separator,
    cell_text,
    cells_list,
    new_cell,
    remove_keys,
)
from editguard.core.plan import Plan
from editguard.mcp_server import EditguardServer
from tests.conformance import conformance
from tests.conftest import Snapshot, examples

NOTEBOOKS = conformance("notebooks")
pytestmark = pytest.mark.skipif(NOTEBOOKS is None, reason="no conformance notebooks")

JUPYTER = "04.03-Errorbars.ipynb"  # indent 1, sorted keys, non-ASCII as is, final newline
INDENT2 = "04.03-Errorbars.indent2-ascii.ipynb"  # indent 2, \uXXXX, keys unsorted, no newline
WITH_IDS = "nbformat-test4.5.ipynb"
VALID = [
    p.name
    for p in sorted((NOTEBOOKS or Path()).glob("*.ipynb"))
    if not p.name.startswith("nbformat-invalid")
]


def copy(root: Path, name: str) -> Path:
    assert NOTEBOOKS is not None
    target = root / name
    shutil.copyfile(NOTEBOOKS / name, target)
    return target


def slices(path: Path) -> list[str]:
    """Each cell's text, as the file has it."""
    nb = read_notebook(path.read_text(encoding="utf-8"))
    return [nb.text[c.start : c.end] for c in nb.cells]


def loaded(path: Path) -> dict[str, Any]:
    """The notebook, decoded and checked by nbformat itself."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    nbformat.validate(nbformat.reads(path.read_text(encoding="utf-8"), as_version=4))  # type: ignore[no-untyped-call]
    return data


def sources(data: dict[str, Any]) -> list[str]:
    return [
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in data["cells"]
    ]


# --- the writer's pieces ------------------------------------------------------------------


@pytest.mark.parametrize("name", [JUPYTER, INDENT2, WITH_IDS])
def test_a_new_cell_is_written_as_the_file_writes_its_cells(name: str) -> None:
    """A cell of the file, decoded and written again by cell_text, is its own slice: the
    writer knows the file's indentation, key order and escaping."""
    assert NOTEBOOKS is not None
    nb = read_notebook((NOTEBOOKS / name).read_text(encoding="utf-8"))
    for cell in nb.cells:
        if cell.outputs or cell.data.get("attachments"):
            continue  # outputs are nested deeper than a new cell's values; not written anew
        assert cell_text(nb, dict(cell.data)) == nb.text[cell.start : cell.end], cell.index


@pytest.mark.parametrize("name", [JUPYTER, INDENT2])
def test_cells_list_and_separator_rebuild_the_files_list(name: str) -> None:
    assert NOTEBOOKS is not None
    nb = read_notebook((NOTEBOOKS / name).read_text(encoding="utf-8"))
    texts = [nb.text[c.start : c.end] for c in nb.cells]
    assert cells_list(nb, texts) == nb.text[nb.cells_start : nb.cells_end]
    assert nb.text[nb.cells[0].end : nb.cells[1].start] == cell_separator(nb)
    assert cells_list(nb, []) == "[]"


def test_compact_json_is_written_compact() -> None:
    text = json.dumps(
        {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, ensure_ascii=False
    )
    nb = read_notebook(text)
    cell = new_cell(nb, "code", "é = 1\nprint(é)", "abcd1234")
    made = cells_list(nb, [cell_text(nb, cell), cell_text(nb, cell)])
    assert json.loads(made) == [cell, cell]
    assert "\n" not in made
    assert "é" in made


def _key_plan(nb: Notebook, reps: list[Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Plan(tuple(reps)).apply_to_text(nb.text))
    return data


@pytest.mark.parametrize("name", [JUPYTER, INDENT2])
def test_keys_come_out_and_go_in_with_their_commas(name: str) -> None:
    assert NOTEBOOKS is not None
    nb = read_notebook((NOTEBOOKS / name).read_text(encoding="utf-8"))
    code = next(c for c in nb.cells if c.cell_type == "code")
    gone = _key_plan(nb, remove_keys(nb, code, ("outputs", "execution_count")))
    assert set(gone["cells"][code.index]) == set(code.data) - {"outputs", "execution_count"}
    text = next(c for c in nb.cells if c.cell_type == "markdown")
    added = _key_plan(nb, add_keys(nb, text, {"execution_count": None, "outputs": []}))
    keys = list(added["cells"][text.index])
    assert keys == (sorted(keys) if nb.style.sorted_keys else list(nb.style.cell_keys))


# --- the tool ------------------------------------------------------------------------------


def test_a_mix_of_inserts_moves_and_deletes_leaves_the_order_exact(root: Path) -> None:
    path = copy(root, WITH_IDS)
    before = loaded(path)
    ids = [c["id"] for c in before["cells"]]
    old_slices = dict(zip(ids, slices(path), strict=True))
    ws = Workspace([root], history=False)
    out = ws.edit_notebook(
        WITH_IDS,
        [
            {"op": "insert", "cell_type": "markdown", "source": "# First", "before": 0},
            {"op": "insert", "source": "a = 1\nb = 2\n", "after": ids[3]},
            {"op": "move", "cell": ids[0], "after": ids[5]},
            {"op": "delete", "cell": 2},  # counted after the edits before: ids[2]
            {"op": "move", "cell": ids[8], "before": 0},
            {"op": "insert", "cell_type": "raw", "source": "raw"},
        ],
    )
    after = loaded(path)
    new_ids = [c["id"] for c in after["cells"]]
    assert len(set(new_ids)) == len(new_ids)
    first, code, raw = (i for i in new_ids if i not in ids)
    assert new_ids == [
        ids[8],
        first,
        ids[1],
        ids[3],
        code,
        ids[4],
        ids[5],
        ids[0],
        ids[6],
        ids[7],
        raw,
    ]
    by_id = {c["id"]: c for c in after["cells"]}
    assert by_id[code]["source"] == ["a = 1\n", "b = 2\n"]
    assert by_id[code]["outputs"] == []
    assert by_id[code]["execution_count"] is None
    assert by_id[raw]["cell_type"] == "raw"
    assert "outputs" not in by_id[raw]
    # Every cell kept is its own bytes, moved or not.
    for cell_id, text in zip(new_ids, slices(path), strict=True):
        if cell_id in old_slices:
            assert text == old_slices[cell_id]
    assert [(c.index, c.id) for c in out.cells] == [
        (0, ids[8]),
        (1, first),
        (4, code),
        (7, ids[0]),
        (10, raw),
    ]
    assert out.written
    assert out.version != out.previous_version
    assert "+# %% [code] id=" + code in out.diff


def test_an_insert_lands_where_asked_not_at_the_top(root: Path) -> None:
    path = copy(root, JUPYTER)
    count = len(loaded(path)["cells"])
    ws = Workspace([root], history=False)
    ws.edit_notebook(JUPYTER, [{"op": "insert", "source": "x = 1", "after": 4}])
    ws.edit_notebook(JUPYTER, [{"op": "insert", "source": "y = 2"}])
    ws.edit_notebook(JUPYTER, [{"op": "insert", "source": "z = 3", "before": -1}])
    got = sources(loaded(path))
    assert len(got) == count + 3
    assert got.index("x = 1") == 5
    assert got[-1] == "y = 2"
    assert got[-2] == "z = 3"
    assert "id" not in loaded(path)["cells"][5]  # nbformat 4.4: no ids


@pytest.mark.parametrize("name", [JUPYTER, INDENT2])
def test_untouched_cells_and_the_layout_stay_byte_for_byte(root: Path, name: str) -> None:
    path = copy(root, name)
    old = path.read_text(encoding="utf-8")
    old_slices = slices(path)
    ws = Workspace([root], history=False)
    ws.edit_notebook(
        name,
        [
            {"op": "insert", "cell_type": "markdown", "source": "Error ± bars\n\nmore", "after": 1},
            {"op": "replace", "cell": 4, "source": "plt.show()  # ±"},
            {"op": "delete", "cell": 6},
        ],
    )
    new = path.read_text(encoding="utf-8")
    assert new.endswith("\n") == old.endswith("\n")
    assert new[:200] == old[:200]  # the top: indentation, key order
    new_slices = slices(path)
    assert new_slices[:2] == old_slices[:2]
    assert new_slices[3] == old_slices[2]
    assert new_slices[5] == old_slices[4]
    assert new_slices[6:] == old_slices[6:]  # old cell 5 deleted
    data = loaded(path)
    assert data["cells"][2]["source"] == ["Error ± bars\n", "\n", "more"]
    assert data["cells"][4]["source"] == ["plt.show()  # ±"]
    nb = read_notebook(new)
    # The new cell and the new source are written as the file writes: indented as its
    # cells, keys in its order, ± escaped where the file escapes.
    made = new_slices[2]
    unit = nb.style.indent or ""
    assert made.splitlines()[1].startswith(unit * 3 + '"cell_type"')
    assert ("\\u00b1" in made) == (name == INDENT2)
    assert ("±" in made) == (name == JUPYTER)
    keys = list(json.loads(made))
    assert keys == (sorted(keys) if name == JUPYTER else ["cell_type", "source", "metadata"])


def test_replace_changes_the_type_with_its_outputs(root: Path) -> None:
    path = copy(root, WITH_IDS)
    before = loaded(path)
    code = next(c for c in before["cells"] if c["cell_type"] == "code" and c["outputs"])
    text = next(c for c in before["cells"] if c["cell_type"] == "markdown")
    ws = Workspace([root], history=False)
    ws.edit_notebook(
        WITH_IDS,
        [
            {"op": "replace", "cell": code["id"], "cell_type": "markdown"},
            {"op": "replace", "cell": text["id"], "cell_type": "code", "source": "1 + 1"},
        ],
    )
    by_id = {c["id"]: c for c in loaded(path)["cells"]}
    assert by_id[code["id"]]["cell_type"] == "markdown"
    assert "outputs" not in by_id[code["id"]]
    assert "execution_count" not in by_id[code["id"]]
    assert by_id[code["id"]]["source"] == code["source"]
    made = by_id[text["id"]]
    assert (made["cell_type"], made["outputs"], made["execution_count"]) == ("code", [], None)
    assert made["source"] == ["1 + 1"]


def test_a_cell_named_by_id_is_found_after_earlier_edits_moved_it(root: Path) -> None:
    path = copy(root, WITH_IDS)
    ids = [c["id"] for c in loaded(path)["cells"]]
    ws = Workspace([root], history=False)
    ws.edit_notebook(
        WITH_IDS,
        [
            {"op": "move", "cell": ids[7], "before": 0},
            {"op": "replace", "cell": ids[7], "source": "moved = True"},
            {"op": "move", "cell": ids[7], "after": ids[2]},
        ],
    )
    cells = loaded(path)["cells"]
    assert [c["id"] for c in cells] == [*ids[:3], ids[7], *ids[3:7], ids[8]]
    assert cells[3]["source"] == ["moved = True"]


@pytest.mark.parametrize("name", VALID)
def test_new_cells_get_ids_exactly_where_the_format_has_them(root: Path, name: str) -> None:
    path = copy(root, name)
    ws = Workspace([root], history=False)
    out = ws.edit_notebook(
        name, [{"op": "insert", "source": "x"}, {"op": "insert", "cell_type": "markdown"}]
    )
    data = loaded(path)
    has_ids = (data["nbformat"], data["nbformat_minor"]) >= (4, 5)
    made = data["cells"][-2:]
    assert all(("id" in c) == has_ids for c in made)
    if has_ids:
        ids = [c["id"] for c in data["cells"]]
        assert len(set(ids)) == len(ids)
        assert [c.id for c in out.cells] == ids[-2:]
    assert made[1]["source"] == []


def test_a_failing_edit_writes_nothing_and_names_itself(root: Path) -> None:
    path = copy(root, WITH_IDS)
    snap = Snapshot.of(path)
    ws = Workspace([root], history=False)
    with pytest.raises(EditError) as err:
        ws.edit_notebook(
            WITH_IDS,
            [
                {"op": "insert", "source": "x"},
                {"op": "delete", "cell": 0},
                {"op": "move", "cell": "no-such-id", "before": 0},
            ],
        )
    assert err.value.code == "CELL_NOT_FOUND"
    assert (err.value.edit_index, err.value.total_edits) == (2, 3)
    assert len(err.value.data["cells"]) == 9  # as the two edits before left it
    assert Snapshot.of(path) == snap


def test_an_index_past_the_end_is_not_found(root: Path) -> None:
    copy(root, JUPYTER)
    ws = Workspace([root], history=False)
    with pytest.raises(EditError) as err:
        ws.edit_notebook(JUPYTER, [{"op": "delete", "cell": 13}])
    assert err.value.code == "CELL_NOT_FOUND"
    assert err.value.edit_index == 0


@pytest.mark.parametrize(
    "edit",
    [
        {"op": "insert", "cell_type": "python"},
        {"op": "remove", "cell": 0},
        {"op": "move", "cell": 0, "before": 1, "after": 2},
        {"op": "replace", "cell": 0},
        {"op": "delete"},
        {"cell": 0},
    ],
)
def test_a_malformed_edit_is_an_invalid_request(root: Path, edit: dict[str, Any]) -> None:
    path = copy(root, JUPYTER)
    snap = Snapshot.of(path)
    ws = Workspace([root], history=False)
    with pytest.raises(EditError) as err:
        ws.edit_notebook(JUPYTER, [{"op": "delete", "cell": 0}, edit])
    assert err.value.code == "INVALID_REQUEST"
    assert err.value.edit_index == 1
    assert err.value.data["field"].startswith("edits[1]")
    assert Snapshot.of(path) == snap


def test_an_invalid_notebook_is_refused_as_found(root: Path) -> None:
    path = copy(root, "nbformat-invalid.ipynb")
    snap = Snapshot.of(path)
    ws = Workspace([root], history=False)
    with pytest.raises(EditError) as err:
        ws.edit_notebook("nbformat-invalid.ipynb", [{"op": "delete", "cell": 1}])
    assert err.value.code == "INVALID_NOTEBOOK"
    assert err.value.data["as_found"] is True
    assert Snapshot.of(path) == snap


def test_an_edit_that_would_leave_the_notebook_invalid_is_refused(root: Path) -> None:
    path = copy(root, WITH_IDS)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cells"][0]["attachments"] = {}  # allowed on markdown, not on code
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    snap = Snapshot.of(path)
    ws = Workspace([root], history=False)
    with pytest.raises(EditError) as err:
        ws.edit_notebook(WITH_IDS, [{"op": "replace", "cell": 0, "cell_type": "code"}])
    assert err.value.code == "INVALID_NOTEBOOK"
    assert err.value.data["as_found"] is False
    assert Snapshot.of(path) == snap


def test_a_file_that_is_no_notebook_is_refused(root: Path) -> None:
    (root / "a.json").write_text('{"cells": []}\n')
    ws = Workspace([root], history=False)
    with pytest.raises(EditError) as err:
        ws.edit_notebook("a.json", [{"op": "insert"}])
    assert err.value.code == "INVALID_REQUEST"


def test_dry_run_and_a_stale_version_write_nothing(root: Path) -> None:
    path = copy(root, JUPYTER)
    snap = Snapshot.of(path)
    ws = Workspace([root], history=False)
    dry = ws.edit_notebook(JUPYTER, [{"op": "delete", "cell": 0}], dry_run=True)
    assert dry.dry_run
    assert not dry.written
    assert dry.diff.startswith(f"--- a/{JUPYTER} (cells)")
    assert Snapshot.of(path) == snap
    with pytest.raises(EditError) as err:
        ws.edit_notebook(JUPYTER, [{"op": "delete", "cell": 0}], expected_version="0" * 16)
    assert err.value.code == "STALE_VERSION"
    assert Snapshot.of(path) == snap
    done = ws.edit_notebook(
        JUPYTER, [{"op": "delete", "cell": 0}], expected_version=dry.previous_version
    )
    assert done.version == dry.version


def test_undo_restores_the_notebook_byte_for_byte(root: Path) -> None:
    path = copy(root, INDENT2)
    old = path.read_bytes()
    ws = Workspace([root])
    ws.edit_notebook(
        INDENT2,
        [
            {"op": "move", "cell": 0, "after": -1},
            {"op": "insert", "source": "x = 1", "before": 3},
            {"op": "delete", "cell": 5},
        ],
    )
    assert path.read_bytes() != old
    ws.undo(path=INDENT2)
    assert path.read_bytes() == old


def test_a_big_cell_moved_keeps_its_outputs_byte_for_byte(root: Path) -> None:
    name = "05.12-Gaussian-Mixtures.ipynb"
    path = copy(root, name)
    old = slices(path)
    big = max(range(len(old)), key=lambda k: len(old[k]))
    ws = Workspace([root], history=False)
    ws.edit_notebook(name, [{"op": "move", "cell": big, "before": 0}])
    new = slices(path)
    assert new[0] == old[big]
    assert sorted(new) == sorted(old)
    loaded(path)


# --- a property: random edits against a model of the list ----------------------------------

OPS = st.lists(
    st.tuples(
        st.sampled_from(["insert", "delete", "move", "replace"]),
        st.integers(0, 1000),  # the cell (as an index modulo the length), or an id
        st.integers(0, 1000),  # the anchor
        st.sampled_from(["before", "after", None]),
        st.sampled_from(["code", "markdown", "raw"]),
        st.booleans(),  # name cells by id
        st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=20),
    ),
    min_size=1,
    max_size=8,
)


@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(ops=OPS, name=st.sampled_from([WITH_IDS, INDENT2, "v1-02.08-Sorting.ipynb"]))
def test_random_edits_match_a_model_of_the_cells(
    tmp_path_factory: pytest.TempPathFactory, ops: list[Any], name: str
) -> None:
    root = tmp_path_factory.mktemp("nb")
    path = copy(root, name)
    data = loaded(path)
    old_slices = slices(path)
    # The model: (origin index or None, type, source) per cell, and the id where there is one.
    model: list[dict[str, Any]] = [
        {"origin": k, "type": c["cell_type"], "source": sources(data)[k], "id": c.get("id")}
        for k, c in enumerate(data["cells"])
    ]
    edits: list[dict[str, Any]] = []
    touched: set[int] = set()

    def ref(k: int, by_id: bool) -> int | str:
        cell_id = model[k]["id"]
        return cell_id if by_id and cell_id else k

    for op, a, b, side, cell_type, by_id, text in ops:
        if op == "insert":
            edit: dict[str, Any] = {"op": op, "cell_type": cell_type, "source": text}
            at = len(model)
            if side and model:
                k = b % len(model)
                edit[side] = ref(k, by_id)
                at = k if side == "before" else k + 1
            model.insert(at, {"origin": None, "type": cell_type, "source": text, "id": None})
        elif not model:
            continue
        elif op == "delete":
            k = a % len(model)
            edit = {"op": op, "cell": ref(k, by_id)}
            model.pop(k)
        elif op == "move":
            k = a % len(model)
            edit = {"op": op, "cell": ref(k, by_id)}
            cell = model[k]
            if side:
                j = b % len(model)
                edit[side] = ref(j, by_id)
                anchor = model[j]
                if anchor is not cell:
                    model.pop(k)
                    # By identity: two new cells of one type and source are equal dicts.
                    at = next(i for i, m in enumerate(model) if m is anchor)
                    model.insert(at if side == "before" else at + 1, cell)
            else:
                model.pop(k)
                model.append(cell)
            if cell["origin"] is not None:
                touched.add(cell["origin"])
        else:
            k = a % len(model)
            edit = {"op": op, "cell": ref(k, by_id), "cell_type": cell_type, "source": text}
            model[k]["type"], model[k]["source"] = cell_type, text
            if model[k]["origin"] is not None:
                touched.add(model[k]["origin"])
        edits.append(edit)
    ws = Workspace([root], history=False)
    # Random text in a code cell is rarely Python: the guard (tested on its own below) warns
    # here instead of refusing, so that every sequence of edits is written.
    ws.edit_notebook(name, edits, mode="interactive")
    after = loaded(path)
    assert [c["cell_type"] for c in after["cells"]] == [m["type"] for m in model]
    assert sources(after) == [m["source"] for m in model]
    ids = [c.get("id") for c in after["cells"]]
    if data["nbformat_minor"] >= 5:
        assert len(set(ids)) == len(ids)
        assert [i for i, m in zip(ids, model, strict=True) if m["origin"] is not None] == [
            m["id"] for m in model if m["origin"] is not None
        ]
    else:
        assert ids == [None] * len(ids)
    new_slices = slices(path)
    for k, m in enumerate(model):
        if m["origin"] is not None and m["origin"] not in touched:
            assert new_slices[k] == old_slices[m["origin"]]
        if m["type"] != "code":
            assert "outputs" not in after["cells"][k]


def test_replace_may_clear_a_code_cells_outputs_and_only_that_cells(root: Path) -> None:
    """Outputs stay unless the replace asks: then the cell's outputs and execution count are
    emptied (where it stays in place and where it moved), the outline says so, and every
    other cell keeps its bytes."""
    name = "01.06-Errors-and-Debugging.ipynb"
    path = copy(root, name)
    old = slices(path)
    data = loaded(path)
    with_outputs = [k for k, c in enumerate(data["cells"]) if c.get("outputs")]
    a, b = with_outputs[0], with_outputs[1]
    ws = Workspace([root], history=False)
    done = ws.edit_notebook(
        name,
        [
            {"op": "replace", "cell": a, "clear_outputs": True},
            {"op": "replace", "cell": b, "source": "x = 1", "clear_outputs": True},
            {"op": "move", "cell": b, "before": 0},
            {"op": "replace", "cell": 1, "clear_outputs": True},  # markdown: nothing to clear
        ],
    )
    assert "(outputs cleared)" in done.diff
    after = loaded(path)
    cleared = [c for c in after["cells"] if c["cell_type"] == "code" and not c["outputs"]]
    moved = after["cells"][0]
    assert (moved["outputs"], moved["execution_count"], moved["source"]) == ([], None, ["x = 1"])
    assert after["cells"][a + 1]["outputs"] == []  # b went before it: a is one further on
    assert after["cells"][a + 1]["execution_count"] is None
    assert after["cells"][a + 1]["source"] == data["cells"][a]["source"]
    new = slices(path)
    untouched = [k for k in range(len(old)) if k not in (a, b)]
    assert [s for s in new if s in old] == [old[k] for k in untouched]
    assert len(cleared) == len([c for c in data["cells"] if c["cell_type"] == "code"]) - (
        len(with_outputs) - 2
    )
    kept = ws.edit_notebook(name, [{"op": "replace", "cell": 0, "source": "x = 2"}])
    assert kept.written
    assert "(outputs cleared)" not in kept.diff


def test_the_syntax_guard_checks_the_code_cells_the_edits_write(root: Path) -> None:
    """An inserted or replaced code cell is checked as a module of the kernel's language:
    strict refuses what does not parse (naming the cell), interactive writes it with the
    finding; markdown is not checked, and IPython's magics are not syntax errors."""
    path = copy(root, WITH_IDS)
    before = path.read_bytes()
    ws = Workspace([root], history=False)
    for edit in (
        {"op": "insert", "source": "def f(:\n    pass", "after": 3},
        {"op": "replace", "cell": "38f37a24", "source": "print(("},
        {"op": "replace", "cell": 0, "cell_type": "code"},  # "# nbconvert latex test": fine
    ):
        if edit.get("cell_type") == "code":
            continue
        with pytest.raises(EditError) as info:
            ws.edit_notebook(WITH_IDS, [edit])
        assert info.value.code == "VALIDATION_FAILED"
        assert "cell 4" in str(info.value) or "cell 3" in str(info.value)
        assert path.read_bytes() == before
    done = ws.edit_notebook(
        WITH_IDS,
        [
            {"op": "insert", "source": "%timeit f()\n!ls\nx = 1", "after": 3},
            {"op": "insert", "cell_type": "markdown", "source": "def f(:", "after": 0},
            {"op": "replace", "cell": 0, "cell_type": "code"},
        ],
    )
    assert done.written
    assert done.validation.passed
    warned = ws.edit_notebook(
        WITH_IDS, [{"op": "replace", "cell": "38f37a24", "source": "print(("}], mode="interactive"
    )
    assert warned.written
    assert not warned.validation.passed
    assert warned.validation.findings[0].line_text == "print(("
    (cell,) = [c for c in loaded(path)["cells"] if c.get("id") == "38f37a24"]
    assert "".join(cell["source"]) == "print(("


def test_a_batch_changes_a_notebook_and_a_module_together_or_neither(root: Path) -> None:
    path = copy(root, WITH_IDS)
    module = root / "helpers.py"
    module.write_text("def f():\n    return 1\n")
    notebook, code = Snapshot.of(path), Snapshot.of(module)
    ws = Workspace([root])
    insert = {
        "tool": "edit_notebook",
        "arguments": {
            "path": WITH_IDS,
            "edits": [{"op": "insert", "source": "from helpers import f", "before": 0}],
        },
    }
    replace = [{"old_text": "1", "new_text": "2"}]
    edit = {"tool": "edit_file", "arguments": {"path": "helpers.py", "edits": replace}}
    missing = {"tool": "edit_file", "arguments": {"path": "none.py", "edits": replace}}
    with pytest.raises(EditError) as err:
        ws.batch([insert, edit, missing])
    assert err.value.data["call"] == 2
    assert (Snapshot.of(path), Snapshot.of(module)) == (notebook, code)
    done = ws.batch([insert, edit])
    assert done.written
    assert sources(loaded(path))[0] == "from helpers import f"
    assert module.read_text() == "def f():\n    return 2\n"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_over_mcp_the_edits_land_and_a_missing_cell_is_an_error(
    root: Path, anyio_backend: str
) -> None:
    path = copy(root, WITH_IDS)
    ids = [c["id"] for c in loaded(path)["cells"]]
    server = EditguardServer(Workspace([root], history=False), log_level="WARNING")
    async with Client(server, raise_exceptions=True) as client:
        done = await client.call_tool(
            "edit_notebook",
            {
                "path": WITH_IDS,
                # edits as a JSON string, as some clients send lists
                "edits": json.dumps([{"op": "move", "cell": ids[0], "after": ids[1]}]),
            },
        )
        assert not done.is_error
        assert done.structured_content is not None
        assert done.structured_content["cells"] == [
            {"index": 1, "id": ids[0], "cell_type": "markdown"}
        ]
        refused = await client.call_tool(
            "edit_notebook", {"path": WITH_IDS, "edits": [{"op": "delete", "cell": "gone"}]}
        )
    assert refused.is_error
    block = refused.content[0]
    assert isinstance(block, TextContent)
    assert block.text.startswith("CELL_NOT_FOUND: edit 1 of 1")
    assert [c["id"] for c in loaded(path)["cells"]] == [ids[1], ids[0], *ids[2:]]


def test_an_empty_notebook_gets_cells_and_loses_them_all(root: Path) -> None:
    path = root / "empty.ipynb"
    empty = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(empty, indent=1, sort_keys=True) + "\n"
    path.write_text(text)
    ws = Workspace([root], history=False)
    ws.edit_notebook(
        "empty.ipynb",
        [{"op": "insert", "source": "a"}, {"op": "insert", "cell_type": "markdown", "before": 0}],
    )
    data = loaded(path)
    assert [c["cell_type"] for c in data["cells"]] == ["markdown", "code"]
    assert path.read_text() == json.dumps(data, indent=1, sort_keys=True) + "\n"  # Jupyter's
    ws.edit_notebook("empty.ipynb", [{"op": "delete", "cell": 0}, {"op": "delete", "cell": 0}])
    assert path.read_text() == text


def test_no_edits_or_too_many_are_refused(root: Path) -> None:
    path = copy(root, JUPYTER)
    snap = Snapshot.of(path)
    with pytest.raises(EditError) as err:
        Workspace([root], history=False).edit_notebook(JUPYTER, [])
    assert err.value.code == "INVALID_REQUEST"
    with pytest.raises(EditError) as err:
        Workspace([root], history=False, max_edits=2).edit_notebook(JUPYTER, [{"op": "insert"}] * 3)
    assert err.value.code == "TOO_MANY_EDITS"
    assert Snapshot.of(path) == snap
