"""The notebook model, writer and schema check (core/notebook) and the cell wrapper
(transaction/cells.py), on the real notebooks of ../shared/conformance/notebooks and on small
hand-made ones for the edges."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from editguard.core.document import Document
from editguard.core.notebook.model import read_notebook, source_text
from editguard.core.notebook.schema import check_notebook
from editguard.core.notebook.write import (
    cell_text,
    cells_list,
    new_cell,
    new_id,
    replace_source,
    source_lines,
    source_value,
)
from editguard.core.plan import Plan, Replacement
from editguard.errors import CellNotFound, InvalidNotebook
from editguard.transaction.cells import find_cell, masked
from tests.conformance import conformance

NOTEBOOKS = conformance("notebooks")
pytestmark = pytest.mark.skipif(NOTEBOOKS is None, reason="no conformance notebooks here")
ALL = sorted(NOTEBOOKS.glob("*.ipynb")) if NOTEBOOKS is not None else []
INVALID = {"nbformat-invalid.ipynb", "nbformat-invalid_cell_id.ipynb"}


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_cell_reads_as_json_decodes_it(path: Path) -> None:
    text = _text(path)
    nb = read_notebook(text, path.name)
    decoded = json.loads(text)
    assert len(nb.cells) == len(decoded["cells"])
    for cell, data in zip(nb.cells, decoded["cells"], strict=True):
        assert cell.data == data
        assert cell.source == source_text(data.get("source", ""))
        # Each span holds exactly the value it names.
        for key, field in cell.fields.items():
            assert json.loads(text[field.start : field.end]) == data[key]
            assert text[field.key : field.key + len(key) + 2] == json.dumps(key)
        assert json.loads(text[cell.start : cell.end]) == data
    assert nb.data() == decoded


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_a_source_written_again_as_it_is_changes_no_byte(path: Path) -> None:
    """The writer lays a source out exactly as the file's writer did (Jupyter's, and the
    re-serialized file's indent 2 with ASCII escapes)."""
    text = _text(path)
    nb = read_notebook(text, path.name)
    reps = [replace_source(nb, c, c.source) for c in nb.cells if "source" in c.fields]
    # Only a source already written as Jupyter's line list comes out the same.
    same = [c for c in nb.cells if isinstance(c.data.get("source"), list)]
    assert same, "every conformance notebook writes its sources as lists"
    assert Plan(tuple(reps)).apply_to_text(text) == text


def test_the_style_is_read_from_the_file() -> None:
    assert NOTEBOOKS is not None
    jupyter = read_notebook(_text(NOTEBOOKS / "04.03-Errorbars.ipynb"))
    other = read_notebook(_text(NOTEBOOKS / "04.03-Errorbars.indent2-ascii.ipynb"))
    assert (jupyter.style.indent, jupyter.style.ascii, jupyter.style.sorted_keys) == (
        " ",
        False,
        True,
    )
    assert (other.style.indent, other.style.ascii, other.style.sorted_keys) == ("  ", True, False)
    assert other.style.cell_keys[:3] == ("cell_type", "source", "metadata")


def test_a_changed_source_keeps_the_files_escaping_and_every_other_byte() -> None:
    assert NOTEBOOKS is not None
    text = _text(NOTEBOOKS / "04.03-Errorbars.indent2-ascii.ipynb")
    nb = read_notebook(text)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    new_source = cell.source + "\nprint('± 1', \"q\")"
    rep = replace_source(nb, cell, new_source)
    out = Plan((rep,)).apply_to_text(text)
    assert out[: rep.start] == text[: rep.start]
    assert out[rep.start + len(rep.text) :] == text[rep.end :]
    assert "\\u00b1 1" in rep.text
    assert "±" not in rep.text
    decoded = json.loads(out)["cells"][cell.index]["source"]
    assert decoded == new_source.splitlines(keepends=True)
    nbformat.validate(json.loads(out))


def test_a_source_is_laid_out_one_line_an_item_one_level_deeper_than_its_key() -> None:
    text = '{\n "cells": [\n  {\n   "cell_type": "code",\n   "source": "x = 1"\n  }\n ]\n}\n'
    nb = read_notebook(text)
    field = nb.cells[0].fields["source"]
    assert source_value(nb, "a\nb\n", field.key) == '[\n    "a\\n",\n    "b\\n"\n   ]'
    assert source_value(nb, "", field.key) == "[]"
    assert source_lines("a\r\nb") == ["a\r\n", "b"]  # nbformat's split_lines


