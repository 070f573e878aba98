"""History and undo across real processes: the Python API (in a process of its own), the CLI
(one process a call) and the MCP server (stdio and HTTP, through the SDK's client).

Undo after a restart, after an edit outside editguard (refused; forced: works and is undoable),
after the file was deleted outside editguard; two servers writing to one root at once (no entry
lost, entries of a file chain, the database intact); kill -9 during an undo (all-before or
all-after); the history's permissions and retention; the coloured log in a terminal.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import pty
import random
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import anyio
import httpx2
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, Implementation, TextContent

from editguard import Workspace
from editguard.core.document import content_version
from editguard.history import History
from editguard.history.database import FREE_RESERVE, WAL_LIMIT

from .conftest import Snapshot, set_old_mtime
from .crashes import (
    TWENTY,
    Tree,
    commit_time,
    count_calls,
    in_child,
    kill_at_random,
    leftovers,
    outcome,
    workspace,
)

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def history_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own history folder (every process it starts inherits it), so that the test
    can find the database and nothing else writes to it."""
    folder = tmp_path / "history"
    monkeypatch.setenv("EDITGUARD_HISTORY", str(folder))
    return folder


# -- the three ways in ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Answer:
    """A tool's answer, the same whichever way it came: its result, or its error as a dict
    (``code``, ``message``, ``path`` and the error's data)."""

    ok: bool
    body: dict[str, Any]

    def result(self) -> dict[str, Any]:
        assert self.ok, self.body
        return self.body

    def error(self, code: str) -> dict[str, Any]:
        assert not self.ok, self.body
        assert self.body["code"] == code, self.body
        return self.body


class Call(Protocol):
    async def __call__(self, tool: str, **arguments: Any) -> Answer: ...


Session = Callable[[Path, list[str]], AbstractAsyncContextManager[Call]]

# The Python API, in a process of its own: one JSON call a line in, one answer a line out.
_API = textwrap.dedent(
    """
    import json, sys
    from editguard import EditError, Workspace
    root, flags = sys.argv[1], json.loads(sys.argv[2])
    options = {}
    while flags:
        flag = flags.pop(0)
        if flag == "--no-history":
            options["history"] = False
        else:
            value = flags.pop(0)
            key = flag[2:].replace("-", "_")
            options[key] = value if key == "history" else int(value)
    ws = Workspace([root], prewarm=False, **options)
    for line in sys.stdin:
        call = json.loads(line)
        try:
            result = getattr(ws, call["tool"])(**call["arguments"])
            answer = {"ok": True, "body": result.model_dump(mode="json")}
        except EditError as exc:
            answer = {"ok": False, "body": exc.to_dict()}
        print(json.dumps(answer), flush=True)
    """
)


@asynccontextmanager
async def api_session(root: Path, flags: list[str]) -> AsyncIterator[Call]:
    """A process that runs the Python API (``Workspace.undo`` and the rest)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _API, str(root), json.dumps(flags)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None

    async def call(tool: str, **arguments: Any) -> Answer:
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        assert line, f"the API process ended (exit {proc.poll()})"
        answer = json.loads(line)
        return Answer(answer["ok"], answer["body"])

    try:
        yield call
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
        proc.stdout.close()


def cli(root: Path, tool: str, arguments: dict[str, Any], flags: Sequence[str] = ()) -> Answer:
    """``editguard call TOOL JSON --json`` in a process of its own."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "editguard",
            "call",
            tool,
            json.dumps(arguments),
            "--json",
            "--root",
            str(root),
            *flags,
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    body = json.loads(proc.stdout)
    return Answer(True, body) if proc.returncode == 0 else Answer(False, body["error"])


@asynccontextmanager
async def cli_session(root: Path, flags: list[str]) -> AsyncIterator[Call]:
    """The command line: every call a new process."""

    async def call(tool: str, **arguments: Any) -> Answer:
        return cli(root, tool, arguments, flags)

    yield call


def server_env() -> dict[str, str]:
    """What a stdio server must inherit (the SDK passes only a few variables by default)."""
    # PYTHONPATH too: a checkout whose src is on it (not installed) serves its own code.
    wanted = ("EDITGUARD_HISTORY", "EDITGUARD_JOURNAL", "PYTHONPATH")
    return {k: os.environ[k] for k in wanted if k in os.environ}


def answer_of(result: CallToolResult) -> Answer:
    block = result.content[0]
    assert isinstance(block, TextContent)
    if not result.is_error:
        assert result.structured_content is not None
        return Answer(True, result.structured_content)
    # The code, the text, then (as its last line) the data the text does not say.
    code, _, text = block.text.partition(": ")
    head, _, last = text.rpartition("\n")
    body = json.loads(last) if last.startswith("{") else {}
    body.update(code=code, message=head if body else text, over_mcp=True)
    return Answer(False, body)


def says(error: dict[str, Any], key: str, value: Any) -> bool:
    """Whether the error tells that ``key`` is ``value``: in its data, or, over MCP (where a fact
    the text says is not repeated as data), in its text."""
    if key in error:
        return bool(error[key] == value)
    parts = value if isinstance(value, list) else [value]
    return bool(error.get("over_mcp")) and all(str(p) in error["message"] for p in parts)


def told(error: dict[str, Any], key: str) -> str:
    """What the error says of ``key``: its data, or, over MCP, its text (see :func:`says`)."""
    return str(error[key] if key in error or not error.get("over_mcp") else error["message"])


@asynccontextmanager
async def mcp_session(root: Path, flags: list[str]) -> AsyncIterator[Call]:
    """``editguard serve`` over stdio, through the SDK's client; closed at the end."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(root), "--log-level", "WARNING", *flags],
        env=server_env(),
    )
    async with Client(params) as client:

        async def call(tool: str, **arguments: Any) -> Answer:
            return answer_of(await client.call_tool(tool, arguments))

        yield call


FRONTS: dict[str, Session] = {"api": api_session, "cli": cli_session, "mcp": mcp_session}
# The fronts of a test run against each: the command line starts a process a call, so its runs
# are slow; the tests of restarts (RESTARTS) keep the command line in the quick part.
EACH_FRONT = [pytest.param(f, marks=pytest.mark.slow) if f == "cli" else f for f in FRONTS]


# -- files and the database ----------------------------------------------------------------


def big_text(tag: str, lines: int = 2000) -> bytes:
    """Over 64 KiB: the history keeps only the changed spans of it, not its bytes whole."""
    data = "".join(f"{tag} line {n:05d} {'y' * 40}\n" for n in range(lines)).encode()
    assert len(data) > 64 * 1024
    return data


def put(path: Path, data: bytes, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(mode)
    set_old_mtime(path)


def files_of(root: Path) -> dict[str, tuple[bytes, int]]:
    """Bytes and permission bits of every file under ``root``."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mode & 0o7777)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def database(folder: Path) -> Path:
    """The one history database in ``folder``."""
    found = list(folder.glob("*.sqlite3"))
    assert len(found) == 1, found
    return found[0]


