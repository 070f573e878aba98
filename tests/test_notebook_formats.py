"""A cell edit on every real notebook of the conformance set (``../shared/conformance/notebooks``)
changes that cell's source and nothing else: every byte outside its span stays, the source is
written as the line list Jupyter writes (``splitlines(keepends=True)``), in the file's own
escaping, indentation and final newline, and the result validates with nbformat.

Where the file is exactly what a known writer makes of its data (Jupyter: indent 1, keys sorted,
non-ASCII as is, a final newline; the re-serialized ``indent2-ascii`` one: indent 2, ASCII
escapes, no final newline), the result must be exactly what that writer makes of the edited data:
a check that does not rely on editguard's own reading of the spans.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from editguard import EditError, Workspace
from editguard.core.notebook.model import read_notebook

from .conformance import conformance
from .conftest import examples

NOTEBOOKS = conformance("notebooks") or Path("/nonexistent")
INVALID = {"nbformat-invalid.ipynb", "nbformat-invalid_cell_id.ipynb"}
ALL = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
VALID = [n for n in ALL if n not in INVALID]

Writer = Callable[[dict[str, Any]], str]


def _jupyter(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _indent2_ascii(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=True)


def _writer(text: str) -> Writer | None:
    """The writer that makes exactly ``text`` of its data, if one of the known ones does."""
    data = json.loads(text)
    for writer in (_jupyter, _indent2_ascii):
        if writer(data) == text:
            return writer
    return None


def _need() -> None:
    if not VALID:
        pytest.skip(f"{NOTEBOOKS} is not here")


def _source_lines(source: Any) -> list[str]:
    return source if isinstance(source, list) else str(source).splitlines(keepends=True)


def _changed_line(text: str, k: int, new: str) -> str:
    lines = text.split("\n")
    lines[k] = new
    return "\n".join(lines)


def _check_only_the_cell_changed(
    before: str, after: str, index: int, new_source: str, **cleared: Any
) -> None:
    """``after`` is ``before`` with cell ``index``'s source (and ``cleared``'s keys) changed:
    the decoded notebook as expected, valid, every byte outside the cell's changed values as
    it was, and, where a known writer made ``before``, exactly that writer's text."""
    want = json.loads(before)
    want["cells"][index]["source"] = new_source.splitlines(keepends=True)
    want["cells"][index].update(cleared)
    got = json.loads(after)
    assert got == want
    nbformat.validate(nbformat.reads(after, as_version=nbformat.NO_CONVERT))  # type: ignore[no-untyped-call]
    assert got["cells"][index]["source"] == new_source.splitlines(keepends=True)
    # The bytes that differ lie inside the cell's source (or the cleared values): the common
    # prefix reaches the first of them, the common suffix the last.
    cell = read_notebook(before).cells[index]
    spans = [cell.fields[k] for k in ("source", *cleared)]
    assert (
        json.loads(before[cell.fields["source"].start : cell.fields["source"].end])
        == (json.loads(before)["cells"][index]["source"])
    )
    lo = 0
    while lo < min(len(before), len(after)) and before[lo] == after[lo]:
        lo += 1
    hi = 0
    while hi < min(len(before), len(after)) - lo and before[-1 - hi] == after[-1 - hi]:
        hi += 1
    if before != after:
        assert lo >= min(s.start for s in spans)
        assert len(before) - hi <= max(s.end for s in spans)
    writer = _writer(before)
    if writer is not None:
        assert after == writer(want)


def _editable(data: dict[str, Any]) -> list[tuple[int, int]]:
    """(cell, line) of the first line of each cell with a non-empty source."""
    out = []
    for index, cell in enumerate(data["cells"]):
        text = "".join(_source_lines(cell.get("source", "")))
        if text.strip():
            line = next(k for k, ln in enumerate(text.split("\n")) if ln.strip())
            out.append((index, line))
    return out


def _edit_cell(ws: Workspace, name: str, index: int, old: str, new: str, **more: Any) -> None:
    result = ws.edit_file(
        name,
        [{"old_text": old, "new_text": new}],
        cell=index,
        exact=True,
        mode="interactive",  # a line of a code cell changed at random may not parse
        allow_markers=True,
        **more,
    )
    assert result.written
    assert result.cell == index


def test_the_conformance_set_is_here_and_known_writers_are_recognized() -> None:
    _need()
    assert len(VALID) >= 12
    text = (NOTEBOOKS / "04.03-Errorbars.ipynb").read_text(encoding="utf-8")
    assert _writer(text) is _jupyter
    text = (NOTEBOOKS / "04.03-Errorbars.indent2-ascii.ipynb").read_text(encoding="utf-8")
    assert _writer(text) is _indent2_ascii


