"""Reading files whole and writing them atomically.

A write goes to a temporary file in the same folder, is flushed and fsynced, gets the original's
mode (and owner where permitted), and replaces the original with ``os.replace``; then the folder
is fsynced. Right before the rename the original is hashed again, so a change made by another
process since it was read is reported, never overwritten. On any failure the temporary file is
removed and the original is untouched.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from editguard.core.document import content_version
from editguard.errors import (
    EditError,
    FileNotFound,
    FileTooLarge,
    NotAFile,
    PermissionDenied,
    StaleVersion,
    WriteFailed,
)

_READ_CHUNK = 1 << 20


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


class FileReader:
    """Reads one file for :func:`~editguard.core.document.decode_stream`: its first bytes, and
    whole passes over it in chunks, hashing each pass so that ``version`` matches what was read.

    Raises (from ``head`` and from each pass):
        FileNotFound, NotAFile, PermissionDenied, FileTooLarge.
    """

    def __init__(self, path: str, display: str, max_bytes: int) -> None:
        self.path, self.display, self.max_bytes = path, display, max_bytes
        self.version = ""

    def head(self) -> bytes:
        """The first four bytes (where a byte-order mark would be)."""
        self._check_size()
        try:
            with open(self.path, "rb") as handle:
                return handle.read(4)
        except OSError as exc:
            raise os_error(exc, self.display, "read") from None

    def __call__(self) -> Iterator[bytes]:
        """One pass over the whole content; ``version`` is set when it completes."""
        digest = hashlib.blake2b(digest_size=8)
        total = 0
        try:
            with open(self.path, "rb") as handle:
                while chunk := handle.read(_READ_CHUNK):
                    total += len(chunk)
                    if total > self.max_bytes:  # it grew since the size was checked
                        raise self._too_large(total)
                    digest.update(chunk)
                    yield chunk
        except OSError as exc:
            raise os_error(exc, self.display, "read") from None
        self.version = digest.hexdigest()

    def _check_size(self) -> None:
        try:
            st = os.stat(self.path)
        except OSError as exc:
            raise os_error(exc, self.display, "read") from None
        if not stat.S_ISREG(st.st_mode):
            raise NotAFile(
                f"{self.display} is not a regular file (a directory or a device)", path=self.display
            )
        if st.st_size > self.max_bytes:
            raise self._too_large(st.st_size)

    def _too_large(self, size: int) -> FileTooLarge:
        return FileTooLarge(
            f"{self.display} is {size:,} bytes or more; the limit is {self.max_bytes:,}",
            path=self.display,
            data={"size": size, "limit": self.max_bytes},
        )


def file_version(path: str) -> str | None:
    """The version of the file at ``path`` now, or ``None`` if there is none."""
    try:
        with open(path, "rb") as handle:
            return content_version(iter(lambda: handle.read(_READ_CHUNK), b""))
    except FileNotFoundError:
        return None


def make_parents(path: str, display: str) -> None:
    """Create the missing folders above ``path``.

    Raises:
        PermissionDenied, NotAFile, WriteFailed: the operating system refused.
    """
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise os_error(exc, display, "create the folder of") from None


def write_atomic(
    path: str, chunks: Iterable[bytes], *, display: str, base_version: str | None
) -> str:
    """Replace (or create) ``path`` with ``chunks``, atomically; return the new version.

    ``base_version`` is the version the caller read (``None``: the file must not exist yet).

    Raises:
        StaleVersion: the file changed (or appeared) since it was read.
        PermissionDenied, WriteFailed: the operating system refused; nothing was changed.
    """
    folder = os.path.dirname(path) or "."
    name = os.path.basename(path)
    try:
        existing: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise os_error(exc, display, "write") from None
    if existing is not None and not os.access(path, os.W_OK):
        raise PermissionDenied(
            f"{display} is not writable",
            path=display,
            suggestions=["Change the file's permissions, or edit another file."],
        )
    tmp = ""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".editguard-tmp")
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
                os.fchmod(handle.fileno(), 0o666 & ~_UMASK)
        now = file_version(path)
        if now != base_version:
            raise StaleVersion(
                _race_message(display, base_version, now),
                path=display,
                data={"expected_version": base_version, "actual_version": now},
                suggestions=["Re-read the file and send the edit again."],
            )
        os.replace(tmp, path)
        tmp = ""
        _fsync_folder(folder)
    except EditError:
        raise
    except OSError as exc:
        raise os_error(exc, display, "write") from None
    finally:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
    return version


def _tee(chunks: Iterable[bytes], write: Callable[[bytes], object]) -> Iterator[bytes]:
    for chunk in chunks:
        write(chunk)
        yield chunk


def _race_message(display: str, base: str | None, now: str | None) -> str:
    if now is None:
        return f"{display} was removed by another process while this edit was prepared"
    if base is None:
        return f"{display} was created by another process while this write was prepared"
    return f"{display} was changed by another process while this edit was prepared"


def _fsync_folder(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover - some platforms cannot open folders
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on folders
        pass
    finally:
        os.close(fd)


def _not_found(display: str) -> FileNotFound:
    return FileNotFound(
        f"{display} does not exist",
        path=display,
        suggestions=[
            "Check the path (relative paths start at the first allowed folder), or "
            "create the file with write_file."
        ],
    )


def os_error(exc: OSError, display: str, action: str) -> EditError:
    """The EditError for an OSError met while reading or writing ``display``."""
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return PermissionDenied(
            f"permission denied to {action} {display} ({exc.strerror})",
            path=display,
            data={"errno": exc.errno},
        )
    if exc.errno == errno.ENOENT:
        return _not_found(display)
    if exc.errno in (errno.EISDIR, errno.ENOTDIR):
        return NotAFile(f"{display} is not a regular file", path=display)
    if exc.errno == errno.ELOOP:
        return NotAFile(
            f"{display} is a symbolic link that points to itself (a loop)", path=display
        )
    return WriteFailed(
        f"could not {action} {display}: {exc.strerror or exc}; the file was left as it was",
        path=display,
        data={"errno": exc.errno},
    )