def check_database(path: Path) -> sqlite3.Connection:
    """Open the history database and check it: SQLite's integrity check, no record without
    its change, and the counts kept for retention equal to what is stored. Returns the open
    connection (close it)."""
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute(
            "SELECT count(*) FROM files WHERE change NOT IN (SELECT id FROM changes)"
        ).fetchone() == (0,)
        assert db.execute(
            "SELECT count(*) FROM changes WHERE id NOT IN (SELECT change FROM files)"
        ).fetchone() == (0,)
        meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('entries', 'bytes')"))
        count, size = db.execute("SELECT count(*), coalesce(sum(bytes), 0) FROM changes").fetchone()
        assert (int(meta["entries"]), int(meta["bytes"])) == (count, size)
    except BaseException:
        db.close()
        raise
    return db


# -- 1. undo after a restart ---------------------------------------------------------------

BEFORE: dict[str, tuple[bytes, int]] = {
    # A BOM, CRLF line endings and no newline at the end.
    "crlf.txt": (b"\xef\xbb\xbfalpha\r\nbeta\r\ngamma", 0o640),
    "legacy.txt": ("caf\u00e9\nna\u00efve\n".encode("cp1252"), 0o644),
    "run.sh": (b"#!/bin/sh\necho old\n", 0o755),
    "big.txt": (big_text("big"), 0o600),
    "gone.txt": (b"deleted by a patch\n", 0o604),
}

PATCH = (
    "*** Begin Patch\n"
    "*** Delete File: gone.txt\n"
    "*** Add File: made/new.txt\n+made by the patch\n"
    "*** Update File: run.sh\n@@\n-echo old\n+echo new\n"
    "*** End Patch\n"
)


async def make_changes(call: Call) -> int:
    """Every kind of recorded change: single-file edits (a small file kept whole, a big one as
    deltas, twice), a patch of three files (delete, create, update), a new file. Returns how
    many changes were made."""
    edits: list[tuple[str, dict[str, Any]]] = [
        ("edit_file", {"path": "crlf.txt", "edits": [{"old_text": "beta", "new_text": "BETA"}]}),
        (
            "edit_file",
            {"path": "legacy.txt", "edits": [{"old_text": "na\u00efve", "new_text": "n\u00e9e"}]},
        ),
        (
            "edit_file",
            {
                "path": "big.txt",
                "edits": [
                    {"old_text": "big line 00010 ", "new_text": "big line TEN "},
                    {"old_text": "big line 01990 ", "new_text": "big line 1990!\nextra "},
                ],
            },
        ),
        (
            "edit_lines",
            {"path": "big.txt", "edits": [{"line_number": 1000, "type": "Delete"}]},
        ),
        ("apply_patch", {"patch": PATCH}),
        ("write_file", {"path": "created.txt", "content": "a new file\n"}),
    ]
    for tool, arguments in edits:
        (await call(tool, **arguments)).result()
    return len(edits)


RESTARTS = [
    ("api", "api"),
    ("cli", "cli"),
    ("mcp", "mcp"),
    ("cli", "mcp"),
    ("mcp", "api"),
    ("api", "cli"),
]


@pytest.mark.parametrize(("writer", "undoer"), RESTARTS, ids=str)
async def test_undo_in_a_new_process_restores_the_bytes_exactly(
    writer: str, undoer: str, root: Path, history_dir: Path
) -> None:
    for name, (data, mode) in BEFORE.items():
        put(root / name, data, mode)
    before = files_of(root)
    async with FRONTS[writer](root, []) as call:
        made = await make_changes(call)
    after = files_of(root)
    assert after != before
    assert (root / "made/new.txt").exists()
    assert not (root / "gone.txt").exists()

    # A new process: it knows every change, and takes them all back in one undo.
    async with FRONTS[undoer](root, []) as call:
        log = (await call("history", limit=50)).result()["changes"]
        assert [c["id"] for c in log] == list(range(made, 0, -1))
        assert [c["tool"] for c in log][::-1] == [
            "edit_file",
            "edit_file",
            "edit_file",
            "edit_lines",
            "apply_patch",
            "write_file",
        ]
        undo = (await call("undo", steps=made)).result()
        assert undo["undone"] == list(range(1, made + 1))
        assert undo["written"] is True
    assert files_of(root) == before  # bytes and permission bits, of every file

    # And another: undoing the undo is a redo, to the bytes the changes left.
    async with FRONTS[writer](root, []) as call:
        redo = (await call("undo", change_id=undo["change_id"])).result()
        assert redo["undone"] == [undo["change_id"]]
        log = (await call("history", limit=50)).result()["changes"]
    assert files_of(root) == after
    assert [c["id"] for c in log][:2] == [redo["change_id"], undo["change_id"]]
    assert log[1]["undone_by"] == redo["change_id"]
    assert log[0]["undoes"] == [undo["change_id"]]
    check_database(database(history_dir)).close()


async def test_undo_one_file_at_a_time_across_restarts(root: Path, history_dir: Path) -> None:
    """Each undo is a process of its own (the CLI, or the Python API); each takes back the
    latest change of the file still in effect."""
    put(root / "big.txt", big_text("big"))
    put(root / "small.txt", b"zero\n")
    states = [files_of(root)]
    async with api_session(root, []) as call:
        for n in range(1, 4):
            big = {"old_text": f"big line {n:05d} ", "new_text": f"BIG {n} "}
            (await call("edit_file", path="big.txt", edits=[big])).result()
            states.append(files_of(root))
            small = {"old_text": "zero\n", "new_text": f"zero\n{n}\n"}
            (await call("edit_file", path="small.txt", edits=[small])).result()
            states.append(files_of(root))
    # Six changes, alternating between the files: undo them newest first, one per process.
    for step in range(6, 0, -1):
        name = "small.txt" if step % 2 == 0 else "big.txt"
        if step % 2:
            cli(root, "undo", {"path": name}).result()
        else:
            async with api_session(root, []) as call:
                (await call("undo", path=name)).result()
        assert files_of(root) == states[step - 1], step
    for name in ("big.txt", "small.txt"):
        cli(root, "undo", {"path": name}).error("CHANGE_NOT_FOUND")


# -- 2. after an edit outside editguard ----------------------------------------------------


def edit(old: str, new: str) -> list[dict[str, str]]:
    return [{"old_text": old, "new_text": new}]


def untouched(path: Path, snapshot: Snapshot) -> None:
    """The file is as it was: bytes, mtime, mode."""
    assert Snapshot.of(path) == snapshot


