"""The transaction guarantee: after a refused system call at any step of a commit, or a kill -9
at any instant, and the recovery that follows, every file of the commit is all-old (same bytes,
mode and mtime) or all-new, and nothing of the commit is left behind. Faults are injected through
``journal.SYSTEM``; crashes are real child processes killed with SIGKILL."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from editguard import EditError, FileLocks, Workspace
from editguard.fs import journal
from editguard.fs.journal import Journal, seal, steps

from .crashes import (
    BATCH,
    CALLS,
    DELETE,
    TWENTY,
    Faults,
    Scenario,
    Tree,
    commit_time,
    count_calls,
    in_child,
    kill_at_random,
    leftovers,
    outcome,
    workspace,
)

CODES = {errno.EIO: "WRITE_FAILED", errno.ENOSPC: "WRITE_FAILED", errno.EACCES: "PERMISSION_DENIED"}


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> Faults:
    """Every journal system call wrapped: counted, and failing on demand."""
    return Faults().install(monkeypatch.setattr)


def _calls_per_kind(scenario: Scenario, tmp_path: Path, faults: Faults) -> dict[str, int]:
    root, journals = tmp_path / "count", tmp_path / "count-journal"
    scenario.setup(root)
    ws = workspace(root, journals)
    faults.fail("none", 0, 0)
    scenario.commit(ws)
    return dict(faults.calls)


# -- a refused system call at every step ---------------------------------------------------


@pytest.mark.parametrize("scenario", [BATCH, DELETE], ids=lambda s: s.name)
@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("code", list(CODES), ids=errno.errorcode.get)
def test_a_refused_system_call_at_any_step_leaves_every_file_as_it_was(
    scenario: Scenario, call: str, code: int, tmp_path: Path, faults: Faults
) -> None:
    reached = _calls_per_kind(scenario, tmp_path, faults)[call]
    assert reached
    for at in range(1, reached + 1):
        root, journals = tmp_path / f"{at}", tmp_path / f"{at}-journal"
        old = scenario.setup(root)
        ws = workspace(root, journals)
        faults.fail(call, at, code)
        with pytest.raises(EditError) as caught:
            scenario.commit(ws)
        faults.off()
        err = caught.value
        where = f"{call} #{at}: {err.code} {err.message}"
        assert faults.failed, where
        assert err.code == CODES[code], where
        assert "step" in err.data, where
        if err.data["step"] in ("intent", "written", "committed"):  # the journal's own records
            assert err.data["journal"] == str(journals), where
            assert str(err.path).startswith(str(journals)), where
        else:
            assert err.path in scenario.paths, where
        assert Tree.of(root) == old, where
        assert leftovers(root, journals) == [], where
        assert Journal(str(journals)).recover().recovered == []
        assert Tree.of(root) == old, where
        faults.failed = 0


@pytest.mark.parametrize("scenario", [BATCH, DELETE], ids=lambda s: s.name)
@pytest.mark.parametrize("call", CALLS)
def test_a_fault_that_persists_through_the_rollback_is_finished_by_recovery(
    scenario: Scenario, call: str, tmp_path: Path, faults: Faults
) -> None:
    reached = _calls_per_kind(scenario, tmp_path, faults)[call]
    for at in range(1, reached + 1):
        root, journals = tmp_path / f"{at}", tmp_path / f"{at}-journal"
        old = scenario.setup(root)
        ws = workspace(root, journals)
        faults.fail(call, at, errno.EIO, persist=True)
        with pytest.raises(EditError) as caught:
            scenario.commit(ws)
        where = f"{call} #{at}: {caught.value.code} {caught.value.message}"
        assert caught.value.code == "WRITE_FAILED", where
        assert "step" in caught.value.data, where
        pending = caught.value.data.get("recovery") == "pending"
        assert pending == bool(leftovers(root, journals)), where
        assert Journal(str(journals)).recover().recovered == [], where  # the fault is still there
        faults.off()
        assert len(Journal(str(journals)).recover().recovered) == pending, where
        assert Tree.of(root) == old, where
        assert leftovers(root, journals) == [], where


# -- kill -9 at every system call, and at random instants ----------------------------------


def _commit_in(root: Path, journals: Path, scenario: Scenario) -> Callable[[], Any]:
    return lambda: scenario.commit(workspace(root, journals))


@pytest.fixture(scope="module")
def twenty(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    """The tree the 20-file commit leaves when nothing interrupts it."""
    scratch = tmp_path_factory.mktemp("twenty")
    return TWENTY.reference(scratch / "root", scratch / "journal")


def test_the_twenty_file_commit_changes_twenty_files(twenty: Tree, tmp_path: Path) -> None:
    old = TWENTY.setup(tmp_path / "root")
    changed = set(old.files.keys() | twenty.files.keys()) - {
        k for k in old.files.keys() & twenty.files.keys() if old.files[k][0] == twenty.files[k][0]
    }
    assert len(changed) == 20


@pytest.mark.slow
def test_a_commit_killed_before_any_of_its_system_calls_is_all_old_or_all_new(
    twenty: Tree, tmp_path: Path
) -> None:
    root, journals = tmp_path / "count", tmp_path / "count-journal"
    TWENTY.setup(root)
    total = count_calls(_commit_in(root, journals, TWENTY))
    seen = {"old": 0, "new": 0}
    for at in range(1, total + 2):
        root, journals = tmp_path / f"{at}", tmp_path / f"{at}-journal"
        old = TWENTY.setup(root)
        killed = in_child(_commit_in(root, journals, TWENTY), kill_at=at)
        assert killed == (at <= total)
        workspace(root, journals)  # a new Workspace recovers
        state = outcome(root, old, twenty)
        assert state != "mixed", f"killed before call {at} of {total}"
        assert leftovers(root, journals) == [], f"killed before call {at} of {total}"
        seen[state] += 1
    # Killed before the committed record is fsynced (it is in the page cache, which survives
    # the process): the commit stands.
    assert seen == {"old": total - 1, "new": 2}


def _random_kills(tmp_path: Path, twenty: Tree, runs: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    root, journals = tmp_path / "time", tmp_path / "time-journal"
    TWENTY.setup(root)
    window = 1.2 * commit_time(_commit_in(root, journals, TWENTY))
    seen = {"old": 0, "new": 0, "mixed": 0, "finished": 0}
    for run in range(runs):
        if run and run % 25 == 0 and not seen["new"]:
            # fsync times vary with the machine's load: a window measured on a quick commit
            # can end before slower ones do. Widen it until kills land on both sides.
            window *= 1.5
        root, journals = tmp_path / f"{run}", tmp_path / f"{run}-journal"
        old = TWENTY.setup(root)
        if not kill_at_random(_commit_in(root, journals, TWENTY), window, rng):
            seen["finished"] += 1
        workspace(root, journals)
        state = outcome(root, old, twenty)
        assert state != "mixed", f"run {run}"
        assert leftovers(root, journals) == [], f"run {run}"
        seen[state] += 1
        shutil.rmtree(root)
    return seen


@pytest.mark.slow
def test_a_commit_killed_at_a_random_instant_is_all_old_or_all_new(
    twenty: Tree, tmp_path: Path
) -> None:
    seen = _random_kills(tmp_path, twenty, runs=200, seed=20261123)
    # The instants fall inside the commit, so both outcomes happen.
    assert seen["old"], seen
    assert seen["new"], seen


@pytest.mark.slow
@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.8, 1.0])
def test_a_recovery_killed_at_any_of_its_system_calls_is_finished_by_the_next(
    fraction: float, twenty: Tree, tmp_path: Path
) -> None:
    root, journals = tmp_path / "count", tmp_path / "count-journal"
    TWENTY.setup(root)
    total = count_calls(_commit_in(root, journals, TWENTY))
    crash = max(1, round(total * fraction))  # 1.0: right before the committed record's fsync
    at = 1
    while True:
        root, journals = tmp_path / f"{at}", tmp_path / f"{at}-journal"
        old = TWENTY.setup(root)
        assert in_child(_commit_in(root, journals, TWENTY), kill_at=crash)
        killed = in_child(lambda: Journal(str(journals)).recover(), kill_at=at)  # noqa: B023
        workspace(root, journals)
        assert outcome(root, old, twenty) != "mixed", f"recovery killed before call {at}"
        assert leftovers(root, journals) == [], f"recovery killed before call {at}"
        if not killed:
            break
        at += 1
    assert at > 1


def test_the_cli_recovers_a_killed_commit_at_its_start(twenty: Tree, tmp_path: Path) -> None:
    root, journals = tmp_path / "count", tmp_path / "count-journal"
    TWENTY.setup(root)
    total = count_calls(_commit_in(root, journals, TWENTY))
    for at in (total // 2, total):
        root, journals = tmp_path / f"{at}", tmp_path / f"{at}-journal"
        old = TWENTY.setup(root)
        assert in_child(_commit_in(root, journals, TWENTY), kill_at=at)
        assert leftovers(root, journals)
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "editguard",
                "call",
                "--journal",
                str(journals),
                "read_file",
                json.dumps({"path": "old/stays.txt"}),
            ],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert outcome(root, old, twenty) == ("new" if at == total else "old")
        assert leftovers(root, journals) == []


# -- two processes at once -----------------------------------------------------------------

_WRITER = textwrap.dedent(
    """
    import json, sys
    from editguard import EditError, Workspace
    from editguard.core.document import content_version
    root, journal, tag, rounds, how = sys.argv[1:]
    ws = Workspace([root], journal=journal, prewarm=False)
    names = [f"f{n}.txt" for n in range(5)]
    if tag == "b":
        names.reverse()  # the other order: locks are taken in one order whatever the request's
    sys.stdin.readline()  # both start together
    landed, refused = [], []
    for r in range(int(rounds)):
        line = f"{tag}{r}"
        calls = []
        for name in names:
            if how == "edit":
                edits = [{"old_text": "END", "new_text": line + "\\nEND"}]
                calls.append({"tool": "edit_file", "arguments": {"path": name, "edits": edits}})
            else:
                data = open(f"{root}/{name}", "rb").read()
                args = {"path": name, "content": data.decode() + line + "\\n",
                        "expected_version": content_version([data])}
                calls.append({"tool": "write_file", "arguments": args})
        try:
            ws.batch(calls)
            landed.append(line)
        except EditError as exc:
            refused.append(exc.code)
    print(json.dumps({"landed": landed, "refused": refused}))
    """
)


@pytest.mark.parametrize("how", ["edit", "write"])
def test_two_processes_committing_over_the_same_files_lose_no_update(
    how: str, tmp_path: Path
) -> None:
    root, journals = tmp_path / "root", tmp_path / "journal"
    root.mkdir()
    for n in range(5):
        (root / f"f{n}.txt").write_text("head\nEND\n" if how == "edit" else "head\n")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(root), str(journals), tag, "25", how],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for tag in "ab"
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results = [json.loads(proc.communicate(timeout=120)[0]) for proc in procs]
    landed = [line for result in results for line in result["landed"]]
    refused = [code for result in results for code in result["refused"]]
    assert set(refused) <= {"FILE_BUSY", "STALE_VERSION"}
    assert len(landed) + len(refused) == 50
    if how == "edit":
        assert refused == []  # each reads the file under its lock: nothing is stale
    for n in range(5):
        lines = (root / f"f{n}.txt").read_text().splitlines()
        body = [line for line in lines if line not in ("head", "END")]
        assert sorted(body) == sorted(landed), f"f{n}.txt"
    assert leftovers(root, journals) == []


# -- a live commit is never recovered --------------------------------------------------------


def test_recovery_leaves_a_journal_whose_commit_is_alive(twenty: Tree, tmp_path: Path) -> None:
    root, journals = tmp_path / "root", tmp_path / "journal"
    old = TWENTY.setup(root)
    paused, resume = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        renames = 0
        real = journal.SYSTEM.rename

        def rename(*args: Any, **kwargs: Any) -> Any:
            nonlocal renames
            renames += 1
            if renames == 4:  # in the middle of the steps
                os.write(paused[1], b"p")
                os.read(resume[0], 1)
            return real(*args, **kwargs)

        journal.SYSTEM.rename = rename
        code = 0
        try:
            TWENTY.commit(workspace(root, journals))
        except BaseException:  # noqa: BLE001
            code = 3
        os._exit(code)
    try:
        assert os.read(paused[0], 1) == b"p"
        during = Tree.of(root)
        assert outcome(root, old, twenty) == "mixed"  # steps half done
        assert Journal(str(journals)).recover().recovered == []
        workspace(root, journals)  # a Workspace starting meanwhile recovers too
        assert Tree.of(root) == during
        assert [p.name for p in journals.iterdir() if p.name.endswith(".journal")]
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                "from editguard.fs.journal import Journal; import sys; "
                "print(Journal(sys.argv[1]).recover().recovered)",
                str(journals),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert proc.stdout.strip() == "[]"
        assert Tree.of(root) == during
    finally:
        os.write(resume[1], b"r")
        _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status)
    assert os.WEXITSTATUS(status) == 0
    assert outcome(root, old, twenty) == "new"
    assert leftovers(root, journals) == []


def test_a_held_journal_is_skipped_and_recovered_once_released(tmp_path: Path) -> None:
    journals = tmp_path / "journal"
    journals.mkdir(mode=0o700)
    held = journals / "1-aa.journal"
    held.write_text("")
    fd = os.open(held, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert not in_child(lambda: _expect(Journal(str(journals)).recover().recovered, []))
        assert held.exists()
    finally:
        os.close(fd)
    assert Journal(str(journals)).recover().recovered == [held.name]
    assert not held.exists()


def _expect(got: object, expected: object) -> None:
    assert got == expected, got


# -- the journal folder ---------------------------------------------------------------------


def test_the_journal_folder_is_made_owner_only_by_the_first_commit(tmp_path: Path) -> None:
    root, journals = tmp_path / "root", tmp_path / "state" / "editguard" / "journal"
    BATCH.setup(root)
    ws = workspace(root, journals)
    assert not journals.exists()  # starting with no folder makes none
    BATCH.commit(ws)
    assert journals.stat().st_mode & 0o777 == 0o700
    assert leftovers(root, journals) == []


def _refused(tmp_path: Path, journals: Path, code: str) -> None:
    root = tmp_path / "root"
    old = BATCH.setup(root)
    inside = _entries(journals)
    ws = workspace(root, journals)
    with pytest.raises(EditError) as caught:
        BATCH.commit(ws)
    assert caught.value.code == code, caught.value.message
    assert caught.value.data["journal"] == str(journals)
    assert Tree.of(root) == old
    assert leftovers(root, Path("/nonexistent")) == []
    assert _entries(journals) == inside


def _entries(journals: Path) -> list[Path] | None:
    """What a journal folder holds, but its key (made once, by the first commit that asks)."""
    if not journals.is_dir():
        return None
    return sorted(p for p in journals.iterdir() if p.name != "journal.key")


def test_a_journal_folder_open_to_others_is_refused(tmp_path: Path) -> None:
    journals = tmp_path / "journal"
    journals.mkdir()
    journals.chmod(0o755)
    _refused(tmp_path, journals, "PERMISSION_DENIED")


def test_a_journal_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    journals = tmp_path / "journal"
    journals.mkdir(mode=0o700)
    try:
        os.chown(journals, 65534, 65534)
    except PermissionError:
        pytest.skip("only root can give a folder to another user")
    _refused(tmp_path, journals, "PERMISSION_DENIED")


def test_a_journal_folder_that_cannot_be_created_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    _refused(tmp_path, tmp_path / "a-file" / "journal", "WRITE_FAILED")


def test_a_journal_folder_that_is_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "journal").symlink_to(tmp_path / "real")
    _refused(tmp_path, tmp_path / "journal", "WRITE_FAILED")


def test_a_workspace_starting_without_a_journal_folder_does_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    old = BATCH.setup(root)
    workspace(root, tmp_path / "journal")
    assert not (tmp_path / "journal").exists()
    assert Tree.of(root) == old


def test_a_journal_that_cannot_be_created_is_refused_and_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.open

    def no_journal(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(".journal") and flags & os.O_CREAT:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(path, flags, *args, **kwargs)

    journals = tmp_path / "journal"
    journals.mkdir(mode=0o700)
    monkeypatch.setattr(os, "open", no_journal)
    _refused(tmp_path, journals, "WRITE_FAILED")


def test_a_recovery_between_a_journals_creation_and_its_lock_cannot_orphan_it(
    twenty: Tree, tmp_path: Path
) -> None:
    root, journals = tmp_path / "count", tmp_path / "count-journal"
    TWENTY.setup(root)
    total = count_calls(_commit_in(root, journals, TWENTY))
    root, journals = tmp_path / "root", tmp_path / "journal"
    old = TWENTY.setup(root)

    def commit_with_a_recovery_racing() -> None:
        real = fcntl.flock
        raced = False

        def flock(fd: int, operation: int) -> None:
            nonlocal raced
            inode = os.fstat(fd).st_ino
            if not raced and inode in {p.stat().st_ino for p in journals.glob("*.journal")}:
                # The commit locks its new journal: right before, another process recovers.
                raced = True
                Journal(str(journals)).recover()
            real(fd, operation)

        fcntl.flock = flock  # type: ignore[assignment]
        TWENTY.commit(workspace(root, journals))

    assert in_child(commit_with_a_recovery_racing, kill_at=total // 2)
    workspace(root, journals)
    assert outcome(root, old, twenty) == "old"
    assert leftovers(root, journals) == []


def test_a_recovery_that_opened_a_journal_its_commit_then_finished_leaves_it_be(
    twenty: Tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, journals = tmp_path / "root", tmp_path / "journal"
    old = TWENTY.setup(root)
    paused, resume = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        real_rename = journal.SYSTEM.rename

        def rename(*args: Any, **kwargs: Any) -> Any:
            os.write(paused[1], b"p")
            os.read(resume[0], 1)
            journal.SYSTEM.rename = real_rename
            return real_rename(*args, **kwargs)

        journal.SYSTEM.rename = rename
        TWENTY.commit(workspace(root, journals))
        os._exit(0)
    assert os.read(paused[0], 1) == b"p"
    real = fcntl.flock
    finished = False

    def flock(fd: int, operation: int) -> None:
        nonlocal finished
        if not finished:  # the recovery opened the journal: its commit ends before the lock
            finished = True
            os.write(resume[1], b"r")
            os.waitpid(pid, 0)
        real(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock)
    assert Journal(str(journals)).recover().recovered == []
    monkeypatch.undo()
    assert finished
    assert outcome(root, old, twenty) == "new"
    assert leftovers(root, journals) == []


def test_every_folder_a_commit_creates_is_durable_before_its_commit_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, journals = tmp_path / "root", tmp_path / "journal"
    root.mkdir()
    ws = workspace(root, journals)
    synced: list[int] = []
    real = steps.System.fsync

    def fsync(fd: int) -> None:
        synced.append(os.fstat(fd).st_ino)
        real(fd)

    monkeypatch.setattr(journal.SYSTEM, "fsync", fsync)
    # Two files: a commit of one file alone is an atomic write, not the journal's.
    ws.batch(
        [
            {"tool": "write_file", "arguments": {"path": "a/b/c/d.txt", "content": "d\n"}},
            {"tool": "write_file", "arguments": {"path": "e.txt", "content": "e\n"}},
        ]
    )
    # The last fsync is the committed record's; every folder that gained an entry comes before.
    for folder in (root, root / "a", root / "a" / "b", root / "a" / "b" / "c"):
        assert folder.stat().st_ino in synced[:-1], folder


# -- Recovery trusts only what this user alone could have written -------------------------


def _planted(
    journals: Path,
    name: str,
    steps: object,
    written: object = None,
    roots: tuple[str, ...] = ("/",),
    more: tuple[dict[str, object], ...] = (),
) -> Path:
    """A journal as editguard writes one (sealed with this user's key), holding these steps."""
    records: list[dict[str, object]] = [{"v": 2, "roots": list(roots), "steps": steps}]
    if written is not None:
        records.append({"written": written})
    return sealed_journal(journals, name, [*records, *more])


def sealed_journal(
    journals: Path, name: str, records: list[dict[str, object]] | list[bytes]
) -> Path:
    """A journal holding ``records`` (objects, or the bytes of a record's JSON), each sealed
    with this user's journal key (made if need be), as a commit writes them."""
    journals.mkdir(mode=0o700, exist_ok=True)
    folder = os.open(journals, os.O_RDONLY | os.O_DIRECTORY)
    try:
        key = seal.read_key(folder, create=True)
    finally:
        os.close(folder)
    assert key is not None
    path = journals / name
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        sealed = seal.Sealed(fd, key, name)
        for record in records:
            if isinstance(record, bytes):
                mac = sealed.mac(record)
                os.write(fd, mac.hex().encode() + b" " + record + b"\n")
                sealed.last = mac
            else:
                sealed.append(record)
    finally:
        os.close(fd)
    return path


def _delete_step(root: Path, name: str) -> dict[str, object]:
    return {
        "kind": "write",
        "folder": str(root),
        "made": [],
        "name": name,
        "existed": False,
        "new": ".editguard-00000001.new",
        "backup": ".editguard-00000001.bak",
    }


def test_recovery_ignores_a_journal_folder_that_others_may_write(tmp_path: Path) -> None:
    root, journals = tmp_path / "root", tmp_path / "shared"
    root.mkdir()
    keep = root / "keep.txt"
    keep.write_text("precious\n")
    st = keep.stat()
    _planted(journals, "0-evil.journal", [_delete_step(root, "keep.txt")], [[st.st_dev, st.st_ino]])
    journals.chmod(0o777)
    Workspace([root], journal=journals)
    assert keep.read_text() == "precious\n"
    assert (journals / "0-evil.journal").exists()


@pytest.mark.parametrize(
    "steps",
    [
        [5],
        5,
        [{"kind": "write"}],
        [{**_delete_step(Path("/tmp"), "x"), "made": 5}],
        [{**_delete_step(Path("/tmp"), "../out/a.txt")}],
        [{**_delete_step(Path("/tmp"), "x"), "folder": "/tmp/\u0000x"}],
        [{**_delete_step(Path("/tmp"), "x"), "new": "../../etc/passwd"}],
    ],
    ids=[
        "step_not_object",
        "steps_not_list",
        "missing_fields",
        "made_not_list",
        "dotdot_name",
        "nul_in_folder",
        "foreign_new_name",
    ],
)
def test_a_damaged_journal_is_kept_and_never_stops_a_start(tmp_path: Path, steps: object) -> None:
    root, journals = tmp_path / "root", tmp_path / "journal"
    root.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out/a.txt").write_text("outside\n")
    journal = _planted(journals, "0-bad.journal", steps, [["x", "y"]])
    ws = Workspace([root], journal=journals)  # must not raise
    ws.write_file("a.txt", "still works\n")
    assert journal.exists()
    assert (tmp_path / "out/a.txt").read_text() == "outside\n"


def test_a_journal_whose_intent_cannot_be_read_never_stops_a_start(tmp_path: Path) -> None:
    # Nested 200,000 deep, it used to raise RecursionError out of Workspace(); sealed, yet not
    # a record editguard writes: kept, reported, never acted on.
    root, journals = tmp_path / "root", tmp_path / "journal"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    sealed_journal(journals, "0-deep.journal", [b"[" * 200_000])
    Workspace([root], journal=journals)
    assert (root / "a.txt").read_text() == "a\n"
    assert (journals / "0-deep.journal").exists()
    assert "0-deep.journal" in Journal(str(journals)).recover().rejected


def test_recovery_waits_for_the_files_lock_and_keeps_the_journal_when_busy(
    tmp_path: Path,
) -> None:
    root, journals = tmp_path / "root", tmp_path / "journal"
    old = TWENTY.setup(root)
    TWENTY.setup(tmp_path / "count")
    total = count_calls(_commit_in(tmp_path / "count", tmp_path / "cj", TWENTY))
    assert in_child(_commit_in(root, journals, TWENTY), kill_at=total // 2)
    locks = FileLocks(str(tmp_path / "locks"), timeout=0.2)
    held, release = threading.Event(), threading.Event()
    target = os.path.realpath(root / "src/mod0.py")

    def hold() -> None:
        with locks.hold(target, "src/mod0.py"):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(10)
    try:
        assert Journal(str(journals)).recover(locks).recovered == []
        assert [p.name for p in journals.iterdir()]  # kept for later
    finally:
        release.set()
        thread.join()
    assert len(Journal(str(journals)).recover(locks).recovered) == 1
    assert outcome(root, old, Tree.of(root)) in ("old", "new")
    assert leftovers(root, journals) == []


def test_a_single_file_edit_recovers_a_dead_commit_before_it_reads(
    tmp_path: Path, twenty: Tree
) -> None:
    root, journals = tmp_path / "root", tmp_path / "journal"
    old = TWENTY.setup(root)
    ws = workspace(root, journals)  # a long-lived server, started before the crash
    TWENTY.setup(tmp_path / "count")
    total = count_calls(_commit_in(tmp_path / "count", tmp_path / "cj", TWENTY))
    assert in_child(_commit_in(root, journals, TWENTY), kill_at=total - 3)
    ws.edit_file("old/stays.txt", [{"old_text": "stays", "new_text": "STAYS"}])
    assert leftovers(root, journals) == []
    now, before, after = Tree.of(root).contents(), old.contents(), twenty.contents()
    for tree in (now, before, after):
        tree.pop("old/stays.txt")
    assert now in (before, after)


def test_a_step_recorded_as_undone_is_never_judged_again(tmp_path: Path) -> None:
    # After a partial rollback the step's file is gone; a new file may get its inode number.
    root, journals = tmp_path / "root", tmp_path / "journal"
    root.mkdir()
    mine = root / "F"
    mine.write_text("the user's own file\n")
    st = mine.stat()
    _planted(
        journals,
        "0-partly.journal",
        [_delete_step(root, "F")],
        [[st.st_dev, st.st_ino]],
        roots=(str(root),),
        more=({"undone": 0},),
    )
    assert Journal(str(journals)).recover().recovered == ["0-partly.journal"]
    assert mine.read_text() == "the user's own file\n"


def test_an_edit_that_waited_for_a_dying_commits_lock_reads_the_recovered_file(
    tmp_path: Path,
) -> None:
    root, journals = tmp_path / "root", tmp_path / "journal"
    old = BATCH.setup(root)
    ws = workspace(root, journals)  # a long-lived server
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child: commit, and die mid-way while holding the locks
        calls = 0

        def dying(real: Callable[..., Any]) -> Callable[..., Any]:
            def call(*args: Any, **kwargs: Any) -> Any:
                nonlocal calls
                calls += 1
                if calls == 20:
                    time.sleep(1.0)
                    os.kill(os.getpid(), signal.SIGKILL)
                return real(*args, **kwargs)

            return call

        for name in CALLS:
            setattr(journal.SYSTEM, name, dying(getattr(steps.System, name)))
        try:
            BATCH.commit(workspace(root, journals))
        finally:
            os._exit(0)
    time.sleep(0.4)  # the child holds every lock of its batch by now
    try:
        ws.edit_file("plain.txt", [{"old_text": "plain line 5:", "new_text": "EDITED 5:"}])
    finally:
        os.waitpid(pid, 0)
    text = (root / "plain.txt").read_text()
    assert "EDITED 5:" in text
    assert text.replace("EDITED 5:", "plain line 5:").encode() == old.files["plain.txt"][0]
    assert leftovers(root, journals) == []


def test_recovery_does_not_wait_out_a_writer_that_holds_a_dead_commits_file(
    tmp_path: Path,
) -> None:
    root, journals = tmp_path / "root", tmp_path / "journal"
    TWENTY.setup(root)
    TWENTY.setup(tmp_path / "count")
    total = count_calls(_commit_in(tmp_path / "count", tmp_path / "cj", TWENTY))
    assert in_child(_commit_in(root, journals, TWENTY), kill_at=total // 2)
    locks = FileLocks(str(tmp_path / "locks"), timeout=600)
    target = os.path.realpath(root / "src/mod0.py")
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with locks.hold(target, "src/mod0.py"):
            held.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    outcome_box: list[object] = []
    recovering = threading.Thread(
        target=lambda: outcome_box.append(Journal(str(journals)).recover(locks))
    )
    recovering.start()
    recovering.join(30)  # a wait of the lock set's 600 s would still be running
    release.set()
    holder.join()
    assert not recovering.is_alive()
    (result,) = outcome_box
    assert isinstance(result, journal.Recovery)
    assert target in result.blocked


# -- what recovery trusts -------------------------------------------------------------------


def _aimed_outside(outside: Path) -> list[dict[str, object]]:
    """Steps that, acted on, would remove the empty folder ``outside/empty`` and the file
    ``outside/victim.txt`` (as a file the commit 'created')."""
    outside.mkdir()
    (outside / "victim.txt").write_text("precious\n")
    (outside / "empty").mkdir()
    step = _delete_step(outside, "victim.txt")
    return [{**step, "made": ["empty"]}, step]


def _victim_inodes(outside: Path) -> list[list[int]]:
    st = (outside / "victim.txt").stat()
    return [[0, 0], [st.st_dev, st.st_ino]]


def test_a_sealed_journal_naming_a_folder_outside_its_roots_is_never_acted_on(
    tmp_path: Path,
) -> None:
    root, journals, outside = tmp_path / "root", tmp_path / "journal", tmp_path / "outside"
    root.mkdir()
    steps = _aimed_outside(outside)
    planted = _planted(
        journals, "0-out.journal", steps, _victim_inodes(outside), roots=(str(root),)
    )
    Workspace([root], journal=journals)
    assert (outside / "victim.txt").read_text() == "precious\n"
    assert (outside / "empty").is_dir()
    assert planted.exists()
    assert "outside" in Journal(str(journals)).recover().rejected["0-out.journal"]


def test_the_same_journal_inside_its_roots_is_acted_on(tmp_path: Path) -> None:
    # The control of the test above: what keeps the outside safe is the roots, nothing else.
    journals, outside = tmp_path / "journal", tmp_path / "outside"
    steps = _aimed_outside(outside)
    _planted(journals, "0-in.journal", steps, _victim_inodes(outside), roots=(str(outside),))
    assert Journal(str(journals)).recover().recovered == ["0-in.journal"]
    assert not (outside / "victim.txt").exists()
    assert not (outside / "empty").exists()


def test_a_journal_not_sealed_with_the_key_is_kept_reported_and_never_acted_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root, journals, outside = tmp_path / "root", tmp_path / "journal", tmp_path / "outside"
    root.mkdir()
    steps = _aimed_outside(outside)
    sealed_journal(journals, "0-real.journal", [])  # makes the key
    (journals / "0-real.journal").unlink()
    records = [
        {"v": 2, "roots": [str(outside)], "steps": steps},
        {"written": _victim_inodes(outside)},
    ]
    planted = journals / "0-forged.journal"
    planted.write_text("".join("0" * 64 + " " + json.dumps(r) + "\n" for r in records))
    planted.chmod(0o600)
    with caplog.at_level("WARNING", logger="editguard"):
        Workspace([root], journal=journals)
    assert (outside / "victim.txt").read_text() == "precious\n"
    assert (outside / "empty").is_dir()
    assert planted.exists()
    assert "0-forged.journal" in caplog.text
    assert "sealed" in Journal(str(journals)).recover().rejected["0-forged.journal"]


def test_a_record_appended_to_a_sealed_journal_by_another_hand_rejects_it(
    tmp_path: Path,
) -> None:
    journals, outside = tmp_path / "journal", tmp_path / "outside"
    steps = _aimed_outside(outside)
    # A journal of editguard's whose steps are all undone: nothing left to act on.
    planted = _planted(
        journals,
        "0-done.journal",
        steps,
        _victim_inodes(outside),
        roots=(str(outside),),
        more=({"undone": 0}, {"undone": 1}),
    )
    sealed = planted.read_bytes()
    # A whole record copied to another place (here its own first line, appended) is not
    # sealed there: records are chained, so the journal is void, never replayed.
    with planted.open("ab") as journal_file:
        journal_file.write(sealed.splitlines()[0] + b"\n")
    result = Journal(str(journals)).recover()
    assert "0-done.journal" in result.rejected
    assert (outside / "victim.txt").read_text() == "precious\n"
    assert (outside / "empty").is_dir()


def test_the_journal_key_is_made_once_owner_only_and_a_shared_one_is_refused(
    tmp_path: Path,
) -> None:
    root, journals = tmp_path / "root", tmp_path / "journal"
    BATCH.setup(root)
    ws = workspace(root, journals)
    BATCH.commit(ws)
    key = journals / "journal.key"
    first = key.read_bytes()
    assert len(first) == 32
    assert key.stat().st_mode & 0o777 == 0o600
    ws.write_file("plain.txt", "one\n")
    ws.apply_patch(
        "*** Begin Patch\n*** Add File: n1.txt\n+1\n*** Add File: n2.txt\n+2\n*** End Patch\n"
    )
    assert key.read_bytes() == first
    key.chmod(0o644)
    with pytest.raises(EditError) as caught:
        ws.apply_patch(
            "*** Begin Patch\n*** Add File: n3.txt\n+3\n*** Add File: n4.txt\n+4\n*** End Patch\n"
        )
    assert caught.value.code == "PERMISSION_DENIED"
    assert not (root / "n3.txt").exists()


def test_a_key_half_made_by_a_killed_process_is_swept_and_a_live_one_kept(
    tmp_path: Path,
) -> None:
    journals = tmp_path / "journal"
    journals.mkdir(mode=0o700)
    dead, live = journals / ".journal.key-000000000001", journals / ".journal.key-000000000002"
    dead.write_bytes(b"half")
    live.write_bytes(b"being made")
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # its maker is alive
    try:
        Journal(str(journals)).recover()
    finally:
        os.close(fd)
    assert not dead.exists()
    assert live.exists()
