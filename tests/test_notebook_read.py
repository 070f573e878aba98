"""read_file on a notebook: cells, not JSON. Every source as shown is the source nbformat
decodes, numbered within its cell; outputs summarised (streams, errors without ANSI escapes,
images by MIME type and size, returned as media when asked, over MCP as image content);
windows and truncation by cell. On the real notebooks of ../shared/conformance/notebooks."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp_types import ImageContent, TextContent

from editguard import EditError, NotebookResult, NotebookTextResult, ReadFileResult, Workspace
from editguard.core.notebook import view
from editguard.core.notebook.model import read_notebook
from editguard.mcp_server import EditguardServer

from .conformance import conformance
from .conftest import examples

NOTEBOOKS = conformance("notebooks")
ALL = sorted(NOTEBOOKS.glob("*.ipynb")) if NOTEBOOKS else []
pytestmark = pytest.mark.skipif(not ALL, reason="../shared/conformance is not beside the project")

_SOURCE = re.compile(r"^ *(\d+)│(.*)$")
_HEADER = re.compile(r"^\[cell (\d+)\] (\S+)(?: id=(\S+))?")


@pytest.fixture
def nbs(tmp_path: Path) -> Path:
    """The conformance notebooks, read in place (the workspace only reads them)."""
    assert NOTEBOOKS is not None
    return NOTEBOOKS


def notebook(result: object) -> NotebookResult:
    assert isinstance(result, NotebookResult), result
    return result


def decoded_sources(path: Path) -> list[str]:
    """Each cell's source as nbformat's JSON holds it, joined (a final line break dropped: it
    starts no line)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for cell in data["cells"]:
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        out.append(text.removesuffix("\n"))
    return out


