"""A notebook edited within its memory figures (issue 26): large outputs are not kept decoded,
the schema is checked a group of cells at a time, and a cell edit reads a notebook that is not
ASCII as a UTF-8 view (one character a byte). Each of these must change nothing but memory:
the view writes the bytes the text writes, a lazy value decodes to what the file holds, the
grouped check refuses what the whole check refuses. Last, a 50 MB notebook with large outputs,
edited in a fresh process, within DESIGN.md's budget (memory at most three times the file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from editguard import Workspace
from editguard.core.document import Document, decode, decode_stream
from editguard.core.notebook.model import LAZY_CHARS, read_notebook
from editguard.core.notebook.schema import check_notebook, check_read
from editguard.core.plan import Plan, Replacement, render
from editguard.errors import InvalidNotebook
from editguard.transaction.build import Change
from editguard.transaction.cells import in_cell
from tests.conformance import conformance

NOTEBOOKS = conformance("notebooks")
pytestmark = pytest.mark.skipif(NOTEBOOKS is None, reason="no conformance notebooks here")
ALL = sorted(NOTEBOOKS.glob("*.ipynb")) if NOTEBOOKS is not None else []
VALID = [p for p in ALL if "invalid" not in p.name]
INVALID = [p for p in ALL if "invalid" in p.name]
REPO = Path(__file__).resolve().parent.parent


def _view(data: bytes) -> Document:
    view = memoryview(data)
    return decode_stream(
        bytes(view[:4]),
        lambda: (bytes(view[i : i + 65536]) for i in range(0, len(data), 65536)),
        utf8_view=True,
    )


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_the_view_reads_every_value_as_the_text_does(path: Path) -> None:
    data = path.read_bytes()
    text, view = decode(data), _view(data)
    as_text = read_notebook(text.text, path.name)
    as_view = read_notebook(view.text, path.name, view=view.utf8_view)
    assert as_view.data() == as_text.data() == json.loads(data)
    assert as_view.style == as_text.style
    assert [c.source for c in as_view.cells] == [c.source for c in as_text.cells]


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_a_cell_edit_in_the_view_writes_the_bytes_the_text_writes(path: Path) -> None:
    data = path.read_bytes()
    text, view = decode(data), _view(data)
    assert view.utf8_view or data.isascii()
    cells = read_notebook(text.text).cells
    for cell in cells:
        if not cell.source:
            continue

        def build(doc: Document) -> Change:
            end = len(doc.text)
            return Change(Plan((Replacement(0, 0, "é✓ "), Replacement(end, end, "\n# 😀"))))

        by_text = in_cell(build, cell.index, str(path))(text)
        by_view = in_cell(build, cell.index, str(path))(view)
        new = b"".join(render(text, by_text.plan))
        assert b"".join(render(view, by_view.plan)) == new
        assert [s.after for s in by_view.subjects] == [s.after for s in by_text.subjects]
        edited = json.loads(new)["cells"][cell.index]
        assert "".join(edited["source"]) == "é✓ " + cell.source + "\n# 😀"


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_large_outputs_are_decoded_when_asked_for_not_kept(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    nb = read_notebook(text)
    decoded = json.loads(text)["cells"]
    for cell in nb.cells:
        field = cell.fields.get("outputs")
        large = field is not None and field.end - field.start > LAZY_CHARS
        assert ("outputs" in cell.known) != large or field is None
        assert cell.outputs == decoded[cell.index].get("outputs", [])
        assert cell.data == decoded[cell.index]


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
@pytest.mark.parametrize("group", [1, 1000, 10**9])
def test_the_grouped_check_refuses_what_the_whole_check_refuses(path: Path, group: int) -> None:
    text = path.read_text(encoding="utf-8")
    with pytest.raises(InvalidNotebook) as whole:
        check_notebook(json.loads(text), path.name, found=True)
    with pytest.raises(InvalidNotebook) as grouped:
        check_read(read_notebook(text), path.name, found=True, group_chars=group)
    assert grouped.value.data == whole.value.data


@pytest.mark.parametrize("group", [1, 1000, 10**9])
def test_an_id_twice_in_two_groups_and_a_bad_cell_in_a_late_group_are_found(group: int) -> None:
    assert NOTEBOOKS is not None
    nb = json.loads((NOTEBOOKS / "nbformat-test4.5.ipynb").read_text(encoding="utf-8"))
    nb["cells"][8]["id"] = nb["cells"][0]["id"]
    with pytest.raises(InvalidNotebook) as twice:
        check_read(read_notebook(json.dumps(nb)), "n", found=True, group_chars=group)
    assert twice.value.data["where"] == "cells[0].id"
    nb["cells"][8]["id"] = "fresh"
    nb["cells"][7]["cell_type"] = "heading"
    with pytest.raises(InvalidNotebook) as bad:
        check_read(read_notebook(json.dumps(nb)), "n", found=True, group_chars=group)
    assert bad.value.data["where"].startswith("cells[7]")


def test_a_changed_cell_is_checked_with_the_ids_of_all_the_others() -> None:
    assert NOTEBOOKS is not None
    text = (NOTEBOOKS / "nbformat-test4.5.ipynb").read_text(encoding="utf-8")
    nb = read_notebook(text)
    cell = dict(nb.cells[3].data)
    check_read(nb, "n", found=False, changed={3: cell})
    with pytest.raises(InvalidNotebook) as twice:
        check_read(nb, "n", found=False, changed={3: {**cell, "id": nb.cells[5].id}})
    assert twice.value.data["where"] == "cells[3].id"
    with pytest.raises(InvalidNotebook) as bad:
        check_read(nb, "n", found=False, changed={3: {**cell, "source": 7}})
    assert bad.value.data["where"].startswith("cells[3]")
    assert not bad.value.data["as_found"]


CHILD = """
import json, sys, tracemalloc
from pathlib import Path
sys.path.insert(0, {bench!r})
from bench_notebook import build_notebook, OLD, NEW
from editguard import Workspace
folder, source = sys.argv[1:3]
size, cell = build_notebook(Path(source), Path(folder, "big.ipynb"), 50_000_000)
ws = Workspace([folder], max_file_bytes=4 * size, analyzers=["ruff"])
assert ws.edit_file("small.ipynb", [{{"old_text": "hello", "new_text": "hello!"}}], cell=3).written
tracemalloc.start()
result = ws.edit_file("big.ipynb", [{{"old_text": OLD, "new_text": NEW}}], cell=cell)
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({{"size": size, "peak": peak, "cell": result.cell, "written": result.written}}))
"""


@pytest.mark.slow
def test_a_cell_edit_of_a_50_mb_notebook_stays_within_three_times_the_file(
    tmp_path: Path,
) -> None:
    """In a fresh process (the imports and nbformat's schema loaded by a first edit of a small
    notebook), one cell edit of a 50 MB notebook made of a real one's cells and outputs."""
    assert NOTEBOOKS is not None
    (tmp_path / "small.ipynb").write_bytes((NOTEBOOKS / "nbformat-test4.5.ipynb").read_bytes())
    env = {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep + str(REPO)}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD.format(bench=str(REPO / "benchmarks")),
            str(tmp_path),
            str(NOTEBOOKS / "05.12-Gaussian-Mixtures.ipynb"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["written"]
    assert figures["size"] >= 50_000_000
    assert figures["peak"] <= 3 * figures["size"], figures["peak"] / figures["size"]
    # The edit landed in its cell, and nothing else changed: the file decodes to the notebook
    # it was made as, with that one line changed.
    after = json.loads((tmp_path / "big.ipynb").read_bytes())
    sources = ["".join(c["source"]) for c in after["cells"]]
    cell = figures["cell"]
    assert sources[cell].startswith("# Generate some data, again\n")
    assert sum(s.startswith("# Generate some data, again") for s in sources) == 1


def test_a_notebook_changed_outside_since_the_last_edit_is_checked_again(root: Path) -> None:
    """Each edit leaves a version known valid, so the next does not check every cell again;
    a version nobody checked (the file written by another program) is checked in full."""
    assert NOTEBOOKS is not None
    path = root / "n.ipynb"
    path.write_bytes((NOTEBOOKS / "nbformat-test4.5.ipynb").read_bytes())
    ws = Workspace([root], analyzers=[])
    edits = [{"old_text": 'print("hello")', "new_text": 'print("hello!")'}]
    assert ws.edit_file("n.ipynb", edits, cell=3).written
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cells"][8]["outputs"][0]["output_type"] = "bad stream"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    again = [{"old_text": 'print("hello!")', "new_text": 'print("hello")'}]
    with pytest.raises(InvalidNotebook) as refused:
        ws.edit_file("n.ipynb", again, cell=3)
    assert refused.value.data["as_found"]
    assert refused.value.data["where"].startswith("cells[8].outputs[0]")
