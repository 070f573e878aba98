"""A step of a commit on disk: what it is, how the journal records it, and each action on it.

:class:`Step` is one file of a transaction as its caller gives it; :class:`Planned` is the step
as the journal records it (the file's folder, the folders to make, the names of its new text
and its backup beside the file), read back checked (:meth:`Planned.of`), since recovery acts on
what a journal names. The actions (write a new text, make a backup, roll a step back, clean up
after the commit point, open a folder from ``/`` without following a link) are the ones the
commit and recovery share, each judging by what is on disk, so that it can run again after a
crash. Every system call that changes something goes through :data:`SYSTEM`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import re
import secrets
import shutil
import stat
from collections.abc import Iterable
from typing import Any, Literal

from editguard.fs import atomic
from editguard.fs.location import Location

_NEW, _BAK = ".new", ".bak"
OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class System:
    """The system calls the protocol makes, in one place, so that a test can make one of them
    fail (a full disk, an I/O error) at any step: the only reason this indirection exists."""

    fsync = staticmethod(os.fsync)
    link = staticmethod(os.link)
    rename = staticmethod(os.rename)
    unlink = staticmethod(os.unlink)
    write = staticmethod(os.write)
    mkdir = staticmethod(os.mkdir)


SYSTEM = System()


@dataclasses.dataclass(slots=True)
class Step:
    """One file of a transaction.

    Attributes:
        kind: ``write`` (create or replace with ``content``) or ``delete``.
        location: the file, located by the sandbox; its folder stays open until the commit ends.
        base_version: the version that was read (``None``: the file must not exist).
        content: the new bytes (``write`` only).
        mode: permission bits of the new file; ``None`` keeps the old file's (a new file gets
            the default of the process's umask).
    """

    kind: Literal["write", "delete"]
    location: Location
    base_version: str | None
    content: bytes = b""
    mode: int | None = None

    @property
    def display(self) -> str:
        """The file's path as messages show it."""
        return self.location.where.display


@dataclasses.dataclass(slots=True)
class Planned:
    """A step as the journal records it, with what the commit learns on the way."""

    kind: str
    folder: str  # real path of the deepest existing folder
    made: list[str]  # folders to create below it, outermost first
    name: str
    existed: bool
    new: str
    backup: str
    inode: tuple[int, int] | None = None

    def record(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "folder": self.folder,
            "made": self.made,
            "name": self.name,
            "existed": self.existed,
            "new": self.new,
            "backup": self.backup,
        }

    @classmethod
    def of(cls, data: object) -> Planned:
        """A step as a journal records it, checked: a journal is read back from disk, and
        what it names is acted on.

        Raises:
            ValueError: a field is missing, of the wrong type, or names anything but one entry
                of its folder (``..``, a ``/``, a NUL).
        """
        if not isinstance(data, dict):
            raise TypeError("a step is not an object")
        kind, folder, made = data.get("kind"), data.get("folder"), data.get("made")
        if kind not in ("write", "delete") or not isinstance(data.get("existed"), bool):
            raise ValueError("a step's kind or existed is wrong")
        if not isinstance(folder, str) or "\x00" in folder or not os.path.isabs(folder):
            raise ValueError("a step's folder is not an absolute path")
        if os.path.normpath(folder) != folder and folder != "//":
            raise ValueError("a step's folder is not a normal path")
        if not isinstance(made, list):
            raise TypeError("a step's made is not a list")
        names = [_entry(x) for x in made]
        new, backup = _entry(data.get("new")), _entry(data.get("backup"))
        if not (_OURS.fullmatch(new) and _OURS.fullmatch(backup)):
            raise ValueError("a step's new text or backup is not named as editguard names them")
        return cls(kind, folder, names, _entry(data.get("name")), data["existed"], new, backup)


_OURS = re.compile(r"\.editguard-[0-9a-f]{8}\.(new|bak)")


def _entry(value: object) -> str:
    """``value`` if it names one entry of a folder, else ValueError."""
    if not isinstance(value, str) or value in ("", ".", "..") or "/" in value or "\x00" in value:
        raise ValueError(f"{value!r} is not one name in a folder")
    return value


def plan_of(step: Step) -> Planned:
    """The step as the journal will record it, its new text and backup named afresh."""
    where = step.location.where
    folder = os.path.dirname(where.real)
    for _ in step.location.missing:
        folder = os.path.dirname(folder)
    token = secrets.token_hex(4)
    return Planned(
        step.kind,
        folder,
        list(step.location.missing),
        step.location.name,
        step.base_version is not None,
        f"{atomic.TEMP_PREFIX}{token}{_NEW}",
        f"{atomic.TEMP_PREFIX}{token}{_BAK}",
    )


