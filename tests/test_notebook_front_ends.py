"""A cell edit end to end through each front end: the CLI (``editguard call``), and the MCP
server driven by the official SDK's client over stdio and over HTTP. Each lands the edit in the
named cell, and refuses a cell that does not exist with CELL_NOT_FOUND (exit 1 and the JSON
error on the CLI, an error result over MCP), the notebook left as it was."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from .conftest import Snapshot, cli, set_old_mtime
from .test_mcp import STATE_ENV, HttpServer, authorized, code_of, text_of

pytestmark = pytest.mark.anyio

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title"]},
        {
            "cell_type": "code",
            "execution_count": 1,
            "id": "load",
            "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["3\n"]}],
            "source": ["x = 1\n", "print(x + 2)"],
        },
    ],
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}
TEXT = json.dumps(NOTEBOOK, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
EDIT = {"path": "a.ipynb", "cell": "load", "edits": [{"old_text": "x = 1", "new_text": "x = 2"}]}
MISSING = {**EDIT, "cell": "nope"}


def _edited() -> str:
    data = json.loads(TEXT)
    data["cells"][1]["source"] = ["x = 2\n", "print(x + 2)"]
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def nb(root: Path) -> Path:
    path = root / "a.ipynb"
    path.write_text(TEXT, encoding="utf-8")
    set_old_mtime(path)
    return path


def test_the_cli_edits_a_cell_and_refuses_a_missing_one(root: Path, nb: Path) -> None:
    snap = Snapshot.of(nb)
    code, out = cli(root, "edit_file", MISSING)
    assert code == 1
    assert out["error"]["code"] == "CELL_NOT_FOUND"
    assert [c["id"] for c in out["error"]["cells"]] == ["intro", "load"]
    assert Snapshot.of(nb) == snap
    code, out = cli(root, "edit_file", EDIT)
    assert (code, out["written"], out["cell"], out["cell_id"]) == (0, True, 1, "load")
    assert nb.read_text(encoding="utf-8") == _edited()


def _check_result(result: Any) -> None:
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    assert (result.structured_content["cell"], result.structured_content["cell_id"]) == (1, "load")


async def test_a_cell_edit_over_stdio(root: Path, nb: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(root), "--log-level", "WARNING"],
        env=STATE_ENV,
    )
    snap = Snapshot.of(nb)
    async with Client(params) as client:
        failed = await client.call_tool("edit_file", MISSING)
        assert code_of(failed) == "CELL_NOT_FOUND"
        assert Snapshot.of(nb) == snap
        _check_result(await client.call_tool("edit_file", EDIT))
    assert nb.read_text(encoding="utf-8") == _edited()


async def test_a_cell_edit_over_http(root: Path, nb: Path) -> None:
    server = HttpServer(root, token="s3cret")
    try:
        snap = Snapshot.of(nb)
        async with (
            authorized("s3cret") as http,
            Client(streamable_http_client(server.url, http_client=http)) as client,
        ):
            failed = await client.call_tool("edit_file", MISSING)
            assert code_of(failed) == "CELL_NOT_FOUND"
            assert Snapshot.of(nb) == snap
            _check_result(await client.call_tool("edit_file", EDIT))
    finally:
        server.stop()
    assert nb.read_text(encoding="utf-8") == _edited()
