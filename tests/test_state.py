"""editguard's own state (journals, history, locks) is never a way out of the sandbox: no tool
reaches the state folders, whatever the roots (serving the home folder puts them inside a root),
and recovery acts only on journals editguard wrote, inside the roots they recorded. Real files,
real processes (``python -m editguard call``), the journal an attacker would plant."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_types import TextContent

from editguard import EditError, FileLocks, Workspace
from editguard.compat import filesystem
from editguard.fs.journal import Journal
from editguard.tools.read_file import ReadFailure


def _state(home: Path) -> tuple[dict[str, bytes], list[str]]:
    """The journal folder's files with their bytes, and the names in the history folder."""
    journals = {p.name: p.read_bytes() for p in (home / JOURNALS).iterdir()}
    return journals, sorted(p.name for p in (home / STATE / "history").iterdir())


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder served whole: editguard's state folder lies inside the root."""
    home = tmp_path / "home"
    (home / "src").mkdir(parents=True)
    (home / "src/a.py").write_text("A = 1\n")
    (home / "src/b.py").write_text("B = 1\n")
    (home / "visible.txt").write_text("needle in the open\n")
    monkeypatch.delenv("EDITGUARD_JOURNAL", raising=False)
    monkeypatch.delenv("EDITGUARD_HISTORY", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local/state"))
    return home


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """What an attacker's journal aims at: a file and an empty folder outside the root."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("precious\n")
    (outside / "empty").mkdir()
    return outside


STATE = ".local/state/editguard"
JOURNALS = f"{STATE}/journal"


def _started(home: Path) -> Workspace:
    """A workspace over ``home`` after one change of two files (so that the journal folder,
    its key and the history database exist) and a planted file in the state folder."""
    ws = Workspace([home])
    ws.apply_patch(
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n-A = 1\n+A = 2\n"
        "*** Update File: src/b.py\n@@\n-B = 1\n+B = 2\n*** End Patch\n"
    )
    assert (home / JOURNALS / "journal.key").is_file()
    (home / STATE / "history/needle.txt").write_text("needle in the state\n")
    return ws


def _evil_journal(outside: Path) -> str:
    """The journal the attack planted: roll back a 'created' file outside (its device and inode
    given) and remove a 'made' empty folder outside."""
    victim = (outside / "victim.txt").stat()
    step = {
        "kind": "write",
        "folder": str(outside),
        "made": ["empty"],
        "name": "victim.txt",
        "existed": False,
        "new": ".editguard-00000001.new",
        "backup": ".editguard-00000001.bak",
    }
    # The empty folder is the step's made folder: the file is looked for inside it, and the
    # victim's inode is given for a second step of the file itself.
    flat = {**step, "made": []}
    records = [
        {"v": 1, "pid": 1, "steps": [step, flat]},
        {"written": [[0, 0], [victim.st_dev, victim.st_ino]]},
    ]
    return "".join(json.dumps(r) + "\n" for r in records)


def _db(home: Path) -> str:
    (db,) = [p for p in (home / STATE / "history").iterdir() if p.suffix == ".sqlite3"]
    return str(db.relative_to(home))


def _refused(call: Callable[[], object]) -> EditError:
    with pytest.raises(EditError) as caught:
        call()
    assert caught.value.code == "OUTSIDE_ROOT", caught.value.message
    return caught.value


def test_every_writing_tool_refuses_to_plant_a_journal_in_the_state_folder(
    home: Path, outside: Path
) -> None:
    ws = _started(home)
    (home / "evil.journal").write_text(_evil_journal(outside))
    (home / "to-state").symlink_to(home / STATE)
    before = _state(home)
    text = _evil_journal(outside)
    lines = "".join("+" + line + "\n" for line in text.splitlines())
    for path in (
        f"{JOURNALS}/0-evil.journal",
        f"./{JOURNALS}/../journal/0-evil.journal",
        str(home / JOURNALS / "0-evil.journal"),
        "to-state/journal/0-evil.journal",
    ):
        error = _refused(lambda p=path: ws.write_file(p, text))  # type: ignore[misc]
        assert error.data["reason"] == "editguard_state"
    _refused(lambda: ws.move_file("evil.journal", f"{JOURNALS}/0-evil.journal"))
    _refused(lambda: ws.create_directory(f"{JOURNALS}/sub"))
    _refused(
        lambda: ws.apply_patch(
            f"*** Begin Patch\n*** Add File: {JOURNALS}/0-evil.journal\n{lines}*** End Patch\n"
        )
    )
    _refused(
        lambda: ws.apply_diff(
            f"--- /dev/null\n+++ b/{JOURNALS}/0-evil.journal\n"
            f"@@ -0,0 +1,{len(text.splitlines())} @@\n{lines}"
        )
    )
    _refused(
        lambda: ws.batch(
            [
                {
                    "tool": "write_file",
                    "arguments": {"path": f"{JOURNALS}/0-evil.journal", "content": text},
                }
            ]
        )
    )
    assert _state(home) == before
    for call in _every_tool(Workspace([home])):  # a restart, then every tool
        call()
    assert (outside / "victim.txt").read_text() == "precious\n"
    assert (outside / "empty").is_dir()


def test_no_tool_reads_lists_searches_moves_or_deletes_the_state_folders(home: Path) -> None:
    ws = _started(home)
    db = _db(home)
    key = f"{STATE}/history/needle.txt"  # a text file there
    before = _state(home)
    for call in (
        lambda: ws.read_file(key),
        lambda: ws.file_info(key),
        lambda: ws.file_info(STATE),
        lambda: ws.list_directory(JOURNALS),
        lambda: ws.directory_tree(STATE),
        lambda: ws.find_files("*", path=STATE),
        lambda: ws.grep("needle", path=STATE),
        lambda: ws.edit_file(key, [{"old_text": "a", "new_text": "b"}]),
        lambda: ws.edit_lines(key, [{"line_number": 1, "type": "delete"}]),
        lambda: ws.safe_edit(key, content="x"),
        lambda: ws.list_symbols(f"{STATE}/x.py"),
        lambda: ws.edit_symbol(f"{STATE}/x.py", "f", new_body="pass"),
        lambda: ws.move_file(db, "stolen.sqlite3"),
        lambda: ws.apply_patch(f"*** Begin Patch\n*** Delete File: {db}\n*** End Patch\n"),
        lambda: ws.history(path=db),
        lambda: ws.undo(path=db),
    ):
        _refused(call)
    (entry,) = ws.read_file(paths=[key]).files
    assert isinstance(entry, ReadFailure)
    assert entry.error.code == "OUTSIDE_ROOT"
    # Listings and searches from above leave the state out, hidden and ignored files included.
    listed = ws.list_directory(".local/state", include_ignored=True)
    assert "editguard" not in json.dumps(listed.model_dump())
    tree = ws.directory_tree(".", depth=6, include_ignored=True)
    assert "journal" not in json.dumps(tree.model_dump())
    found = ws.find_files("**", include_ignored=True, max_results=1000)
    assert not [f for f in json.dumps(found.model_dump()).split('"') if "editguard/" in f]
    hits = ws.grep("needle", include_ignored=True)
    assert (hits.files, hits.matches) == (1, 1)  # visible.txt only
    assert "state" not in hits.content
    assert _state(home) == before
    assert ws.undo().files  # the history is still there: the last change is undone
    assert (home / "src/a.py").read_text() == "A = 1\n"


def test_the_compat_filesystem_tools_never_reach_the_state_folders(home: Path) -> None:
    ws = _started(home)
    key = f"{STATE}/history/needle.txt"
    before = _state(home)
    for name, arguments in (
        ("read_text_file", {"path": key}),
        ("read_file", {"path": key}),
        ("write_file", {"path": f"{JOURNALS}/0-evil.journal", "content": "{}"}),
        ("edit_file", {"path": key, "edits": [{"oldText": "a", "newText": "b"}]}),
        ("create_directory", {"path": f"{JOURNALS}/x"}),
        ("list_directory", {"path": STATE}),
        ("directory_tree", {"path": STATE}),
        ("move_file", {"source": _db(home), "destination": "stolen"}),
        ("search_files", {"path": STATE, "pattern": "*"}),
        ("get_file_info", {"path": STATE}),
    ):
        with pytest.raises(EditError) as caught:
            filesystem.tool_named(name).call(ws.context, arguments)
        assert caught.value.code == "OUTSIDE_ROOT", name
    found = filesystem.tool_named("search_files").call(
        ws.context, {"path": ".", "pattern": "**/*journal*"}
    )
    assert "editguard" not in json.dumps(found.model_dump())
    assert _state(home) == before


def test_configured_state_folders_and_the_lock_folder_are_out_of_reach_too(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    ws = Workspace(
        [root],
        journal=root / "my-journal",
        history=root / "my-history",
        locks=FileLocks(str(root / "my-locks")),
    )
    ws.write_file("a.txt", "b\n")  # makes the history and lock folders
    for folder in ("my-journal", "my-history", "my-locks"):
        _refused(lambda f=folder: ws.write_file(f"{f}/x", "x"))  # type: ignore[misc]
        listed = ws.list_directory(".", include_ignored=True)
        assert folder not in json.dumps(listed.model_dump())


def _cli(home: Path, tool: str, arguments: dict[str, Any]) -> tuple[int, Any, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("EDITGUARD_JOURNAL", "EDITGUARD_HISTORY")
    }
    env["XDG_STATE_HOME"] = str(home / ".local/state")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "editguard",
            "call",
            "--root",
            str(home),
            tool,
            json.dumps(arguments),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def test_a_journal_planted_over_the_cli_never_reaches_outside(home: Path, outside: Path) -> None:
    code, out, _ = _cli(
        home,
        "write_file",
        {"path": f"{JOURNALS}/0-evil.journal", "content": _evil_journal(outside)},
    )
    assert code == 1
    assert out["error"]["code"] == "OUTSIDE_ROOT", out
    for tool, arguments in (
        ("read_file", {"path": "visible.txt"}),
        ("edit_file", {"path": "src/a.py", "edits": [{"old_text": "A = 1", "new_text": "A = 3"}]}),
        ("history", {}),
    ):
        code, out, _ = _cli(home, tool, arguments)
        assert code == 0, out
    assert (outside / "victim.txt").read_text() == "precious\n"
    assert (outside / "empty").is_dir()


def test_a_journal_editguard_did_not_write_is_kept_reported_and_never_acted_on(
    home: Path, outside: Path
) -> None:
    # As if the model had planted it before the state folders were out of reach (or as any
    # other program of the user might): a journal of this user, owner-only, but not sealed.
    _started(home)
    planted = home / JOURNALS / "0-evil.journal"
    planted.write_text(_evil_journal(outside))
    planted.chmod(0o600)
    code, out, err = _cli(home, "read_file", {"path": "visible.txt"})
    assert code == 0, out
    assert "0-evil.journal" in err  # reported on stderr, and by the history tool
    code, out, _ = _cli(home, "history", {})
    assert code == 0, out
    assert "0-evil.journal" in out["note"]
    ws = Workspace([home])
    for call in _every_tool(ws):  # each one that writes recovers first
        call()
    assert (outside / "victim.txt").read_text() == "precious\n"
    assert (outside / "empty").is_dir()
    assert planted.read_text() == _evil_journal(outside)  # kept, untouched
    rejected = Journal(str(home / JOURNALS)).recover().rejected
    assert list(rejected) == ["0-evil.journal"]
    assert Journal(str(home / JOURNALS)).rejected() == rejected


def _every_tool(ws: Workspace) -> list[Callable[[], object]]:
    """One successful call of every tool, in an order in which each one works."""
    return [
        lambda: ws.read_file("src/a.py"),
        lambda: ws.list_directory("."),
        lambda: ws.directory_tree("."),
        lambda: ws.find_files("*.py"),
        lambda: ws.file_info("src/a.py"),
        lambda: ws.grep("needle"),
        lambda: ws.list_symbols("src/a.py"),
        lambda: ws.edit_file("src/a.py", [{"old_text": "A = 2", "new_text": "A = 3"}]),
        lambda: ws.edit_lines("src/b.py", [{"line_number": 1, "type": "insert", "text": "#"}]),
        lambda: ws.safe_edit("src/c.py", content="C = 1\n"),
        lambda: ws.write_file("src/d.py", "def f():\n    return 1\n"),
        lambda: ws.edit_symbol("src/d.py", "f", new_body="def f():\n    return 2\n"),
        lambda: ws.apply_patch("*** Begin Patch\n*** Add File: e.txt\n+e\n*** End Patch\n"),
        lambda: ws.apply_diff("--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-e\n+E\n"),
        lambda: ws.batch([{"tool": "write_file", "arguments": {"path": "f.txt", "content": "f"}}]),
        lambda: ws.create_directory("g"),
        lambda: ws.move_file("f.txt", "g/f.txt"),
        ws.history,
        ws.undo,
    ]


def test_a_state_folder_reached_under_another_name_is_known_by_its_inode(
    tmp_path: Path,
) -> None:
    # The journal folder is configured through a symbolic link that later leads elsewhere:
    # editguard follows it to its journals, so the folder it leads to now is state too, though
    # its path is not the one the sandbox learnt (as a bind mount or a case-insensitive file
    # system shows one folder under two names).
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    link = tmp_path / "journal"
    link.symlink_to(root / "a")
    ws = Workspace([root], journal=link)
    link.unlink()
    link.symlink_to(root / "b")
    error = _refused(lambda: ws.write_file("b/0-evil.journal", "{}"))
    assert error.data["reason"] == "editguard_state"
    listed = ws.list_directory(".", include_ignored=True)
    assert "[DIR] b" not in listed.entries
    assert not (root / "b/0-evil.journal").exists()


@pytest.mark.anyio
async def test_serve_compat_filesystem_over_the_home_folder_keeps_its_state(
    home: Path, outside: Path
) -> None:
    # The way the reference server is usually run: `serve --compat filesystem ~`.
    _started(home)
    db = _db(home)
    # This checkout's code, whether or not the environment names it.
    src = str(Path(__file__).resolve().parent.parent / "src")
    env = {"XDG_STATE_HOME": str(home / ".local/state"), "PYTHONPATH": src}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", "--compat", "filesystem", str(home)],
        env=env,
    )

    def text(result: Any) -> str:
        return "".join(b.text for b in result.content if isinstance(b, TextContent))

    async with Client(params) as client:
        for name, arguments in (
            ("write_file", {"path": f"{JOURNALS}/0-evil.journal", "content": "{}"}),
            ("move_file", {"source": db, "destination": "stolen.sqlite3"}),
            ("read_text_file", {"path": f"{STATE}/history/needle.txt"}),
        ):
            result = await client.call_tool(name, arguments)
            assert result.is_error, (name, text(result))
            assert "state folder" in text(result), text(result)
        listed = await client.call_tool("list_directory", {"path": ".local/state"})
        assert not listed.is_error
        assert "editguard" not in text(listed)
        # Planted on disk meanwhile (by any other hand): the next write recovers, and leaves it.
        planted = home / JOURNALS / "0-evil.journal"
        planted.write_text(_evil_journal(outside))
        planted.chmod(0o600)
        edit = {"path": "src/a.py", "edits": [{"oldText": "A = 2", "newText": "A = 3"}]}
        assert not (await client.call_tool("edit_file", edit)).is_error
    assert (home / db).exists()
    assert not (home / JOURNALS / "0-evil.journal").read_text().startswith("{}")
    assert (outside / "victim.txt").read_text() == "precious\n"
    assert (outside / "empty").is_dir()
