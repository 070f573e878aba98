"""The MCP server, driven by the official SDK's client: in memory, over stdio and over HTTP."""

from __future__ import annotations

import errno
import json
import os
import select
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import CallToolResult, ListRootsResult, Root, TextContent

from editguard import Workspace
from editguard._http import is_loopback, parse_address
from editguard.errors import EditError
from editguard.fs.lock import FileLocks
from editguard.mcp_server import EditguardServer, narrow
from editguard.tools import TOOLS, read_file, tool_named

from .conftest import Snapshot, set_old_mtime

pytestmark = pytest.mark.anyio

# The SDK starts a stdio server with only a few of the environment's variables: pass on the
# test folders of the journal and the history (tests/conftest.py), or the servers would write
# to the user's own.
STATE_ENV = {k: v for k, v in os.environ.items() if k in ("EDITGUARD_HISTORY", "EDITGUARD_JOURNAL")}
# And this checkout's code, not an installed copy's (in a git worktree they differ).
STATE_ENV["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent / "src")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server(root: Path) -> EditguardServer:
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    return EditguardServer(Workspace([root]), log_level="WARNING")


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def code_of(result: CallToolResult) -> str:
    assert result.is_error
    return text_of(result).split(":", 1)[0]


def error_data(result: CallToolResult) -> dict[str, Any]:
    """The code, and the data the error's text does not say (its last line, as JSON), if any."""
    text = text_of(result)
    last = text.rsplit("\n", 1)[-1]
    data: dict[str, Any] = json.loads(last) if last.startswith("{") else {}
    return {"code": code_of(result), **data}


# -- in memory ---------------------------------------------------------------------------


async def test_the_tool_list_equals_what_editguard_tools_prints(
    server: EditguardServer, root: Path
) -> None:
    printed = json.loads(
        subprocess.run(
            [sys.executable, "-m", "editguard", "tools"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
            cwd=root,
        ).stdout
    )
    async with Client(server, raise_exceptions=True) as client:
        listed = (await client.list_tools()).tools
    assert [t.name for t in listed] == [t["name"] for t in printed]
    # Exactly the same, field for field: annotations (title, openWorldHint) included.
    served = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed]
    assert served == printed
    assert all(t["annotations"]["openWorldHint"] is False for t in printed)


async def test_every_tool_succeeds_with_structured_content(
    server: EditguardServer, root: Path
) -> None:
    async with Client(server, raise_exceptions=True) as client:
        read = await client.call_tool("read_file", {"path": "app.py"})
        assert not read.is_error
        assert read.structured_content is not None
        assert read.structured_content["content"] == "1│def add(a, b):\n2│    return a + b"
        assert json.loads(text_of(read)) == read.structured_content
        edit = await client.call_tool(
            "edit_file",
            {
                "path": "app.py",
                "expected_version": read.structured_content["version"],
                "edits": [{"old_text": "a + b", "new_text": "b + a"}],
            },
        )
        assert not edit.is_error
        assert edit.structured_content is not None
        assert edit.structured_content["edits_applied"][0]["lines"] == [2]
        lines = await client.call_tool(
            "edit_lines",
            {"path": "app.py", "edits": [{"line_number": 1, "type": "Insert", "text": "# header"}]},
        )
        assert not lines.is_error, text_of(lines)
        safe = await client.call_tool(
            "safe_edit",
            {
                "path": "app.py",
                "search_replace": {"search": "# (header)", "replace": "# \\1!", "regex": True},
            },
        )
        assert not safe.is_error, text_of(safe)
        assert safe.structured_content is not None
        assert safe.structured_content["replacements"] == 1
        write = await client.call_tool("write_file", {"path": "new/x.txt", "content": "x\n"})
        assert not write.is_error
        assert write.structured_content is not None
        assert write.structured_content["created"] is True
    assert (root / "app.py").read_text() == "# header!\ndef add(a, b):\n    return b + a\n"
    assert (root / "new/x.txt").read_text() == "x\n"


CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "read outside": ("read_file", {"path": "../secret.txt"}, "OUTSIDE_ROOT"),
    "read missing": ("read_file", {"path": "nope.py"}, "FILE_NOT_FOUND"),
    "read binary": ("read_file", {"path": "blob.bin"}, "BINARY_FILE"),
    "read folder": ("read_file", {"path": "sub"}, "NOT_A_FILE"),
    "read bad range": ("read_file", {"path": "app.py", "start_line": 9}, "INVALID_REQUEST"),
    "read bad type": ("read_file", {"path": 3}, "INVALID_REQUEST"),
    "edit no match": (
        "edit_file",
        {"path": "app.py", "edits": [{"old_text": "a * b", "new_text": "x"}]},
        "NO_MATCH",
    ),
    "edit wrong count": (
        "edit_file",
        {"path": "app.py", "edits": [{"old_text": "a", "new_text": "x"}]},
        "WRONG_COUNT",
    ),
    "edit stale": (
        "edit_file",
        {
            "path": "app.py",
            "expected_version": "0" * 16,
            "edits": [{"old_text": "a + b", "new_text": "x"}],
        },
        "STALE_VERSION",
    ),
    "edit empty old": (
        "edit_file",
        {"path": "app.py", "edits": [{"old_text": "", "new_text": "x"}]},
        "INVALID_REQUEST",
    ),
    "edit unknown field": (
        "edit_file",
        {"path": "app.py", "edits": [{"old_text": "a + b", "new_text": "x", "count": 2}]},
        "INVALID_REQUEST",
    ),
    "edit too many": (
        "edit_file",
        {"path": "app.py", "edits": [{"old_text": "a", "new_text": "a"}] * 1001},
        "TOO_MANY_EDITS",
    ),
    "edit unencodable": (
        "edit_file",
        {"path": "legacy.txt", "edits": [{"old_text": "caf", "new_text": "☃"}]},
        "ENCODING_ERROR",
    ),
    "edit outside": (
        "edit_file",
        {"path": "../secret.txt", "edits": [{"old_text": "s", "new_text": "x"}]},
        "OUTSIDE_ROOT",
    ),
    "write outside": ("write_file", {"path": "../secret.txt", "content": "x"}, "OUTSIDE_ROOT"),
    "write stale": (
        "write_file",
        {"path": "app.py", "content": "x", "expected_version": "0" * 16},
        "STALE_VERSION",
    ),
    "write unencodable": ("write_file", {"path": "legacy.txt", "content": "☃"}, "ENCODING_ERROR"),
    "write missing content": ("write_file", {"path": "app.py"}, "INVALID_REQUEST"),
    "write breaks syntax": (
        "write_file",
        {"path": "app.py", "content": "def (:\n"},
        "VALIDATION_FAILED",
    ),
    "lines past the end": (
        "edit_lines",
        {"path": "app.py", "edits": [{"line_number": 9, "type": "Delete"}]},
        "LINE_OUT_OF_RANGE",
    ),
    "lines overlap": (
        "edit_lines",
        {
            "path": "app.py",
            "edits": [
                {"line_number": 1, "type": "Delete", "end_line": 2},
                {"line_number": 2, "type": "Replace", "text": "x"},
            ],
        },
        "OVERLAPPING_EDITS",
    ),
    "lines bad type": (
        "edit_lines",
        {"path": "app.py", "edits": [{"line_number": 1, "type": "Explode"}]},
        "INVALID_REQUEST",
    ),
    "lines break syntax": (
        "edit_lines",
        {
            "path": "app.py",
            "edits": [{"line_number": 2, "type": "Replace", "text": "    return (a"}],
        },
        "VALIDATION_FAILED",
    ),
    "safe no mode": ("safe_edit", {"path": "app.py"}, "INVALID_REQUEST"),
    "safe bad regex": (
        "safe_edit",
        {"path": "app.py", "search_replace": {"search": "(", "replace": "x", "regex": True}},
        "INVALID_REGEX",
    ),
    "safe not found": (
        "safe_edit",
        {"path": "app.py", "search_replace": {"search": "zzz", "replace": "x"}},
        "NO_MATCH",
    ),
    "safe breaks syntax": (
        "safe_edit",
        {
            "path": "app.py",
            "line_edits": [{"start_line": 1, "end_line": 1, "new_content": "def add(a, b:"}],
        },
        "VALIDATION_FAILED",
    ),
    # Hostile or mistyped input: a coded refusal, never a write or a bare failure.
    "a boolean line number": (
        "edit_lines",
        {"path": "app.py", "edits": [{"line_number": True, "type": "Delete"}]},
        "INVALID_REQUEST",
    ),
    "a count as a string": (
        "edit_file",
        {"path": "app.py", "edits": [{"old_text": "a", "new_text": "b", "occurrences": "3"}]},
        "INVALID_REQUEST",
    ),
    "a regex bomb": (
        "safe_edit",
        {
            "path": "app.py",
            "search_replace": {"search": "a{100000000}", "replace": "", "regex": True},
        },
        "INVALID_REGEX",
    ),
    "edits as a string nested 10,000 deep": (
        "edit_file",
        {"path": "app.py", "edits": "[" * 10_000 + "]" * 10_000},
        "INVALID_REQUEST",
    ),
    "a surrogate in the path": ("read_file", {"path": "\ud800.py"}, "INVALID_REQUEST"),
    "an argument over the size limit": (
        "edit_file",
        {"path": "app.py", "edits": [{"old_text": "a" * 10_000_001, "new_text": "b"}]},
        "INVALID_REQUEST",
    ),
}


