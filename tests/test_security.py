"""The sandbox holds at the moment of use: a folder or a file swapped for a symbolic link to the
outside while editguard works never lets a call read or write there. Real processes race the
tool on real files; each race runs for a bounded time."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from editguard import EditError, FileLocks, Workspace
from editguard.fs import atomic

from .conftest import Snapshot, is_temp_file, read_text

RACE_SECONDS = 2.0

# Flips `target` between the real entry (kept aside as `aside`) and a symbolic link to
# `outside`, with atomic renames, as fast as it can, until it is killed.
SWAPPER = textwrap.dedent(
    """
    import os, sys
    target, aside, link, outside = sys.argv[1:5]
    os.symlink(outside, link)
    print("ready", flush=True)
    while True:
        os.rename(target, aside)
        os.rename(link, target)
        os.rename(target, link)
        os.rename(aside, target)
    """
)


@contextmanager
def swapping(target: Path, outside: Path) -> Iterator[None]:
    """``target`` swapped back and forth for a symbolic link to ``outside`` meanwhile."""
    aside = target.with_name(target.name + ".aside")
    link = target.with_name(target.name + ".link")
    proc = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(target), str(aside), str(link), str(outside)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    with proc.stdout:
        assert proc.stdout.readline().strip() == "ready"
        try:
            yield
        finally:
            proc.kill()
            proc.wait(timeout=10)
    # Put the real entry back where it belongs, whatever instant the swapper was killed at (a
    # write may have created a new folder at `target` while it was missing).
    if target.is_symlink():
        target.unlink()
    if aside.exists():
        if target.is_dir():
            shutil.rmtree(target)
        aside.rename(target)
    if link.is_symlink():
        link.unlink()


def race(call: object, seconds: float = RACE_SECONDS) -> tuple[int, int]:
    """Call ``call()`` again and again for ``seconds``: (calls that succeeded, that failed)."""
    assert callable(call)
    ok = failed = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            call()
            ok += 1
        except EditError:
            failed += 1
    return ok, failed


def outside_tree(root: Path) -> tuple[Path, dict[Path, bytes]]:
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text("SECRET\n")
    return outside, {p: p.read_bytes() for p in outside.rglob("*")}


def test_a_folder_swapped_for_a_link_to_outside_is_never_written_through(root: Path) -> None:
    outside, before = outside_tree(root)
    (root / "sub").mkdir()
    (root / "sub" / "x.txt").write_text("inside\n")
    ws = Workspace([root], prewarm=False)
    with swapping(root / "sub", outside):
        ok, failed = race(lambda: ws.write_file("sub/x.txt", f"mine {time.monotonic()}\n"))
    assert ok + failed > 20
    assert {p: p.read_bytes() for p in outside.rglob("*")} == before
    assert not [p for p in root.parent.rglob("*") if is_temp_file(p)]


def test_a_file_swapped_for_a_link_to_outside_is_never_read(root: Path) -> None:
    outside, _ = outside_tree(root)
    (root / "x.txt").write_text("inside\n")
    ws = Workspace([root], prewarm=False)
    seen: list[str] = []
    with swapping(root / "x.txt", outside / "x.txt"):
        race(lambda: seen.append(read_text(ws, "x.txt").content))
    assert seen
    assert not [s for s in seen if "SECRET" in s]


def test_a_file_swapped_for_a_link_to_outside_is_never_edited_through(root: Path) -> None:
    outside, before = outside_tree(root)
    (root / "x.txt").write_text("SECRET\n")  # the same text, so an edit through the link fits
    ws = Workspace([root], prewarm=False)

    def edit() -> None:
        ws.edit_file("x.txt", [{"old_text": "SECRET", "new_text": "SECRET"}])
        ws.edit_file("x.txt", [{"old_text": "SECRET\n", "new_text": "SECRET\n\n"}])
        ws.edit_file("x.txt", [{"old_text": "SECRET\n\n", "new_text": "SECRET\n"}])

    with swapping(root / "x.txt", outside / "x.txt"):
        race(edit)
    assert {p: p.read_bytes() for p in outside.rglob("*")} == before


def test_a_missing_folder_created_as_a_link_to_outside_gets_nothing(root: Path) -> None:
    outside, before = outside_tree(root)
    ws = Workspace([root], prewarm=False)
    script = textwrap.dedent(
        """
        import os, sys
        link, outside = sys.argv[1:3]
        print("ready", flush=True)
        while True:
            try:
                os.symlink(outside, link)
                os.unlink(link)
            except FileExistsError:
                pass
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(root / "new"), str(outside)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    with proc.stdout:
        assert proc.stdout.readline().strip() == "ready"

        def create() -> None:
            try:
                ws.write_file("new/deeper/y.txt", "mine\n")
            finally:
                for leftover in (root / "new" / "deeper" / "y.txt", root / "new" / "deeper"):
                    if not (root / "new").is_symlink() and leftover.exists():
                        if leftover.is_dir():
                            leftover.rmdir()
                        else:
                            leftover.unlink()

        try:
            race(create)
        finally:
            proc.kill()
            proc.wait(timeout=10)
    assert {p: p.read_bytes() for p in outside.rglob("*")} == before


