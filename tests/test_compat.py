"""``serve --compat filesystem``: the reference filesystem server's tool names and arguments,
answered in plain text, with editguard's checks and history underneath (driven by the real
SDK client, in memory)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from mcp import Client
from mcp_types import ImageContent, TextContent

from editguard import Workspace
from editguard.compat import filesystem
from editguard.mcp_server import EditguardServer

pytestmark = pytest.mark.anyio

REFERENCE_TOOLS = {
    "read_file": {"path", "head", "tail"},
    "read_text_file": {"path", "head", "tail"},
    "read_media_file": {"path"},
    "read_multiple_files": {"paths"},
    "write_file": {"path", "content"},
    "edit_file": {"path", "edits", "dryRun"},
    "create_directory": {"path"},
    "list_directory": {"path"},
    "list_directory_with_sizes": {"path", "sortBy"},
    "directory_tree": {"path", "excludePatterns"},
    "move_file": {"source", "destination"},
    "search_files": {"path", "pattern", "excludePatterns"},
    "get_file_info": {"path"},
    "list_allowed_directories": set(),
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def ws(root: Path) -> Workspace:
    (root / "crlf.py").write_bytes(b"def f():\r\n    return 1\r\n")
    (root / "twice.txt").write_bytes(b"x = 1\nx = 1\n")
    (root / "dot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(40)))
    return Workspace([root])


def _text(result: object) -> str:
    content = result.content  # type: ignore[attr-defined]
    return "".join(b.text for b in content if isinstance(b, TextContent))


async def test_the_fourteen_tools_with_the_reference_servers_arguments(ws: Workspace) -> None:
    async with Client(EditguardServer(ws, compat="filesystem")) as client:
        tools = (await client.list_tools()).tools
    assert [t.name for t in tools] == list(REFERENCE_TOOLS)
    for tool in tools:
        assert set(tool.input_schema.get("properties", {})) == REFERENCE_TOOLS[tool.name]
    size = len(json.dumps([t.model_dump(exclude_none=True) for t in tools], separators=(",", ":")))
    assert size / len(tools) < 1_000  # far under editguard's own budget


async def test_answers_are_plain_text_and_writes_keep_crlf_and_refuse_ambiguity(
    ws: Workspace, root: Path
) -> None:
    async with Client(EditguardServer(ws, compat="filesystem")) as client:
        edit = await client.call_tool(
            "edit_file",
            {"path": "crlf.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]},
        )
        assert not edit.is_error
        assert "+    return 2" in _text(edit)
        assert edit.structured_content == {"content": _text(edit)}
        twice = await client.call_tool(
            "edit_file",
            {"path": "twice.txt", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]},
        )
        assert twice.is_error
        assert _text(twice).startswith("WRONG_COUNT")
        read = await client.call_tool("read_text_file", {"path": "crlf.py", "tail": 1})
        assert _text(read) == "    return 2"
        broken = await client.call_tool("write_file", {"path": "crlf.py", "content": "def (:\n"})
        assert broken.is_error
    assert (root / "crlf.py").read_bytes() == b"def f():\r\n    return 2\r\n"
    assert (root / "twice.txt").read_bytes() == b"x = 1\nx = 1\n"
    # Every change is editguard's: in the history, and undoable.
    assert ws.history(limit=1).changes[0].files[0].path == "crlf.py"
    ws.undo()
    assert (root / "crlf.py").read_bytes() == b"def f():\r\n    return 1\r\n"


async def test_listing_moving_and_reading_several_and_an_image(ws: Workspace, root: Path) -> None:
    async with Client(EditguardServer(ws, compat="filesystem")) as client:
        made = await client.call_tool("create_directory", {"path": "a/b"})
        assert "Successfully created directory a/b" in _text(made)
        moved = await client.call_tool(
            "move_file", {"source": "twice.txt", "destination": "a/b/twice.txt"}
        )
        assert not moved.is_error
        listed = _text(await client.call_tool("list_directory", {"path": "."}))
        assert "[DIR] a" in listed.splitlines()
        assert "[FILE] crlf.py" in listed.splitlines()
        sizes = _text(await client.call_tool("list_directory_with_sizes", {"path": "."}))
        assert "Total: 2 files, 1 directories" in sizes
        found = _text(await client.call_tool("search_files", {"path": ".", "pattern": "**/*.txt"}))
        assert "twice.txt" in found
        none = _text(await client.call_tool("search_files", {"path": ".", "pattern": "*.rs"}))
        assert none == "No matches found"
        many = _text(
            await client.call_tool("read_multiple_files", {"paths": ["crlf.py", "gone.txt"]})
        )
        assert many.startswith("crlf.py:\ndef f():\n")
        assert "gone.txt: Error - FILE_NOT_FOUND" in many
        image = await client.call_tool("read_media_file", {"path": "dot.png"})
        blocks = [b for b in image.content if isinstance(b, ImageContent)]
        assert [b.mime_type for b in blocks] == ["image/png"]
        assert base64.b64decode(blocks[0].data) == (root / "dot.png").read_bytes()
        info = _text(await client.call_tool("get_file_info", {"path": "crlf.py"}))
        assert "line_ending: CRLF" in info.splitlines()
        roots = _text(await client.call_tool("list_allowed_directories", {}))
        assert roots == f"Allowed directories:\n{root.resolve()}"
        outside = await client.call_tool("read_text_file", {"path": "/etc/passwd"})
        assert _text(outside).startswith("OUTSIDE_ROOT")
    assert (root / "a" / "b" / "twice.txt").exists()


def test_every_compatible_tool_is_served_and_named_once() -> None:
    assert tuple(REFERENCE_TOOLS) == filesystem.NAMES
    for name in filesystem.NAMES:
        assert filesystem.tool_named(name).name == name
    with pytest.raises(KeyError):
        filesystem.tool_named("edit_symbol")


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (0, "0 B"),
        (49, "49 B"),
        (1023, "1023 B"),
        (1024, "1.00 KB"),
        (1152, "1.13 KB"),  # 1.125: a half, rounded up as JavaScript's toFixed does
        (114_086, "111.41 KB"),
        (1024**2, "1.00 MB"),
        (5 * 1024**5, "5120.00 TB"),
    ],
)
def test_sizes_read_as_the_reference_server_writes_them(size: int, shown: str) -> None:
    assert filesystem.format_size(size) == shown


async def test_a_write_or_move_into_a_missing_folder_is_refused_and_makes_nothing(
    ws: Workspace, root: Path
) -> None:
    before = sorted(p.name for p in root.rglob("*"))
    async with Client(EditguardServer(ws, compat="filesystem")) as client:
        write = await client.call_tool("write_file", {"path": "nodir/x.txt", "content": "x"})
        move = await client.call_tool(
            "move_file", {"source": "twice.txt", "destination": "nodir/twice.txt"}
        )
    assert write.is_error
    assert _text(write).startswith("FILE_NOT_FOUND")
    assert move.is_error
    assert _text(move).startswith("FILE_NOT_FOUND")
    assert sorted(p.name for p in root.rglob("*")) == before


async def test_edit_answers_the_reference_servers_fenced_diff(ws: Workspace, root: Path) -> None:
    (root / "ten.txt").write_bytes(b"".join(b"%d\n" % i for i in range(1, 11)))
    real = str((root / "ten.txt").resolve())
    async with Client(EditguardServer(ws, compat="filesystem")) as client:
        edit = await client.call_tool(
            "edit_file", {"path": "ten.txt", "edits": [{"oldText": "6\n", "newText": "six\n"}]}
        )
    lines = [
        "```diff",
        f"Index: {real}",
        "=" * 67,
        f"--- {real}\toriginal",
        f"+++ {real}\tmodified",
        "@@ -2,9 +2,9 @@",  # four lines of context, as the reference server shows
        *(f" {i}" for i in range(2, 6)),
        "-6",
        "+six",
        *(f" {i}" for i in range(7, 11)),
        "```",
        "",
        "",
    ]
    assert _text(edit) == "\n".join(lines)


async def test_get_file_info_gives_the_reference_servers_fields_first(
    ws: Workspace, root: Path
) -> None:
    async with Client(EditguardServer(ws, compat="filesystem")) as client:
        file = _text(await client.call_tool("get_file_info", {"path": "crlf.py"}))
        folder = _text(await client.call_tool("get_file_info", {"path": "."}))
    for text, is_dir in ((file, "false"), (folder, "true")):
        fields = dict(line.split(": ", 1) for line in text.splitlines())
        assert list(fields)[:7] == [
            "size",
            "created",
            "modified",
            "accessed",
            "isDirectory",
            "isFile",
            "permissions",
        ]
        assert fields["isDirectory"] == is_dir
        assert fields["isFile"] == ("true" if is_dir == "false" else "false")
    assert dict(line.split(": ", 1) for line in file.splitlines())["size"] == "24"
