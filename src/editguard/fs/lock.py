"""Per-file locks: writers of one file take turns, across threads and across processes.

Two clients editing one file at once (two HTTP sessions, or two ``editguard serve`` on the same
folder) must not lose each other's updates. Each write holds the file's lock from the read to the
rename: a thread lock inside this process, and a lock file (``filelock``) between processes. Lock
files live in one per-user folder, never beside the user's files. That folder is created
owner-only and checked before each use (a real folder, not a symbolic link, this user's own,
closed to others), so that nobody else can plant a link in it; lock files are opened without
following links.

Where the folder is (:func:`default_lock_folder`): ``/tmp/editguard-locks-<uid>`` on POSIX, a
name made of a fixed system folder and the process's real user id, and of nothing in its
environment. Every editguard process of one user on one machine must find the same lock for a
file, and processes do not share an environment: an MCP host spawns its servers without the
user's ``TMPDIR`` (macOS shells set a per-user one), with another ``HOME`` or ``XDG_*`` or none,
in another working folder. A folder taken from ``tempfile.gettempdir()`` made two such
processes lock in two folders and stop taking turns: their edits were refused as changed by
another process, or lost. The user's home from the password database would not depend on the
environment either, but it may be missing, read-only or on a network file system where file
locks do not hold; ``/tmp`` is on every POSIX system and local. (Processes in different mount
namespaces, e.g. a service with systemd's ``PrivateTmp`` or a container, see different ``/tmp``
folders, as they see different files: they do not share the files they edit either, unless a
folder is mounted into both; run them with the same ``/tmp`` then.)

``/tmp`` is shared by every user, so another user may create ``editguard-locks-<uid>`` first.
Such a folder is never used, nor is another chosen in its place (a second folder would be a
second lock, and writers would no longer take turns): every write is refused with
``PERMISSION_DENIED``, naming the folder and its owner, until an administrator removes it.
Nothing is written meanwhile. Elsewhere (no user ids) the folder is in the user's temporary
folder.

What else decides that a file changed under a writer does not depend on the environment either:
the version checks compare content hashes of the file on disk. The history and the journal
folders do (``XDG_STATE_HOME``, ``HOME``): two processes with different ones record into two
histories (undo in one then refuses a change the other made after it, as for any change made
outside it), and recover only the journals in their own folder; neither refuses the other's
edits nor loses one.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from editguard.errors import FileBusy, PermissionDenied

DEFAULT_TIMEOUT = 30.0


SYSTEM_TEMP = "/tmp"  # noqa: S108 - a fixed folder on purpose: see the module docstring


def default_lock_folder() -> str:
    """``/tmp/editguard-locks-<uid>``: the same for every editguard process of this user on
    this machine, whatever its environment (see the module docstring)."""
    if hasattr(os, "getuid"):
        return os.path.join(SYSTEM_TEMP, f"editguard-locks-{os.getuid()}")
    return os.path.join(tempfile.gettempdir(), "editguard-locks")


class FileLocks:
    """Hands out one lock per real path; see the module docstring."""

    def __init__(self, folder: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.folder = folder or default_lock_folder()
        self.timeout = timeout
        self._guard = threading.Lock()
        self._threads: dict[str, threading.Lock] = {}

    @contextmanager
    def hold(self, real_path: str, display: str, timeout: float | None = None) -> Iterator[None]:
        """Hold the lock of ``real_path`` for the duration of the ``with`` block, waiting at
        most ``timeout`` seconds (default: this lock set's timeout).

        Raises:
            FileBusy: another writer held it for longer than the timeout.
        """
        wait = self.timeout if timeout is None else timeout
        key = hashlib.blake2b(real_path.encode("utf-8", "surrogateescape"), digest_size=16)
        name = key.hexdigest()
        with self._guard:
            thread_lock = self._threads.setdefault(name, threading.Lock())
        if not thread_lock.acquire(timeout=wait):
            raise self._busy(display)
        from filelock import FileLock, Timeout  # noqa: PLC0415 - a reading call takes no lock

        try:
            self._check_folder()
            lock = FileLock(os.path.join(self.folder, name + ".lock"), timeout=wait)
            try:
                lock.acquire()
            except Timeout:
                raise self._busy(display) from None
            except OSError as exc:
                raise self._unsafe(f"its lock file {name}.lock cannot be opened", exc) from None
            try:
                yield
            finally:
                lock.release()
        finally:
            thread_lock.release()

    def _check_folder(self) -> None:
        """Create the lock folder owner-only, and refuse to use one that others could plant
        links in."""
        with contextlib.suppress(FileExistsError):
            os.makedirs(self.folder, mode=0o700)
        try:
            st = os.lstat(self.folder)
        except OSError as exc:
            raise self._unsafe("it cannot be created", exc) from None
        uid = os.getuid() if hasattr(os, "getuid") else st.st_uid
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            raise self._unsafe("it is not a folder (a symbolic link?)")
        if st.st_uid != uid:
            raise self._unsafe(
                f"it belongs to user {st.st_uid}, not to this user ({uid}); no other folder is "
                "used in its place (writers would stop taking turns)",
                owner=st.st_uid,
            )
        if st.st_mode & 0o077:
            raise self._unsafe(f"others may use it (mode {stat.S_IMODE(st.st_mode):o})")

    def _unsafe(
        self, why: str, exc: OSError | None = None, owner: int | None = None
    ) -> PermissionDenied:
        detail = f" ({exc.strerror})" if exc is not None and exc.strerror else ""
        data: dict[str, object] = {
            "lock_folder": self.folder,
            "errno": exc.errno if exc else errno.EPERM,
        }
        fix = f"Remove {self.folder}: editguard creates it again, owner-only, on the next write."
        if owner is not None:
            data["owner"] = owner
            fix = f"Ask an administrator to remove {self.folder} (user {owner} made it)."
        return PermissionDenied(
            f"the lock folder {self.folder} is not safe to use: {why}{detail}; nothing was written",
            data=data,
            suggestions=[fix],
        )

    def _busy(self, display: str) -> FileBusy:
        return FileBusy(
            f"{display} is being written by another editguard call, which has held it for "
            f"more than {self.timeout:g} s",
            path=display,
            data={"timeout_seconds": self.timeout},
            suggestions=["Try again in a moment."],
        )


SHARED = FileLocks()
"""The locks every Workspace uses unless it is given its own."""