@pytest.mark.parametrize(("tool", "arguments", "code"), CASES.values(), ids=CASES.keys())
async def test_every_failure_is_an_error_result_starting_with_its_code(
    server: EditguardServer, root: Path, tool: str, arguments: dict[str, Any], code: str
) -> None:
    (root / "sub").mkdir()
    (root / "blob.bin").write_bytes(b"\x00\x01\x02")
    (root / "legacy.txt").write_bytes("caf\u00e9\n".encode("cp1252"))
    (root.parent / "secret.txt").write_text("secret\n")
    files = [p for p in root.parent.rglob("*") if p.is_file()]
    for path in files:
        set_old_mtime(path)
    before = {p: Snapshot.of(p) for p in files}
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    assert code_of(result) == code
    assert error_data(result)["code"] == code
    assert "Error executing tool" not in text_of(result)
    assert {p: Snapshot.of(p) for p in files} == before


async def test_a_malformed_call_names_the_wrong_field(server: EditguardServer) -> None:
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool(
            "edit_file", {"path": "app.py", "edits": [{"old_text": "a + b"}]}
        )
    assert code_of(result) == "INVALID_REQUEST"
    assert "edits[0].new_text: Field required" in text_of(result)


async def test_an_error_says_each_fact_once(server: EditguardServer) -> None:
    arguments = {
        "path": "app.py",
        "edits": [
            {"old_text": "a + b", "new_text": "b"},
            {"old_text": "def add(a, b):\n  return b\n", "new_text": "x"},
        ],
    }
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool("edit_file", arguments)
    text = text_of(result)
    assert result.structured_content is None  # one form for the model to read, not two
    assert text.startswith("NO_MATCH: edit 2 of 2: ")
    assert "1│def add(a, b):" in text  # the file's nearby lines, to copy from
    assert "indentation" in text
    # The same error, as the tool raises it: its message, each suggestion and the searched text
    # appear once; the structured copies of what the text shows are left out.
    error = tool_named("edit_file").run_safely(server.context, arguments)
    assert isinstance(error, EditError)
    assert error.data["similar_content"]
    assert error.suggestions
    assert text.count(error.message) == 1
    for tip in error.suggestions:
        assert text.count(tip) == 1
    assert text.count(">>>def add(a, b):") == 1
    data = error_data(result)
    assert not {"similar_content", "search_text", "edit_index", "suggestions", "message"} & {*data}


