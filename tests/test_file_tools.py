"""move_file, create_directory and file_info on real files: moves and folders go through the
transaction and the history (undo takes them back), refusals change nothing, and file_info
reads a file exactly as read_file does. Each tool also through the CLI and the MCP server."""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from editguard import Workspace
from editguard.errors import EditError
from editguard.fs.sandbox import Resolved, Sandbox
from editguard.history import records
from editguard.mcp_server import EditguardServer
from editguard.transaction import settle

from .conftest import Snapshot, cli, read_text, set_old_mtime


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root``: a file's bytes, ``None`` for a folder."""
    return {
        p.relative_to(root).as_posix(): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def refused(call: Any, code: str) -> EditError:
    with pytest.raises(EditError) as info:
        call()
    assert info.value.code == code, info.value
    return info.value


# -- move_file ---------------------------------------------------------------------------


def test_move_then_undo_restores_the_name_the_bytes_and_the_mode(ws: Workspace, root: Path) -> None:
    data = b"\xef\xbb\xbfline one\r\nline two\r\n"
    (root / "tool.sh").write_bytes(data)
    (root / "tool.sh").chmod(0o751)
    moved = ws.move_file("tool.sh", "bin.sh")
    assert moved.written
    assert moved.created_folders == []
    assert moved.change_id is not None
    assert not (root / "tool.sh").exists()
    assert (root / "bin.sh").read_bytes() == data
    assert (root / "bin.sh").stat().st_mode & 0o7777 == 0o751
    undone = ws.undo()
    assert undone.undone == [moved.change_id]
    assert not (root / "bin.sh").exists()
    assert (root / "tool.sh").read_bytes() == data
    assert (root / "tool.sh").stat().st_mode & 0o7777 == 0o751


def test_a_binary_file_moves_with_its_bytes(ws: Workspace, root: Path) -> None:
    data = bytes(range(256)) * 4
    (root / "blob.bin").write_bytes(data)
    ws.move_file("blob.bin", "data/blob.bin")
    assert (root / "data/blob.bin").read_bytes() == data
    ws.undo()
    assert tree(root) == {"blob.bin": data}


def test_a_move_into_a_new_folder_makes_it_and_undo_removes_it(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    moved = ws.move_file("a.txt", "docs/old/a.txt")
    assert moved.created_folders == ["docs", "docs/old"]
    assert tree(root) == {"docs": None, "docs/old": None, "docs/old/a.txt": b"a\n"}
    ws.undo()
    assert tree(root) == {"a.txt": b"a\n"}


def test_history_shows_the_move_and_the_folders_it_made(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    moved = ws.move_file("a.txt", "docs/a.txt")
    (change,) = ws.history(limit=1).changes
    assert change.id == moved.change_id
    assert change.tool == "move_file"
    shown = {(f.path, f.action, f.moved_from) for f in change.files}
    assert shown == {("docs/a.txt", "moved", "a.txt"), ("docs/", "created", None)}
    assert [c.id for c in ws.history("docs/a.txt").changes] == [moved.change_id]


def test_a_destination_that_exists_is_refused_and_nothing_changes(
    ws: Workspace, root: Path
) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    set_old_mtime(root / "a.txt")
    set_old_mtime(root / "b.txt")
    before = {n: Snapshot.of(root / n) for n in ("a.txt", "b.txt")}
    err = refused(lambda: ws.move_file("a.txt", "b.txt"), "STALE_VERSION")
    assert err.data["reason"] == "destination_exists"
    assert {n: Snapshot.of(root / n) for n in before} == before
    assert ws.history(limit=5).changes == []


def test_overwrite_replaces_the_destination_and_undo_restores_both(
    ws: Workspace, root: Path
) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    moved = ws.move_file("a.txt", "b.txt", overwrite=True)
    assert moved.replaced_version is not None
    assert tree(root) == {"b.txt": b"a\n"}
    ws.undo()
    assert tree(root) == {"a.txt": b"a\n", "b.txt": b"b\n"}


def test_a_dry_run_moves_nothing(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    out = ws.move_file("a.txt", "new/a.txt", dry_run=True)
    assert not out.written
    assert out.created_folders == ["new"]
    assert tree(root) == {"a.txt": b"a\n"}


def test_a_symlink_source_pointing_outside_is_refused(
    ws: Workspace, root: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret\n")
    (root / "link").symlink_to(secret)
    refused(lambda: ws.move_file("link", "stolen.txt"), "OUTSIDE_ROOT")
    assert secret.read_text() == "secret\n"
    assert (root / "link").is_symlink()
    assert not (root / "stolen.txt").exists()


def test_a_symlink_inside_the_roots_is_not_moved_through(ws: Workspace, root: Path) -> None:
    (root / "real.txt").write_text("r\n")
    (root / "link").symlink_to(root / "real.txt")
    refused(lambda: ws.move_file("link", "moved.txt"), "NOT_A_FILE")
    assert (root / "real.txt").read_text() == "r\n"
    assert (root / "link").is_symlink()


@pytest.mark.parametrize(
    ("source", "destination", "code"),
    [
        ("missing.txt", "b.txt", "FILE_NOT_FOUND"),
        ("a.txt", "../out.txt", "OUTSIDE_ROOT"),
        ("../x.txt", "b.txt", "OUTSIDE_ROOT"),
        ("a.txt", "a.txt", "INVALID_REQUEST"),
        ("sub", "sub2", "NOT_A_FILE"),
        ("a.txt", "sub", "NOT_A_FILE"),
        ("a.txt", "f.txt/inside.txt", "NOT_A_FILE"),
        ("a.txt", "newdir/", "INVALID_REQUEST"),
    ],
)
def test_a_bad_move_is_refused_with_a_code_and_changes_nothing(
    ws: Workspace, root: Path, source: str, destination: str, code: str
) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "f.txt").write_text("f\n")
    (root / "sub").mkdir()
    before = tree(root)
    refused(lambda: ws.move_file(source, destination), code)
    assert tree(root) == before


def test_a_move_across_two_roots_is_undone(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / "a.txt").write_text("a\n")
    ws = Workspace([one, two])
    ws.move_file("a.txt", str(two / "in/a.txt"))
    assert tree(one) == {}
    assert tree(two) == {"in": None, "in/a.txt": b"a\n"}
    ws.undo()
    assert tree(one) == {"a.txt": b"a\n"}
    assert tree(two) == {}


def test_undo_of_a_move_refuses_when_the_file_changed_since(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    ws.move_file("a.txt", "b.txt")
    (root / "b.txt").write_text("changed\n")
    refused(ws.undo, "STALE_VERSION")
    assert tree(root) == {"b.txt": b"changed\n"}


# -- create_directory --------------------------------------------------------------------


def test_create_directory_makes_nested_folders_and_undo_removes_them(
    ws: Workspace, root: Path
) -> None:
    (root / "docs").mkdir()
    made = ws.create_directory("docs/api/v2")
    assert made.created == ["docs/api", "docs/api/v2"]
    assert not made.existed
    assert (root / "docs/api/v2").is_dir()
    (change,) = ws.history(limit=1).changes
    assert change.tool == "create_directory"
    assert [(f.path, f.action) for f in change.files] == [
        ("docs/api/", "created"),
        ("docs/api/v2/", "created"),
    ]
    undone = ws.undo()
    assert undone.undone == [made.change_id]
    assert tree(root) == {"docs": None}
    # The undo is recorded too: undoing it makes the folders again.
    assert undone.change_id is not None
    ws.undo(undone.change_id)
    assert (root / "docs/api/v2").is_dir()


def test_an_existing_folder_is_success_and_records_nothing(ws: Workspace, root: Path) -> None:
    (root / "docs").mkdir()
    out = ws.create_directory("docs")
    assert out.existed
    assert out.created == []
    assert out.change_id is None
    assert ws.create_directory(".").existed
    assert ws.history(limit=5).changes == []


@pytest.mark.parametrize("path", ["f.txt", "f.txt/sub"])
def test_a_file_in_the_way_is_refused(ws: Workspace, root: Path, path: str) -> None:
    (root / "f.txt").write_text("f\n")
    refused(lambda: ws.create_directory(path), "NOT_A_FILE")
    assert tree(root) == {"f.txt": b"f\n"}


def test_create_directory_outside_the_roots_is_refused(
    ws: Workspace, root: Path, tmp_path: Path
) -> None:
    refused(lambda: ws.create_directory("../elsewhere"), "OUTSIDE_ROOT")
    (root / "out").symlink_to(tmp_path)
    refused(lambda: ws.create_directory("out/new"), "OUTSIDE_ROOT")
    assert not (tmp_path / "elsewhere").exists()
    assert not (tmp_path / "new").exists()


def test_create_directory_deeper_than_one_change_may_go_is_refused_before_resolving_each(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A thousand nested folders: refused at once, not after resolving each of them in the
    # sandbox (a thousand times the depth: seconds). The sandbox's resolve is counted, not
    # replaced.
    resolved: list[str] = []
    real = Sandbox.resolve

    def counting(self: Sandbox, path: str) -> Resolved:
        resolved.append(path)
        return real(self, path)

    monkeypatch.setattr(Sandbox, "resolve", counting)
    err = refused(lambda: ws.create_directory("/".join(["d"] * 1000)), "TOO_MANY_EDITS")
    assert err.data["files"] == 1000
    assert len(resolved) <= 2
    assert not (root / "d").exists()


def test_undo_refuses_to_remove_a_folder_that_is_no_longer_empty(ws: Workspace, root: Path) -> None:
    ws.create_directory("a/b")
    (root / "a/b/keep.txt").write_text("k\n")
    err = refused(ws.undo, "STALE_VERSION")
    assert err.data["reason"] == "folder_not_empty"
    refused(lambda: ws.undo(force=True), "STALE_VERSION")
    assert (root / "a/b/keep.txt").read_text() == "k\n"


def test_a_folder_change_whose_process_died_is_settled_by_what_is_on_disk(root: Path) -> None:
    ws = Workspace([root])
    history = ws.context.history
    assert history is not None
    (root / "made").mkdir()
    # What two create_directory calls leave when their process dies between recording and the
    # end: one had made its folder (the entry counts), one had not (the entry goes).
    for name in ("made", "never"):
        rec = records.folder_record(name, str(root / name), before=False, after=True)
        history._write_entry("create_directory", [rec], (), pending=True)
    settle(ws.context)
    assert [f.path for c in ws.history(limit=5).changes for f in c.files] == ["made/"]
    ws.undo()
    assert tree(root) == {}


# -- file_info ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "encoding", "bom", "ending", "lines", "final"),
    [
        (b"one\r\ntwo\r\n", "utf-8", False, "CRLF", 2, True),
        (b"\xef\xbb\xbfone\ntwo", "utf-8", True, "LF", 2, False),
        ("caf\u00e9 na\u00efve\n".encode("cp1252"), "cp1252", False, "LF", 1, True),
        (b"", "utf-8", False, "none", 0, False),
    ],
)
def test_file_info_of_a_text_file_reads_it_as_read_file_does(
    ws: Workspace,
    root: Path,
    data: bytes,
    encoding: str,
    bom: bool,
    ending: str,
    lines: int,
    final: bool,
) -> None:
    (root / "t.txt").write_bytes(data)
    (root / "t.txt").chmod(0o640)
    info = ws.file_info("t.txt")
    read = read_text(ws, "t.txt")
    assert info.type == "file"
    assert info.size == len(data)
    assert not info.binary
    assert (info.encoding, info.bom, info.line_ending) == (read.encoding, read.bom, ending)
    assert info.encoding == encoding
    assert info.bom == bom
    assert (info.line_count, info.ends_with_newline) == (lines, final)
    assert info.version == read.version
    assert (info.permissions, info.mode) == ("640", "-rw-r-----")
    assert info.modified.endswith("Z")
    assert info.accessed.endswith("Z")


def test_file_info_of_a_binary_file_says_binary(ws: Workspace, root: Path) -> None:
    (root / "b.bin").write_bytes(b"\x00\x01\x02\xff" * 10)
    info = ws.file_info("b.bin")
    assert info.type == "file"
    assert info.binary is True
    assert info.size == 40
    assert info.version is None
    assert info.encoding is None


def test_file_info_of_a_folder_and_a_symlink(ws: Workspace, root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub/a.txt").write_text("a\n")
    (root / "link").symlink_to(root / "sub/a.txt")
    folder = ws.file_info("sub")
    assert folder.type == "dir"
    assert folder.mode.startswith("d")
    assert folder.line_count is None
    assert ws.file_info(".").type == "dir"
    link = ws.file_info("link")
    assert link.type == "symlink"
    assert link.target == "sub/a.txt"
    assert link.line_count == 1


def test_file_info_of_a_pipe_does_not_read_it(ws: Workspace, root: Path) -> None:
    os.mkfifo(root / "pipe")
    info = ws.file_info("pipe")
    assert info.type == "other"
    assert info.mode.startswith("p")
    assert info.binary is None


def test_file_info_over_the_size_limit_reports_size_and_type_only(root: Path) -> None:
    (root / "big.txt").write_text("x\n" * 100)
    info = Workspace([root], max_file_bytes=50).file_info("big.txt")
    assert info.type == "file"
    assert info.size == 200
    assert info.version is None
    assert info.line_count is None
    assert info.note is not None
    assert "size limit" in info.note


@pytest.mark.parametrize(
    ("path", "code"), [("nope.txt", "FILE_NOT_FOUND"), ("../x", "OUTSIDE_ROOT")]
)
def test_file_info_of_a_bad_path_is_refused(ws: Workspace, path: str, code: str) -> None:
    refused(lambda: ws.file_info(path), code)


# -- through the CLI and MCP -------------------------------------------------------------


def test_move_file_through_the_cli(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    code, out = cli(root, "move_file", {"source": "a.txt", "destination": "d/a.txt"})
    assert code == 0
    assert out["created_folders"] == ["d"]
    assert tree(root) == {"d": None, "d/a.txt": b"a\n"}
    code, out = cli(root, "move_file", {"source": "d/a.txt", "destination": "d/a.txt"})
    assert code == 1
    assert out["error"]["code"] == "INVALID_REQUEST"


def test_create_directory_through_the_cli(root: Path) -> None:
    code, out = cli(root, "create_directory", {"path": "x/y"})
    assert code == 0
    assert out["created"] == ["x", "x/y"]
    (root / "f").write_text("")
    code, out = cli(root, "create_directory", {"path": "f"})
    assert code == 1
    assert out["error"]["code"] == "NOT_A_FILE"


def test_file_info_through_the_cli(root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\r\nb\r\n")
    code, out = cli(root, "file_info", {"path": "a.txt"})
    assert code == 0
    assert out["line_ending"] == "CRLF"
    assert out["line_count"] == 2


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server(root: Path) -> EditguardServer:
    return EditguardServer(Workspace([root]), log_level="WARNING")


@pytest.mark.anyio
async def test_move_file_over_mcp(server: EditguardServer, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool("move_file", {"source": "a.txt", "destination": "b.txt"})
        assert not result.is_error
        assert result.structured_content is not None
        assert result.structured_content["destination"] == "b.txt"
        again = await client.call_tool("move_file", {"source": "a.txt", "destination": "b.txt"})
        assert again.is_error
    assert tree(root) == {"b.txt": b"a\n"}


@pytest.mark.anyio
async def test_create_directory_over_mcp(server: EditguardServer, root: Path) -> None:
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool("create_directory", {"path": "p/q"})
        assert not result.is_error
        assert result.structured_content is not None
        assert result.structured_content["created"] == ["p", "p/q"]
    assert (root / "p/q").is_dir()


@pytest.mark.anyio
async def test_file_info_over_mcp(server: EditguardServer, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    async with Client(server, raise_exceptions=True) as client:
        info = await client.call_tool("file_info", {"path": "a.txt"})
        read = await client.call_tool("read_file", {"path": "a.txt"})
    assert info.structured_content is not None
    assert read.structured_content is not None
    assert info.structured_content["version"] == read.structured_content["version"]
    assert info.structured_content["type"] == "file"


@pytest.mark.skipif(not shutil.which("stat"), reason="needs the stat command")
def test_file_info_created_is_the_birth_time_the_system_keeps(ws: Workspace, root: Path) -> None:
    (root / "born.txt").write_text("x\n")
    told = subprocess.run(
        ["stat", "-c", "%W", str(root / "born.txt")], capture_output=True, text=True, check=True
    ).stdout.strip()
    created = ws.file_info("born.txt").created
    if told in ("0", "-", "?"):  # the file system keeps none
        assert created is None
    else:
        when = datetime.datetime.fromtimestamp(int(told), datetime.UTC)
        assert created == when.isoformat(timespec="seconds").replace("+00:00", "Z")
