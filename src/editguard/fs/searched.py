"""Reading the files a content search finds the way every other tool reads: through descriptors.

ripgrep names the files it reads by path. Between the moment a folder is listed and the moment a
file in it is opened, the folder may be swapped for a symbolic link to somewhere outside the roots
(by another process, the agent's own shell): whoever opens by path then reads the outside file
under the inside name. So nothing grep shows is read by path. :class:`Folders` opens ``/``, then
each folder down to the file one component at a time with ``O_NOFOLLOW`` (as
:func:`editguard.fs.location.locate` does), keeping the descriptors of the folders a search meets;
a file is opened inside its folder's descriptor with ``O_NOFOLLOW`` and must be a regular file. A
component that is a symbolic link at that moment fails the open: the file is left out.

:func:`confirm` turns what ripgrep proposes into what grep shows: editguard reads the file through
:class:`Folders` and keeps it only if every line ripgrep reported reads the same in that read; the
text shown is editguard's own. A file that changed in between, or that ripgrep read through a
swapped link, is left out (and counted as changed). The Python scan reads every file through
:class:`Folders` and :func:`lines` as well.
"""

from __future__ import annotations

import codecs
import collections
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from editguard.core.hits import LONG_LINE, FileHits, decode_line
from editguard.fs.state import Private

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
MAX_FOLDERS = 64  # folder descriptors one search keeps open (the most recently used)
_CHUNK = 1 << 16
# A line ripgrep reported as too long to print (its JSON message over LONG_LINE bytes) is at
# least this many bytes long: JSON writes one byte as at most six characters (\u0001).
_LONG_RAW = LONG_LINE // 6


class TooLarge(OSError):
    """The file is larger than the search may read (its size in ``size``)."""

    def __init__(self, size: int) -> None:
        super().__init__(errno.EFBIG, "file too large")
        self.size = size


class StateFolder(OSError):
    """A folder on the path is one of editguard's own state folders: nothing in it is read."""

    def __init__(self, real: str) -> None:
        super().__init__(errno.EACCES, "editguard's state folder", real)


class Folders:
    """Descriptors of folders inside ``roots``, each opened from ``/`` one component at a time
    without following a link, the last MAX_FOLDERS used kept open. Close with :meth:`close`.

    A path given here is a real path (no link on it) inside a root: what the sandbox resolved,
    or what ripgrep or the walker found below it (neither follows a link). A folder that is one
    of ``private`` (editguard's state folders, known by device and inode as it is opened) is
    never entered: ripgrep lists files on its own and does not know of them.
    """

    def __init__(self, roots: tuple[str, ...], private: Private | None = None) -> None:
        self.roots = tuple(r.rstrip(os.sep) + os.sep for r in roots)
        self._open: collections.OrderedDict[str, int] = collections.OrderedDict()
        self._private = private.identities() if private is not None else {}

    def __enter__(self) -> Folders:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every descriptor kept."""
        while self._open:
            os.close(self._open.popitem()[1])

    def inside(self, real: str) -> bool:
        """Whether ``real`` is a root or lies inside one (as text: nothing is opened)."""
        return (real.rstrip(os.sep) + os.sep).startswith(self.roots)

    def folder(self, real: str) -> int:
        """The descriptor of the folder at ``real`` (kept here: do not close it).

        Raises:
            OSError: ``real`` is outside the roots (EACCES), or a component is missing, is no
                folder, or is a symbolic link now (ELOOP, ENOTDIR).
        """
        fd = self._open.get(real)
        if fd is not None:
            self._open.move_to_end(real)
            return fd
        real = os.path.normpath(real)  # before the check: no ".." may lead out of a root
        if not self.inside(real):
            raise OSError(errno.EACCES, "outside the roots", real)
        # The deepest folder of the path already open, then each component below it.
        todo: list[str] = []
        at = real
        while (fd := self._open.get(at)) is None and at != os.sep:
            at, name = os.path.split(at)
            todo.append(name)
        if fd is None:
            fd = os.open(os.sep, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            self._keep(os.sep, fd)
        for name in reversed(todo):
            inner = os.open(name, _DIR, dir_fd=fd)
            at = os.path.join(at, name)
            if self._private:
                st = os.fstat(inner)
                if (st.st_dev, st.st_ino) in self._private:
                    os.close(inner)
                    raise StateFolder(at)
            self._keep(at, inner)
            fd = inner
        return fd

    def stat(self, real: str) -> os.stat_result:
        """What ``real`` is (a link is not followed), looked at through its folder's descriptor.

        Raises:
            OSError: as :meth:`folder`, or ``real`` does not exist.
        """
        if any(real.rstrip(os.sep) + os.sep == r for r in self.roots):
            return os.fstat(self.folder(real))
        parent, name = os.path.split(real.rstrip(os.sep))
        return os.stat(name, dir_fd=self.folder(parent), follow_symlinks=False)

    def open(self, real: str, max_bytes: int) -> int:
        """Open the regular file at ``real`` for reading (the caller closes it).

        Raises:
            TooLarge: the file is over ``max_bytes``.
            OSError: as :meth:`folder`; or the file is a link (ELOOP), no regular file (EINVAL),
                gone or unreadable.
        """
        parent, name = os.path.split(real)
        fd = os.open(name, _FILE, dir_fd=self.folder(parent))
        try:
            _check_file(os.fstat(fd), real, max_bytes)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _keep(self, real: str, fd: int) -> None:
        self._open[real] = fd
        while len(self._open) > MAX_FOLDERS:
            os.close(self._open.popitem(last=False)[1])


def _check_file(st: os.stat_result, real: str, max_bytes: int) -> None:
    """Refuse what a search does not read: no regular file, or one over ``max_bytes``.

    Raises:
        OSError: not a regular file (EINVAL).
        TooLarge: over ``max_bytes``.
    """
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", real)
    if st.st_size > max_bytes:
        raise TooLarge(st.st_size)


def lines(handle: BinaryIO, max_bytes: int) -> Iterator[str | None]:
    """The lines of the open file ``handle``, each with its ``\\n``, decoded as
    ripgrep reads them: a UTF-8 byte-order mark skipped, UTF-16 and UTF-32 files with one decoded
    whole, a line that is not UTF-8 read as cp1252 (else latin-1). ``None`` (then nothing more)
    when the file turns out binary: a NUL byte outside UTF-16/32.

    Raises:
        TooLarge: the file grew past ``max_bytes`` while read.
        OSError: it cannot be read.
    """
    head = handle.read(4)
    codec = next((c for mark, c in _BOMS if head.startswith(mark)), None)
    if codec is not None and codec != "utf-8":
        mark = next(m for m, c in _BOMS if c == codec)
        handle.seek(len(mark))
        data = handle.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise TooLarge(len(data))
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            yield None
            return
        yield from _split(text)
        return
    handle.seek(3 if codec == "utf-8" else 0)
    total = 0
    while raw := handle.readline(max_bytes + 1 - total):
        total += len(raw)
        if total > max_bytes:
            raise TooLarge(total)
        if b"\x00" in raw:
            yield None
            return
        yield decode_line(raw)


def _split(text: str) -> Iterator[str]:
    """``text`` cut after each ``\\n`` only (str.splitlines also cuts at ``\\r`` and others)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