async def test_an_error_keeps_the_data_its_text_does_not_say(root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    server = EditguardServer(Workspace([root]), log_level="WARNING")
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool(
            "edit_lines", {"path": "a.txt", "edits": [{"line_number": 9, "type": "Delete"}]}
        )
    assert code_of(result) == "LINE_OUT_OF_RANGE"
    assert "a.txt" not in text_of(result).split("\n", 1)[0]  # the message does not name it...
    assert error_data(result)["path"] == "a.txt"  # ...so the data does, once


async def test_an_unknown_tool_is_an_invalid_request(server: EditguardServer) -> None:
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool("delete_everything", {})
    assert code_of(result) == "INVALID_REQUEST"


async def test_a_bug_is_an_internal_error_result_not_a_bare_failure(
    server: EditguardServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("injected")

    monkeypatch.setattr(read_file, "read_text_or_raw", explode)
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool("read_file", {"path": "app.py"})
    assert code_of(result) == "INTERNAL_ERROR"


def roots_callback(*paths: Path) -> Any:
    async def list_roots(_context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=p.as_uri()) for p in paths])

    return list_roots


async def test_client_roots_narrow_the_allowed_folders(server: EditguardServer, root: Path) -> None:
    (root / "inner").mkdir()
    (root / "inner/ok.txt").write_text("ok\n")
    async with Client(
        server,
        mode="legacy",
        list_roots_callback=roots_callback(root / "inner"),
        raise_exceptions=True,
    ) as client:
        inside = await client.call_tool("read_file", {"path": "ok.txt"})
        outside = await client.call_tool("read_file", {"path": str(root / "app.py")})
    # Relative paths start at the first allowed folder: here the client's root.
    assert not inside.is_error
    assert code_of(outside) == "OUTSIDE_ROOT"


