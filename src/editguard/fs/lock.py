"""Per-file locks: writers of one file take turns, across threads and across processes.

Two clients editing one file at once (two HTTP sessions, or two ``editguard serve`` on the same
folder) must not lose each other's updates. Each write holds the file's lock from the read to the
rename: a thread lock inside this process, and a lock file (``filelock``) between processes. Lock
files live in a per-user folder under the system's temporary folder, never beside the user's
files. That folder is created owner-only and checked before each use (a real folder, not a
symbolic link, owned by this user, closed to others), so that nobody else can plant a link in
it; lock files are opened without following links.
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


def default_lock_folder() -> str:
    """``<temp>/editguard-locks-<uid>``: shared by every editguard process of this user."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"editguard-locks-{uid}")


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
            raise self._unsafe(f"it belongs to user {st.st_uid}, not to this user ({uid})")
        if st.st_mode & 0o077:
            raise self._unsafe(f"others may use it (mode {stat.S_IMODE(st.st_mode):o})")

    def _unsafe(self, why: str, exc: OSError | None = None) -> PermissionDenied:
        detail = f" ({exc.strerror})" if exc is not None and exc.strerror else ""
        return PermissionDenied(
            f"the lock folder {self.folder} is not safe to use: {why}{detail}; nothing was written",
            data={"lock_folder": self.folder, "errno": exc.errno if exc else errno.EPERM},
            suggestions=[
                f"Remove {self.folder}: editguard creates it again, owner-only, on the next write."
            ],
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
