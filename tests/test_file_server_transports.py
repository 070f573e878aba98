"""The file-server tools of issue 15 through a real server process, over stdio and over HTTP,
driven by the official SDK client: each one once, with what it did checked on disk."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ImageContent, TextContent

from .test_mcp import STATE_ENV, HttpServer, authorized

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(32))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tree(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "src" / "util.py").write_text("import os\n\nHOME = os.environ['HOME']\n")
    (root / "notes.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (root / "logo.png").write_bytes(PNG)
    (root / "build.log").write_text("noise\n")
    (root / ".gitignore").write_text("*.log\n")
    return root


async def _call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    text = "".join(b.text for b in result.content if isinstance(b, TextContent))
    assert not result.is_error, text
    data: dict[str, Any] = json.loads(text)
    data["_images"] = [b for b in result.content if isinstance(b, ImageContent)]
    return data


async def _every_tool(client: Client, root: Path) -> None:
    names = {t.name for t in (await client.list_tools()).tools}
    new = {"list_directory", "directory_tree", "find_files", "grep", "file_info", "move_file"}
    assert new | {"create_directory", "read_file"} <= names

    listed = await _call(client, "list_directory", {"path": "."})
    assert "[DIR] src" in listed["entries"].splitlines()
    assert "build.log" not in listed["entries"]  # .gitignored

    tree = await _call(client, "directory_tree", {"path": "."})
    assert "app.py" in tree["tree"]

    found = await _call(client, "find_files", {"pattern": "**/*.py", "sort": "name"})
    assert found["found"] == 2

    hits = await _call(client, "grep", {"pattern": "return a + b"})
    assert "2│    return a + b" in hits["content"].splitlines()
    assert hits["engine"] == "ripgrep"

    info = await _call(client, "file_info", {"path": "notes.txt"})
    assert info["line_ending"] == "CRLF"
    assert info["line_count"] == 3

    tail = await _call(client, "read_file", {"path": "notes.txt", "tail": 1})
    assert tail["content"] == "3│three"
    many = await _call(client, "read_file", {"paths": ["src/app.py", "missing.txt"]})
    assert many["files"][1]["error"]["code"] == "FILE_NOT_FOUND"
    image = await _call(client, "read_file", {"path": "logo.png"})
    assert [i.mime_type for i in image["_images"]] == ["image/png"]
    assert base64.b64decode(image["_images"][0].data) == PNG

    made = await _call(client, "create_directory", {"path": "docs/old"})
    assert made["created"]
    moved = await _call(
        client, "move_file", {"source": "notes.txt", "destination": "docs/old/notes.txt"}
    )
    assert moved["written"]
    assert (root / "docs" / "old" / "notes.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"
    assert not (root / "notes.txt").exists()

    # Both changes are in the history, and undo takes the move back.
    await _call(client, "undo", {})
    assert (root / "notes.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"


async def test_every_file_server_tool_over_stdio(tree: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(tree), "--log-level", "WARNING"],
        env=STATE_ENV,
    )
    async with Client(params) as client:
        await _every_tool(client, tree)


async def test_every_file_server_tool_over_http(tree: Path) -> None:
    server = HttpServer(tree, token="t0ken")
    try:
        async with (
            authorized("t0ken") as http,
            Client(streamable_http_client(server.url, http_client=http)) as client,
        ):
            await _every_tool(client, tree)
    finally:
        server.stop()