def test_a_compact_notebook_gets_a_compact_source() -> None:
    text = '{"cells": [{"cell_type": "code", "source": ["x"]}], "metadata": {}}'
    nb = read_notebook(text)
    assert nb.style.indent is None
    assert source_value(nb, "a\nb", nb.cells[0].fields["source"].key) == '["a\\n", "b"]'


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "a JSON object was expected"),
        ("[]", "a JSON object was expected"),
        ('{"metadata": {}}', 'no "cells" list'),
        ('{"cells": {}}', '"cells" is not a list'),
        ('{"cells": [1]}', "cell 0 is not a JSON object"),
        ('{"cells": [], "cells": []}', "appears twice"),
        ('{"cells": []} x', "text after"),
        ('{"cells": [{"a": 1,}]}', "a key was expected"),
        ('{"cells": [{"a" 1}]}', "':' was expected"),
        ('{"cells": [{"a": tru}]}', "a JSON value was expected"),
        ('{"cells": [', "cell 0 is not a JSON object"),
        ('{"cells": ["\\x"]}', "cell 0 is not a JSON object"),
    ],
)
def test_text_that_is_not_a_notebook_is_refused_with_where(text: str, said: str) -> None:
    with pytest.raises(InvalidNotebook) as info:
        read_notebook(text, "n.ipynb")
    assert said in info.value.message
    assert {"line", "column"} <= set(info.value.data)


def test_deep_nesting_is_refused_not_a_crash() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(InvalidNotebook):
        read_notebook('{"cells": [], "metadata": ' + deep + "}")


def test_the_escaping_is_told_from_an_escaped_backslash() -> None:
    # "\\u00b1" in JSON is a backslash and "u00b1", not an escape: the file is not ASCII-only
    # by choice.
    nb = read_notebook('{"cells": [], "metadata": {"a": "\\\\u00b1"}}')
    assert not nb.style.ascii
    nb = read_notebook('{"cells": [], "metadata": {"a": "\\\\\\u00b1"}}')
    assert nb.style.ascii
    nb = read_notebook('{"cells": [], "metadata": {"a": "\\u001b[0m"}}')
    assert not nb.style.ascii  # an escaped control character says nothing


@pytest.mark.parametrize("name", sorted(INVALID))
def test_the_invalid_conformance_notebooks_are_refused_as_found(name: str) -> None:
    assert NOTEBOOKS is not None
    nb = read_notebook(_text(NOTEBOOKS / name), name)
    with pytest.raises(InvalidNotebook) as info:
        check_notebook(nb.data(), name, found=True)
    assert info.value.data["as_found"] is True
    assert info.value.data["where"].startswith("cells[0]")


@pytest.mark.parametrize("path", [p for p in ALL if p.name not in INVALID], ids=lambda p: p.name)
def test_the_valid_conformance_notebooks_pass(path: Path) -> None:
    check_notebook(read_notebook(_text(path)).data(), path.name, found=True)


def test_two_cells_of_one_id_are_refused_where_nbformat_would_repair_them() -> None:
    assert NOTEBOOKS is not None
    data = json.loads(_text(NOTEBOOKS / "nbformat-test4.5.ipynb"))
    data["cells"][2]["id"] = data["cells"][0]["id"]
    with pytest.raises(InvalidNotebook) as info:
        check_notebook(data, "t.ipynb", found=False)
    assert info.value.data["where"] == "cells[0].id"
    assert "more than one cell" in info.value.message
    assert data["cells"][2]["id"] == data["cells"][0]["id"]  # nothing repaired in place


def test_a_notebook_of_another_format_is_refused() -> None:
    with pytest.raises(InvalidNotebook, match="format 3"):
        check_notebook({"nbformat": 3, "nbformat_minor": 0, "cells": []}, "n", found=True)
    with pytest.raises(InvalidNotebook, match="version"):
        check_notebook({"cells": []}, "n", found=True)


def test_cells_are_found_by_id_first_then_by_index() -> None:
    code: dict[str, object] = {"cell_type": "code", "execution_count": None, "id": "7"}
    code["metadata"] = {}
    cells = [
        {**code, "outputs": [], "source": "a"},
        {"cell_type": "markdown", "id": "x-1", "metadata": {}, "source": "b"},
    ]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    nb = read_notebook(text)
    assert find_cell(nb, "x-1").index == 1
    assert find_cell(nb, 1).index == 1
    assert find_cell(nb, -1).index == 1
    assert find_cell(nb, "7").index == 0  # the id "7", not the index 7
    assert find_cell(nb, "1").index == 1  # no cell has the id "1": the index
    for wrong in (2, -3, "nope", "", True):
        with pytest.raises(CellNotFound) as info:
            find_cell(nb, wrong)
        assert [c["index"] for c in info.value.data["cells"]] == [0, 1]


def test_new_cells_take_the_files_key_order_and_indentation() -> None:
    assert NOTEBOOKS is not None
    for name, first_keys in (
        ("04.03-Errorbars.ipynb", ["cell_type", "execution_count", "metadata"]),
        ("04.03-Errorbars.indent2-ascii.ipynb", ["cell_type", "source", "metadata"]),
    ):
        nb = read_notebook(_text(NOTEBOOKS / name))
        cell = new_cell(nb, "code", "x = '±'\n", None)
        assert list(cell)[:3] == first_keys
        written = cell_text(nb, cell)
        assert json.loads(written) == cell
        lines = written.split("\n")
        unit = nb.style.indent
        assert unit is not None
        assert lines[1].startswith(unit * 3 + '"')  # keys three levels in
        assert lines[-1] == unit * 2 + "}"
        assert ("\\u00b1" in written) is nb.style.ascii
        listed = cells_list(nb, [written, written])
        assert json.loads(listed) == [cell, cell]