@pytest.mark.parametrize("front", EACH_FRONT)
async def test_an_outside_edit_refuses_the_undo_and_a_forced_undo_can_be_undone(
    front: str, root: Path, history_dir: Path
) -> None:
    path = root / "notes.txt"
    original = b"one\ntwo\nthree\n"
    put(path, original, 0o640)
    outside = b"one\nTWO\nthree\nwritten outside editguard\n"
    async with FRONTS[front](root, []) as call:
        change = (await call("edit_file", path="notes.txt", edits=edit("two", "TWO"))).result()
        put(path, outside, 0o640)  # another program, after the change
        snapshot = Snapshot.of(path)
        for arguments in ({}, {"path": "notes.txt"}, {"change_id": 1}):
            refused = (await call("undo", **arguments)).error("STALE_VERSION")
            assert says(refused, "path", "notes.txt")
            assert says(refused, "changed_by", [])
            assert refused["outside_editguard"] is True
            assert says(refused, "expected_version", change["version"])
            assert refused.get("actual_version") != change["version"]
            assert "outside editguard" in refused["message"]
            # What force would do: take the outside line away with the change.
            diff = refused["force_diff"].splitlines()
            assert "-written outside editguard" in diff
            assert "-TWO" in diff
            assert "+two" in diff
            untouched(path, snapshot)
        forced = (await call("undo", force=True)).result()
        assert forced["undone"] == [1]
        assert path.read_bytes() == original
        assert path.stat().st_mode & 0o777 == 0o640
        # The forced undo is a change like any other: undoing it restores the outside edit.
        redo = (await call("undo", change_id=forced["change_id"])).result()
        assert redo["undone"] == [forced["change_id"]]
        assert path.read_bytes() == outside
        log = (await call("history", path="notes.txt")).result()["changes"]
    assert [(c["id"], c["undoes"], c["undone_by"]) for c in log] == [
        (3, [2], None),
        (2, [1], 3),
        (1, None, 2),
    ]
    check_database(database(history_dir)).close()


@pytest.mark.parametrize("front", EACH_FRONT)
async def test_undoing_an_older_change_names_the_later_ones_and_force_goes_back_before_it(
    front: str, root: Path, history_dir: Path
) -> None:
    path = root / "app.py"
    original = b"def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    put(path, original)
    async with FRONTS[front](root, []) as call:
        (await call("edit_file", path="app.py", edits=edit("return 1", "return 10"))).result()
        (await call("edit_file", path="app.py", edits=edit("return 2", "return 20"))).result()
        after_b = path.read_bytes()
        snapshot = Snapshot.of(path)
        refused = (await call("undo", change_id=1)).error("STALE_VERSION")
        assert says(refused, "changed_by", [2])
        assert refused["outside_editguard"] is False
        assert "change 2 (edit_file" in refused["message"]
        assert "-    return 20" in refused["force_diff"].splitlines()
        untouched(path, snapshot)
        forced = (await call("undo", change_id=1, force=True)).result()
        assert path.read_bytes() == original  # as before change 1: change 2 went with it
        (await call("undo", change_id=forced["change_id"])).result()
        assert path.read_bytes() == after_b
        # Change 2 is still in effect: a plain undo takes it back alone.
        (await call("undo", change_id=2)).result()
    assert path.read_bytes() == original.replace(b"return 1", b"return 10")


@pytest.mark.parametrize("front", EACH_FRONT)
async def test_a_big_file_is_rebuilt_through_later_changes_but_not_through_outside_edits(
    front: str, root: Path, history_dir: Path
) -> None:
    through, outside, between = root / "through.txt", root / "outside.txt", root / "between.txt"
    original = big_text("big")
    for path in (through, outside, between):
        put(path, original)
    async with FRONTS[front](root, []) as call:
        # Two changes by editguard: the state after the first is rebuilt from the file as it
        # is now through the second's deltas.
        (await call("edit_file", path="through.txt", edits=edit("line 00100 ", "A "))).result()
        (await call("edit_file", path="through.txt", edits=edit("line 01500 ", "B "))).result()
        after_b = through.read_bytes()
        refused = (await call("undo", change_id=1)).error("STALE_VERSION")
        assert says(refused, "changed_by", [2])
        assert "force_diff" in refused
        forced = (await call("undo", change_id=1, force=True)).result()
        assert through.read_bytes() == original
        (await call("undo", change_id=forced["change_id"])).result()
        assert through.read_bytes() == after_b

        # Changed outside editguard since: only the changed spans are stored, so the bytes
        # before cannot be rebuilt; force cannot help, and says so.
        change = await call("edit_file", path="outside.txt", edits=edit("line 00007 ", "C "))
        change_id = len((await call("history", limit=100)).result()["changes"])
        assert change.result()["version"]
        with outside.open("ab") as handle:
            handle.write(b"appended outside editguard\n")
        set_old_mtime(outside)
        snapshot = Snapshot.of(outside)
        refused = (await call("undo", path="outside.txt")).error("STALE_VERSION")
        assert refused["outside_editguard"] is True
        assert refused["restorable"] is False
        assert "force_diff" not in refused
        unrestorable = (await call("undo", path="outside.txt", force=True)).error("STALE_VERSION")
        assert unrestorable["restorable"] is False
        assert says(unrestorable, "change_id", change_id)
        assert "cannot be restored" in unrestorable["message"]
        assert "changed outside editguard" in unrestorable["message"]
        untouched(outside, snapshot)

        # Changed outside editguard between two of its changes: the later one can be undone
        # (to the outside edit), the earlier one cannot be rebuilt.
        (await call("edit_file", path="between.txt", edits=edit("line 00003 ", "D "))).result()
        first = len((await call("history", limit=100)).result()["changes"])
        bytes_outside = between.read_bytes().replace(b"line 00005 ", b"OUTSIDE ")
        put(between, bytes_outside)
        (await call("edit_file", path="between.txt", edits=edit("line 00009 ", "E "))).result()
        (await call("undo", path="between.txt")).result()
        assert between.read_bytes() == bytes_outside
        snapshot = Snapshot.of(between)
        refused = (await call("undo", change_id=first, force=True)).error("STALE_VERSION")
        assert refused["restorable"] is False
        assert f"between change {first} and change" in refused["message"]
        untouched(between, snapshot)
    check_database(database(history_dir)).close()


@pytest.mark.parametrize("front", EACH_FRONT)
async def test_undoing_one_file_of_a_batch_leaves_its_other_files_to_undo(
    front: str, root: Path, history_dir: Path
) -> None:
    """An undo with a path takes back that file's part of a change of several files; the
    other files' parts stay in effect, for an undo of their own path."""
    put(root / "p.txt", b"p\n")
    put(root / "q.txt", b"q\n")
    async with FRONTS[front](root, []) as call:
        (
            await call(
                "batch",
                calls=[
                    {"tool": "write_file", "arguments": {"path": "p.txt", "content": "P\n"}},
                    {"tool": "write_file", "arguments": {"path": "q.txt", "content": "Q\n"}},
                ],
            )
        ).result()
        first = (await call("undo", path="p.txt")).result()
        assert first["undone"] == [1]
        assert [f["path"] for f in first["files"]] == ["p.txt"]
        assert (root / "p.txt").read_bytes() == b"p\n"
        assert (root / "q.txt").read_bytes() == b"Q\n"
        second = (await call("undo", path="q.txt")).result()
        assert second["undone"] == [1]
        assert (root / "q.txt").read_bytes() == b"q\n"
        for name in ("p.txt", "q.txt"):
            (await call("undo", path=name)).error("CHANGE_NOT_FOUND")
        (await call("undo")).error("CHANGE_NOT_FOUND")
        # Redo p's part: p's change is in effect again, and q's stays taken back.
        (await call("undo", change_id=first["change_id"])).result()
        assert (root / "p.txt").read_bytes() == b"P\n"
        (await call("undo", path="q.txt")).error("CHANGE_NOT_FOUND")
        again = (await call("undo", path="p.txt")).result()
        assert again["undone"] == [1]
        assert (root / "p.txt").read_bytes() == b"p\n"


