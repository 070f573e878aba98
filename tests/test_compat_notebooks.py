"""``serve --compat filesystem`` on notebooks: plain text by default, as the reference server
reads, edits and writes a ``.ipynb`` (its JSON as text); cells with ``--compat-notebooks``
(read_text_file shows cells, edit_file lands in the one cell it fits, write_file checks the
notebook). Through the real compatible tools, over the SDK's client in memory."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp_types import TextContent

from editguard import Workspace
from editguard.mcp_server import EditguardServer

from .conformance import conformance
from .conftest import SRC

NOTEBOOKS = conformance("notebooks")
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(NOTEBOOKS is None, reason="../shared/conformance is not beside the project"),
]
NAME = "nbformat-test4.5.ipynb"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def nb(root: Path) -> Path:
    assert NOTEBOOKS is not None
    return Path(shutil.copy(NOTEBOOKS / NAME, root / "n.ipynb"))


def _text(result: object) -> str:
    content = result.content  # type: ignore[attr-defined]
    return "".join(b.text for b in content if isinstance(b, TextContent))


def _source(path: Path, index: int) -> str:
    return "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][index]["source"])


async def test_by_default_a_notebook_is_the_text_of_its_json(root: Path, nb: Path) -> None:
    before = nb.read_text(encoding="utf-8")
    async with Client(EditguardServer(Workspace([root]), compat="filesystem")) as client:
        read = await client.call_tool("read_text_file", {"path": "n.ipynb"})
        assert _text(read) == before
        head = await client.call_tool("read_text_file", {"path": "n.ipynb", "head": 2})
        assert _text(head) == '{\n "cells": ['
        # The decoded source is not in the text: the JSON's escaped one is.
        decoded = await client.call_tool(
            "edit_file",
            {"path": "n.ipynb", "edits": [{"oldText": 'print("hello")', "newText": "x"}]},
        )
        assert decoded.is_error
        assert "NO_MATCH" in _text(decoded)
        edit = await client.call_tool(
            "edit_file",
            {
                "path": "n.ipynb",
                "edits": [{"oldText": '"print(\\"hello\\")"', "newText": '"print(\\"bye\\")"'}],
            },
        )
        assert not edit.is_error
        assert '+    "print(\\"bye\\")"' in _text(edit)  # the diff of the JSON text
        assert nb.read_text(encoding="utf-8") == before.replace(
            '"print(\\"hello\\")"', '"print(\\"bye\\")"'
        )
        many = await client.call_tool("read_multiple_files", {"paths": ["n.ipynb"]})
        assert _text(many).startswith('n.ipynb:\n{\n "cells": [')
        # Written as text, unchecked as a notebook, as the reference server writes it.
        write = await client.call_tool("write_file", {"path": "x.ipynb", "content": "not json"})
        assert not write.is_error
    assert (root / "x.ipynb").read_text() == "not json"


async def test_with_compat_notebooks_a_notebook_goes_by_cell(root: Path, nb: Path) -> None:
    before = nb.read_text(encoding="utf-8")
    server = EditguardServer(Workspace([root]), compat="filesystem", compat_notebooks=True)
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "cells" in (tools["read_text_file"].description or "")
        read = await client.call_tool("read_text_file", {"path": "n.ipynb", "tail": 1})
        assert _text(read).startswith("[cell 8] code id=8b414a68 exec=6\n1│from IPython")
        edit = await client.call_tool(
            "edit_file",
            {
                "path": "n.ipynb",
                "edits": [{"oldText": 'print("hello")', "newText": 'print("bye")'}],
            },
        )
        assert not edit.is_error, _text(edit)
        assert f"Index: {nb}#cell 3" in _text(edit)
        assert '-print("hello")\n' in _text(edit)
        assert '+print("bye")\n' in _text(edit)
        # Only the source's JSON changed, byte for byte around it.
        assert nb.read_text(encoding="utf-8") == before.replace(
            '"print(\\"hello\\")"', '"print(\\"bye\\")"'
        )
        assert _source(nb, 3).endswith('print("bye")')
        # An oldText in two cells is refused; the file stays.
        after = nb.read_bytes()
        twice = await client.call_tool(
            "edit_file", {"path": "n.ipynb", "edits": [{"oldText": "from ", "newText": "x"}]}
        )
        assert twice.is_error
        assert nb.read_bytes() == after
        write = await client.call_tool("write_file", {"path": "x.ipynb", "content": "not json"})
        assert write.is_error
        assert "INVALID_NOTEBOOK" in _text(write)
    assert not (root / "x.ipynb").exists()


def test_compat_notebooks_goes_with_compat(root: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", "serve", "--compat-notebooks"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "HOME": str(root)},
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert "--compat-notebooks" in proc.stderr
