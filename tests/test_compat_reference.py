"""``editguard serve --compat filesystem`` beside the MCP reference filesystem server: the same
calls, over stdio, on two copies of one tree, and what each call did compared.

Each call's outcome is reduced to the facts a prompt relies on (the text read, the entries
listed, the bytes a write left, whether it failed), not the wording. Where the two servers
differ, the difference is listed in DIFFERENCES with its reason (README.md, "Drop-in for the
reference filesystem server", says the same): a new difference fails the test, and so does a
listed one that went away. The reference server is installed with npm into a cache folder the
first time; the test is skipped where npm or node is missing.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import ImageContent, TextContent

PACKAGE = "@modelcontextprotocol/server-filesystem@2026.8.31"
CACHE = Path(os.environ.get("EDITGUARD_REFERENCE_DIR", Path.home() / ".cache" / "editguard-bench"))
EXE = CACHE / "node_modules" / ".bin" / "mcp-server-filesystem"

# Calls whose facts differ, and why. Keys are the call labels below.
DIFFERENCES = {
    "tail 2": "the reference server returns one line too few when the file ends with a newline",
    "edit twice-found": "editguard refuses an oldText found twice (WRONG_COUNT); the reference "
    "server replaces the first",
    "edit crlf": "editguard keeps the file's CRLF line endings; the reference server writes LF",
    "tree": "editguard's directory_tree leaves out .gitignored and hidden entries",
    "search log": "editguard's search_files leaves out .gitignored files",
}

PNG = (
    b"\x89PNG\r\n\x1a\n"
    + b"\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"
    + b"\x00\x00\x00\x0cIDAT"
    + zlib.compress(b"\x00\xff\x00\x00")[:12].ljust(12, b"\x00")
    + b"\x00\x00\x00\x00\x00\x00\x00\x00IEND\xaeB`\x82"
)


def _reference() -> list[str]:
    if not EXE.exists():
        if not (shutil.which("npm") and shutil.which("node")):
            pytest.skip("npm or node is missing: the reference server cannot be installed")
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(CACHE), PACKAGE],
            check=True,
            capture_output=True,
            timeout=600,
        )
    if not shutil.which("node"):
        pytest.skip("node is missing")
    return [str(EXE)]


def _tree(folder: Path) -> None:
    folder.mkdir()
    (folder / "lf.txt").write_bytes(b"one\ntwo\nthree\nfour\n")
    (folder / "crlf.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    (folder / "twice.txt").write_bytes(b"x = 1\nx = 1\n")
    (folder / "sub").mkdir()
    (folder / "sub" / "a.py").write_bytes(b"print(1)\n")
    (folder / "ignored.log").write_bytes(b"ignored\n")
    (folder / ".gitignore").write_bytes(b"*.log\n")
    (folder / ".hidden").write_bytes(b"h\n")
    (folder / "dot.png").write_bytes(PNG)


def _calls(root: Path) -> list[tuple[str, str, dict[str, Any]]]:
    r = str(root)
    return [
        ("allowed", "list_allowed_directories", {}),
        ("read lf", "read_text_file", {"path": f"{r}/lf.txt"}),
        ("read crlf", "read_text_file", {"path": f"{r}/crlf.txt"}),
        ("head 2", "read_text_file", {"path": f"{r}/lf.txt", "head": 2}),
        ("tail 2", "read_text_file", {"path": f"{r}/lf.txt", "tail": 2}),
        ("read missing", "read_text_file", {"path": f"{r}/missing.txt"}),
        ("read many", "read_multiple_files", {"paths": [f"{r}/lf.txt", f"{r}/missing.txt"]}),
        ("image", "read_media_file", {"path": f"{r}/dot.png"}),
        ("write new", "write_file", {"path": f"{r}/new.txt", "content": "made\n"}),
        (
            "edit lf",
            "edit_file",
            {"path": f"{r}/lf.txt", "edits": [{"oldText": "two\n", "newText": "2\n"}]},
        ),
        (
            "edit dry run",
            "edit_file",
            {
                "path": f"{r}/lf.txt",
                "edits": [{"oldText": "three", "newText": "3"}],
                "dryRun": True,
            },
        ),
        ("mkdir", "create_directory", {"path": f"{r}/made/deeper"}),
        ("mkdir again", "create_directory", {"path": f"{r}/made/deeper"}),
        ("list", "list_directory", {"path": r}),
        ("sizes", "list_directory_with_sizes", {"path": r, "sortBy": "size"}),
        ("tree", "directory_tree", {"path": r}),
        ("move", "move_file", {"source": f"{r}/new.txt", "destination": f"{r}/made/new.txt"}),
        ("move onto a file", "move_file", {"source": f"{r}/lf.txt", "destination": f"{r}/dot.png"}),
        ("search py", "search_files", {"path": r, "pattern": "**/*.py"}),
        ("search log", "search_files", {"path": r, "pattern": "**/*.log"}),
        ("info", "get_file_info", {"path": f"{r}/lf.txt"}),
        ("outside", "read_text_file", {"path": "/etc/hostname"}),
        # Last: the two writes that differ (a later listing would show their sizes).
        (
            "edit twice-found",
            "edit_file",
            {"path": f"{r}/twice.txt", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]},
        ),
        (
            "edit crlf",
            "edit_file",
            {"path": f"{r}/crlf.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]},
        ),
    ]


def _facts(tool: str, root: Path, result: Any) -> Any:
    """What a call did, in terms both servers can be compared by."""
    if result.is_error:
        return "error"
    images = [b for b in result.content if isinstance(b, ImageContent)]
    text = "".join(b.text for b in result.content if isinstance(b, TextContent))
    text = text.replace(str(root), "<root>").replace("\r\n", "\n")
    if tool == "read_media_file":
        return [(i.mime_type, base64.b64decode(i.data)) for i in images]
    if tool == "read_text_file":
        return text.rstrip("\n").split("\n")
    if tool == "read_multiple_files":
        # Each file under its path, or its path and "Error - ...".
        return [
            (part.split(":", 1)[0], "Error -" in part.split("\n", 1)[0])
            for part in text.split("\n---\n")
        ]
    if tool in ("list_directory", "list_allowed_directories"):
        return sorted(line.strip() for line in text.splitlines() if line.strip())
    if tool == "list_directory_with_sizes":
        rows = [line for line in text.splitlines() if line.startswith("[")]
        return sorted(
            (line.split()[0], line.split()[1], re.sub(r"\D", "", "".join(line.split()[2:3])))
            for line in rows
        )
    if tool == "directory_tree":
        # The names of the tree that the answer shows (JSON or an indented tree).
        shown = set(re.findall(r"[\w.-]+", text))
        return sorted(p.name for p in root.rglob("*") if p.name in shown)
    if tool == "search_files":
        return sorted(re.findall(r"[\w./-]+\.\w+", text))
    if tool == "get_file_info":
        fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
        return (fields.get("size"), int(fields.get("permissions", "0"), 8))
    return "ok"  # a write: compared by the trees below


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


def _changes(before: dict[str, bytes | None], after: dict[str, bytes | None]) -> dict[str, Any]:
    """What one call did to the tree: each path it made, changed or removed."""
    paths = set(before) | set(after)
    return {p: after.get(p, "gone") for p in sorted(paths) if before.get(p, "?") != after.get(p)}


async def _run(command: list[str], root: Path) -> list[tuple[str, Any, dict[str, Any]]]:
    env = {k: v for k, v in os.environ.items() if k.startswith("EDITGUARD_") or k == "PYTHONPATH"}
    params = StdioServerParameters(command=command[0], args=[*command[1:], str(root)], env=env)
    out = []
    async with Client(params) as client:
        for label, tool, arguments in _calls(root):
            before = _snapshot(root)
            result = await client.call_tool(tool, arguments)
            facts = _facts(tool, root, result)
            out.append((label, facts, _changes(before, _snapshot(root))))
    return out


def test_the_same_calls_do_the_same_on_both_servers_but_the_listed_differences(
    tmp_path: Path,
) -> None:
    reference = _reference()
    ours = [sys.executable, "-m", "editguard", "serve", "--compat", "filesystem"]
    _tree(tmp_path / "a")
    _tree(tmp_path / "b")
    theirs = anyio.run(_run, reference, (tmp_path / "a").resolve())
    mine = anyio.run(_run, ours, (tmp_path / "b").resolve())
    assert len(theirs) == len(mine) == len(_calls(tmp_path))
    differ = {}
    for (label, their_facts, their_change), (_, my_facts, my_change) in zip(
        theirs, mine, strict=True
    ):
        if (their_facts, their_change) != (my_facts, my_change):
            differ[label] = ((their_facts, their_change), (my_facts, my_change))
    for label, (their, my) in differ.items():
        print(f"{label}: reference {their!r}, editguard {my!r}")
    assert set(differ) <= set(DIFFERENCES), {
        k: v for k, v in differ.items() if k not in DIFFERENCES
    }
    assert set(DIFFERENCES) <= set(differ), f"no longer different: {set(DIFFERENCES) - set(differ)}"