# -- 3. after the file was deleted outside editguard ----------------------------------------


@pytest.mark.parametrize("front", EACH_FRONT)
async def test_an_outside_deletion_refuses_the_undo_and_force_recreates_the_file(
    front: str, root: Path, history_dir: Path
) -> None:
    path = root / "sub/doc.txt"
    original = b"kept\r\nwhole\r\n"
    put(path, original, 0o600)
    async with FRONTS[front](root, []) as call:
        (await call("edit_file", path="sub/doc.txt", edits=edit("whole", "changed"))).result()
        path.unlink()
        refused = (await call("undo", path="sub/doc.txt")).error("STALE_VERSION")
        assert refused["actual_version"] is None
        assert refused["outside_editguard"] is True
        assert "deleted now" in refused["message"]
        assert "+kept" in refused["force_diff"].splitlines()
        assert not path.exists()
        forced = (await call("undo", path="sub/doc.txt", force=True)).result()
        assert path.read_bytes() == original
        assert path.stat().st_mode & 0o777 == 0o600
        assert forced["files"][0]["action"] == "added"
        # Undoing the forced undo deletes the file again, as the outside program left it.
        (await call("undo", change_id=forced["change_id"])).result()
        assert not path.exists()

        # A big file (kept as deltas) deleted outside editguard cannot be rebuilt.
        big = root / "big.txt"
        put(big, big_text("big"))
        (await call("edit_file", path="big.txt", edits=edit("line 00100 ", "X "))).result()
        big.unlink()
        refused = (await call("undo", path="big.txt", force=True)).error("STALE_VERSION")
        assert refused["restorable"] is False
        assert not big.exists()


@pytest.mark.parametrize("front", EACH_FRONT)
async def test_undoing_a_creation_after_an_outside_deletion(
    front: str, root: Path, history_dir: Path
) -> None:
    path = root / "made.txt"
    async with FRONTS[front](root, []) as call:
        (await call("write_file", path="made.txt", content="made\n")).result()
        path.unlink()
        refused = (await call("undo")).error("STALE_VERSION")
        assert refused["actual_version"] is None
        assert refused["outside_editguard"] is True
        # Forced: the file is already as it was before the change (absent); nothing is
        # written, but the undo is recorded, so that the change counts as taken back.
        forced = (await call("undo", force=True)).result()
        assert forced["written"] is False
        assert forced["undone"] == [1]
        assert forced["change_id"] == 2
        assert not path.exists()
        log = (await call("history")).result()["changes"]
        assert [(c["id"], c["undoes"], c["undone_by"]) for c in log] == [
            (2, [1], None),
            (1, None, 2),
        ]
        (await call("undo")).error("CHANGE_NOT_FOUND")
        (await call("undo", path="made.txt")).error("CHANGE_NOT_FOUND")
        # Its redo writes nothing either, and puts the change back in effect.
        redo = (await call("undo", change_id=2)).result()
        assert (redo["written"], redo["change_id"]) == (False, 3)
        assert not path.exists()
        (await call("undo")).error("STALE_VERSION")


@pytest.mark.parametrize("front", EACH_FRONT)
async def test_undoing_a_deletion_when_the_path_was_made_again(
    front: str, root: Path, history_dir: Path
) -> None:
    path = root / "gone.txt"
    original = b"deleted by editguard\n"
    put(path, original, 0o640)
    patch = "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch\n"
    async with FRONTS[front](root, []) as call:
        (await call("apply_patch", patch=patch)).result()
        assert not path.exists()
        remade = b"made again by someone else\n"
        put(path, remade)
        snapshot = Snapshot.of(path)
        refused = (await call("undo")).error("STALE_VERSION")
        assert refused["expected_version"] is None
        assert refused["actual_version"] is not None
        assert refused["outside_editguard"] is True
        assert "-made again by someone else" in refused["force_diff"].splitlines()
        untouched(path, snapshot)
        forced = (await call("undo", force=True)).result()
        assert path.read_bytes() == original
        assert path.stat().st_mode & 0o777 == 0o640
        # Undoing the forced undo brings back what the other program made.
        (await call("undo", change_id=forced["change_id"])).result()
        assert path.read_bytes() == remade


# -- 4. two servers writing to one root at once --------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class HttpServer:
    """``editguard serve --http`` in a process of its own, ready once uvicorn says so."""

    def __init__(self, root: Path, *flags: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "editguard",
                "serve",
                str(root),
                "--http",
                f"127.0.0.1:{self.port}",
                "--token",
                "s3cret",
                "--log-level",
                "INFO",
                *flags,
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stderr is not None
        self.log: list[str] = []
        for line in self.proc.stderr:
            self.log.append(line)
            if "Uvicorn running on" in line:
                break
        else:
            raise AssertionError("the server stopped: " + "".join(self.log))
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

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

    @asynccontextmanager
    async def session(self) -> AsyncIterator[Call]:
        async with (
            httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"}, timeout=120) as http,
            Client(streamable_http_client(self.url, http_client=http)) as client,
        ):

            async def call(tool: str, **arguments: Any) -> Answer:
                return answer_of(await client.call_tool(tool, arguments))

            yield call


@dataclasses.dataclass
class Tally:
    """What the writers did: each change that landed (file, version, line), and refusals."""

    landed: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)
    calls: int = 0
    refused: list[str] = dataclasses.field(default_factory=list)


def relative(root: Path, path: str) -> str:
    return Path(path).relative_to(root).as_posix() if os.path.isabs(path) else path


async def writer(call: Call, root: Path, tag: str, own: str, calls: int, tally: Tally) -> None:
    """``calls`` writing calls of five kinds, in turn: an edit of the server's own file, an
    edit of the shared file, a read then an edit of the shared file at that version (it may be
    stale by then), a batch of the own file and the big shared file, a new file."""

    def insert(line: str) -> list[dict[str, str]]:
        return [{"old_text": "END\n", "new_text": f"{line}\nEND\n"}]

    for n in range(calls):
        line = f"{tag}-{n}"
        kind = n % 5
        tally.calls += 1
        if kind == 0:
            answer = await call("edit_file", path=own, edits=insert(line))
        elif kind == 1:
            answer = await call("edit_file", path="shared.txt", edits=insert(line))
        elif kind == 2:
            version = (await call("read_file", path="shared.txt")).result()["version"]
            answer = await call(
                "edit_file", path="shared.txt", edits=insert(line), expected_version=version
            )
            if not answer.ok:
                tally.refused.append(answer.error("STALE_VERSION")["code"])
                continue
        elif kind == 3:
            answer = await call(
                "batch",
                calls=[
                    {"tool": "edit_file", "arguments": {"path": own, "edits": insert(line)}},
                    {"tool": "edit_file", "arguments": {"path": "big.txt", "edits": insert(line)}},
                ],
            )
        else:
            answer = await call("write_file", path=f"new/{line}.txt", content=f"{line}\n")
        result = answer.result()
        for each in result.get("results", [result]):
            tally.landed.append((relative(root, each["path"]), each["version"], line))


