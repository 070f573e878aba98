"""Every editguard process of one user agrees on a file's lock, whatever its environment.

An MCP host spawns its servers without the user's ``TMPDIR``, ``HOME`` or ``XDG_*``, in another
working folder; an HTTP server and a shell's CLI calls run with their own. Three such writers
edit one file at once here: a stdio server, an HTTP server and a loop of ``editguard call``,
each with its own ``TMPDIR``, ``XDG_STATE_HOME``, ``XDG_CACHE_HOME``, ``HOME`` and working
folder. None is refused as changed by another process, and every line reported as landed is in
the file.
"""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from editguard import EditError, FileLocks, Workspace
from editguard.fs.lock import default_lock_folder

from .test_mcp import free_port

pytestmark = pytest.mark.anyio

EDITGUARD = (sys.executable, "-m", "editguard")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def environment(base: Path, name: str) -> tuple[dict[str, str], Path]:
    """An environment of its own (temporary, state, cache and home folders, none shared with
    the test's), and a working folder of its own."""
    own = base / name
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    for variable in ("TMPDIR", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "HOME"):
        folder = own / variable.lower()
        folder.mkdir(parents=True, mode=0o700)
        env[variable] = str(folder)
    work = own / "work"
    work.mkdir()
    return env, work


def edit(path: Path, line: str) -> dict[str, Any]:
    return {"path": str(path), "edits": [{"old_text": "# end\n", "new_text": f"{line}\n# end\n"}]}


def outcome(result: CallToolResult) -> str | None:
    """None for a change that landed, else the refusal's code."""
    if not result.is_error:
        return None
    text = getattr(result.content[0], "text", "")
    return str(text).partition(":")[0]


@asynccontextmanager
async def http_server(root: Path, env: dict[str, str], work: Path) -> AsyncIterator[str]:
    """``editguard serve --http`` in its own environment; yields its URL."""
    port = free_port()
    proc = await anyio.open_process(
        [*EDITGUARD, "serve", str(root), "--http", f"127.0.0.1:{port}", "--token", "s3cret"],
        env=env,
        cwd=work,
    )
    assert proc.stderr is not None
    seen = b""  # uvicorn says when it listens at INFO, the default level
    try:
        while b"Uvicorn running on" not in seen:
            chunk = await proc.stderr.receive()
            seen += chunk
        async with anyio.create_task_group() as group:

            async def drain() -> None:
                assert proc.stderr is not None
                async for _ in proc.stderr:
                    pass

            group.start_soon(drain)
            yield f"http://127.0.0.1:{port}/mcp"
            proc.terminate()
    finally:
        if proc.returncode is None:
            proc.terminate()
        await proc.wait()


async def run_writers(tmp_path: Path, root: Path, per_server: int, cli_calls: int) -> None:
    target = root / "list.txt"
    target.write_text("# start\n# end\n")
    landed: list[str] = []
    refused: list[tuple[str, str]] = []

    def tally(line: str, code: str | None) -> None:
        if code is None:
            landed.append(line)
        else:
            refused.append((line, code))

    stdio_env, stdio_work = environment(tmp_path, "stdio")
    http_env, http_work = environment(tmp_path, "http")
    cli_env, cli_work = environment(tmp_path, "cli")

    async def stdio_writer() -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "editguard", "serve", str(root), "--log-level", "WARNING"],
            env=stdio_env,
            cwd=stdio_work,
        )
        async with Client(params) as client:
            for n in range(per_server):
                line = f"stdio {n}"
                tally(line, outcome(await client.call_tool("edit_file", edit(target, line))))

    async def http_writer() -> None:
        async with (
            http_server(root, http_env, http_work) as url,
            httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"}, timeout=120) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            for n in range(per_server):
                line = f"http {n}"
                tally(line, outcome(await client.call_tool("edit_file", edit(target, line))))

    def cli_writer() -> None:
        for n in range(cli_calls):
            line = f"cli {n}"
            proc = subprocess.run(
                [
                    *EDITGUARD,
                    "call",
                    "edit_file",
                    json.dumps(edit(target, line)),
                    "--root",
                    str(root),
                ],
                env=cli_env,
                cwd=cli_work,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert proc.returncode in (0, 1), proc.stderr
            body = json.loads(proc.stdout)
            tally(line, None if proc.returncode == 0 else body["error"]["code"])

    async with anyio.create_task_group() as group:
        group.start_soon(stdio_writer)
        group.start_soon(http_writer)
        group.start_soon(anyio.to_thread.run_sync, cli_writer)

    lines = target.read_text().splitlines()
    assert refused == []
    assert len(landed) == 2 * per_server + cli_calls
    assert sorted(lines[1:-1]) == sorted(landed)  # none lost, none twice
    assert (lines[0], lines[-1]) == ("# start", "# end")


async def test_writers_in_three_environments_take_turns_and_lose_no_update(
    tmp_path: Path, root: Path
) -> None:
    await run_writers(tmp_path, root, per_server=40, cli_calls=15)


@pytest.mark.slow
async def test_writers_in_three_environments_take_turns_over_a_hundred_edits_each(
    tmp_path: Path, root: Path
) -> None:
    await run_writers(tmp_path, root, per_server=100, cli_calls=100)


def lock_folder_in(env: dict[str, str], work: Path) -> str:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from editguard.fs.lock import default_lock_folder as f; print(f())",
        ],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout.strip()


def test_the_lock_folder_does_not_depend_on_the_environment(tmp_path: Path) -> None:
    found = {lock_folder_in(*environment(tmp_path, name)) for name in ("one", "two", "three")}
    bare = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    found.add(lock_folder_in(bare, tmp_path))
    assert found == {default_lock_folder()}
    assert default_lock_folder() == f"/tmp/editguard-locks-{os.getuid()}"


@pytest.mark.skipif(os.getuid() != 0, reason="making a folder another user's needs root")
def test_a_lock_folder_another_user_made_first_refuses_every_write(
    tmp_path: Path, root: Path
) -> None:
    squatter = next(p.pw_uid for p in pwd.getpwall() if p.pw_uid not in (0, os.getuid()))
    folder = tmp_path / "locks"
    folder.mkdir(mode=0o700)
    os.chown(folder, squatter, -1)
    (root / "a.txt").write_text("x\n")
    ws = Workspace([root], locks=FileLocks(folder=str(folder)), history=False)
    with pytest.raises(EditError) as err:
        ws.edit_file("a.txt", [{"old_text": "x", "new_text": "y"}])
    assert err.value.code == "PERMISSION_DENIED"
    assert err.value.data["lock_folder"] == str(folder)
    assert err.value.data["owner"] == squatter
    assert (root / "a.txt").read_text() == "x\n"
    assert list(folder.iterdir()) == []  # no lock taken there, nor elsewhere in its place
