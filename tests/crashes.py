"""Transactions to break, and the means to break them: a tree of files as it was and as a commit
leaves it, faults in the journal's system calls, and commits killed with SIGKILL in a real child
process, at a chosen system call or at a random instant.

Shared by tests/test_journal.py and benchmarks/bench_journal.py.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import random
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from editguard import Workspace
from editguard.fs import journal
from editguard.fs.journal import steps
from editguard.tools import tool_named
from editguard.transaction import Transaction

# The system calls the journal makes through journal.SYSTEM.
CALLS = ("fsync", "link", "rename", "unlink", "write", "mkdir")

Files = dict[str, tuple[bytes, int]]  # path -> bytes, mode


@dataclasses.dataclass(frozen=True)
class Tree:
    """Every file under a root (bytes, mode, mtime) and every folder."""

    files: dict[str, tuple[bytes, int, int]]
    folders: frozenset[str]

    @classmethod
    def of(cls, root: Path) -> Tree:
        files: dict[str, tuple[bytes, int, int]] = {}
        folders: set[str] = set()
        for path in root.rglob("*"):
            rel = path.relative_to(root).as_posix()
            st = path.lstat()
            if path.is_dir():
                folders.add(rel)
            else:
                files[rel] = (path.read_bytes(), st.st_mode, st.st_mtime_ns)
        return cls(files, frozenset(folders))

    def contents(self) -> dict[str, tuple[bytes, int]]:
        """Bytes and mode of each file (what a commit decides; mtimes it cannot)."""
        return {k: (data, mode) for k, (data, mode, _) in self.files.items()}


def leftovers(root: Path, journals: Path) -> list[str]:
    """What a commit must not leave behind: its new texts and backups, and its journal."""
    left = [str(p) for p in root.rglob(".editguard-*")]
    if journals.exists():
        left += [str(p) for p in journals.iterdir() if p.name != "journal.key"]
    return left


def outcome(root: Path, old: Tree, new: Tree) -> str:
    """``old``, ``new`` or ``mixed``: all files as before (same bytes, mode and mtime, no new
    folder), all as the commit makes them (bytes, mode, folders), or anything else."""
    now = Tree.of(root)
    if now == old:
        return "old"
    if now.contents() == new.contents() and now.folders == new.folders:
        return "new"
    return "mixed"


@dataclasses.dataclass(frozen=True)
class Scenario:
    """Files as they are, and a commit of many of them."""

    name: str
    before: Files
    commit: Callable[[Workspace], Any]
    # The paths the commit changes (an error must name one of them).
    paths: frozenset[str]

    def setup(self, root: Path) -> Tree:
        """Write the files (with an mtime in the past, so that any rewrite shows)."""
        root.mkdir(parents=True, exist_ok=True)
        for rel, (data, mode) in self.before.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            path.chmod(mode)
            os.utime(path, ns=(1_000_000_000, 1_000_000_000))
        return Tree.of(root)

    def reference(self, root: Path, journals: Path) -> Tree:
        """The tree that a commit that succeeds leaves (run in ``root``, a scratch folder)."""
        self.setup(root)
        self.commit(workspace(root, journals))
        return Tree.of(root)


def workspace(root: Path, journals: Path) -> Workspace:
    """A Workspace on ``root`` with its journal in ``journals`` (it recovers at start)."""
    return Workspace([root], journal=journals, prewarm=False)


def _text(name: str, lines: int, newline: str = "\n") -> bytes:
    return "".join(f"{name} line {n}: {'x' * (n % 50)}{newline}" for n in range(lines)).encode()


def _edit(path: str, old: str, new: str) -> dict[str, Any]:
    return {
        "tool": "edit_file",
        "arguments": {"path": path, "edits": [{"old_text": old, "new_text": new}]},
    }


def _write(path: str, content: str) -> dict[str, Any]:
    return {"tool": "write_file", "arguments": {"path": path, "content": content}}


def _batch_six(ws: Workspace) -> Any:
    return ws.batch(
        [
            _edit("plain.txt", "plain line 3:", "PLAIN LINE 3:"),
            _edit("crlf.txt", "crlf line 2:", "CRLF LINE 2:"),
            _edit("run.sh", "echo old", "echo new"),
            _write("notes.md", "# notes, rewritten\n"),
            _write("new/deep/a.py", "A = 1\n"),
            _write("new/deep/b.py", "B = 2\n"),
        ]
    )


BATCH = Scenario(
    "batch",
    {
        "plain.txt": (_text("plain", 10), 0o644),
        "crlf.txt": (_text("crlf", 10, "\r\n"), 0o644),
        "run.sh": (b"#!/bin/sh\necho old\n", 0o755),
        "notes.md": (b"# notes\n", 0o600),
        "other.txt": (b"not in the commit\n", 0o644),
    },
    _batch_six,
    frozenset({"plain.txt", "crlf.txt", "run.sh", "notes.md", "new/deep/a.py", "new/deep/b.py"}),
)


def run_transaction(ws: Workspace, deletes: list[str], calls: list[dict[str, Any]]) -> bool:
    """Delete ``deletes`` and run ``calls`` (writing tools) in one Transaction; commit it."""
    ctx = ws.context
    paths = deletes + [c["arguments"]["path"] for c in calls]
    with Transaction(ctx) as txn:
        txn.lock(paths)
        for path in deletes:
            txn.delete(ctx.sandbox.resolve(path))
        for call in calls:
            tool = tool_named(call["tool"])
            tool.run(txn, tool.parse(call["arguments"]))
        return txn.commit().written


DELETE = Scenario(
    "delete",
    {
        "gone.txt": (b"to delete\n", 0o644),
        "gone.sh": (b"#!/bin/sh\nexit 0\n", 0o755),
        "sub/gone.txt": (b"to delete, in a folder that stays\n", 0o600),
        "crlf.txt": (_text("crlf", 10, "\r\n"), 0o644),
        "sub/keep.txt": (b"kept\n", 0o644),
    },
    lambda ws: run_transaction(
        ws,
        ["gone.txt", "gone.sh", "sub/gone.txt"],
        [_edit("crlf.txt", "crlf line 5:", "CRLF LINE 5:"), _write("made/c.txt", "made\n")],
    ),
    frozenset({"gone.txt", "gone.sh", "sub/gone.txt", "crlf.txt", "made/c.txt"}),
)


def _twenty_before() -> Files:
    files: Files = {}
    for n in range(8):
        newline = "\r\n" if n % 3 == 0 else "\n"
        files[f"src/mod{n}.py"] = (_text(f"mod{n}", 200, newline), 0o755 if n % 4 == 1 else 0o644)
    for n in range(6):
        files[f"old/gone{n}.txt"] = (_text(f"gone{n}", 50), 0o640 if n % 2 else 0o644)
    files["old/stays.txt"] = (b"the folder stays\n", 0o644)
    return files


TWENTY = Scenario(
    "twenty",
    _twenty_before(),
    lambda ws: run_transaction(
        ws,
        [f"old/gone{n}.txt" for n in range(6)],
        [_edit(f"src/mod{n}.py", f"mod{n} line 100:", f"MOD{n} LINE 100:") for n in range(8)]
        + [_write(f"src/new{n}.py", f"NEW = {n}\n" * 100) for n in range(3)]
        + [_write(f"fresh/pkg{n}/m.py", f"M = {n}\n" * 100) for n in range(3)],
    ),
    frozenset(),
)


class Faults:
    """Wraps every journal system call: counts the calls, and makes one of them raise."""

    def __init__(self) -> None:
        self.calls = dict.fromkeys(CALLS, 0)
        self.failing: str | None = None
        self.at = 0
        self.errno = errno.EIO
        self.persist = False
        self.failed = 0

    def install(self, setattr_: Callable[[object, str, object], None]) -> Faults:
        """Put the wrappers in place with ``setattr_`` (a monkeypatch's ``setattr``)."""
        for name in CALLS:
            setattr_(journal.SYSTEM, name, self._wrap(name, getattr(steps.System, name)))
        return self

    def fail(self, name: str, at: int, code: int, *, persist: bool = False) -> None:
        """Raise OSError(code) at the ``at``-th call of ``name`` (and every later one if
        ``persist``), counting from now."""
        self.calls = dict.fromkeys(CALLS, 0)
        self.failing, self.at, self.errno, self.persist = name, at, code, persist

    def off(self) -> None:
        """Stop failing."""
        self.failing = None

    def _wrap(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            count = self.calls[name]
            if name == self.failing and (count == self.at or (self.persist and count > self.at)):
                self.failed += 1
                raise OSError(self.errno, os.strerror(self.errno))
            return real(*args, **kwargs)

        return call


def kill_self_at(call: int) -> None:
    """In a child: SIGKILL this process right before its ``call``-th journal system call."""
    count = 0

    def wrap(real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            nonlocal count
            count += 1
            if count == call:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)

        return wrapped

    for name in CALLS:
        setattr(journal.SYSTEM, name, wrap(getattr(steps.System, name)))


def in_child(action: Callable[[], Any], *, kill_at: int = 0) -> bool:
    """Run ``action`` in a forked child process; with ``kill_at``, the child kills itself
    (SIGKILL) right before its ``kill_at``-th journal system call. ``True`` if it was killed,
    ``False`` if it finished.

    Raises:
        AssertionError: the child failed otherwise (an exception, another signal).
    """
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            if kill_at:
                kill_self_at(kill_at)
            action()
        except BaseException:  # noqa: BLE001 - reported to the parent by the exit code
            code = 3
        os._exit(code)
    return _reaped(pid)


def _reaped(pid: int) -> bool:
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL, status
        return True
    assert os.WEXITSTATUS(status) == 0, f"the child failed (exit {os.WEXITSTATUS(status)})"
    return False


def count_calls(action: Callable[[], Any]) -> int:
    """How many journal system calls ``action`` makes, counted in a child process."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        faults = Faults().install(setattr)
        try:
            action()
            os.write(write, str(sum(faults.calls.values())).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _reaped(pid)
    return int(data)


def commit_time(action: Callable[[], Any]) -> float:
    """How long ``action`` takes, measured in a child process (seconds)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        try:
            start = time.perf_counter()
            action()
            os.write(write, repr(time.perf_counter() - start).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _reaped(pid)
    return float(data)


def kill_at_random(action: Callable[[], Any], window: float, rng: random.Random) -> bool:
    """Start ``action`` in a child process and SIGKILL it at a random instant within ``window``
    seconds of its start; ``True`` if it was killed before it finished."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        code = 0
        try:
            os.write(write, b"go")
            action()
        except BaseException:  # noqa: BLE001 - reported to the parent by the exit code
            code = 3
        os._exit(code)
    os.close(write)
    os.read(read, 2)
    os.close(read)
    deadline = time.perf_counter() + rng.uniform(0, window)
    while time.perf_counter() < deadline:  # a busy wait: sleep() is too coarse for this
        pass
    os.kill(pid, signal.SIGKILL)  # a child that already ended is a zombie until reaped: no error
    return _reaped(pid)