@pytest.mark.slow
@pytest.mark.parametrize("name", VALID)
def test_a_line_changed_in_any_cell_changes_only_that_cells_source(
    name: str, tmp_path: Path
) -> None:
    """Every cell with a source, one after the other, on one copy of the notebook."""
    path = tmp_path / name
    shutil.copyfile(NOTEBOOKS / name, path)
    ws = Workspace([tmp_path], history=False, prewarm=False)
    for index, line in _editable(json.loads(path.read_text(encoding="utf-8"))):
        before = path.read_text(encoding="utf-8")
        source = "".join(_source_lines(json.loads(before)["cells"][index]["source"]))
        old = source.split("\n")[line]
        new = old + ' £ «edited» 🦉 "q" \\'
        _edit_cell(ws, name, index, source, _changed_line(source, line, new))
        after = path.read_text(encoding="utf-8")
        _check_only_the_cell_changed(before, after, index, _changed_line(source, line, new))


@pytest.mark.parametrize(
    ("name", "ascii_", "indent", "final_newline"),
    [
        ("02.07-Fancy-Indexing.ipynb", False, " ", True),
        ("nbformat-test4custom.ipynb", False, " ", True),
        ("04.03-Errorbars.indent2-ascii.ipynb", True, "  ", False),
    ],
)
def test_escaping_indentation_and_final_newline_stay_as_the_file_has_them(
    name: str, ascii_: bool, indent: str, final_newline: bool, tmp_path: Path
) -> None:
    _need()
    path = tmp_path / name
    shutil.copyfile(NOTEBOOKS / name, path)
    before = path.read_text(encoding="utf-8")
    assert before.isascii() == ascii_
    assert before.startswith("{\n" + indent + '"')
    assert before.endswith("\n") == final_newline
    ws = Workspace([tmp_path], history=False, prewarm=False)
    index, line = _editable(json.loads(before))[-1]
    source = "".join(_source_lines(json.loads(before)["cells"][index]["source"]))
    new = _changed_line(source, line, source.split("\n")[line] + " ± — 😀 é")
    _edit_cell(ws, name, index, source, new)
    after = path.read_text(encoding="utf-8")
    _check_only_the_cell_changed(before, after, index, new)
    assert after.isascii() == ascii_
    if ascii_:
        assert "\\u00b1 \\u2014 \\ud83d\\ude00 \\u00e9" in after
    else:
        assert "± — 😀 é" in after
    assert after.endswith("\n") == final_newline


def test_the_emoji_of_test4custom_stays_as_is_beside_an_edit(tmp_path: Path) -> None:
    _need()
    name = "nbformat-test4custom.ipynb"
    path = tmp_path / name
    shutil.copyfile(NOTEBOOKS / name, path)
    before = path.read_text(encoding="utf-8")
    data = json.loads(before)
    (index,) = [
        i for i, c in enumerate(data["cells"]) if not "".join(_source_lines(c["source"])).isascii()
    ]
    source = "".join(_source_lines(data["cells"][index]["source"]))
    new = source + "\nx = 1"
    ws = Workspace([tmp_path], history=False, prewarm=False)
    _edit_cell(ws, name, index, source, new)
    after = path.read_text(encoding="utf-8")
    _check_only_the_cell_changed(before, after, index, new)
    emoji = [ch for ch in source if ord(ch) > 0xFFFF]
    assert emoji
    assert all(ch in after for ch in emoji)


@pytest.mark.parametrize("name", ["04.03-Errorbars.ipynb", "04.03-Errorbars.indent2-ascii.ipynb"])
def test_clear_outputs_empties_the_edited_code_cell_only(name: str, tmp_path: Path) -> None:
    _need()
    path = tmp_path / name
    shutil.copyfile(NOTEBOOKS / name, path)
    before = path.read_text(encoding="utf-8")
    data = json.loads(before)
    (index, *_) = [
        i for i, c in enumerate(data["cells"]) if c["cell_type"] == "code" and c["outputs"]
    ]
    source = "".join(data["cells"][index]["source"])
    new = source + "\n# edited"
    ws = Workspace([tmp_path], history=False, prewarm=False)
    _edit_cell(ws, name, index, source, new, clear_outputs=True)
    after = path.read_text(encoding="utf-8")
    _check_only_the_cell_changed(before, after, index, new, outputs=[], execution_count=None)
    # By default they stay: the outputs of the other code cells are untouched above, and an
    # edit without clear_outputs keeps this one's too.
    other = next(
        i
        for i, c in enumerate(data["cells"])
        if i != index and c["cell_type"] == "code" and c["outputs"]
    )
    source = "".join(data["cells"][other]["source"])
    _edit_cell(ws, name, other, source, source + "\n# kept")
    assert (
        json.loads(path.read_text(encoding="utf-8"))["cells"][other]["outputs"]
        == (data["cells"][other]["outputs"])
    )


