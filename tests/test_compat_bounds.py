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
from editguard.tools import _walking
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


# -- listing: bounded globs, a time budget, what was left out ------------------------------


@pytest.fixture
def ignoring(root: Path) -> Path:
    (root / ".gitignore").write_text("*.log\n")
    (root / "run.log").write_text("x\n")
    (root / "app.py").write_text("")
    return root


async def test_search_files_says_how_many_ignored_files_match(ignoring: Path) -> None:
    ws = Workspace([ignoring])
    failed, answer = await _call(ws, "search_files", {"path": ".", "pattern": "*.log"})
    assert not failed
    assert answer.splitlines() == [
        "No matches found",
        "(1 matching file(s) left out as .gitignored or hidden)",
    ]
    failed, answer = await _call(ws, "search_files", {"path": ".", "pattern": "*.py"})
    assert answer == str(ignoring / "app.py")  # nothing left out, nothing said


async def test_directory_tree_says_how_many_it_left_out(ignoring: Path) -> None:
    failed, answer = await _call(Workspace([ignoring]), "directory_tree", {"path": "."})
    assert not failed
    assert answer.splitlines() == [
        "app.py",
        "(2 .gitignored or hidden not shown; list_directory shows every entry)",
    ]


async def test_search_files_refuses_a_pattern_of_5000_stars(root: Path) -> None:
    failed, answer = await _call(
        Workspace([root]), "search_files", {"path": ".", "pattern": "*" * 5000}
    )
    assert failed
    assert "INVALID_REQUEST" in answer


async def test_the_listing_tools_stop_at_the_time_budget(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_walking, "time_limit", 0.0)
    (root / "a.py").write_text("")
    ws = Workspace([root])
    for tool, arguments in [
        ("search_files", {"path": ".", "pattern": "*.py"}),
        ("directory_tree", {"path": "."}),
        ("list_directory_with_sizes", {"path": "."}),
    ]:
        failed, answer = await _call(ws, tool, arguments)
        assert not failed
        assert "… stopped after 0 s" in answer, tool