def test_a_link_that_stays_inside_the_root_still_works(root: Path) -> None:
    (root / "real").mkdir()
    (root / "real" / "a.py").write_text("x = 1\n")
    (root / "via").symlink_to(root / "real")
    (root / "alias.py").symlink_to(root / "real" / "a.py")
    ws = Workspace([root], prewarm=False)
    ws.edit_file("via/a.py", [{"old_text": "1", "new_text": "2"}])
    ws.edit_file("alias.py", [{"old_text": "2", "new_text": "3"}])
    ws.write_file("via/b.py", "y = 1\n")
    assert (root / "real" / "a.py").read_text() == "x = 3\n"
    assert (root / "real" / "b.py").read_text() == "y = 1\n"
    assert (root / "alias.py").is_symlink()


def test_a_fifo_swapped_in_never_blocks_a_reader(root: Path) -> None:
    (root / "x.txt").write_text("inside\n")
    os.mkfifo(root / "pipe")
    script = textwrap.dedent(
        """
        import sys, time
        from editguard import EditError, Workspace
        ws = Workspace([sys.argv[1]], prewarm=False)
        deadline = time.monotonic() + float(sys.argv[2])
        while time.monotonic() < deadline:
            for call in (lambda: ws.read_file("x.txt"),
                         lambda: ws.edit_file("x.txt", [{"old_text": "in", "new_text": "in"}])):
                try:
                    call()
                except EditError:
                    pass
        print("done")
        """
    )
    with swapping(root / "x.txt", root / "pipe"):
        # A FIFO opened for reading without O_NONBLOCK would wait for a writer forever.
        done = subprocess.run(
            [sys.executable, "-c", script, str(root), str(RACE_SECONDS)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
    assert done.stdout.strip() == "done", done.stderr


def test_a_fifo_in_place_of_the_file_is_refused(root: Path) -> None:
    os.mkfifo(root / "pipe.txt")
    with pytest.raises(EditError) as err:
        Workspace([root]).read_file("pipe.txt")
    assert err.value.code == "NOT_A_FILE"


# -- the lock folder -------------------------------------------------------------------------


def test_a_lock_folder_planted_as_a_link_is_refused(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "locks").symlink_to(elsewhere)
    (root / "a.txt").write_text("x\n")
    ws = Workspace([root], locks=FileLocks(folder=str(tmp_path / "locks")))
    with pytest.raises(EditError) as err:
        ws.edit_file("a.txt", [{"old_text": "x", "new_text": "y"}])
    assert err.value.code == "PERMISSION_DENIED"
    assert "not safe" in err.value.message
    assert list(elsewhere.iterdir()) == []
    assert (root / "a.txt").read_text() == "x\n"


def test_a_lock_folder_others_may_use_is_refused(root: Path, tmp_path: Path) -> None:
    (tmp_path / "locks").mkdir(mode=0o700)
    (tmp_path / "locks").chmod(0o777)
    (root / "a.txt").write_text("x\n")
    ws = Workspace([root], locks=FileLocks(folder=str(tmp_path / "locks")))
    with pytest.raises(EditError) as err:
        ws.write_file("a.txt", "y\n")
    assert (err.value.code, err.value.data["lock_folder"]) == (
        "PERMISSION_DENIED",
        str(tmp_path / "locks"),
    )


def test_a_lock_file_planted_as_a_link_is_a_coded_refusal(root: Path, tmp_path: Path) -> None:
    locks = FileLocks(folder=str(tmp_path / "locks"))
    (root / "a.txt").write_text("x\n")
    ws = Workspace([root], locks=locks)
    ws.write_file("a.txt", "y\n")  # creates the folder and the lock file
    (lock_file,) = (tmp_path / "locks").iterdir()
    lock_file.unlink()
    lock_file.symlink_to(tmp_path / "target")
    with pytest.raises(EditError) as err:
        ws.write_file("a.txt", "z\n")
    assert err.value.code == "PERMISSION_DENIED"
    assert not (tmp_path / "target").exists()


def test_the_lock_folder_is_created_owner_only(tmp_path: Path) -> None:
    folder = tmp_path / "fresh"
    root = tmp_path / "r"
    root.mkdir()
    Workspace([root], locks=FileLocks(folder=str(folder))).write_file("a.txt", "x\n")
    assert folder.stat().st_mode & 0o777 == 0o700


# -- temporary files of killed writers ---------------------------------------------------------


def test_stale_temporary_files_are_swept_and_live_ones_kept(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(atomic, "_SWEPT", {})
    stale = root / ".editguard-0badc0de.tmp"
    fresh = root / ".editguard-00000001.tmp"
    held = root / ".editguard-00000002.tmp"
    for path in (stale, fresh, held):
        path.write_bytes(b"partial")
    for path in (stale, held):
        os.utime(path, (time.time() - 3600, time.time() - 3600))
    # A live writer (another process) holds its temporary file's flock.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time\n"
            "f = open(sys.argv[1], 'rb')\n"
            "fcntl.flock(f, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(60)\n",
            str(held),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    with holder.stdout:
        assert holder.stdout.readline().strip() == "held"
        try:
            Workspace([root]).write_file("a.txt", "x\n")
        finally:
            holder.kill()
            holder.wait(timeout=10)
    assert not stale.exists()
    assert fresh.exists()
    assert held.exists()


# -- a real full disk ---------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KB tmpfs, where the machine lets this process mount one."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def test_a_full_disk_leaves_the_file_and_no_trace(small_disk: Path) -> None:
    big = small_disk / "big.txt"
    big.write_text("x" * 40_000 + "\n")
    snap = Snapshot.of(big)
    ws = Workspace([small_disk], prewarm=False)
    with pytest.raises(EditError) as err:
        ws.write_file("big.txt", "y" * 40_000 + "\n")  # old and new do not fit together
    assert err.value.code == "WRITE_FAILED"
    with pytest.raises(EditError) as err:
        ws.write_file("new/deeper/other.txt", "z" * 40_000)
    assert err.value.code == "WRITE_FAILED"
    assert Snapshot.of(big) == snap
    assert sorted(p.name for p in small_disk.iterdir()) == ["big.txt"]


def test_a_parent_of_the_root_swapped_for_a_link_is_never_used(tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "p" / "root").mkdir(parents=True)
    (base / "p" / "root" / "f.txt").write_text("inside\n")
    (base / "q" / "root").mkdir(parents=True)
    (base / "q" / "root" / "f.txt").write_text("SECRET\n")
    ws = Workspace([base / "p" / "root"], prewarm=False)
    seen: list[str] = []

    def use() -> None:
        seen.append(read_text(ws, "f.txt").content)
        ws.write_file("f.txt", f"mine {time.monotonic()}\n")

    with swapping(base / "p", base / "q"):
        race(use)
    assert (base / "q" / "root" / "f.txt").read_text() == "SECRET\n"
    assert not [s for s in seen if "SECRET" in s]


def test_client_roots_swapped_for_a_link_to_outside_never_widen_the_sandbox(
    root: Path,
) -> None:
    import anyio
    from mcp import Client
    from mcp_types import ListRootsResult, Root

    from editguard.mcp_server import EditguardServer

    outside, before = outside_tree(root)
    (outside / "secret.txt").write_text("SECRET\n")
    before = {p: p.read_bytes() for p in outside.rglob("*")}
    (root / "inner").mkdir()
    (root / "inner" / "secret.txt").write_text("inside\n")
    server = EditguardServer(Workspace([root], prewarm=False), log_level="WARNING")

    async def list_roots(_context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=(root / "inner").as_uri())])

    seen: list[str] = []

    async def calls() -> None:
        callback: Any = list_roots  # the SDK's callback protocol names its parameters
        async with Client(server, mode="legacy", list_roots_callback=callback) as client:
            deadline = time.monotonic() + RACE_SECONDS
            while time.monotonic() < deadline:
                read = await client.call_tool("read_file", {"path": "secret.txt"})
                seen.append(str(read.content))
                await client.call_tool("write_file", {"path": "pwned.txt", "content": "x\n"})

    with swapping(root / "inner", outside):
        anyio.run(calls)
    assert seen
    assert not [s for s in seen if "SECRET" in s]
    assert {p: p.read_bytes() for p in outside.rglob("*")} == before


def test_a_users_own_file_named_like_a_temporary_one_is_kept(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(atomic, "_SWEPT", {})
    mine = root / ".editguard-notes.tmp"
    mine.write_text("my notes\n")
    os.utime(mine, (time.time() - 3600, time.time() - 3600))
    Workspace([root]).write_file("a.txt", "x\n")
    assert mine.read_text() == "my notes\n"
