"""A journal's records, sealed under this user's key, so that recovery trusts only editguard's.

Each record is the line ``<mac> <json>``, its MAC an HMAC-SHA256 under a per-user random key of
the MAC before it (for the first, of the journal's name) and its JSON: a record counts only in
its place in its journal (:class:`Sealed`). The key (``journal.key`` in the journal folder) is
made once, whole under a temporary name and then linked into place, owner-only, and checked so
before each use (:func:`read_key`); a key or journal that is not this user's alone is
:class:`Rejected`, with why.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import stat
from collections.abc import Callable
from typing import Any

from editguard.fs.journal.steps import inode

SUFFIX = ".journal"
KEY_NAME, _KEY_BYTES = "journal.key", 32
KEY_TEMP = f".{KEY_NAME}-"
OPEN_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class Rejected(Exception):
    """A journal (or key) recovery must not trust; its message says why."""


def read_key(folder: int, *, create: bool) -> bytes | None:
    """The key in the open journal folder ``folder`` (None when there is none and not
    ``create``): a regular file of this user's, that nobody else may read or write, of
    exactly its size. It is made whole under another name, then linked into place, so that no
    process ever reads half a key.

    Raises:
        OSError: the system refused.
        Rejected: the key is there, but not this user's alone (or not a key).
    """
    for _ in range(3):
        try:
            fd = os.open(KEY_NAME, OPEN_READ, dir_fd=folder)
        except FileNotFoundError:
            if not create:
                return None
            _make_key(folder)
            continue
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise Rejected(f"its key {KEY_NAME} is a symbolic link") from None
            raise
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or not trusted(st, 0o077):
                raise Rejected(
                    f"its key {KEY_NAME} is not a file only this user can use "
                    f"(owner {st.st_uid}, mode {stat.S_IMODE(st.st_mode):o})"
                )
            key = os.read(fd, _KEY_BYTES + 1)
        finally:
            os.close(fd)
        if len(key) != _KEY_BYTES:
            raise Rejected(f"its key {KEY_NAME} is not {_KEY_BYTES} bytes long")
        return key
    raise Rejected(f"its key {KEY_NAME} kept vanishing")


def _make_key(folder: int) -> None:
    """Make the key under a name of its own, whole, then link it into place (a key made by
    another process meanwhile wins). The temporary name is held with ``flock`` while it
    exists, so that a recovery removes it only once its maker is dead (:func:`sweep_key`)."""
    temp = f"{KEY_TEMP}{secrets.token_hex(6)}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o600, dir_fd=folder)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.fchmod(fd, 0o600)
        os.write(fd, secrets.token_bytes(_KEY_BYTES))
        os.fsync(fd)
        # Already there (another process made it first: that one is used), or our temporary
        # name swept by a recovery between its creation and our lock (the caller tries again).
        with contextlib.suppress(FileExistsError, FileNotFoundError):
            os.link(temp, KEY_NAME, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        with contextlib.suppress(OSError):
            os.fsync(folder)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=folder)
    finally:
        os.close(fd)


def sweep_key(folder: int, name: str) -> None:
    """Remove a key's temporary name left by a process killed while it made the key."""
    try:
        fd = os.open(name, OPEN_READ, dir_fd=folder)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        st = os.fstat(fd)
        if inode(folder, name) == (st.st_dev, st.st_ino):
            os.unlink(name, dir_fd=folder)
    except OSError:
        return  # held: its maker is alive
    finally:
        os.close(fd)


class Sealed:
    """One journal's records, each sealed: a record is the line ``<mac> <json>``, its MAC an
    HMAC-SHA256 under this user's key of the MAC before it (of the journal's name, for the
    first) and its JSON. So a record counts only if editguard wrote it, in that place of that
    journal. ``end`` is where the last whole record ends: a record that failed half-way is
    cut off before the next is written, so that it cannot hide the ones after it."""

    def __init__(self, fd: int, key: bytes, name: str) -> None:
        self.fd, self.key = fd, key
        self.last = b"editguard-journal\x00" + name.encode("utf-8", "surrogateescape")
        self.end = 0

    def mac(self, body: bytes) -> bytes:
        return hmac.new(self.key, self.last + body, hashlib.sha256).digest()

    def append(
        self,
        record: dict[str, Any],
        write: Callable[[int, Any], int] = os.write,
        fsync: Callable[[int], None] = os.fsync,
    ) -> None:
        """Write ``record`` after the last whole one, durably.

        Raises:
            OSError: the system refused (the record does not count).
        """
        body = json.dumps(record, separators=(",", ":")).encode()
        mac = self.mac(body)
        if os.lseek(self.fd, 0, os.SEEK_CUR) != self.end:
            os.ftruncate(self.fd, self.end)
            os.lseek(self.fd, self.end, os.SEEK_SET)
        view = memoryview(mac.hex().encode() + b" " + body + b"\n")
        size = len(view)
        while view:
            view = view[write(self.fd, view) :]
        fsync(self.fd)
        self.end += size
        self.last = mac

    def read(self) -> list[dict[str, Any]]:
        """The journal's whole records, from the start; a last one without its line end was
        never fsynced, so it never counted (it is cut off by the next :meth:`append`).

        Raises:
            Rejected: a record is not sealed with the key, or is not a JSON object.
        """
        os.lseek(self.fd, 0, os.SEEK_SET)
        data = b""
        while chunk := os.read(self.fd, 1 << 20):
            data += chunk
        out: list[dict[str, Any]] = []
        while (stop := data.find(b"\n", self.end)) >= 0:
            line = data[self.end : stop]
            given, _, body = line.partition(b" ")
            mac = self.mac(body)
            if not hmac.compare_digest(given, mac.hex().encode()):
                raise Rejected(f"record {len(out) + 1} is not sealed with this user's journal key")
            try:
                record = json.loads(body)
            except (ValueError, RecursionError):
                record = None
            if not isinstance(record, dict):
                raise Rejected(f"record {len(out) + 1} is not a JSON object")
            out.append(record)
            self.last, self.end = mac, stop + 1
        return out


def mark_undone(sealed: Sealed, index: int) -> None:
    """Record that step ``index`` is rolled back, before anything else is: a step undone once
    is never judged again (its file's inode may since belong to a new file)."""
    sealed.append({"undone": index})


def trusted(st: os.stat_result, others: int) -> bool:
    """Whether this user owns ``st`` and nobody else has the ``others`` bits on it."""
    return st.st_uid == os.getuid() and not st.st_mode & others