@dataclass(slots=True)
class Proposal:
    """What ripgrep reported of one file: its lines in file order (number, text with the line
    break, whether it matched) and how many matching lines were too long to print."""

    real: str
    reported: list[tuple[int, str, bool]] = field(default_factory=list)
    long_lines: int = 0


def confirm(
    folders: Folders, proposal: Proposal, found: FileHits, max_bytes: int, *, shown: bool = True
) -> bool:
    """Read the proposed file through ``folders`` and fill ``found`` with its lines, as this
    read has them (only counted unless ``shown``: a file that cannot be among those shown);
    True if every line ripgrep reported reads the same (and the file still has as many very
    long lines), else False: ``found`` is then to be dropped.

    Only what is needed is read: up to the last reported line (all of it if ripgrep reported a
    line too long to print).

    Raises:
        TooLarge: the file is over ``max_bytes``.
        OSError: it cannot be opened through ``folders`` (a folder on its path became a link,
            it is gone, ...).
    """
    last = max((number for number, _, _ in proposal.reported), default=0)
    fd = folders.open(proposal.real, max_bytes)
    try:
        data, whole = _read_to_line(fd, last, proposal.long_lines > 0, max_bytes)
        codec = next((c for mark, c in _BOMS if data.startswith(mark)), None)
        if codec not in (None, "utf-8"):  # UTF-16 or UTF-32: decoded whole, as ripgrep does
            os.lseek(fd, 0, os.SEEK_SET)
            with os.fdopen(os.dup(fd), "rb") as handle:
                return _confirm_lines(lines(handle, max_bytes), proposal, found)
    finally:
        os.close(fd)
    if b"\x00" in data:  # binary now, where ripgrep read text
        return False
    pieces = data[3 if codec == "utf-8" else 0 :].split(b"\n")
    complete = len(pieces) - 1  # lines that end with a line break
    count = complete + (1 if whole and pieces[-1] else 0)
    if count < last:
        return False  # shorter now than what ripgrep read
    if proposal.long_lines:
        longs = sum(len(piece) >= _LONG_RAW for piece in pieces)
        if longs < proposal.long_lines:
            return False
    for number, text, match in proposal.reported:
        raw = pieces[number - 1] + b"\n" if number <= complete else pieces[number - 1]
        ours = decode_line(raw)
        if ours != text:
            return False
        if shown:
            found.add(number, ours, match=match)
        else:
            found.matches += match
    found.long_lines += proposal.long_lines
    return True


def _read_to_line(fd: int, last: int, whole: bool, max_bytes: int) -> tuple[bytes, bool]:
    """The bytes of the open file ``fd`` from its start through its line ``last`` at least
    (all if ``whole``), and whether that is the whole file.

    Raises:
        TooLarge: more than ``max_bytes`` (the file grew since it was opened).
    """
    chunks: list[bytes] = []
    total = breaks = 0
    while whole or breaks < last:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return b"".join(chunks), True
        total += len(chunk)
        if total > max_bytes:
            raise TooLarge(total)
        breaks += chunk.count(b"\n")
        chunks.append(chunk)
    return b"".join(chunks), False


def _confirm_lines(read: Iterator[str | None], proposal: Proposal, found: FileHits) -> bool:
    """:func:`confirm` over a file decoded whole (UTF-16 or UTF-32)."""
    wanted = {number: (text, match) for number, text, match in proposal.reported}
    last = max(wanted, default=0)
    longs = number = 0
    for number, raw in enumerate(read, 1):
        if raw is None:
            return False
        longs += len(raw) >= _LONG_RAW
        if number in wanted:
            text, match = wanted[number]
            if raw != text:
                return False
            found.add(number, raw, match=match)
        if number >= last and longs >= proposal.long_lines:
            break
    if number < last or longs < proposal.long_lines:
        return False
    found.long_lines += proposal.long_lines
    return True