@pytest.mark.slow
async def test_two_servers_writing_at_once_lose_no_entry(root: Path, history_dir: Path) -> None:
    originals = {
        "own_stdio.txt": b"stdio's own\nEND\n",
        "own_http.txt": b"http's own\nEND\n",
        "shared.txt": b"shared\nEND\n",
        "big.txt": big_text("big") + b"END\n",
    }
    for name, data in originals.items():
        put(root / name, data)
    per_task = 50  # two tasks a server: 100 calls each, 200 in all
    tally = Tally()
    http = HttpServer(root)
    started = time.perf_counter()
    try:
        async with (
            mcp_session(root, []) as stdio,
            http.session() as over_http,
            anyio.create_task_group() as group,
        ):
            for k in range(2):
                group.start_soon(writer, stdio, root, f"s{k}", "own_stdio.txt", per_task, tally)
                group.start_soon(writer, over_http, root, f"h{k}", "own_http.txt", per_task, tally)
    finally:
        http.stop()
    elapsed = time.perf_counter() - started
    assert tally.calls == 4 * per_task
    assert set(tally.refused) <= {"STALE_VERSION"}
    changes = tally.calls - len(tally.refused)

    db = check_database(database(history_dir))
    try:
        entries = db.execute("SELECT count(*) FROM changes").fetchone()[0]
        rows = db.execute(
            "SELECT change, path, before_version, after_version FROM files ORDER BY change, seq"
        ).fetchall()
    finally:
        db.close()
    # Exactly one entry for every change that landed, and a record for every file it wrote.
    assert entries == changes
    recorded = sorted((os.fsdecode(path), after) for _, path, _, after in rows)
    assert recorded == sorted((path, version) for path, version, _ in tally.landed)
    # The entries of each file form one chain, from its first bytes to its bytes now.
    for name, data in originals.items():
        chain = [(before, after) for _, path, before, after in rows if os.fsdecode(path) == name]
        assert chain[0][0] == content_version([data]), name
        for (_, previous), (before, _) in itertools.pairwise(chain):
            assert before == previous, name
        assert chain[-1][1] == content_version([(root / name).read_bytes()]), name
    # And no change is lost from the files themselves.
    for name in originals:
        lines = set((root / name).read_text().splitlines())
        assert {line for path, _, line in tally.landed if path == name} <= lines, name

    # A new server: undo every change of two files, one step at a time. Both had changes of
    # their own and batches of the two together.
    steps = {}
    async with mcp_session(root, []) as call:
        for name in ("own_stdio.txt", "big.txt"):
            wanted = steps[name] = sum(1 for path, _, _ in tally.landed if path == name)
            undone = 0
            while (answer := await call("undo", path=name)).ok:
                undone += 1
                assert undone <= wanted, name
            assert answer.error("CHANGE_NOT_FOUND")
            assert undone == wanted, name
            assert (root / name).read_bytes() == originals[name], name
    check_database(database(history_dir)).close()
    print(
        f"\n{tally.calls} calls by two servers in {elapsed:.1f} s: {changes} entries, "
        f"{len(tally.refused)} stale refusals; undone one step at a time to their first "
        f"bytes: {steps}"
    )


# -- 5. kill -9 during an undo ---------------------------------------------------------------


def committed(root: Path, journals: Path) -> Tree:
    """The 20-file commit of tests/crashes.py, done and recorded (change 1); the tree after it.
    The history is closed again, so that no connection crosses a fork."""
    TWENTY.setup(root)
    ws = workspace(root, journals)
    TWENTY.commit(ws)
    history_of(ws).close()
    return Tree.of(root)


def history_of(ws: Workspace) -> History:
    history = ws.context.history
    assert history is not None
    return history


def undo_in(root: Path, journals: Path) -> Callable[[], Any]:
    """The undo of the 20-file commit, in a new Workspace (run in a child process)."""
    return lambda: workspace(root, journals).undo()


