"""Per-file locks: writers of one file take turns, across threads and across processes.

Two clients editing one file at once (two HTTP sessions, or two ``editguard serve`` on the same
folder) must not lose each other's updates. Each write holds the file's lock from the read to the
rename: a thread lock inside this process, and a lock file (``filelock``) between processes. Lock
files live in a per-user folder under the system's temporary folder, never beside the user's
files.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from filelock import FileLock, Timeout

from editguard.errors import FileBusy

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
    def hold(self, real_path: str, display: str) -> Iterator[None]:
        """Hold the lock of ``real_path`` for the duration of the ``with`` block.

        Raises:
            FileBusy: another writer held it for longer than the timeout.
        """
        key = hashlib.blake2b(real_path.encode("utf-8", "surrogateescape"), digest_size=16)
        name = key.hexdigest()
        with self._guard:
            thread_lock = self._threads.setdefault(name, threading.Lock())
        if not thread_lock.acquire(timeout=self.timeout):
            raise self._busy(display)
        try:
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            try:
                with FileLock(os.path.join(self.folder, name + ".lock"), timeout=self.timeout):
                    yield
            except Timeout:
                raise self._busy(display) from None
        finally:
            thread_lock.release()

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
