"""``serve --compat filesystem`` within editguard's bounds: its read tools answer within
read_file's window of characters, its listing tools within the listing bounds, and its search
and tree say what they left out (issue 22). Over MCP, with the SDK's own client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import TextContent

from editguard import Workspace
from editguard.mcp_server import EditguardServer
from editguard.tools.read_file import READ_CHARS

pytestmark = pytest.mark.anyio

NOTE = 200  # characters of the line that says where an answer was cut


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _call(ws: Workspace, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    async with Client(EditguardServer(ws, compat="filesystem")) as client:
        result = await client.call_tool(tool, arguments)
    text = "".join(b.text for b in result.content if isinstance(b, TextContent))
    return result.is_error, text


async def test_read_text_file_of_one_5_mb_line_is_cut_and_says_so(root: Path) -> None:
    text = "".join(f"{n:07d}," for n in range(625_000))
    (root / "min.js").write_text(text)
    failed, answer = await _call(Workspace([root]), "read_text_file", {"path": "min.js"})
    assert not failed
    assert len(answer) <= READ_CHARS + NOTE
    shown, _, note = answer.rpartition("\n")
    assert shown == text[:READ_CHARS]
    assert note.startswith("… cut here")


@pytest.mark.parametrize("end", ["head", "tail"])
async def test_head_or_tail_of_10_to_the_18_lines_stays_within_the_window(
    root: Path, end: str
) -> None:
    lines = [f"{n:>9} {'y' * 40}" for n in range(100_000)]
    (root / "big.log").write_text("\n".join(lines) + "\n")
    failed, answer = await _call(
        Workspace([root]), "read_text_file", {"path": "big.log", end: 10**18}
    )
    assert not failed
    assert len(answer) <= READ_CHARS + NOTE
    assert answer.startswith(lines[0] + "\n")
    assert answer.rpartition("\n")[2].startswith("… cut here")


async def test_small_reads_are_unchanged(root: Path) -> None:
    (root / "lf.txt").write_text("one\ntwo\nthree\n")
    ws = Workspace([root])
    assert (await _call(ws, "read_text_file", {"path": "lf.txt"}))[1] == "one\ntwo\nthree\n"
    assert (await _call(ws, "read_text_file", {"path": "lf.txt", "head": 2}))[1] == "one\ntwo"
    assert (await _call(ws, "read_text_file", {"path": "lf.txt", "tail": 2}))[1] == "two\nthree"


async def test_read_multiple_files_of_big_files_stays_within_the_window(root: Path) -> None:
    for name in ("a.min.js", "b.min.js", "c.min.js"):
        (root / name).write_text(name * 400_000)
    (root / "small.txt").write_text("small\n")
    paths = ["a.min.js", "b.min.js", "small.txt", "c.min.js"]
    failed, answer = await _call(Workspace([root]), "read_multiple_files", {"paths": paths})
    assert not failed
    assert len(answer) <= READ_CHARS + 4 * NOTE
    assert "small.txt:\nsmall\n" in answer