async def test_client_roots_never_widen_the_allowed_folders(
    server: EditguardServer, root: Path, tmp_path: Path
) -> None:
    (tmp_path / "elsewhere.txt").write_text("no\n")
    async with Client(
        server, mode="legacy", list_roots_callback=roots_callback(tmp_path), raise_exceptions=True
    ) as client:
        inside = await client.call_tool("read_file", {"path": "app.py"})
        outside = await client.call_tool("read_file", {"path": str(tmp_path / "elsewhere.txt")})
    assert not inside.is_error
    assert code_of(outside) == "OUTSIDE_ROOT"


async def test_disjoint_client_roots_allow_nothing(server: EditguardServer, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    async with Client(
        server, mode="legacy", list_roots_callback=roots_callback(other), raise_exceptions=True
    ) as client:
        result = await client.call_tool("read_file", {"path": "app.py"})
    assert code_of(result) == "OUTSIDE_ROOT"


class ChangingRoots:
    """A client's roots, which the test changes, counting the server's roots/list requests."""

    def __init__(self, *paths: Path) -> None:
        self.paths = list(paths)
        self.asked = 0

    async def __call__(self, _context: Any) -> ListRootsResult:
        self.asked += 1
        return ListRootsResult(roots=[Root(uri=p.as_uri()) for p in self.paths])


async def roots_changed(client: Client) -> None:
    with pytest.warns(MCPDeprecationWarning):  # roots are deprecated by the 2026-07-28 protocol
        await client.send_roots_list_changed()


async def test_client_roots_are_asked_once_and_again_when_they_change(
    server: EditguardServer, root: Path, tmp_path: Path
) -> None:
    for name in ("a", "a/deeper", "b"):
        (root / name).mkdir()
        (root / name / "ok.txt").write_text(f"{name}\n")
    (tmp_path / "elsewhere.txt").write_text("no\n")
    roots = ChangingRoots(root / "a")
    callback: Any = roots  # the SDK's callback protocol names its parameters

    async def read(path: str | Path) -> CallToolResult:
        return await client.call_tool("read_file", {"path": str(path)})

    def content(result: CallToolResult) -> str:
        """The file's text, without read_file's line numbers."""
        assert not result.is_error, text_of(result)
        assert result.structured_content is not None
        lines = str(result.structured_content["content"]).splitlines()
        return "\n".join(line.split("│", 1)[1] for line in lines)

    async with Client(
        server, mode="legacy", list_roots_callback=callback, raise_exceptions=True
    ) as client:
        assert content(await read("ok.txt")) == "a"
        assert code_of(await read(root / "b/ok.txt")) == "OUTSIDE_ROOT"
        assert content(await read("ok.txt")) == "a"
        assert roots.asked == 1  # kept for the connection: no round trip per call

        roots.paths = [root / "a/deeper"]  # narrower
        await roots_changed(client)
        assert content(await read("ok.txt")) == "a/deeper"
        assert code_of(await read(root / "a/ok.txt")) == "OUTSIDE_ROOT"
        assert roots.asked == 2

        roots.paths = [root / "b"]  # another subfolder
        await roots_changed(client)
        assert content(await read("ok.txt")) == "b"
        assert code_of(await read(root / "a/deeper/ok.txt")) == "OUTSIDE_ROOT"
        assert roots.asked == 3

        roots.paths = [tmp_path]  # wider than the server's folder: it stays the limit
        await roots_changed(client)
        assert code_of(await read(tmp_path / "elsewhere.txt")) == "OUTSIDE_ROOT"
        assert content(await read(root / "a/ok.txt")) == "a"
        assert content(await read("app.py")).startswith("def add")
        assert roots.asked == 4


def test_narrow_keeps_the_intersection_of_the_trees(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "a/b"
    b.mkdir(parents=True)
    assert narrow([str(a)], [str(b)]) == [str(b)]
    assert narrow([str(b)], [str(a)]) == [str(b)]
    assert narrow([str(a)], [str(tmp_path / "c")]) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("8080", ("127.0.0.1", 8080)),
        ("0.0.0.0:1", ("0.0.0.0", 1)),
        ("[::1]:9", ("::1", 9)),
        ("localhost:80", ("localhost", 80)),
    ],
)
def test_parse_address(value: str, expected: tuple[str, int]) -> None:
    assert parse_address(value) == expected


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("0.0.0.0")
    assert not is_loopback("example.org")