def parse_view(content: str) -> dict[int, dict[str, Any]]:
    """The cells a view shows: each one's header fields and source lines (numbered as shown)."""
    cells: dict[int, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for row in content.split("\n"):
        header = _HEADER.match(row)
        if header:
            found = header[3]
            id_ = json.loads(found) if found and found.startswith('"') else found
            current = {"type": header[2], "id": id_, "lines": [], "outputs": []}
            cells[int(header[1])] = current
            continue
        assert current is not None, row
        source = _SOURCE.match(row)
        if source:
            current["lines"].append((int(source[1]), source[2]))
        else:
            assert row.startswith(("[out", "> ")), row  # never a source line without N│
            current["outputs"].append(row)
    return cells


def read_all(ws: Workspace, path: str, **window: Any) -> dict[int, dict[str, Any]]:
    """Every cell of a notebook, read window after window through next_start_cell."""
    cells: dict[int, dict[str, Any]] = {}
    arguments: dict[str, Any] = {}
    while True:
        result = notebook(ws.read_file(path, **arguments, **window))
        for index, cell in parse_view(result.content).items():
            if index in cells:  # a cell cut inside goes on in the next window
                cells[index]["lines"] += cell["lines"]
                cells[index]["outputs"] += cell["outputs"]
            else:
                cells[index] = cell
        if not result.truncated:
            return cells
        assert result.next_start_cell is not None
        arguments = {"start_cell": result.next_start_cell}
        if result.next_start_line is not None:
            arguments["start_line"] = result.next_start_line
            assert result.next_start_column is None


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_every_cells_source_as_shown_is_the_source_nbformat_decodes(nbs: Path, path: Path) -> None:
    ws = Workspace([nbs])
    result = notebook(ws.read_file(path.name))
    expected = decoded_sources(path)
    assert result.cells == len(expected)
    assert result.version == ws.file_info(path.name).version
    cells = read_all(ws, path.name)
    assert sorted(cells) == list(range(len(expected)))
    data = json.loads(path.read_text(encoding="utf-8"))
    for index, cell in cells.items():
        numbers = [n for n, _ in cell["lines"]]
        assert numbers == list(range(1, len(numbers) + 1))  # numbered within the cell
        assert "\n".join(text for _, text in cell["lines"]) == expected[index], index
        assert cell["type"] == data["cells"][index]["cell_type"]
        assert cell["id"] == data["cells"][index].get("id")


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_a_small_window_shows_every_line_once_across_calls(nbs: Path, path: Path) -> None:
    ws = Workspace([nbs], read_lines=7)
    cells = read_all(ws, path.name)
    expected = decoded_sources(path)
    assert sorted(cells) == list(range(len(expected)))
    for index, cell in cells.items():
        numbers = [n for n, _ in cell["lines"]]
        assert numbers == list(range(1, len(numbers) + 1))
        assert "\n".join(text for _, text in cell["lines"]) == expected[index]


def test_the_sorted_and_the_indent2_ascii_notebook_show_the_same_view(nbs: Path) -> None:
    ws = Workspace([nbs])
    jupyter = notebook(ws.read_file("04.03-Errorbars.ipynb"))
    other = notebook(ws.read_file("04.03-Errorbars.indent2-ascii.ipynb"))
    assert jupyter.content == other.content
    assert "70 ± 2.5" in other.content  # \u00b1 in its JSON
    assert jupyter.version != other.version


def test_error_outputs_show_name_value_and_the_traceback_end_without_ansi(nbs: Path) -> None:
    ws = Workspace([nbs])
    result = notebook(ws.read_file("01.06-Errors-and-Debugging.ipynb"))
    assert "\\u001b[0;31m" in (nbs / "01.06-Errors-and-Debugging.ipynb").read_text(encoding="utf-8")
    assert "\x1b" not in result.content
    assert "[0;31m" not in result.content
    cell = parse_view(result.content)[4]
    assert cell["lines"] == [(1, "func2(1)")]
    assert cell["outputs"][0] == "[out 0] error ZeroDivisionError: division by zero"
    assert cell["outputs"][-1] == "> ZeroDivisionError: division by zero"
    assert "stream stdout" in parse_view(result.content)[6]["outputs"][0]
    assert "> Exception reporting mode: Plain" in parse_view(result.content)[6]["outputs"]


@pytest.mark.parametrize(
    "name",
    [
        "04.03-Errorbars.ipynb",
        "04.03-Errorbars.indent2-ascii.ipynb",
        "04.01-Simple-Line-Plots.ipynb",
    ],
)
def test_png_outputs_are_named_with_their_size_and_returned_as_media_when_asked(
    nbs: Path, name: str
) -> None:
    ws = Workspace([nbs])
    data = json.loads((nbs / name).read_text(encoding="utf-8"))
    pngs = [
        (i, k, base64.b64decode(out["data"]["image/png"]))
        for i, cell in enumerate(data["cells"])
        for k, out in enumerate(cell.get("outputs", []))
        if "image/png" in out.get("data", {})
    ]
    plain = notebook(ws.read_file(name))
    assert plain.images is None
    for _, _, png in pngs:
        assert f"image/png {len(png):,} bytes" in plain.content
    asked = notebook(ws.read_file(name, images=True))
    assert asked.content == plain.content
    assert asked.images is not None
    got = [(m.cell, m.output, base64.b64decode(m.data)) for m in asked.images]
    assert got == pngs
    assert all(
        m.mime_type == "image/png" and m.size == len(p)
        for m, (*_, p) in zip(asked.images, pngs, strict=True)
    )
    assert all(p.startswith(b"\x89PNG") for *_, p in got)


def test_images_come_only_from_the_cells_shown(nbs: Path) -> None:
    ws = Workspace([nbs])
    one = notebook(ws.read_file("04.03-Errorbars.ipynb", cell=3, images=True))
    assert one.images is not None
    assert {m.cell for m in one.images} <= {3}
    none = notebook(ws.read_file("04.03-Errorbars.ipynb", cell=0, images=True))
    assert none.images == []


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_over_mcp_image_outputs_travel_as_image_content(nbs: Path) -> None:
    ws = Workspace([nbs])
    async with Client(EditguardServer(ws)) as client:
        asked = await client.call_tool(
            "read_file", {"path": "04.03-Errorbars.ipynb", "images": True}
        )
        plain = await client.call_tool("read_file", {"path": "04.03-Errorbars.ipynb"})
    assert not asked.is_error
    images = [b for b in asked.content if isinstance(b, ImageContent)]
    assert len(images) == 3
    assert all(base64.b64decode(b.data).startswith(b"\x89PNG") for b in images)
    assert all(b.mime_type == "image/png" for b in images)
    structured = asked.structured_content
    assert structured is not None
    assert [set(m) for m in structured["images"]] == [{"cell", "output", "mime_type", "size"}] * 3
    text = "".join(b.text for b in asked.content if isinstance(b, TextContent))
    assert "iVBORw0KGgo" not in text  # the bytes are not in the JSON
    assert not [b for b in plain.content if isinstance(b, ImageContent)]


def test_non_ascii_and_emoji_are_shown_as_they_are(nbs: Path) -> None:
    ws = Workspace([nbs])
    result = notebook(ws.read_file("nbformat-test4custom.ipynb"))
    cells = parse_view(result.content)
    line = 'bundle["application/vnd.raw.v1+json"] = {"apples": ["🍎", "🍏"], '
    assert (6, line + '"bananas": 2, "oranges": "apples"}') in cells[0]["lines"]
    assert cells[0]["outputs"] == ["[out 0] display_data: application/vnd.raw.v1+json 57 chars"]
    assert result.content.split("\n")[-1] == "[cell 1] code (empty)"
    fancy = notebook(ws.read_file("02.07-Fancy-Indexing.ipynb"))
    assert "µ" in fancy.content or "±" in fancy.content


# -- windows ---------------------------------------------------------------------------------


def test_one_cell_by_index_or_id_and_lines_within_it(nbs: Path) -> None:
    ws = Workspace([nbs])
    by_index = notebook(ws.read_file("nbformat-test4.5.ipynb", cell=5))
    by_id = notebook(ws.read_file("nbformat-test4.5.ipynb", cell="8206b3b9"))
    assert by_index.content == by_id.content
    assert by_index.content.startswith("[cell 5] code id=8206b3b9 exec=3\n 1│from IPython")
    assert (by_index.start_cell, by_index.end_cell, by_index.truncated) == (5, 5, False)
    some = notebook(ws.read_file("nbformat-test4.5.ipynb", cell=5, start_line=3, end_line=4))
    assert some.content == '[cell 5] code id=8206b3b9 exec=3 lines 3-4 of 10\n3│HTML(\n4│    """'
    last = notebook(ws.read_file("nbformat-test4.5.ipynb", cell=-1))
    assert last.start_cell == 8


def test_head_and_tail_count_cells_or_with_cell_its_lines(nbs: Path) -> None:
    ws = Workspace([nbs])
    head = notebook(ws.read_file("nbformat-test4.5.ipynb", head=2))
    assert sorted(parse_view(head.content)) == [0, 1]
    assert (head.truncated, head.next_start_cell) == (False, None)
    tail = notebook(ws.read_file("nbformat-test4.5.ipynb", tail=2))
    assert sorted(parse_view(tail.content)) == [7, 8]
    lines = notebook(ws.read_file("nbformat-test4.5.ipynb", cell=5, tail=2))
    assert parse_view(lines.content)[5]["lines"] == [(9, '"""'), (10, ")")]
    assert "[out 0]" in lines.content  # the cell's end is shown: its outputs too


def test_a_range_of_cells(nbs: Path) -> None:
    ws = Workspace([nbs])
    some = notebook(ws.read_file("nbformat-test4.5.ipynb", start_cell=2, end_cell=3))
    assert sorted(parse_view(some.content)) == [2, 3]
    assert (some.start_cell, some.end_cell, some.cells) == (2, 3, 9)


@pytest.mark.parametrize(
    ("arguments", "code", "field"),
    [
        ({"start_line": 2}, "INVALID_REQUEST", "start_line"),
        ({"end_line": 2}, "INVALID_REQUEST", "end_line"),
        ({"cell": 1, "start_cell": 2}, "INVALID_REQUEST", "start_cell"),
        ({"start_cell": 5, "end_cell": 2}, "INVALID_REQUEST", "end_cell"),
        ({"head": 2, "end_cell": 2}, "INVALID_REQUEST", "end_cell"),
        ({"cell": 3, "start_line": 9}, "INVALID_REQUEST", "start_line"),
        ({"cell": 3, "start_line": 3, "end_line": 2}, "INVALID_REQUEST", "end_line"),
        ({"cell": 99}, "CELL_NOT_FOUND", None),
        ({"cell": "nope"}, "CELL_NOT_FOUND", None),
        ({"raw": True, "cell": 1}, "INVALID_REQUEST", "cell"),
        ({"cell": 3, "start_line": 3, "start_column": 16}, "INVALID_REQUEST", "start_column"),
    ],
)
def test_windows_that_make_no_sense_are_refused(
    nbs: Path, arguments: dict[str, Any], code: str, field: str | None
) -> None:
    ws = Workspace([nbs])
    with pytest.raises(EditError) as err:
        ws.read_file("nbformat-test4.5.ipynb", **arguments)
    assert err.value.code == code
    if field is not None:
        assert err.value.data["field"] == field


def test_cell_arguments_on_a_file_that_is_no_notebook_are_refused(root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    with pytest.raises(EditError) as err:
        Workspace([root]).read_file("a.py", cell=0)
    assert (err.value.code, err.value.data["field"]) == ("INVALID_REQUEST", "cell")


def _big_cell_notebook(root: Path, lines: int) -> Path:
    source = [f"x{n} = {n}\n" for n in range(lines)]
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# title"]},
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": source,
        },
        {"cell_type": "markdown", "metadata": {}, "source": ["the end"]},
    ]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    path = root / "big.ipynb"
    path.write_text(json.dumps(nb, indent=1))
    return path