def write_new(folder: int, name: str, step: Step) -> tuple[int, int]:
    """Write the step's new text as ``name`` beside its file, fsynced, with the file's owner
    and mode (or the step's); its inode."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(name, flags, 0o600, dir_fd=folder)
    try:
        view = memoryview(step.content)
        while view:
            view = view[SYSTEM.write(fd, view[: 1 << 20]) :]
        SYSTEM.fsync(fd)
        old = None
        with contextlib.suppress(FileNotFoundError):
            old = os.lstat(step.location.name, dir_fd=folder)
        if old is not None and stat.S_ISREG(old.st_mode):
            with contextlib.suppress(PermissionError):
                os.fchown(fd, old.st_uid, old.st_gid)
        if step.mode is not None:
            mode = step.mode
        elif old is not None and stat.S_ISREG(old.st_mode):
            mode = stat.S_IMODE(old.st_mode)
        else:
            mode = 0o666 & ~atomic.UMASK
        os.fchmod(fd, mode)
        st = os.fstat(fd)
        return st.st_dev, st.st_ino
    finally:
        os.close(fd)


def make_backup(folder: int, name: str, backup: str) -> None:
    """A second name for the file, or a fsynced copy where hard links are refused."""
    try:
        SYSTEM.link(name, backup, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
            raise
    else:
        return
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    src = os.open(name, flags, dir_fd=folder)
    try:
        dst = os.open(
            backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600, dir_fd=folder
        )
        try:
            with os.fdopen(os.dup(src), "rb") as fin, os.fdopen(os.dup(dst), "wb") as fout:
                shutil.copyfileobj(fin, fout)
            st = os.fstat(src)
            os.fchmod(dst, stat.S_IMODE(st.st_mode))
            os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
            SYSTEM.fsync(dst)
        finally:
            os.close(dst)
    finally:
        os.close(src)


def inode(folder: int, name: str) -> tuple[int, int] | None:
    """The (device, inode) of ``name`` in ``folder``, not following a link; None if absent."""
    try:
        st = os.lstat(name, dir_fd=folder)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def roll_back(folder: int, plan: Planned, name: str) -> None:
    """Undo one step, judging by what is on disk (safe to run again after a crash)."""
    now = inode(folder, name)
    has_backup = inode(folder, plan.backup) is not None
    if plan.kind == "write" and not plan.existed:
        if plan.inode is not None and now == plan.inode:
            SYSTEM.unlink(name, dir_fd=folder)
    elif has_backup:
        if plan.kind == "write":
            restore = plan.inode is not None and now == plan.inode
        else:
            restore = now is None
        if restore:
            SYSTEM.rename(plan.backup, name, src_dir_fd=folder, dst_dir_fd=folder)
        else:
            SYSTEM.unlink(plan.backup, dir_fd=folder)
    if inode(folder, plan.new) is not None:
        SYSTEM.unlink(plan.new, dir_fd=folder)


def remove_leftovers(folder: int, plan: Planned) -> None:
    """After the commit point: remove what is left of the backup and the new text."""
    for leftover in (plan.backup, plan.new):
        with contextlib.suppress(FileNotFoundError):
            SYSTEM.unlink(leftover, dir_fd=folder)


def open_path(path: str) -> int:
    """Open the folder ``path`` from ``/``, one component at a time, following no link."""
    fd = os.open("/", OPEN_DIR)
    try:
        for part in path.strip("/").split("/") if path != "/" else []:
            inner = os.open(part, OPEN_DIR, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def descend(base: int, made: Iterable[str]) -> tuple[int, list[int]]:
    """The folder a step's file is in (``base``, or the deepest of ``made`` that exists), and
    the descriptors opened to get there."""
    fd, chain = base, list[int]()
    for name in made:
        try:
            inner = os.open(name, OPEN_DIR, dir_fd=fd)
        except FileNotFoundError:
            return fd, chain  # never made: no file of this step below it
        chain.append(inner)
        fd = inner
    return fd, chain


def remove_made(base: int, made: list[str]) -> None:
    """Remove the folders a step made below ``base`` while they are empty, innermost first,
    each through its parent's descriptor (a folder swapped for a link is not followed)."""
    if not made:
        return
    parents = [base]  # parents[i] holds made[i]
    try:
        for name in made[:-1]:
            try:
                parents.append(os.open(name, OPEN_DIR, dir_fd=parents[-1]))
            except OSError:
                break
        for index in reversed(range(len(parents))):
            with contextlib.suppress(OSError):
                os.rmdir(made[index], dir_fd=parents[index])
    finally:
        for fd in parents[1:]:
            os.close(fd)
