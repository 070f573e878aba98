"""Reading a file whole and writing it atomically, through its folder's descriptor.

Every call here works on a :class:`~editguard.fs.location.Location`: the folder is a descriptor
opened without following links, and the file is opened, stat-ed, created and renamed *in* it
(``dir_fd=``, ``O_NOFOLLOW``), so the file used is the file the sandbox checked.

A write goes to a temporary file in the same folder (``.editguard-XXXXXXXX.tmp``: short, so that
a file name of 255 bytes can still be edited), is flushed and fsynced, gets the original's mode
(and owner where permitted), and replaces the original with one rename; then the folder is
fsynced. Right before the rename the file is checked again: its content hash (against the
version that was read) and then its inode, size and times (a few microseconds before the
rename), so that a change another process made meanwhile is reported, not overwritten. On any
failure the temporary file, and any folder this write created, are removed, and the original is
untouched. A temporary file holds an exclusive ``flock`` while its writer lives; one that nobody
holds and that is older than a minute was left by a killed process, and the next write in that
folder removes it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager

from editguard.core.document import content_version
from editguard.errors import (
    EditError,
    FileTooLarge,
    NotAFile,
    PermissionDenied,
    StaleVersion,
)
from editguard.fs.location import Location, is_link
from editguard.fs.oserror import not_found, os_error

_READ_CHUNK = 1 << 20
TEMP_PREFIX, TEMP_SUFFIX = ".editguard-", ".tmp"
# A temporary file nobody holds is stale once it is older than this (a live writer holds its
# flock from the moment it creates the file; the age covers the instant in between).
STALE_AFTER = 60.0
# How often one process sweeps one folder for stale temporary files.
_SWEEP_EVERY = 60.0
_SWEPT: dict[tuple[int, int], float] = {}
# Exactly the names this module makes, so that a user's own ".editguard-notes.tmp" is left alone.
_TEMP_NAME = re.compile(r"\.editguard-[0-9a-f]{8}\.tmp")


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK = _current_umask()


class FileReader:
    """Reads one file for :func:`~editguard.core.document.decode_stream`: its first bytes, and
    whole passes over it in chunks, hashing each pass so that ``version`` matches what was read.

    The file is opened once (``O_NOFOLLOW``, ``O_NONBLOCK``: a FIFO swapped in never blocks) and
    must be a regular file; every pass reads that same open file. Close it with :meth:`close`.

    Raises (from ``head`` and from each pass):
        FileNotFound, NotAFile, PermissionDenied, FileTooLarge, OutsideRoot or StaleVersion (the
        file was swapped for a symbolic link since the sandbox's check).
    """

    def __init__(self, location: Location, display: str, max_bytes: int) -> None:
        self.location, self.display, self.max_bytes = location, display, max_bytes
        self.version = ""
        self.fd = -1
        self.stat: os.stat_result | None = None

    def head(self, size: int = 4) -> bytes:
        """The first ``size`` bytes (four: where a byte-order mark would be)."""
        self.fd = open_file(self.location, self.display)
        st = os.fstat(self.fd)
        self.stat = st
        if not stat.S_ISREG(st.st_mode):
            raise NotAFile(
                f"{self.display} is not a regular file (a directory, a device or a pipe)",
                path=self.display,
            )
        if st.st_size > self.max_bytes:
            raise self._too_large(st.st_size)
        return self._read(0, size)

    def __call__(self) -> Iterator[bytes]:
        """One pass over the whole content; ``version`` is set when it completes."""
        digest = hashlib.blake2b(digest_size=8)
        total = 0
        while chunk := self._read(total, _READ_CHUNK):
            total += len(chunk)
            if total > self.max_bytes:  # it grew since the size was checked
                raise self._too_large(total)
            digest.update(chunk)
            yield chunk
        self.version = digest.hexdigest()

    def close(self) -> None:
        """Close the file."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _read(self, offset: int, size: int) -> bytes:
        try:
            return os.pread(self.fd, size, offset)
        except OSError as exc:
            raise os_error(exc, self.display, "read") from None

    def _too_large(self, size: int) -> FileTooLarge:
        return FileTooLarge(
            f"{self.display} is {size:,} bytes or more; the limit is {self.max_bytes:,}",
            path=self.display,
            data={"size": size, "limit": self.max_bytes},
        )


def open_file(location: Location, display: str) -> int:
    """Open the located file for reading, without following a link or blocking on a pipe.

    Raises:
        FileNotFound, NotAFile, PermissionDenied; OutsideRoot or StaleVersion for a file that
        became a symbolic link since the sandbox's check.
    """
    if location.missing:
        raise not_found(display)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        return os.open(location.name, flags, dir_fd=location.folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP and is_link(location.folder, location.name):
            raise location.changed() from None
        raise os_error(exc, display, "read") from None


def write_atomic(
    location: Location,
    chunks: Iterable[bytes],
    *,
    display: str,
    base_version: str | None,
    around: Callable[[str], AbstractContextManager[object]] | None = None,
) -> str:
    """Replace (or create) the located file with ``chunks``, atomically; return the new version.

    ``base_version`` is the version the caller read (``None``: the file must not exist yet).
    Missing folders of the location are created first, and removed again if the write fails.
    ``around``, given the new version once the new bytes are safe in a temporary file, is the
    context the file is replaced in (a history records the change there first: if it cannot,
    it raises and the file is left as it was).

    Raises:
        StaleVersion: the file changed (or appeared, or vanished) since it was read.
        OutsideRoot: a component of the path became a link to outside the roots.
        PermissionDenied, NotAFile, WriteFailed: the operating system refused; nothing changed.
    """
    created: list[tuple[int, str]] = []  # (descriptor of the parent, name) of new folders
    folder = location.folder
    tmp = ""
    try:
        for name in location.missing:
            folder = _make_folder(location, folder, name, created, display)
        _sweep(folder)
        existing = _existing(location, folder, display)
        fd, tmp = _create_temp(folder)
        with os.fdopen(fd, "wb") as handle:
            version = content_version(_tee(chunks, handle.write))
            handle.flush()
            os.fsync(handle.fileno())
            if existing is not None:
                # Owner first: a chown clears the setuid and setgid bits, so the mode comes
                # after it. Only root may give the file back its owner; others keep theirs.
                with contextlib.suppress(PermissionError):
                    os.fchown(handle.fileno(), existing.st_uid, existing.st_gid)
                os.fchmod(handle.fileno(), stat.S_IMODE(existing.st_mode))
            else:
                os.fchmod(handle.fileno(), 0o666 & ~UMASK)
        with around(version) if around is not None else contextlib.nullcontext():
            _check_unchanged(location, folder, display, base_version)
            os.replace(tmp, location.name, src_dir_fd=folder, dst_dir_fd=folder)
            tmp = ""
            _fsync(folder)
    except EditError:
        _undo(folder, tmp, created)
        raise
    except OSError as exc:
        _undo(folder, tmp, created)
        raise os_error(exc, display, "write") from None
    finally:
        for parent, _ in created:
            os.close(parent)
        if folder != location.folder:
            os.close(folder)
    return version


def _make_folder(
    location: Location, parent: int, name: str, created: list[tuple[int, str]], display: str
) -> int:
    """Create folder ``name`` in ``parent`` (unless another process just did) and open it."""
    try:
        os.mkdir(name, 0o777, dir_fd=parent)
        created.append((os.dup(parent), name))
    except FileExistsError:
        pass
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(name, flags, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and is_link(parent, name):
            raise location.changed() from None
        if exc.errno == errno.ENOTDIR:
            raise NotAFile(
                f"{name} is a file, not a folder, so {display} cannot be in it",
                path=display,
                data={"not_a_folder": name},
            ) from None
        raise
    finally:
        if parent != location.folder:
            os.close(parent)


def _existing(location: Location, folder: int, display: str) -> os.stat_result | None:
    """The file as it is now (``None`` if there is none), refused if it cannot be written."""
    try:
        existing = os.lstat(location.name, dir_fd=folder)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(existing.st_mode):
        raise location.changed()
    if not stat.S_ISREG(existing.st_mode):
        raise NotAFile(f"{display} is not a regular file", path=display)
    if not os.access(location.name, os.W_OK, dir_fd=folder):
        try:
            os.lstat(location.name, dir_fd=folder)
        except FileNotFoundError:
            raise StaleVersion(
                race_message(display, "?", None), path=display, data={"actual_version": None}
            ) from None
        raise PermissionDenied(
            f"{display} is not writable",
            path=display,
            suggestions=["Change the file's permissions, or edit another file."],
        )
    return existing


def _create_temp(folder: int) -> tuple[int, str]:
    """A new temporary file in ``folder``, held with an exclusive flock while this writer lives."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        name = f"{TEMP_PREFIX}{secrets.token_hex(4)}{TEMP_SUFFIX}"
        try:
            fd = os.open(name, flags, 0o600, dir_fd=folder)
        except FileExistsError:  # pragma: no cover - 32 random bits collided
            continue
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd, name


def _check_unchanged(
    location: Location, folder: int, display: str, base_version: str | None
) -> None:
    """Raise unless the file still holds ``base_version``: its hash, then (right before the
    rename) its identity, size and times, so that the window for an unseen change is the few
    microseconds between that last look and the rename."""
    now, seen = version_now(location, folder)
    if now != base_version:
        raise StaleVersion(
            race_message(display, base_version, now),
            path=display,
            data={"expected_version": base_version, "actual_version": now},
            suggestions=["Re-read the file and send the edit again."],
        )
    try:
        last = os.lstat(location.name, dir_fd=folder)
    except FileNotFoundError:
        last = None
    if identity(last) != identity(seen):
        raise StaleVersion(
            f"{display} was changed by another process while this edit was prepared",
            path=display,
            data={"expected_version": base_version},
            suggestions=["Re-read the file and send the edit again."],
        )


def version_now(location: Location, folder: int) -> tuple[str | None, os.stat_result | None]:
    """The version of the file now and its stat after hashing (``None``, ``None``: no file)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(location.name, flags, dir_fd=folder)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        if exc.errno == errno.ELOOP and is_link(folder, location.name):
            raise location.changed() from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not a regular file", None
        offset = 0
        digest = hashlib.blake2b(digest_size=8)
        while chunk := os.pread(fd, _READ_CHUNK, offset):
            digest.update(chunk)
            offset += len(chunk)
        return digest.hexdigest(), os.fstat(fd)
    finally:
        os.close(fd)


def identity(st: os.stat_result | None) -> tuple[int, ...] | None:
    if st is None:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _undo(folder: int, tmp: str, created: list[tuple[int, str]]) -> None:
    """Remove the temporary file and the folders this write created (newest first)."""
    if tmp:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=folder)
    for parent, name in reversed(created):
        with contextlib.suppress(OSError):
            os.rmdir(name, dir_fd=parent)


def _sweep(folder: int) -> None:
    """Remove the temporary files of killed writers from ``folder`` (at most once a minute)."""
    try:
        st = os.fstat(folder)
    except OSError:  # pragma: no cover - an open descriptor can always be stat-ed
        return
    key, now = (st.st_dev, st.st_ino), time.monotonic()
    if now - _SWEPT.get(key, -_SWEEP_EVERY) < _SWEEP_EVERY:
        return
    _SWEPT[key] = now
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if _TEMP_NAME.fullmatch(entry.name):
                _remove_if_stale(folder, entry.name)


def _remove_if_stale(folder: int, name: str) -> None:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=folder)
    except OSError:
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or time.time() - st.st_mtime < STALE_AFTER:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # a live writer holds it
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=folder)
    finally:
        os.close(fd)


def _tee(chunks: Iterable[bytes], write: Callable[[bytes], object]) -> Iterator[bytes]:
    """Write ``chunks`` and pass them on, small ones gathered to about ``_READ_CHUNK`` bytes:
    a plan of 1,000 edits renders 2,000 small chunks, and each one written alone is a system
    call (past the file object's buffer) and a hash update."""
    pending = bytearray()
    for chunk in chunks:
        if not pending and len(chunk) >= _READ_CHUNK:
            write(chunk)
            yield chunk
            continue
        pending += chunk
        if len(pending) >= _READ_CHUNK:
            block = bytes(pending)
            pending.clear()
            write(block)
            yield block
    if pending:
        block = bytes(pending)
        write(block)
        yield block


def race_message(display: str, base: str | None, now: str | None) -> str:
    if now is None:
        return f"{display} was removed by another process while this edit was prepared"
    if base is None:
        return f"{display} was created by another process while this write was prepared"
    return f"{display} was changed by another process while this edit was prepared"


def _fsync(folder: int) -> None:
    with contextlib.suppress(OSError):  # some file systems refuse fsync on folders
        os.fsync(folder)