def test_truncation_stops_before_a_cell_that_does_not_fit_and_says_where_to_go_on(
    root: Path,
) -> None:
    _big_cell_notebook(root, 50)
    ws = Workspace([root], read_lines=20)
    first = notebook(ws.read_file("big.ipynb"))
    assert first.content == "[cell 0] markdown\n1│# title"
    assert (first.truncated, first.next_start_cell, first.next_start_line) == (True, 1, None)
    second = notebook(ws.read_file("big.ipynb", start_cell=1))
    # The first cell of a call has its header free: 20 lines of source.
    assert second.content.startswith("[cell 1] code lines 1-20 of 50\n 1│x0 = 0\n")
    assert (second.next_start_cell, second.next_start_line) == (1, 21)
    third = notebook(ws.read_file("big.ipynb", start_cell=1, start_line=21))
    assert third.content.startswith("[cell 1] code lines 21-40 of 50\n21│x20 = 20\n")
    cells = read_all(ws, "big.ipynb")
    assert [t for _, t in cells[1]["lines"]] == [f"x{n} = {n}" for n in range(50)]
    assert cells[2]["lines"] == [(1, "the end")]


def test_a_window_of_one_line_still_reads_on(nbs: Path) -> None:
    ws = Workspace([nbs], read_lines=1)
    cells = read_all(ws, "nbformat-test4.5.ipynb")
    assert [t for _, t in cells[5]["lines"]][:3] == [
        "from IPython.display import HTML",
        "",
        "HTML(",
    ]
    assert sorted(cells) == list(range(9))


