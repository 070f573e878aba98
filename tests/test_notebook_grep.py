"""grep on notebooks: a match is shown by cell and line within the cell, found in the decoded
source (escaped quotes, ``\\u00b1``, emoji), never in outputs; context stays within its cell;
with ripgrep and with the Python scan alike. And a notebook is listed like any file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from editguard import Workspace

from .conformance import conformance

NOTEBOOKS = conformance("notebooks")
pytestmark = pytest.mark.skipif(
    NOTEBOOKS is None, reason="../shared/conformance is not beside the project"
)


@pytest.fixture(params=["ripgrep", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test runs with ripgrep and with the Python scan (no rg to run)."""
    if request.param == "python":
        monkeypatch.setenv("EDITGUARD_RG", "")
    return str(request.param)


@pytest.fixture
def nbs(root: Path) -> Path:
    """A copy of the conformance notebooks in the workspace's root."""
    assert NOTEBOOKS is not None
    for path in NOTEBOOKS.glob("*.ipynb"):
        shutil.copy(path, root / path.name)
    return root


def _notebook(root: Path, name: str, sources: list[str], outputs: list[Any] | None = None) -> None:
    cells: list[dict[str, Any]] = [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": f"c{k}",
            "metadata": {},
            "outputs": outputs if outputs is not None and k == 0 else [],
            "source": source.splitlines(keepends=True),
        }
        for k, source in enumerate(sources)
    ]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / name).write_text(json.dumps(nb, indent=1))


def test_escaped_quotes_are_found_by_cell_and_line(nbs: Path, engine: str) -> None:
    result = Workspace([nbs]).grep('print("hello")')
    assert result.engine == engine
    assert result.content == (
        "nbformat-invalid.ipynb\n"
        "[cell 3] code exec=1\n"
        '1│print("hello")\n'
        "\n"
        "nbformat-test4.5.ipynb\n"
        "[cell 3] code id=38f37a24 exec=1\n"
        '3│print("hello")'
    )
    assert (result.matches, result.files) == (2, 2)


def test_non_ascii_is_found_whether_the_json_escapes_it_or_not(nbs: Path, engine: str) -> None:
    del engine
    result = Workspace([nbs]).grep("70 ± 2.5", glob="04.03*")
    blocks = result.content.split("\n\n")
    assert [b.split("\n")[:2] for b in blocks] == [
        ["04.03-Errorbars.indent2-ascii.ipynb", "[cell 1] markdown"],
        ["04.03-Errorbars.ipynb", "[cell 1] markdown"],
    ]
    assert all(b.split("\n")[2].startswith("5│Suppose I augment") for b in blocks)
    emoji = Workspace([nbs]).grep("🍎")
    assert emoji.content.startswith("nbformat-test4custom.ipynb\n[cell 0] code exec=2\n6│bundle[")


def test_outputs_are_not_searched(nbs: Path, engine: str) -> None:
    del engine
    ws = Workspace([nbs])
    # In outputs only: a traceback's exception, a stream's text, an image's base64.
    for pattern in (
        "ZeroDivisionError: division by zero",
        "Exception reporting mode",
        "iVBORw0KGgo",
    ):
        result = ws.grep(pattern, path="01.06-Errors-and-Debugging.ipynb")
        assert (result.matches, result.content) == (0, ""), pattern


def test_context_lines_stay_within_the_cell(root: Path, engine: str) -> None:
    del engine
    _notebook(root, "n.ipynb", ["a = 1\nb = 2\nhit = 3\n", "c = 4\nd = 5\n", "e = 6\nhit = 7\n"])
    result = Workspace([root]).grep("hit", context=2)
    assert result.content == (
        "n.ipynb\n"
        "[cell 0] code id=c0 (matches on lines 3)\n"
        "1│a = 1\n2│b = 2\n3│hit = 3\n"
        "[cell 2] code id=c2 (matches on lines 2)\n"
        "1│e = 6\n2│hit = 7"
    )


def test_a_notebook_named_as_the_path_is_searched_by_cell(nbs: Path, engine: str) -> None:
    del engine
    result = Workspace([nbs]).grep("hello", path="nbformat-test4.5.ipynb")
    assert result.content.split("\n") == [
        "nbformat-test4.5.ipynb",
        "[cell 3] code id=38f37a24 exec=1",
        '3│print("hello")',
        "[cell 5] code id=8206b3b9 exec=3",
        '6│console.log("hello");',
    ]


def test_the_glob_and_the_ignore_rules_apply_to_notebooks(root: Path, engine: str) -> None:
    del engine
    _notebook(root, "kept.ipynb", ["needle = 1\n"])
    _notebook(root, "ignored.ipynb", ["needle = 2\n"])
    (root / "a.py").write_text("needle = 3\n")
    (root / ".gitignore").write_text("ignored.ipynb\n")
    ws = Workspace([root])
    assert ws.grep("needle").content.split("\n\n") == [
        "a.py\n1│needle = 3",
        "kept.ipynb\n[cell 0] code id=c0\n1│needle = 1",
    ]
    assert ws.grep("needle", glob="*.py").files == 1
    # (ripgrep's glob also keeps a .gitignored file it matches, a notebook or not)
    assert "kept.ipynb\n[cell 0]" in ws.grep("needle", glob="*.ipynb").content
    assert ws.grep("needle", glob="!*.ipynb").files == 1
    assert ws.grep("needle", include_ignored=True).files == 3


def test_max_results_counts_cell_lines_and_shows_the_first(root: Path, engine: str) -> None:
    del engine
    _notebook(root, "n.ipynb", ["x = 1\nx = 2\n", "x = 3\n"])
    result = Workspace([root]).grep("x =", max_results=2)
    assert (result.matches, result.shown, result.truncated) == (3, 2, True)
    assert result.content.startswith("n.ipynb\n[cell 0] code id=c0\n1│x = 1\n2│x = 2\n\n1 more")


def test_a_notebook_that_is_not_json_is_searched_as_text(root: Path, engine: str) -> None:
    del engine
    (root / "broken.ipynb").write_text('{"cells": [\n "needle"\n')
    result = Workspace([root]).grep("needle")
    assert result.content == 'broken.ipynb\n2│ "needle"'


def test_a_notebook_is_listed_like_any_file(nbs: Path) -> None:
    ws = Workspace([nbs])
    found = ws.find_files("*.ipynb")
    assert found.found == len(list(nbs.glob("*.ipynb")))
    assert "nbformat-test4custom.ipynb" in found.files.split("\n")
    assert "nbformat-test4custom.ipynb" in ws.list_directory(".").entries
    assert "nbformat-test4custom.ipynb" in ws.directory_tree(".").tree