# -- real processes --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class HttpServer:
    """``editguard serve --http`` in a subprocess, ready when uvicorn says it runs."""

    def __init__(self, root: Path, token: str | None = None, flags: tuple[str, ...] = ()) -> None:
        for _ in range(5):
            # Another test (an xdist worker beside this one) may take the free port first:
            # the server then says so and stops before it starts, and we try another port.
            if self._start(root, token, flags):
                break
        else:
            raise AssertionError("no free port after 5 tries: " + "".join(self.log))
        # Keep reading, so that a full pipe never blocks the server.
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

    def _start(self, root: Path, token: str | None, flags: tuple[str, ...]) -> bool:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        argv = [
            sys.executable,
            "-m",
            "editguard",
            "serve",
            str(root),
            "--http",
            f"127.0.0.1:{self.port}",
            "--log-level",
            "INFO",
            *flags,
        ]
        if token:
            argv += ["--token", token]
        self.proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr is not None
        self.log: list[str] = []
        for line in self.proc.stderr:  # waits for the server's own word that it listens
            self.log.append(line)
            if "Uvicorn running on" in line:
                return True
        self.proc.wait(timeout=30)
        self.proc.stderr.close()
        if "already in use" in "".join(self.log):
            return False
        raise AssertionError("the server stopped: " + "".join(self.log))

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.drain.join(timeout=30)
        assert self.proc.stderr is not None
        self.proc.stderr.close()


@pytest.fixture
def http_server(root: Path) -> Iterator[HttpServer]:
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    server = HttpServer(root, token="s3cret")
    yield server
    server.stop()


def authorized(token: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)


async def test_stdio_end_to_end(root: Path) -> None:
    (root / "app.py").write_text("x = 1\n")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(root), "--log-level", "WARNING"],
        env=STATE_ENV,
    )
    async with Client(params) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == [t.name for t in TOOLS]
        result = await client.call_tool(
            "edit_file", {"path": "app.py", "edits": [{"old_text": "1", "new_text": "2"}]}
        )
        assert not result.is_error
        failed = await client.call_tool(
            "edit_file", {"path": "app.py", "edits": [{"old_text": "1", "new_text": "2"}]}
        )
        assert code_of(failed) == "NO_MATCH"
    assert (root / "app.py").read_text() == "x = 2\n"


async def test_http_end_to_end_with_the_token(http_server: HttpServer, root: Path) -> None:
    async with (
        authorized("s3cret") as http,
        Client(streamable_http_client(http_server.url, http_client=http)) as client,
    ):
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == [t.name for t in TOOLS]
        result = await client.call_tool(
            "edit_file", {"path": "app.py", "edits": [{"old_text": "a + b", "new_text": "a - b"}]}
        )
        assert not result.is_error
    assert "a - b" in (root / "app.py").read_text()