@pytest.mark.parametrize("name", ["04.03-Errorbars.ipynb", "nbformat-test4.5.ipynb"])
def test_a_notebook_with_crlf_line_endings_keeps_them(name: str, tmp_path: Path) -> None:
    _need()
    path = tmp_path / name
    original = (NOTEBOOKS / name).read_text(encoding="utf-8")
    path.write_bytes(original.replace("\n", "\r\n").encode())
    data = json.loads(original)
    index, line = _editable(data)[1]
    source = "".join(_source_lines(data["cells"][index]["source"]))
    new = _changed_line(source, line, source.split("\n")[line] + " (edited)\nand a new line")
    ws = Workspace([tmp_path], history=False, prewarm=False)
    _edit_cell(ws, name, index, source, new)
    raw = path.read_bytes()
    assert b"\n" not in raw.replace(b"\r\n", b"")
    after = raw.decode().replace("\r\n", "\n")
    _check_only_the_cell_changed(original, after, index, new)


def test_a_source_stored_as_one_string_is_written_back_as_jupyters_line_list(
    tmp_path: Path,
) -> None:
    # nbformat allows a source as one string (some tools write that); an edit writes Jupyter's
    # list, in the file's layout, and leaves the other cell's string as it was.
    data = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# Title\n\nText"},
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": "x = 1\ny = 2\n",
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    before = _jupyter(data)
    path = tmp_path / "a.ipynb"
    path.write_text(before, encoding="utf-8")
    ws = Workspace([tmp_path], history=False, prewarm=False)
    _edit_cell(ws, "a.ipynb", 1, "y = 2", "y = 3")
    _check_only_the_cell_changed(before, path.read_text(encoding="utf-8"), 1, "x = 1\ny = 3\n")
    assert '"source": "# Title\\n\\nText"' in path.read_text(encoding="utf-8")


# Other writers' layouts, made here from a real notebook's data: the edit must give exactly what
# that writer makes of the edited data. (A file with no character beyond ASCII cannot tell whether
# its writer escapes them: the ones here have some.)
OTHER_WRITERS: dict[str, Writer] = {
    "minified": lambda d: json.dumps(d, separators=(",", ":"), ensure_ascii=False),
    "one line": lambda d: json.dumps(d, ensure_ascii=False) + "\n",
    "one line, ASCII escapes": json.dumps,
    "indent 0": lambda d: json.dumps(d, indent=0, ensure_ascii=False) + "\n",
    "indent 4, sorted": lambda d: json.dumps(d, indent=4, sort_keys=True, ensure_ascii=False),
    "tabs": lambda d: json.dumps(d, indent="\t", ensure_ascii=False) + "\n",
    "indent 2, ASCII, CRLF": lambda d: (json.dumps(d, indent=2) + "\n").replace("\n", "\r\n"),
}


@pytest.mark.parametrize("writer", list(OTHER_WRITERS), ids=list(OTHER_WRITERS))
@pytest.mark.parametrize("name", ["02.07-Fancy-Indexing.ipynb", "nbformat-test4custom.ipynb"])
def test_a_notebook_laid_out_by_another_writer_stays_that_writers(
    name: str, writer: str, tmp_path: Path
) -> None:
    _need()
    write = OTHER_WRITERS[writer]
    data = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
    path = tmp_path / name
    path.write_bytes(write(data).encode())
    ws = Workspace([tmp_path], history=False, prewarm=False)
    for index, line in _editable(data)[:4]:
        source = "".join(_source_lines(data["cells"][index]["source"]))
        new = _changed_line(source, line, source.split("\n")[line] + ", é ± 😀")
        _edit_cell(ws, name, index, source, new, clear_outputs=True)
        data["cells"][index]["source"] = new.splitlines(keepends=True)
        if data["cells"][index]["cell_type"] == "code":
            data["cells"][index]["outputs"] = []
            data["cells"][index]["execution_count"] = None
        assert path.read_bytes().decode() == write(data), f"cell {index}"