def test_a_line_longer_than_the_window_is_cut_and_goes_on_at_a_column(root: Path) -> None:
    long = "y" * 300_000
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": [long],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    (root / "long.ipynb").write_text(json.dumps(nb))
    ws = Workspace([root])
    first = notebook(ws.read_file("long.ipynb"))
    assert len(first.content) <= 256 * 1024
    assert (first.next_start_cell, first.next_start_line) == (0, 1)
    assert first.next_start_column is not None
    rest = notebook(
        ws.read_file("long.ipynb", cell=0, start_line=1, start_column=first.next_start_column)
    )
    shown = parse_view(first.content)[0]["lines"][0][1] + parse_view(rest.content)[0]["lines"][0][1]
    assert shown == long
    assert not rest.truncated


def test_paths_read_notebooks_beside_text_files_in_one_window(nbs: Path) -> None:
    ws = Workspace([nbs])
    result = ws.read_file(paths=["SOURCES.md", "nbformat-test4custom.ipynb", "missing.ipynb"])
    text, nb, missing = result.files
    assert isinstance(text, ReadFileResult)
    assert notebook(nb).cells == 2
    assert missing.error.code == "FILE_NOT_FOUND"  # type: ignore[union-attr]


def test_paths_with_images_return_the_notebooks_images_and_read_other_files(nbs: Path) -> None:
    ws = Workspace([nbs])
    result = ws.read_file(paths=["SOURCES.md", "04.03-Errorbars.ipynb"], images=True)
    text, nb = result.files
    assert isinstance(text, ReadFileResult)
    images = notebook(nb).images
    assert images is not None
    assert len(images) == 3


def test_a_notebook_that_is_not_json_is_shown_as_text_with_a_note(root: Path) -> None:
    (root / "broken.ipynb").write_text('{"cells": [\n  {"cell_type": "code",\n')
    result = Workspace([root]).read_file("broken.ipynb")
    assert isinstance(result, NotebookTextResult)
    assert result.content.startswith('1│{"cells": [\n')
    assert "shown as text" in result.note