@pytest.mark.parametrize("token", [None, "wrong"])
async def test_http_without_the_right_token_is_refused(
    http_server: HttpServer, token: str | None
) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(
            http_server.url,
            headers=headers,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        )
    assert response.status_code == 401
    # The body says how to send the token, and where the server's token comes from.
    message = response.json()["message"]
    assert "Authorization: Bearer <token>" in message
    assert "--token" in message
    assert "EDITGUARD_TOKEN" in message


WELL_KNOWN = [
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-authorization-server",
    "/.well-known/oauth-authorization-server/mcp",
    "/.well-known/openid-configuration",
]


async def test_oauth_discovery_is_not_found_with_or_without_a_token(
    http_server: HttpServer, root: Path
) -> None:
    # A 401 there would make a client start an OAuth flow ("Interactive OAuth requires a
    # TTY") instead of asking for the token.
    open_server = HttpServer(root)
    try:
        async with httpx2.AsyncClient(timeout=30) as http:
            for server in (http_server, open_server):
                base = f"http://127.0.0.1:{server.port}"
                for path in WELL_KNOWN:
                    response = await http.get(base + path)
                    assert response.status_code == 404, (server.url, path)
                # The token is still asked for everything else.
                response = await http.post(
                    server.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
                )
                assert response.status_code == (401 if server is http_server else 400)
    finally:
        open_server.stop()


async def test_http_refuses_a_foreign_host_header_and_names_allow_host(
    http_server: HttpServer, root: Path
) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
    headers = {"Host": "evil.example:80", "Accept": "application/json, text/event-stream"}
    async with authorized("s3cret") as http:
        response = await http.post(http_server.url, headers=headers, json=request)
        assert response.status_code == 421
        assert "--allow-host evil.example" in response.text
        # The option it names lets that name in.
        allowing = HttpServer(root, token="s3cret", flags=("--allow-host", "evil.example"))
        try:
            response = await http.post(allowing.url, headers=headers, json=request)
        finally:
            allowing.stop()
    assert response.status_code == 200, response.text


INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"},
}


def test_a_port_in_use_is_one_clear_error_before_the_url(root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "editguard", "serve", str(root), "--http", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()  # one line, and no URL announced before it
    assert f"port {port} is already in use" in line
    assert "--http" in line


def test_a_reachable_address_without_a_token_is_refused(root: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", "serve", str(root), "--http", "0.0.0.0:0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "EDITGUARD_TOKEN"},
    )
    assert proc.returncode == 2
    assert "without a token" in proc.stderr


LINES = 16