@pytest.mark.parametrize("writer", list(OTHER_WRITERS), ids=list(OTHER_WRITERS))
def test_a_cell_inserted_is_laid_out_as_the_files_writer_would(writer: str, tmp_path: Path) -> None:
    _need()
    write = OTHER_WRITERS[writer]
    name = "02.07-Fancy-Indexing.ipynb"  # non-ASCII in it: whether the writer escapes shows
    data = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
    path = tmp_path / name
    path.write_bytes(write(data).encode())
    ws = Workspace([tmp_path], history=False, prewarm=False)
    ws.edit_notebook(
        name,
        [
            {"op": "insert", "cell_type": "code", "source": "x = 1\ny = 2", "after": 0},
            {"op": "insert", "cell_type": "markdown", "source": "# é ±", "before": 0},
        ],
    )
    after = path.read_bytes().decode()
    got = json.loads(after)
    assert [c["source"] for c in got["cells"][:3]] == [
        ["# é ±"],
        data["cells"][0]["source"],
        ["x = 1\n", "y = 2"],
    ]
    # Every byte as that writer would put it: the new cells' keys, separators and escapes too.
    assert after == write(got)


# -- a property over random edits ---------------------------------------------------------------

_TEXT = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\r\x00"),
    max_size=40,
)


@pytest.mark.slow
@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_any_cell_edit_on_a_real_notebook_validates_and_changes_only_that_source(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _need()
    name = data.draw(st.sampled_from(VALID), label="notebook")
    folder = tmp_path_factory.mktemp("nb")
    path = folder / name
    shutil.copyfile(NOTEBOOKS / name, path)
    before = path.read_text(encoding="utf-8")
    decoded = json.loads(before)
    index, _ = data.draw(st.sampled_from(_editable(decoded)), label="cell")
    source = "".join(_source_lines(decoded["cells"][index]["source"]))
    lines = source.split("\n")
    k = data.draw(st.integers(0, len(lines) - 1), label="line")
    how = data.draw(st.sampled_from(["replace", "insert", "delete"]), label="how")
    text = data.draw(_TEXT, label="text")
    if how == "replace":
        lines[k] = text
    elif how == "insert":
        lines.insert(k, text)
    elif len(lines) > 1:
        del lines[k]
    new = "\n".join(lines)
    if new == source:
        return
    clear = data.draw(st.booleans(), label="clear_outputs")
    cleared: dict[str, Any] = {}
    if clear and decoded["cells"][index]["cell_type"] == "code":
        cleared = {"outputs": [], "execution_count": None}
    ws = Workspace([folder], history=False, prewarm=False)
    _edit_cell(ws, name, index, source, new, clear_outputs=clear)
    after = path.read_text(encoding="utf-8")
    _check_only_the_cell_changed(before, after, index, new, **cleared)


@pytest.mark.slow
@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_a_notebook_written_whole_is_never_left_invalid(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """write_file of a notebook's JSON with a slip (a character lost, doubled or changed, as a
    model's rewrite may have): written only if the result is a valid notebook, else refused
    with INVALID_NOTEBOOK and the file left as it was."""
    _need()
    name = data.draw(st.sampled_from(VALID), label="notebook")
    folder = tmp_path_factory.mktemp("nb")
    path = folder / name
    shutil.copyfile(NOTEBOOKS / name, path)
    before = path.read_bytes()
    text = before.decode()
    at = data.draw(st.integers(0, len(text) - 1), label="at")
    slip = data.draw(st.sampled_from(["lose", "double", "quote", "comma", "brace"]), label="slip")
    new = {
        "lose": text[:at] + text[at + 1 :],
        "double": text[:at] + text[at] + text[at:],
        "quote": text[:at] + '"' + text[at + 1 :],
        "comma": text[:at] + "," + text[at:],
        "brace": text[:at] + "}" + text[at:],
    }[slip]
    ws = Workspace([folder], history=False, prewarm=False)
    try:
        ws.write_file(name, new)
    except EditError as exc:
        refused: EditError | None = exc
    else:
        refused = None
    if refused is None:
        after = path.read_text(encoding="utf-8")
        nbformat.validate(nbformat.reads(after, as_version=nbformat.NO_CONVERT))  # type: ignore[no-untyped-call]
    else:
        assert refused.code in ("INVALID_NOTEBOOK", "VALIDATION_FAILED"), refused.message
        assert path.read_bytes() == before