@pytest.fixture(scope="module")
def undone(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    """The tree the undo of the 20-file commit leaves when nothing interrupts it: the files
    as they were before the commit, exactly (the folders the commit made stay)."""
    scratch = tmp_path_factory.mktemp("undone")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EDITGUARD_HISTORY", str(scratch / "history"))
        root, journals = scratch / "root", scratch / "journal"
        before = TWENTY.setup(scratch / "before")
        committed(root, journals)
        result = workspace(root, journals).undo()
    assert len(result.files) == 20
    tree = Tree.of(root)
    assert tree.contents() == before.contents()
    return tree


@dataclasses.dataclass
class Outcomes:
    """How the undos that were killed ended, after recovery."""

    old: int = 0  # every file as the commit left it; the history has no undo
    new: int = 0  # every file as before the commit; the undo is recorded
    finished: int = 0  # the kill came after the undo ended

    def __str__(self) -> str:
        return (
            f"all-before-undo {self.old}, all-after-undo {self.new} (each recorded), mixed 0; "
            f"{self.finished} finished before the kill"
        )


def judge(root: Path, journals: Path, old: Tree, new: Tree, seen: Outcomes, where: str) -> str:
    """After a killed undo: recover (a new Workspace), then check that the files are all
    before or all after the undo, that nothing is left behind, that the database is intact
    and that the history says what happened."""
    ws = workspace(root, journals)
    history = history_of(ws)
    try:
        state = outcome(root, old, new)
        assert state != "mixed", where
        assert leftovers(root, journals) == [], where
        db = check_database(Path(history.path))
        try:
            entries = db.execute("SELECT id, undoes, undone_by FROM changes ORDER BY id").fetchall()
        finally:
            db.close()
        if state == "old":
            # An undo that did not happen is not in the history; it can be done now.
            assert entries == [(1, "", None)], where
            seen.old += 1
        else:
            # The undo was committed: its entry, pending while the files were written, is
            # settled by their versions even when the process died before confirming it.
            assert entries == [(1, "", 2), (2, "1", None)], where
            seen.new += 1
        return state
    finally:
        history.close()


@pytest.mark.slow
def test_an_undo_killed_before_any_of_its_system_calls_is_all_before_or_all_after(
    undone: Tree, tmp_path: Path, history_dir: Path
) -> None:
    root, journals = tmp_path / "count", tmp_path / "count-journal"
    committed(root, journals)
    total = count_calls(undo_in(root, journals))
    seen = Outcomes()
    for at in range(1, total + 2):
        root, journals = tmp_path / f"{at}", tmp_path / f"{at}-journal"
        old = committed(root, journals)
        killed = in_child(undo_in(root, journals), kill_at=at)
        assert killed == (at <= total)
        seen.finished += not killed
        state = judge(root, journals, old, undone, seen, f"killed before call {at} of {total}")
        if state == "old" and at % 10 == 1:
            # The undo that was killed can be done again, and completes.
            workspace(root, journals).undo()
            assert outcome(root, old, undone) == "new"
    print(f"\nundo killed at each of its {total} journal calls: {seen}")
    # As for any commit: killed before the committed record is fsynced, it stands.
    assert seen.old == total - 1
    assert seen.new == 2  # killed after the commit point, and the run that was not killed


def undo_time(tmp_path: Path) -> float:
    root, journals = tmp_path / "time", tmp_path / "time-journal"
    committed(root, journals)
    return commit_time(undo_in(root, journals))


@pytest.mark.slow
def test_an_undo_killed_at_a_random_instant_is_all_before_or_all_after(
    undone: Tree, tmp_path: Path, history_dir: Path
) -> None:
    rng = random.Random(20261124)
    window = 1.2 * undo_time(tmp_path)
    seen = Outcomes()
    for run in range(120):
        if run and run % 30 == 0 and not seen.new:
            window *= 1.5  # the machine is slower than when the window was measured
        root, journals = tmp_path / f"{run}", tmp_path / f"{run}-journal"
        old = committed(root, journals)
        if not kill_at_random(undo_in(root, journals), window, rng):
            seen.finished += 1
        judge(root, journals, old, undone, seen, f"run {run}")
        shutil.rmtree(root)
    print(f"\nundo killed at 120 random instants: {seen}")
    assert seen.old
    assert seen.new


# The editguard command, killing itself (SIGKILL) right before its N-th journal system call.
_KILLED = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    from tests.crashes import kill_self_at
    kill_self_at(int(sys.argv[2]))
    from editguard.cli import main
    sys.exit(main(sys.argv[3:]))
    """
)


def killed_command(at: int, *argv: str) -> list[str]:
    return [sys.executable, "-c", _KILLED, str(REPO), str(at), *argv]


@pytest.mark.slow
@pytest.mark.parametrize("front", ["cli", "mcp"])
async def test_an_undo_killed_in_the_cli_or_the_server_is_recovered_by_the_next_process(
    front: str, undone: Tree, tmp_path: Path, history_dir: Path
) -> None:
    root, journals = tmp_path / "count", tmp_path / "count-journal"
    committed(root, journals)
    total = count_calls(undo_in(root, journals))
    seen = Outcomes()
    for at in sorted({1, total // 3, 2 * total // 3, total - 1, total}):
        root, journals = tmp_path / f"{at}", tmp_path / f"{at}-journal"
        old = committed(root, journals)
        flags = ["--root", str(root), "--journal", str(journals)]
        if front == "cli":
            proc = subprocess.run(
                killed_command(at, "call", "undo", "{}", "--json", *flags),
                capture_output=True,
                timeout=120,
                check=False,
            )
            assert proc.returncode == -signal.SIGKILL, proc.stderr
        else:
            params = StdioServerParameters(
                command=sys.executable,
                args=killed_command(at, "serve", str(root), "--journal", str(journals))[1:],
                env=server_env(),
            )
            with anyio.fail_after(60), pytest.raises(ExceptionGroup) as died:
                async with Client(params) as client:
                    await client.call_tool("undo", {})
            # The server died in the middle of the call: the client lost it.
            assert died.group_contains(MCPError, match="Connection closed", depth=2)
        # The next process recovers the journal when it starts, whatever it is asked.
        assert leftovers(root, journals)
        cli(root, "history", {}, ["--journal", str(journals)])  # `call history`
        assert leftovers(root, journals) == [], at
        state = judge(root, journals, old, undone, seen, f"{front} killed before call {at}")
        assert state == ("new" if at == total else "old"), at
    print(f"\nundo killed in the {front}: {seen}")


# -- 6. the history's permissions, and no history --------------------------------------------


def modes(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mode & 0o7777 for p in [folder, *folder.iterdir()]}


async def test_the_history_is_made_owner_only_whatever_the_umask(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "state" / "editguard" / "history"
    monkeypatch.setenv("EDITGUARD_HISTORY", str(folder))
    put(root / "a.txt", b"a\n")
    umask = os.umask(0)  # the processes started now inherit it
    try:
        session = api_session(root, [])
        call = await session.__aenter__()
    finally:
        os.umask(umask)
    try:
        (await call("edit_file", path="a.txt", edits=edit("a", "b"))).result()
        # While the process holds the database open: its write-ahead log and shared memory
        # exist too, as private as the database.
        found = modes(folder)
        assert found.pop("history") == 0o700
        name = database(folder).name
        assert found.pop(name) == 0o600
        assert set(found) == {f"{name}-wal", f"{name}-shm"}
        assert all(mode == 0o600 for mode in found.values()), found
    finally:
        await session.__aexit__(None, None, None)
    cli(root, "edit_file", {"path": "a.txt", "edits": edit("b", "c")}).result()
    assert modes(folder)["history"] == 0o700
    assert modes(folder)[name] == 0o600


UNSAFE = ["folder open to others", "folder of another user", "database open to others"]


def make_unsafe(folder: Path, root: Path, how: str) -> Path | None:
    """Make the history folder unsafe in one way; returns the database if it exists."""
    folder.mkdir(mode=0o700)
    if how == "folder open to others":
        folder.chmod(0o755)
        return None
    if how == "folder of another user":
        if os.getuid() != 0:
            pytest.skip("only root can give a folder to another user")
        os.chown(folder, 65534, 65534)
        return None
    # A database someone made readable by others: what it holds must not leak further.
    db = Path(History([str(root.resolve())], str(folder)).path)
    db.write_bytes(b"")
    db.chmod(0o644)
    return db


@pytest.mark.parametrize(
    ("front", "how"),
    # Each unsafe history through the API; the refusal through the other two ways in.
    [("api", how) for how in UNSAFE] + [(front, UNSAFE[0]) for front in ("cli", "mcp")],
)
async def test_an_unsafe_history_refuses_every_change_and_writes_nothing(
    front: str, how: str, root: Path, history_dir: Path
) -> None:
    db = make_unsafe(history_dir, root, how)
    put(root / "a.txt", b"a\n")
    put(root / "b.txt", b"b\n")
    before = {name: Snapshot.of(root / name) for name in ("a.txt", "b.txt")}
    writes: list[tuple[str, dict[str, Any]]] = [
        ("edit_file", {"path": "a.txt", "edits": edit("a", "A")}),
        ("write_file", {"path": "new.txt", "content": "new\n"}),
        (
            "batch",
            {
                "calls": [
                    {"tool": "write_file", "arguments": {"path": "a.txt", "content": "A\n"}},
                    {"tool": "write_file", "arguments": {"path": "b.txt", "content": "B\n"}},
                ]
            },
        ),
        ("undo", {}),
        ("history", {}),
    ]
    async with FRONTS[front](root, []) as call:
        for tool, arguments in writes:
            refused = (await call(tool, **arguments)).error("PERMISSION_DENIED")
            assert str(history_dir) in told(refused, "history"), tool
            assert "history" in refused["message"], tool
            assert "--no-history" in refused["message"], tool
    assert {name: Snapshot.of(root / name) for name in before} == before
    assert not (root / "new.txt").exists()
    assert sorted(p.name for p in history_dir.iterdir()) == ([db.name] if db else [])
    if db is not None:
        assert db.read_bytes() == b""


async def test_a_database_that_is_a_link_is_not_followed(root: Path, history_dir: Path) -> None:
    history_dir.mkdir(mode=0o700)
    elsewhere = root.parent / "elsewhere.sqlite3"
    elsewhere.write_bytes(b"not a database\n")
    Path(History([str(root.resolve())], str(history_dir)).path).symlink_to(elsewhere)
    put(root / "a.txt", b"a\n")
    snapshot = Snapshot.of(root / "a.txt")
    refused = cli(root, "edit_file", {"path": "a.txt", "edits": edit("a", "A")}).error(
        "WRITE_FAILED"
    )
    assert "history database" in refused["message"]
    untouched(root / "a.txt", snapshot)
    assert elsewhere.read_bytes() == b"not a database\n"


@pytest.mark.parametrize("front", EACH_FRONT)
async def test_no_history_records_nothing_and_undo_has_nothing_to_undo(
    front: str, root: Path, history_dir: Path
) -> None:
    put(root / "a.txt", b"a\n")
    async with FRONTS[front](root, ["--no-history"]) as call:
        (await call("edit_file", path="a.txt", edits=edit("a", "A"))).result()
        (await call("write_file", path="b.txt", content="b\n")).result()
        off = (await call("undo")).error("CHANGE_NOT_FOUND")
        assert "turned off" in off["message"]
        assert off["history"] is None
        (await call("history")).error("CHANGE_NOT_FOUND")
    assert not history_dir.exists()
    assert (root / "a.txt").read_bytes() == b"A\n"
    # A process with the history on knows nothing of those changes either.
    cli(root, "undo", {}).error("CHANGE_NOT_FOUND")
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", "history", "--no-history", "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["error"]["code"] == "CHANGE_NOT_FOUND"


async def test_each_change_records_its_client_and_a_stale_undo_names_them(
    root: Path, history_dir: Path
) -> None:
    put(root / "a.txt", b"one\ntwo\n")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(root), "--log-level", "WARNING"],
        env=server_env(),
    )
    agent = Implementation(name="some-agent", version="2.5.1")
    async with Client(params, client_info=agent) as client:

        async def call(tool: str, **arguments: Any) -> Answer:
            return answer_of(await client.call_tool(tool, arguments))

        (await call("edit_file", path="a.txt", edits=edit("one", "ONE"))).result()
        cli(root, "edit_file", {"path": "a.txt", "edits": edit("two", "TWO")}).result()
        log = (await call("history")).result()["changes"]
        assert [(c["id"], c["client"]) for c in log] == [(2, "cli"), (1, "some-agent 2.5.1")]
        stale = (await call("undo", change_id=1)).error("STALE_VERSION")
        assert says(stale, "changed_by", [2])
        assert says(stale, "clients", ["cli"])
    printed = subprocess.run(
        [sys.executable, "-m", "editguard", "history", "--root", str(root)],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "by some-agent 2.5.1" in printed.stdout or '"some-agent 2.5.1"' in printed.stdout


# -- 7. retention ------------------------------------------------------------------------------


@pytest.mark.parametrize("front", EACH_FRONT)
async def test_retention_by_entries_drops_the_oldest_and_their_undo(
    front: str, root: Path, history_dir: Path
) -> None:
    put(root / "a.txt", b"0\n")
    states = [b"0\n"]
    async with FRONTS[front](root, ["--history-entries", "3"]) as call:
        for n in range(1, 6):
            (await call("edit_file", path="a.txt", edits=edit(f"{n - 1}\n", f"{n}\n"))).result()
            states.append((root / "a.txt").read_bytes())
        log = (await call("history", limit=100)).result()["changes"]
        assert [c["id"] for c in log] == [5, 4, 3]
        gone = (await call("undo", change_id=2)).error("CHANGE_NOT_FOUND")
        assert says(gone, "change_id", 2)
        assert says(gone, "newest", 5)
        short = (await call("undo", steps=4)).error("CHANGE_NOT_FOUND")
        assert says(short, "found", 3)
        assert says(short, "steps", 4)
        assert (root / "a.txt").read_bytes() == states[5]
        undo = (await call("undo", steps=3)).result()
        assert undo["undone"] == [3, 4, 5]
        assert (root / "a.txt").read_bytes() == states[2]
        # The undo is itself an entry: change 3 went to make room for it; the undo stays.
        log = (await call("history", limit=100)).result()["changes"]
        assert [c["id"] for c in log] == [6, 5, 4]
        (await call("undo", change_id=3)).error("CHANGE_NOT_FOUND")
        (await call("undo", change_id=6)).result()
        assert (root / "a.txt").read_bytes() == states[5]
    db = check_database(database(history_dir))
    try:
        assert db.execute("SELECT id FROM changes ORDER BY id").fetchall() == [(5,), (6,), (7,)]
    finally:
        db.close()


@pytest.mark.parametrize("front", EACH_FRONT)
async def test_retention_by_bytes_keeps_the_newest_entries_that_fit(
    front: str, root: Path, history_dir: Path
) -> None:
    lines = [f"line {n}: {'z' * 60}\n" for n in range(40)]
    put(root / "a.txt", "".join(lines).encode())
    limit = 2500  # about three entries
    async with FRONTS[front](root, ["--history-bytes", str(limit)]) as call:
        for n in range(6):
            new = f"line {n}: changed {n}\n"
            (await call("edit_file", path="a.txt", edits=edit(lines[n], new))).result()
        db = check_database(database(history_dir))
        try:
            sizes = dict(db.execute("SELECT id, bytes FROM changes").fetchall())
        finally:
            db.close()
        kept = sorted(sizes)
        # The newest entries, as many as fit; one more would not.
        assert kept == list(range(kept[0], 7))
        assert 1 < len(kept) < 6
        assert sum(sizes.values()) <= limit
        assert sum(sizes.values()) + min(sizes.values()) > limit
        log = (await call("history", limit=100)).result()["changes"]
        assert [c["id"] for c in log] == kept[::-1]
        (await call("undo", change_id=kept[0] - 1)).error("CHANGE_NOT_FOUND")
        (await call("undo", change_id=kept[0])).error("STALE_VERSION")  # later ones came after

    # A limit below one entry keeps the newest alone, and it can be undone.
    async with FRONTS[front](root, ["--history-bytes", "1"]) as call:
        before = (root / "a.txt").read_bytes()
        (await call("edit_file", path="a.txt", edits=edit("line 20:", "LINE 20:"))).result()
        assert [c["id"] for c in (await call("history")).result()["changes"]] == [7]
        (await call("undo")).result()
        assert (root / "a.txt").read_bytes() == before
        assert [c["id"] for c in (await call("history")).result()["changes"]] == [8]
    check_database(database(history_dir)).close()


def history_disk(folder: Path) -> int:
    """The bytes the history takes on disk: the database, its write-ahead log and its index."""
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file())


CLI = (sys.executable, "-m", "editguard")

# What the history may take past its limit, whatever the number of calls: the free pages kept
# for the next entries, a write-ahead log a server keeps open, its index, and a page or two.
DISK_SLACK = FREE_RESERVE * 4096 + WAL_LIMIT + 64 * 1024


async def many_cli_calls(root: Path, history_dir: Path, calls: int, *, beside_server: bool) -> None:
    """``calls`` command-line calls, in turn a new ~60 KB file's content (random, so that it
    does not compress) and a one-line edit of it, under a 250 KB history limit; the history's
    disk use measured after each, and its write-ahead log. Beside a server: the server holds
    the database open throughout, and writes every tenth call."""
    limit = 250_000
    flags = ["--history-bytes", str(limit), "--json"]
    server = HttpServer(root, *flags[:2]) if beside_server else None
    rng = random.Random(calls)
    args = root.parent / "args.json"
    worst = 0
    try:
        for n in range(calls):
            if n % 2 == 0:
                text = "".join(f"{n} {rng.getrandbits(128):032x}\n" for _ in range(1700))
                arguments: dict[str, Any] = {"path": "a.txt", "content": text}
                tool = "write_file"
            else:
                line = text.splitlines()[n % 1700]
                arguments = {"path": "a.txt", "edits": edit(line, line + " edited")}
                tool = "edit_file"
            args.write_text(json.dumps(arguments))
            proc = subprocess.run(
                [*CLI, "call", tool, "--args-file", str(args), "--root", str(root), *flags],
                cwd=root,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert proc.returncode == 0, proc.stdout + proc.stderr
            if server is not None and n % 10 == 9:
                async with server.session() as call:
                    put(root / "b.txt", f"{n}\n".encode())
                    (await call("edit_file", path="b.txt", edits=edit(f"{n}", f"{n}!"))).result()
            used = history_disk(history_dir)
            worst = max(worst, used)
            assert used <= limit + DISK_SLACK, (n, used, sorted(os.listdir(history_dir)))
            wal = history_dir / (database(history_dir).name + "-wal")
            assert not wal.exists() or wal.stat().st_size <= WAL_LIMIT, n
    finally:
        if server is not None:
            server.stop()
    db = check_database(database(history_dir))
    try:
        stored = db.execute("SELECT sum(bytes) FROM changes").fetchone()[0]
        assert stored <= limit
    finally:
        db.close()
    assert history_disk(history_dir) <= limit + DISK_SLACK
    assert worst > limit // 2  # the history was really used up to its limit


@pytest.mark.slow  # 30 command-line calls each, 2 of them beside a server: ~30 s each
@pytest.mark.parametrize("beside_server", [False, True], ids=["alone", "beside_a_server"])
async def test_the_history_stays_within_its_limit_over_many_command_line_calls(
    root: Path, history_dir: Path, beside_server: bool
) -> None:
    await many_cli_calls(root, history_dir, 30, beside_server=beside_server)


@pytest.mark.slow
async def test_the_history_stays_within_its_limit_over_a_thousand_command_line_calls(
    root: Path, history_dir: Path
) -> None:
    await many_cli_calls(root, history_dir, 1000, beside_server=False)


# -- 8. the log in a terminal --------------------------------------------------------------


def in_terminal(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``argv`` with a pseudo-terminal as its standard streams; its exit code and what it
    printed (with the terminal's CRLF turned back into LF)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            assert ready, "no output in 60 s"
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the process closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    code = proc.wait(timeout=60)
    return code, b"".join(chunks).decode().replace("\r\n", "\n")


def green(text: str) -> str:
    return f"\x1b[32m{text}\x1b[0m"


def red(text: str) -> str:
    return f"\x1b[31m{text}\x1b[0m"


async def test_the_history_command_prints_a_coloured_log_in_a_terminal_and_json_otherwise(
    root: Path, history_dir: Path
) -> None:
    put(root / "notes.txt", b"one\ntwo\nthree\n")
    put(root / "old.txt", b"moved\n")
    patch = (
        "*** Begin Patch\n*** Update File: old.txt\n*** Move to: new.txt\n"
        "@@\n-moved\n+moved!\n*** End Patch\n"
    )
    async with api_session(root, []) as call:
        (await call("edit_file", path="notes.txt", edits=edit("two\n", "TWO\n2\n"))).result()
        (await call("apply_patch", patch=patch)).result()
        (await call("write_file", path="made.txt", content="made\n")).result()
        (await call("undo", change_id=1)).result()
    command = [sys.executable, "-m", "editguard", "history", "--root", str(root)]

    code, out = in_terminal(command, root)
    assert code == 0, out
    heads = [line for line in out.splitlines() if not line.startswith("    ")]
    assert [h.split("  ")[0] for h in heads] == [f"\x1b[33mchange {n}\x1b[0m" for n in (4, 3, 2, 1)]
    assert re.fullmatch(
        r"\x1b\[33mchange 4\x1b\[0m  \d{4}-\d\d-\d\dT\S+Z  undo  by python  \(undoes 1\)",
        heads[0],
    )
    assert heads[3].endswith("  edit_file  by python  \x1b[2m[undone by 4]\x1b[0m")
    body = out.splitlines()
    assert f"    M notes.txt  {green('+2')} {red('-1')}" in body  # the edit
    assert f"    M notes.txt  {green('+1')} {red('-2')}" in body  # its undo
    assert f"    R old.txt -> new.txt  {green('+1')} {red('-1')}" in body
    assert f"    A made.txt  {green('+1')} {red('-0')}" in body

    # One change in full: its diff, coloured.
    code, out = in_terminal([*command, "--change", "1"], root)
    assert code == 0, out
    assert "\x1b[1m--- a/notes.txt\x1b[0m" in out
    assert "\x1b[36m@@ -1,3 +1,4 @@\x1b[0m" in out.splitlines()
    assert red("-two") in out.splitlines()
    added = [line for line in out.splitlines() if line.startswith("\x1b[32m+")]
    assert added == [green("+TWO"), green("+2")]

    # Only one file's changes.
    code, out = in_terminal([*command, "new.txt"], root)
    assert code == 0, out
    assert out.count("\x1b[33mchange") == 1
    assert "R old.txt -> new.txt" in out

    # An error, in red.
    code, out = in_terminal([*command, "--change", "99"], root)
    assert code == 1
    assert out.startswith("\x1b[1;31mCHANGE_NOT_FOUND\x1b[0m: no change 99 in the history")

    # JSON when asked, and when the output is not a terminal.
    code, out = in_terminal([*command, "--json"], root)
    assert code == 0
    assert "\x1b[" not in out
    in_json = json.loads(out)
    piped = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    assert "\x1b[" not in piped.stdout
    assert json.loads(piped.stdout) == in_json
    assert [c["id"] for c in in_json["changes"]] == [4, 3, 2, 1]
    assert in_json["changes"][3]["undone_by"] == 4