async def add_line(url: str, number: int) -> None:
    async with (
        authorized("s3cret") as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        result = await client.call_tool(
            "edit_file",
            {
                "path": "list.txt",
                "edits": [{"old_text": "# end\n", "new_text": f"line {number}\n# end\n"}],
            },
        )
        assert not result.is_error, text_of(result)


async def test_simultaneous_edits_over_http_lose_no_update(
    http_server: HttpServer, root: Path
) -> None:
    (root / "list.txt").write_text("# start\n# end\n")
    async with anyio.create_task_group() as group:
        for number in range(LINES):
            group.start_soon(add_line, http_server.url, number)
    lines = (root / "list.txt").read_text().splitlines()
    assert sorted(lines[1:-1]) == sorted(f"line {n}" for n in range(LINES))
    assert (lines[0], lines[-1]) == ("# start", "# end")


async def test_two_servers_on_one_folder_take_turns(root: Path) -> None:
    (root / "list.txt").write_text("# start\n# end\n")
    servers = [HttpServer(root, token="s3cret"), HttpServer(root, token="s3cret")]
    try:
        async with anyio.create_task_group() as group:
            for number in range(LINES):
                group.start_soon(add_line, servers[number % 2].url, number)
    finally:
        for server in servers:
            server.stop()
    lines = (root / "list.txt").read_text().splitlines()
    assert sorted(lines[1:-1]) == sorted(f"line {n}" for n in range(LINES))


async def test_system_refusals_are_error_results_too(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "app.py").write_text("x = 1\n")
    small = EditguardServer(Workspace([root], max_file_bytes=3), log_level="WARNING")
    edit = {"path": "app.py", "edits": [{"old_text": "1", "new_text": "2"}]}
    async with Client(small, raise_exceptions=True) as client:
        assert code_of(await client.call_tool("edit_file", edit)) == "FILE_TOO_LARGE"
    server = EditguardServer(Workspace([root]), log_level="WARNING")
    # Root may write anything and disks here do not fill: the refusals are injected.
    with monkeypatch.context() as patch:
        patch.setattr(os, "access", lambda *_a, **_k: False)
        async with Client(server, raise_exceptions=True) as client:
            assert code_of(await client.call_tool("edit_file", edit)) == "PERMISSION_DENIED"

    def disk_full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", disk_full)
        async with Client(server, raise_exceptions=True) as client:
            assert (
                code_of(await client.call_tool("write_file", {"path": "app.py", "content": "y\n"}))
                == "WRITE_FAILED"
            )
    assert (root / "app.py").read_text() == "x = 1\n"


async def test_a_file_held_too_long_by_another_writer_is_file_busy(root: Path) -> None:
    (root / "app.py").write_text("x = 1\n")
    locks = FileLocks(folder=str(root.parent / "locks"), timeout=0.2)
    server = EditguardServer(Workspace([root], locks=locks), log_level="WARNING")
    held, release = threading.Event(), threading.Event()

    def writer_that_hangs() -> None:
        with locks.hold(str(root / "app.py"), "app.py"):
            held.set()
            release.wait(timeout=60)

    thread = threading.Thread(target=writer_that_hangs)
    thread.start()
    try:
        assert held.wait(timeout=60)
        async with Client(server, raise_exceptions=True) as client:
            busy = await client.call_tool(
                "edit_file", {"path": "app.py", "edits": [{"old_text": "1", "new_text": "2"}]}
            )
            other = await client.call_tool("write_file", {"path": "other.txt", "content": "ok"})
    finally:
        release.set()
        thread.join(timeout=60)
    assert code_of(busy) == "FILE_BUSY"
    assert not other.is_error  # another file is not held up by this one's lock
    assert (root / "app.py").read_text() == "x = 1\n"


async def test_a_file_name_that_is_no_utf8_travels_as_escapes(root: Path) -> None:
    name = os.fsdecode(b"caf\xe9.py")
    (root / name).write_text("x = 1\n")
    server = EditguardServer(Workspace([root]), log_level="WARNING")
    async with Client(server, raise_exceptions=True) as client:
        read = await client.call_tool("read_file", {"path": name})
        missing = await client.call_tool("read_file", {"path": os.fsdecode(b"\xff.py")})
    assert not read.is_error
    assert read.structured_content is not None
    assert read.structured_content["path"].endswith("caf\\udce9.py")
    assert code_of(missing) == "FILE_NOT_FOUND"
    assert "\\udcff" in text_of(missing)


def test_a_client_root_that_cannot_be_resolved_narrows_to_nothing(tmp_path: Path) -> None:
    assert narrow([str(tmp_path)], [str(tmp_path / "a\x00b")]) == []


def test_a_lone_surrogate_over_stdio_is_answered_with_a_code(root: Path) -> None:
    # A raw frame, as a client sends a file name's non-UTF-8 byte; the protocol's parser
    # would drop it without an answer, and the client would wait forever.
    frames = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    lines = [json.dumps(f) for f in frames]
    lines.append(
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", '
        '"params": {"name": "read_file", "arguments": {"path": "\\udcff.txt"}}}'
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "editguard", "serve", str(root), "--log-level", "ERROR"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    answers: dict[int, Any] = {}
    try:
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        while 2 not in answers:  # the server answers in order; it stops when stdin closes
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            assert ready, "no answer in 30 s: the frame was dropped"
            message = json.loads(proc.stdout.readline())
            if "id" in message:
                answers[message["id"]] = message
    finally:
        proc.stdin.close()
        proc.stdout.close()
        proc.wait(timeout=30)
    result = answers[2]["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("FILE_NOT_FOUND")


async def test_the_match_ladder_through_the_server(server: EditguardServer, root: Path) -> None:
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    edits = [{"old_text": "return a + b\n", "new_text": "return a - b\n"}]
    async with Client(server) as client:
        result = await client.call_tool("edit_file", {"path": "app.py", "edits": edits})
        assert not result.is_error
        assert result.structured_content is not None
        applied = result.structured_content["edits_applied"][0]
        assert applied["match"] == "exact"
        loose = [{"old_text": "  return a - b  \n", "new_text": "  return a * b\n"}]
        refused = await client.call_tool(
            "edit_file", {"path": "app.py", "edits": loose, "exact": True}
        )
        assert code_of(refused) == "NO_MATCH"
        result = await client.call_tool("edit_file", {"path": "app.py", "edits": loose})
        assert result.structured_content is not None
        applied = result.structured_content["edits_applied"][0]
        assert applied["match"] == "trailing_whitespace"
    assert (root / "app.py").read_text() == "def add(a, b):\n    return a * b\n"


PATCH = (
    "*** Begin Patch\n*** Update File: app.py\n-    return a + b\n+    return b + a\n"
    "*** Add File: docs/notes.md\n+# Notes\n*** End Patch\n"
)


MISSING = "*** Begin Patch\n*** Update File: app.py\n-    return a\n+    return 0\n*** End Patch\n"


async def test_apply_patch_apply_diff_and_batch_through_the_server(
    server: EditguardServer, root: Path
) -> None:
    async with Client(server, raise_exceptions=True) as client:
        patched = await client.call_tool("apply_patch", {"patch": PATCH})
        assert not patched.is_error, text_of(patched)
        assert patched.structured_content is not None
        files = patched.structured_content["files"]
        assert [(f["path"], f["action"]) for f in files] == [
            ("app.py", "updated"),
            ("docs/notes.md", "added"),
        ]
        diffed = await client.call_tool(
            "apply_diff",
            {"diff": "--- a/docs/notes.md\n+++ b/docs/notes.md\n@@ -1 +1,2 @@\n # Notes\n+- one\n"},
        )
        assert not diffed.is_error, text_of(diffed)
        batch = await client.call_tool(
            "batch",
            {
                "calls": [
                    {"tool": "write_file", "arguments": {"path": "b.txt", "content": "b\n"}},
                    {"tool": "apply_patch", "arguments": {"patch": MISSING}},
                ]
            },
        )
        assert batch.is_error
        assert code_of(batch) == "NO_MATCH"
        assert text_of(batch).startswith("NO_MATCH: call 2 of 2 (apply_patch): ")
    assert (root / "app.py").read_text() == "def add(a, b):\n    return b + a\n"
    assert (root / "docs/notes.md").read_text() == "# Notes\n- one\n"
    assert not (root / "b.txt").exists()


async def test_apply_patch_over_stdio_commits_all_files(root: Path, tmp_path: Path) -> None:
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(root), "--journal", str(tmp_path / "j")],
        env=STATE_ENV,
    )
    async with Client(params) as client:
        result = await client.call_tool("apply_patch", {"patch": PATCH})
        assert not result.is_error, text_of(result)
    assert (root / "docs/notes.md").read_text() == "# Notes\n"
    # No journal left; the journal key (made by the first commit) stays.
    assert [p.name for p in (tmp_path / "j").iterdir()] == ["journal.key"]


async def test_batch_over_http(http_server: HttpServer, root: Path) -> None:
    async with (
        authorized("s3cret") as http,
        Client(streamable_http_client(http_server.url, http_client=http)) as client,
    ):
        result = await client.call_tool(
            "batch",
            {
                "calls": [
                    {"tool": "apply_patch", "arguments": {"patch": PATCH}},
                    {"tool": "write_file", "arguments": {"path": "c.txt", "content": "c\n"}},
                ]
            },
        )
        assert not result.is_error, text_of(result)
    assert (root / "c.txt").read_text() == "c\n"
    assert (root / "docs/notes.md").read_text() == "# Notes\n"
