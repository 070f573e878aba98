"""Walking a folder inside the sandbox: what list_directory, directory_tree, find_files (and grep
without ripgrep) see.

The rules, as ripgrep and git apply them: ``.git`` is never entered or listed; names that start
with ``.`` are skipped unless asked for; ``.gitignore`` files (every folder's, and those of the
start's parents up to the root or the repository's top) and ``.git/info/exclude`` hide what they
match unless ``include_ignored``; ``exclude`` globs (gitignore syntax, relative to the start)
always hide. The rules apply whether or not the folder is a git repository: an agent's folder
often has a ``.gitignore`` before ``git init``, and what it hides (``node_modules``, builds) is
what a model should not wade through.

Confinement: a symbolic link is listed as ``symlink`` and never entered, whatever it points to, so
the walk stays inside the start's folder. The start is opened one component at a time from the
root without following a link (as :func:`editguard.fs.location.locate` does), and each folder
below is entered only if the folder opened is the one its parent listed (same device and inode):
a folder swapped for a link meanwhile is skipped, not followed. editguard's own state folders
(the sandbox's ``private`` ones, known by device and inode) are neither listed nor entered. A
folder that vanishes or cannot be read during the walk is skipped, not an error: the tree may
change while it is walked.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from editguard.core.ignore import IgnoreFile, compile_rules, is_ignored
from editguard.errors import NotADirectory
from editguard.fs.location import _open_root, changed, is_link
from editguard.fs.oserror import not_found, os_error
from editguard.fs.sandbox import Resolved, Sandbox

Kind = Literal["file", "dir", "symlink", "other"]

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)
IGNORE_FILE_LIMIT = 1 << 20  # bytes read of one .gitignore; a larger one is not a real one
BINARY_PROBE = 8192  # bytes looked at to tell a binary file, as git and ripgrep do
VISIT_LIMIT = 200_000  # entries a listing tool looks at, at most (ignored ones included)


@dataclass(frozen=True, slots=True)
class Entry:
    """One thing the walk met.

    Attributes:
        path: absolute path (real: no link on the way; for a symlink, the link itself).
        display: the path relative to its root, ``/``-separated, as messages show it.
        kind: 'file', 'dir', 'symlink' (never followed) or 'other' (FIFO, socket, device).
        size: bytes, for a file; None otherwise.
        mtime_ns: last modification, in nanoseconds since the epoch (of the link, for a link).
        depth: 1 for what is directly in the start folder, 2 one folder down, ...
    """

    path: str
    display: str
    kind: Kind
    size: int | None
    mtime_ns: int | None
    depth: int


class VisitLimit(Exception):  # a signal to the caller, not an EditError
    """The walk looked at ``max_visits`` entries (ignored ones included), and more were there;
    or (``out_of_time``) its deadline passed before it was done.

    Raised once everything already listed has been yielded: the caller keeps a partial result.
    """

    def __init__(self, visited: int, *, out_of_time: bool = False) -> None:
        why = "its time ran out" if out_of_time else "its limit of entries"
        super().__init__(f"stopped after visiting {visited:,} entries ({why})")
        self.visited = visited
        self.out_of_time = out_of_time


@dataclass(slots=True)
class _Budget:
    limit: int | None
    visited: int = 0
    exhausted: bool = False  # an entry was left unvisited for want of budget

    def spend(self) -> bool:
        """Count one more entry; False (and exhausted) when the limit forbids it."""
        if self.limit is not None and self.visited >= self.limit:
            self.exhausted = True
            return False
        self.visited += 1
        return True


@dataclass(slots=True)
class _Folder:
    """A folder being walked: its sorted entries not yet yielded, and its rules."""

    entries: Iterator[tuple[str, Kind, os.stat_result]]
    path: str
    display: str  # relative to the root, '' for the root itself
    depth: int  # of its entries
    rules: list[IgnoreFile] = field(default_factory=list)


def walk(
    sandbox: Sandbox,
    start: Resolved,
    *,
    include_ignored: bool = False,
    include_hidden: bool = False,
    exclude: Sequence[str] = (),
    max_depth: int | None = None,
    max_visits: int | None = None,
    deadline: float | None = None,
    skipped: list[Entry] | None = None,
) -> Iterator[Entry]:
    """Everything below ``start``, depth first, each folder's entries sorted by name, a folder
    yielded just before its contents (and entered at the next step). ``max_depth`` 1 lists the
    start folder alone.

    Raises (the errors about ``start`` at the first step, as for any generator):
        NotADirectory: ``start`` is a file (or another non-folder), or lies under one.
        FileNotFound: ``start`` does not exist.
        OutsideRoot, StaleVersion: a folder on the way to ``start`` became a symbolic link.
        PermissionDenied, WriteFailed: the start folder cannot be opened or read.
        VisitLimit: after the last entry, when ``max_visits`` entries (ignored ones included)
            were looked at and more were there: no folder is entered after that, what was
            already listed is still yielded; or, at once, when ``deadline`` (a
            ``time.monotonic()`` value, checked at every entry, so that the caller's work on
            each entry counts too) has passed.

    ``skipped`` (when given) receives each entry left out as hidden or ignored (not those of
    ``exclude``, which the caller chose, nor ``.git``); a folder left out is not entered.
    """
    excluded = compile_rules("", exclude) if exclude else None
    budget = _Budget(max_visits)
    fd, rules = _open_start(sandbox, start, read_rules=not include_ignored)
    try:
        try:
            entries = _list(fd, budget)
        except OSError as exc:
            raise os_error(exc, start.display, "list") from None
    finally:
        os.close(fd)
    top = "" if start.real == start.root else start.display
    private = sandbox.private.identities()
    stack = [_Folder(iter(entries), start.real, top, 1, rules)]
    while stack:
        if deadline is not None and time.monotonic() >= deadline:
            raise VisitLimit(budget.visited, out_of_time=True)
        folder = stack[-1]
        item = next(folder.entries, None)
        if item is None:
            stack.pop()
            continue
        name, kind, status = item
        if name == ".git":
            continue
        is_dir = kind == "dir"
        # editguard's own state folders are never shown, nor counted as left out.
        if is_dir and (status.st_dev, status.st_ino) in private:
            continue
        display = f"{folder.display}/{name}" if folder.display else name
        if excluded is not None and is_ignored(
            [excluded], display[len(top) + 1 :] if top else display, is_dir
        ):
            continue
        path = f"{folder.path}/{name}" if folder.path != "/" else f"/{name}"
        size = status.st_size if kind == "file" else None
        entry = Entry(path, display, kind, size, status.st_mtime_ns, folder.depth)
        if (not include_hidden and name.startswith(".")) or (
            not include_ignored and is_ignored(folder.rules, display, is_dir)
        ):
            if skipped is not None:
                skipped.append(entry)
            continue
        yield entry
        if is_dir and (max_depth is None or folder.depth < max_depth):
            inner = _enter(path, status, display, folder.rules, budget, not include_ignored)
            if inner is not None:
                entries, rules = inner
                stack.append(_Folder(iter(entries), path, display, folder.depth + 1, rules))
    if budget.exhausted:
        raise VisitLimit(budget.visited)


def _open_start(
    sandbox: Sandbox, start: Resolved, *, read_rules: bool
) -> tuple[int, list[IgnoreFile]]:
    """Open ``start`` from its root one folder at a time, following no link, and gather the
    ignore rules of the folders on the way (when ``read_rules``)."""
    display = start.display
    rel = os.path.relpath(start.real, start.root)
    parts = [] if rel == os.curdir else rel.split(os.sep)
    fd = _open_root(sandbox, start)
    try:
        rules = _rules_here(fd, "", []) if read_rules else []
        for index, part in enumerate(parts):
            try:
                inner = os.open(part, _DIR, dir_fd=fd)
            except OSError as exc:
                if exc.errno == errno.ENOENT:
                    raise not_found(display) from None
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise os_error(exc, display, "open the folder") from None
                if is_link(fd, part):
                    raise changed(sandbox, start) from None
                folder = "/".join(parts[: index + 1])
                raise NotADirectory(
                    f"{folder} is a file, not a folder"
                    + (f", so {display} cannot be in it" if folder != display else ""),
                    path=display,
                    data={"not_a_folder": folder},
                    suggestions=["Use read_file for a file, or name the folder that holds it."],
                ) from None
            os.close(fd)
            fd = inner
            if read_rules:
                here = "/".join(parts[: index + 1])
                if is_ignored(rules, here, True):
                    rules = []  # a folder named on purpose is listed, as git lists a tracked one
                rules = _rules_here(fd, here, rules)
    except BaseException:
        os.close(fd)
        raise
    return fd, rules


def _enter(
    path: str,
    seen: os.stat_result,
    display: str,
    rules: list[IgnoreFile],
    budget: _Budget,
    read_rules: bool,
) -> tuple[list[tuple[str, Kind, os.stat_result]], list[IgnoreFile]] | None:
    """The sorted entries of the folder at ``path`` and its rules; None when it vanished, cannot
    be read, or is no longer the folder its parent listed (swapped for a link, say), or the
    budget is spent."""
    if budget.exhausted:
        return None
    try:
        fd = os.open(path, _DIR)
    except OSError:
        return None
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino):
            return None
        if read_rules:
            rules = _rules_here(fd, display, rules)
        return _list(fd, budget), rules
    except OSError:
        return None
    finally:
        os.close(fd)


def _list(fd: int, budget: _Budget) -> list[tuple[str, Kind, os.stat_result]]:
    """(name, kind, lstat) of each entry of the open folder ``fd``, sorted by name, as many as
    the budget allows; an entry that vanishes between the listing and its stat is left out."""
    found = []
    with os.scandir(fd) as scan:
        for item in scan:
            if not budget.spend():
                break
            try:
                status = item.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((item.name, _kind(status.st_mode), status))
    found.sort(key=lambda entry: entry[0])
    return found


def _kind(mode: int) -> Kind:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def _rules_here(fd: int, display: str, inherited: list[IgnoreFile]) -> list[IgnoreFile]:
    """The rules in force inside the open folder ``fd`` (``display`` relative to the root): a
    folder holding ``.git`` starts a repository, whose rules do not inherit those above it;
    ``.git/info/exclude`` weighs less than any ``.gitignore``."""
    rules = list(inherited)
    try:
        os.lstat(".git", dir_fd=fd)  # a folder, or a file naming one (a worktree, a submodule)
    except OSError:
        pass
    else:
        rules = []
        exclude = _read_at(fd, (".git", "info", "exclude"))
        compiled = compile_rules(display, exclude.splitlines()) if exclude else None
        if compiled is not None:
            rules.append(compiled)
    own = _read_at(fd, (".gitignore",))
    compiled = compile_rules(display, own.splitlines()) if own else None
    if compiled is not None:
        rules.append(compiled)
    return rules


def _read_at(fd: int, parts: tuple[str, ...]) -> str | None:
    """The text of the regular file ``parts`` below the open folder ``fd`` (its first
    IGNORE_FILE_LIMIT bytes), following no link; None when there is no such file."""
    opened: list[int] = []
    try:
        current = fd
        for part in parts[:-1]:
            current = os.open(part, _DIR, dir_fd=current)
            opened.append(current)
        handle = os.open(parts[-1], _FILE, dir_fd=current)
        opened.append(handle)
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        return os.read(handle, IGNORE_FILE_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        for handle in opened:
            os.close(handle)