def test_new_ids_are_fresh_and_valid() -> None:
    taken = {new_id(()) for _ in range(200)}
    assert len(taken) == 200
    assert new_id(taken) not in taken
    check_notebook(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {"cell_type": "markdown", "id": i, "metadata": {}, "source": ""} for i in taken
            ],
        },
        "n",
        found=False,
    )


@pytest.mark.parametrize(
    ("source", "checked"),
    [
        ("%matplotlib inline\nx = 1", "pass              \nx = 1"),
        ("files = !ls\n", "files=0    \n"),
        ("x=!l", "x=0 "),
        ("for i in x:\n    %time f()\n", "for i in x:\n    pass     \n"),
        ("np.sum?\n", "pass   \n"),
        ("%%timeit\nx = 1", "pass    \nx = 1"),
        ("# %notamagic\nx = 1 % 2", "# %notamagic\nx = 1 % 2"),
        ("%%bash\nls -l", None),
        ("%%file hello.py\nprint(", None),
    ],
)
def test_ipython_magics_are_masked_for_the_syntax_guard(source: str, checked: str | None) -> None:
    assert masked(source, True) == checked
    assert masked(source, False) == source  # another kernel's language: as it is
    if checked is not None:
        # Each line keeps its length, so columns and spans stay where they were.
        assert [len(x) for x in checked.split("\n")] == [len(x) for x in source.split("\n")]
        compile(checked, "cell", "exec")


def test_a_plan_on_a_cell_names_the_cell_in_its_diff() -> None:
    from editguard.transaction.cells import cell_subject

    assert NOTEBOOKS is not None
    nb = read_notebook(_text(NOTEBOOKS / "nbformat-test4.5.ipynb"))
    cell = next(c for c in nb.cells if c.cell_type == "code")
    doc = Document(cell.source)
    at = doc.text.index("hello")
    subject = cell_subject(
        nb, cell, "/r/t.ipynb", "t.ipynb", Plan((Replacement(at, at + 5, "bye"),))
    )
    assert subject.label == f"t.ipynb#cell {cell.index} (id {cell.id})"
    assert subject.name is not None
    assert subject.name.endswith(".py")
    assert "bye" in subject.after


def test_a_cell_written_with_crlf_keeps_crlf_through_an_edit(tmp_path: Path) -> None:
    """A cell whose strings hold "\\r\\n" (written on Windows) is a text with CRLF endings:
    old_text with "\\n" matches it exactly, and the lines an edit writes get "\\r\\n", as an
    edit of a CRLF file does; a cell that mixes endings keeps each line's."""
    from editguard import Workspace

    cells: list[dict[str, object]] = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": s}
        for s in (["a = 1\r\n", "b = 2\r\n", "c = 3"], ["x = 1\r\n", "y = 2\n", "z = 3"])
    ]
    data = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    path = tmp_path / "w.ipynb"
    path.write_text(json.dumps(data, indent=1) + "\n")
    ws = Workspace([tmp_path], history=False)
    done = ws.edit_file(
        "w.ipynb", [{"old_text": "b = 2\n", "new_text": "b = 20\nb2 = 5\n"}], cell=0
    )
    assert done.edits_applied[0].match == "exact"
    ws.edit_lines("w.ipynb", [{"line_number": 2, "type": "Insert", "text": "w = 0"}], cell=1)
    after = json.loads(path.read_text())["cells"]
    assert after[0]["source"] == ["a = 1\r\n", "b = 20\r\n", "b2 = 5\r\n", "c = 3"]
    # Mixed: each line keeps its ending; the new line takes the cell's usual one (a tie
    # between CRLF and LF goes to LF, as for a file).
    assert after[1]["source"] == ["x = 1\r\n", "w = 0\n", "y = 2\n", "z = 3"]


def test_read_file_and_grep_number_a_crlf_cell_as_its_edits_do(tmp_path: Path) -> None:
    """The view shows a cell's lines without their "\\r" (as read_file shows a CRLF file's),
    numbered as edit_lines numbers them; grep's "$" finds a line's end there."""
    from editguard import NotebookResult, Workspace

    cell: dict[str, object] = {"cell_type": "code", "execution_count": None, "outputs": []}
    cell["metadata"] = {}
    data = {
        "cells": [{**cell, "source": ["a = 1\r\n", "b = 2\r", "c = 3"]}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    (tmp_path / "w.ipynb").write_text(json.dumps(data, indent=1) + "\n")
    ws = Workspace([tmp_path], history=False)
    shown = ws.read_file("w.ipynb")
    assert isinstance(shown, NotebookResult)
    assert shown.content.endswith("1│a = 1\n2│b = 2\n3│c = 3")
    assert "2│b = 2" in ws.grep("b = 2$", regex=True).content
    ws.edit_lines("w.ipynb", [{"line_number": 3, "type": "Replace", "text": "c = 30"}], cell=0)
    assert json.loads((tmp_path / "w.ipynb").read_text())["cells"][0]["source"][-1] == "c = 30"