def test_an_invalid_by_schema_notebook_is_still_shown_as_cells(nbs: Path) -> None:
    result = notebook(Workspace([nbs]).read_file("nbformat-invalid.ipynb"))
    cells = parse_view(result.content)
    assert cells[0]["lines"] == []
    assert cells[2]["type"] == "heading"
    assert '[out 0] "bad stream"' in cells[3]["outputs"]


def test_raw_reads_the_json_as_text(nbs: Path) -> None:
    result = Workspace([nbs]).read_file("nbformat-test4custom.ipynb", raw=True)
    assert isinstance(result, ReadFileResult)
    assert not isinstance(result, NotebookTextResult)
    text = (nbs / "nbformat-test4custom.ipynb").read_text(encoding="utf-8")
    assert result.content.split("\n")[:2] == [" 1│{", ' 2│ "cells": [']
    assert result.total_lines == len(text.splitlines())


def test_cli_reads_a_notebook_as_cells(nbs: Path, tmp_path: Path) -> None:
    from .conftest import cli

    shutil.copy(nbs / "nbformat-test4custom.ipynb", tmp_path / "n.ipynb")
    code, out = cli(tmp_path, "read_file", {"path": "n.ipynb", "cell": 1})
    assert code == 0
    assert out["content"] == "[cell 1] code (empty)"
    assert (out["cells"], out["language"]) == (2, "python")


def test_images_past_the_calls_budget_are_left_out_and_counted(root: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(3 * 1024 * 1024)  # 3 MB: two do not fit in 5 MB
    image = {
        "data": {"image/png": base64.b64encode(png).decode(), "text/plain": ["<Figure>"]},
        "metadata": {},
        "output_type": "display_data",
    }
    cells: list[dict[str, Any]] = [
        {
            "cell_type": "code",
            "execution_count": k,
            "metadata": {},
            "outputs": [image],
            "source": [f"plot({k})"],
        }
        for k in (1, 2)
    ]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    (root / "plots.ipynb").write_text(json.dumps(nb))
    result = notebook(Workspace([root]).read_file("plots.ipynb", images=True))
    assert result.images is not None
    assert [(m.cell, m.size) for m in result.images] == [(0, len(png))]
    assert result.note is not None
    assert result.note.startswith("1 image(s) left out")
    assert f"image/png {len(png):,} bytes" in result.content.split("[cell 1]")[1]


def test_a_notebook_without_cells_shows_nothing_and_has_no_cell_to_name(root: Path) -> None:
    nb = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / "empty.ipynb").write_text(json.dumps(nb))
    ws = Workspace([root])
    windows: list[dict[str, Any]] = [{}, {"head": 3}, {"tail": 3}]
    for window in windows:
        result = notebook(ws.read_file("empty.ipynb", **window))
        assert (result.content, result.cells, result.truncated) == ("", 0, False)
    with pytest.raises(EditError) as err:
        ws.read_file("empty.ipynb", cell=0)
    assert err.value.code == "CELL_NOT_FOUND"


_LINE = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\r"), max_size=30
)


@settings(max_examples=examples(200), deadline=None)
@given(
    sources=st.lists(st.lists(_LINE, max_size=8).map("\n".join), max_size=6),
    lines=st.integers(1, 12),
    chars=st.integers(60, 400),
)
def test_any_window_shows_every_source_line_once_across_calls(
    sources: list[str], lines: int, chars: int
) -> None:
    cells: list[dict[str, Any]] = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": s}
        for s in sources
    ]
    nb = read_notebook(
        json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4})
    )
    got: dict[int, list[str]] = {}
    span = view.Span(0, len(cells) - 1)
    for _ in range(10_000):
        if not cells:
            break
        shown = view.render(nb, span, view.Budget(lines, chars))
        for index, cell in parse_view(shown.content).items():
            texts = [t for _, t in cell["lines"]]
            if got.get(index) and cell["lines"] and span.start_column > 1 and index == span.first:
                got[index][-1] += texts[0]  # a line cut short goes on at its column
                texts = texts[1:]
            got.setdefault(index, []).extend(texts)
        if shown.next_cell is None:
            break
        span = view.Span(
            shown.next_cell, len(cells) - 1, shown.next_line or 1, shown.next_column or 1
        )
    else:
        pytest.fail("the windows never reached the end")
    for index, source in enumerate(sources):
        assert "\n".join(got.get(index, [])) == source.removesuffix("\n")
