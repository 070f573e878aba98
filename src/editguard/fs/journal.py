"""Committing several files at once: all of them or none, also across a crash.

A transaction is a list of steps, each on one file that the sandbox checked and whose folder is
open (:class:`~editguard.fs.location.Location`): *write* (create the file, or replace it) or
*delete*. Its commit works like a database's rollback journal. The journal is a small file in a
per-user folder outside every project (see :func:`default_folder`), held with an exclusive
``flock`` by the process that commits, so that a live commit is never taken for a dead one.

Protocol (each record is one JSON line, sealed (below) and fsynced before the next action; the
journal's folder is fsynced once the journal exists):

1. **intent**: the journal names the roots of the commit and, for every step, the file's folder
   (its real path, inside one of those roots), the file, whether it existed, the names of its
   new text and of its backup (``.editguard-<hex>.new`` and ``.editguard-<hex>.bak`` beside the
   file), and the folders the step will create. Nothing in the project has changed yet.
2. The folders are created, each new text is written beside its file, fsynced, and given its
   mode. Then the **written** record gives the inode of each new text.
3. Every file is checked again against the version that was read (its content hash), then the
   steps run, in order, each right after a last look at the file's identity:

   - replace: ``link(file, backup)``, then ``rename(new, file)``;
   - create: ``link(new, file)`` (which fails if a file appeared meanwhile), then ``unlink(new)``;
   - delete: ``link(file, backup)``, then ``unlink(file)``.

   A backup is a second name for the old file (same inode: same bytes, mode and times), so a
   step never copies a file and the file never stops existing. Where hard links are refused, the
   backup is a fsynced copy.
4. The touched folders are fsynced and the **committed** record is written: this is the commit
   point. Then the backups are removed and the journal deleted.

Recovery (:func:`recover`, run when a Workspace starts, i.e. by ``serve``, every ``call`` and the
Python API, and by every commit) takes each journal nobody holds. Without a committed record it
rolls back, last step first, judging each step by what is on disk: a file whose inode is its new
text's gets its backup back (or is removed, if the step created it); a deleted file whose backup
remains is put back; then every new text and backup is removed and the created folders (if
empty) too. With a committed record it only removes what is left of backups and new texts. Every
action checks the state first, so recovery can itself be interrupted and run again. The journal is
deleted last. A commit that fails before its commit point rolls back at once, the same way.

What recovery trusts: only what editguard wrote. Each record is the line ``<mac> <json>``, its
MAC an HMAC-SHA256, under a per-user random key (``journal.key`` in the journal folder, made
once, owner-only, and checked so before each use), of the MAC before it (for the first, of the
journal's name) and its JSON: a record counts only in its place in its journal. A journal with
a record not so sealed, one that cannot be read, or one naming a folder outside the roots it
recorded is never acted on nor removed: it is kept, and reported (:attr:`Recovery.rejected`, and
the log). Every folder is opened from ``/`` one component at a time without following a link,
and every action goes through a folder's descriptor, never by path. The journal folder is one
of editguard's state folders, which no tool reaches (:mod:`editguard.fs.state`).

Limits: the guarantee holds for editguard's own processes and for kill -9 or a crash of this
machine on a file system that keeps the order of renames and fsyncs (ext4, xfs, btrfs, apfs);
another program that writes one of the files during the commit is caught by the version checks
up to the last microseconds before each rename, not after. A journal whose folders cannot be
opened safely (a folder of the path became a symbolic link) is left for a later recovery, and
reported.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Literal

from editguard.errors import EditError, PermissionDenied, StaleVersion, WriteFailed, error_context
from editguard.fs import atomic
from editguard.fs.location import Location, is_link
from editguard.fs.lock import FileLocks
from editguard.fs.oserror import os_error
from editguard.fs.state import JOURNAL_ENV, journal_folder

ENV = JOURNAL_ENV
_SUFFIX = ".journal"
_NEW, _BAK = ".new", ".bak"
_KEY, _KEY_BYTES = "journal.key", 32
_KEY_TEMP = f".{_KEY}-"
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_log = logging.getLogger("editguard")
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def enough_descriptors(wanted: int) -> None:
    """Raise this process's soft limit of open files to ``wanted`` where the hard limit allows
    (a transaction holds a lock and a folder open for each of its files)."""
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource  # noqa: PLC0415 - POSIX only, and only a transaction needs it

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            top = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
            if top > soft:
                resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))


def default_folder() -> str:
    """Where journals live unless told otherwise: ``$EDITGUARD_JOURNAL``, else
    ``$XDG_STATE_HOME/editguard/journal``, else ``~/.local/state/editguard/journal``."""
    return journal_folder()


class _System:
    """The system calls the protocol makes, in one place, so that a test can make one of them
    fail (a full disk, an I/O error) at any step: the only reason this indirection exists."""

    fsync = staticmethod(os.fsync)
    link = staticmethod(os.link)
    rename = staticmethod(os.rename)
    unlink = staticmethod(os.unlink)
    write = staticmethod(os.write)
    mkdir = staticmethod(os.mkdir)


SYSTEM = _System()


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
class _Planned:
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
    def of(cls, data: object) -> _Planned:
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


class Journal:
    """The folder of journals: commits through it, and recovery of dead commits."""

    def __init__(self, folder: str | None = None) -> None:
        self.folder = os.path.abspath(folder) if folder else default_folder()

    # -- commit ---------------------------------------------------------------------------

    def commit(self, steps: Sequence[Step]) -> None:
        """Apply ``steps`` all together; on any failure none of them stays applied.

        Raises:
            StaleVersion: a file changed since it was read (named).
            PermissionDenied, WriteFailed, NotAFile: the system refused a step (named, with the
                step in data), or the journal folder cannot be used; nothing was changed.
        """
        if not steps:
            return
        folder = self._ready()
        try:
            key = self._key(folder)
            fd, path = self._create(folder)
        except BaseException:
            os.close(folder)
            raise
        sealed = _Sealed(fd, key, path)
        state = _Commit(steps, [_plan(step) for step in steps], sealed, folder, path, self.folder)
        roots = sorted({root for step in steps for root in step.location.sandbox.roots})
        try:
            state.write(
                {
                    "v": 2,
                    "pid": os.getpid(),
                    "roots": roots,
                    "steps": [p.record() for p in state.planned],
                }
            )
            state.sync_journal()
            state.prepare()
            state.write({"written": [list(p.inode or (0, 0)) for p in state.planned]})
            state.check_versions()
            state.run()
            state.sync_folders()
            state.write({"committed": True})
        except BaseException as exc:
            state.abort(exc)
            raise
        else:
            state.finish()
        finally:
            state.close()

    def _ready(self) -> int:
        """Create the journal folder owner-only (if needed), check it and open it.

        Raises:
            PermissionDenied, WriteFailed: it cannot be used safely.
        """
        try:
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            fd = os.open(self.folder, _DIR)
        except OSError as exc:
            raise self._unusable(f"it cannot be created or opened ({exc.strerror})", exc) from None
        st = os.fstat(fd)
        uid = os.getuid()
        problem = None
        if st.st_uid != uid:
            problem = f"it belongs to user {st.st_uid}, not to this user ({uid})"
        elif st.st_mode & 0o077:
            problem = f"others may use it (mode {stat.S_IMODE(st.st_mode):o})"
        if problem is not None:
            os.close(fd)
            raise self._unusable(problem)
        return fd

    def _key(self, folder: int) -> bytes:
        """This user's journal key, made at the first commit.

        Raises:
            PermissionDenied, WriteFailed: it cannot be made, or is not this user's alone.
        """
        try:
            key = _key(folder, create=True)
        except OSError as exc:
            raise self._unusable(f"its key cannot be made ({exc.strerror})", exc) from None
        except _Rejected as exc:
            raise self._unusable(str(exc)) from None
        if key is None:  # made, then removed at once by someone else
            raise self._unusable(f"its key {_KEY} vanished as it was made")
        return key

    def _unusable(self, why: str, exc: OSError | None = None) -> EditError:
        cls = (
            PermissionDenied
            if exc is None or exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
            else WriteFailed
        )
        return cls(
            f"the journal folder {self.folder} cannot be used: {why}; a change of several files "
            "needs it, so nothing was written",
            data={"journal": self.folder, "errno": exc.errno if exc else errno.EPERM},
            suggestions=[
                f"Give editguard a folder it owns for its journal: set {ENV}, or pass --journal "
                "(journal= in Python)."
            ],
        )

    def _create(self, folder: int) -> tuple[int, str]:
        """Create a journal and lock it (the caller closes ``folder``).

        Between the creation and the lock, another process's recovery may find the journal
        empty and unlocked, take it for one whose commit died before its intent, and remove it;
        a commit writing on into that removed journal could not be recovered after a crash. So
        the journal counts only once it is locked and its name still leads to it.
        """
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        for _ in range(100):
            name = f"{int(time.time() * 1000):x}-{secrets.token_hex(6)}{_SUFFIX}"
            try:
                fd = os.open(name, flags, 0o600, dir_fd=folder)
            except OSError as exc:
                raise self._unusable(
                    f"a journal cannot be created in it ({exc.strerror})", exc
                ) from None
            try:
                # Blocking: a recovery holds it only while it reads it.
                fcntl.flock(fd, fcntl.LOCK_EX)
                st = os.fstat(fd)
            except OSError as exc:
                os.close(fd)
                raise self._unusable(f"a journal cannot be locked ({exc.strerror})", exc) from None
            if _inode(folder, name) == (st.st_dev, st.st_ino):
                return fd, name
            os.close(fd)  # removed meanwhile by a recovery: make another
        raise self._unusable("every journal made in it was removed at once by another process")

    # -- recovery -------------------------------------------------------------------------

    def recover(
        self, locks: FileLocks | None = None, held: frozenset[str] = frozenset()
    ) -> Recovery:
        """Finish every dead commit: roll back the uncommitted, clean up the committed.

        Only journals that editguard wrote are acted on: each record carries an HMAC under this
        user's key (kept owner-only in the journal folder, which no tool reaches), chained to
        the record before it and to the journal's name; the folder and the journal must be this
        user's alone, and every folder a journal names must lie inside the roots it recorded.
        Any other journal (not sealed with the key, unreadable, naming anything odd) is
        ``rejected``: kept untouched, logged once per process, never acted on. With
        ``locks``, recovery holds the writers' locks of a journal's files while it restores
        them, waiting only briefly (a journal whose files another writer holds is kept, and
        its files are reported ``blocked``); ``held`` are files whose locks the caller holds
        itself. Never raises: a journal that cannot be recovered now is kept for the next time.
        """
        result = Recovery()
        try:
            folder = os.open(self.folder, _DIR)
        except OSError:
            return result  # no journal folder yet: nothing ever to recover
        try:
            if not _trusted(os.fstat(folder), 0o077):
                return result
            with os.scandir(folder) as entries:
                listed = [e.name for e in entries]
            for name in listed:
                if name.startswith(_KEY_TEMP):
                    _sweep_key(folder, name)
            names = sorted(n for n in listed if n.endswith(_SUFFIX))
            if not names:
                return result
            key = _recovery_key(folder)
            for name in names:
                _recover_one(folder, name, key, locks, held, result)
        finally:
            os.close(folder)
        for name, why in result.rejected.items():
            _report(os.path.join(self.folder, name), why)
        return result

    def rejected(self) -> dict[str, str]:
        """The journals that recovery does not act on (see :meth:`recover`), each with why.
        Only reads: nothing is locked, changed or removed. Never raises."""
        found: dict[str, str] = {}
        try:
            folder = os.open(self.folder, _DIR)
        except OSError:
            return found
        try:
            if not _trusted(os.fstat(folder), 0o077):
                return found
            with os.scandir(folder) as entries:
                names = sorted(e.name for e in entries if e.name.endswith(_SUFFIX))
            key = _recovery_key(folder) if names else ""
            for name in names:
                why = _verdict(folder, name, key)
                if why is not None:
                    found[name] = why
        except OSError:
            pass
        finally:
            os.close(folder)
        return found


def _recovery_key(folder: int) -> bytes | str:
    """The journal key in the open folder, or why there is none to trust."""
    try:
        return _key(folder, create=False) or "this user has no journal key yet"
    except (OSError, _Rejected) as exc:
        return str(exc)


def _verdict(folder: int, name: str, key: bytes | str) -> str | None:
    """Why recovery would not act on the journal ``name`` (None: it would, or it is gone)."""
    try:
        fd = os.open(name, _READ, dir_fd=folder)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _trusted(st, 0o022):
            return _UNTRUSTED
        sealed = _Sealed(fd, key if isinstance(key, bytes) else secrets.token_bytes(32), name)
        try:
            records = sealed.read()
            if records:
                _read_plan(records)
        except _Rejected as exc:
            return key if isinstance(key, str) else str(exc)
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            return _odd(exc)
    except OSError:
        pass
    finally:
        os.close(fd)
    return None


_UNTRUSTED = "it is not a file that only this user may write"


def _odd(exc: Exception) -> str:
    return f"it names what editguard never writes ({exc})"


@dataclasses.dataclass(slots=True)
class Recovery:
    """What one recovery did: the journals it finished, and the files named by dead journals
    it had to keep (their commit is neither rolled back nor finished yet)."""

    recovered: list[str] = dataclasses.field(default_factory=list)
    blocked: set[str] = dataclasses.field(default_factory=set)
    rejected: dict[str, str] = dataclasses.field(default_factory=dict)
    """Journals not acted on (not editguard's, unreadable, or naming folders outside their
    roots), each with why: kept, untouched, for a person to look at."""


_REPORTED: set[tuple[str, str]] = set()


def _report(path: str, why: str) -> None:
    """Log a rejected journal, once per process."""
    if (path, why) not in _REPORTED:
        _REPORTED.add((path, why))
        _log.warning(
            "editguard did not act on the journal %s: %s; it is kept for a person to look at",
            path,
            why,
        )


class _Rejected(Exception):  # a journal (or key) recovery must not trust; its message says why
    pass


def _key(folder: int, *, create: bool) -> bytes | None:
    """The key in the open journal folder ``folder`` (None when there is none and not
    ``create``): a regular file of this user's, that nobody else may read or write, of
    exactly its size. It is made whole under another name, then linked into place, so that no
    process ever reads half a key.

    Raises:
        OSError: the system refused.
        _Rejected: the key is there, but not this user's alone (or not a key).
    """
    for _ in range(3):
        try:
            fd = os.open(_KEY, _READ, dir_fd=folder)
        except FileNotFoundError:
            if not create:
                return None
            _make_key(folder)
            continue
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _Rejected(f"its key {_KEY} is a symbolic link") from None
            raise
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or not _trusted(st, 0o077):
                raise _Rejected(
                    f"its key {_KEY} is not a file only this user can use "
                    f"(owner {st.st_uid}, mode {stat.S_IMODE(st.st_mode):o})"
                )
            key = os.read(fd, _KEY_BYTES + 1)
        finally:
            os.close(fd)
        if len(key) != _KEY_BYTES:
            raise _Rejected(f"its key {_KEY} is not {_KEY_BYTES} bytes long")
        return key
    raise _Rejected(f"its key {_KEY} kept vanishing")


def _make_key(folder: int) -> None:
    """Make the key under a name of its own, whole, then link it into place (a key made by
    another process meanwhile wins). The temporary name is held with ``flock`` while it
    exists, so that a recovery removes it only once its maker is dead (:func:`_sweep_key`)."""
    temp = f"{_KEY_TEMP}{secrets.token_hex(6)}"
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
            os.link(temp, _KEY, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        with contextlib.suppress(OSError):
            os.fsync(folder)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=folder)
    finally:
        os.close(fd)


def _sweep_key(folder: int, name: str) -> None:
    """Remove a key's temporary name left by a process killed while it made the key."""
    try:
        fd = os.open(name, _READ, dir_fd=folder)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        st = os.fstat(fd)
        if _inode(folder, name) == (st.st_dev, st.st_ino):
            os.unlink(name, dir_fd=folder)
    except OSError:
        return  # held: its maker is alive
    finally:
        os.close(fd)


class _Sealed:
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
            _Rejected: a record is not sealed with the key, or is not a JSON object.
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
                raise _Rejected(f"record {len(out) + 1} is not sealed with this user's journal key")
            try:
                record = json.loads(body)
            except (ValueError, RecursionError):
                record = None
            if not isinstance(record, dict):
                raise _Rejected(f"record {len(out) + 1} is not a JSON object")
            out.append(record)
            self.last, self.end = mac, stop + 1
        return out


# How long recovery waits for a file's lock before it keeps the journal for later.
RECOVERY_WAIT = 0.2


class _Commit:
    """One commit in progress (see the module docstring for the protocol)."""

    def __init__(
        self,
        steps: Sequence[Step],
        planned: list[_Planned],
        sealed: _Sealed,
        journals: int,
        path: str,
        shown: str,
    ) -> None:
        self.steps, self.planned, self.sealed, self.fd = steps, planned, sealed, sealed.fd
        self.journals, self.path, self.shown = journals, path, shown
        # The folder each file is (or goes) in: its location's, or one this commit created.
        self.folders = [step.location.folder for step in steps]
        self.made: list[list[tuple[int, str]]] = [[] for _ in steps]  # (parent, name)
        self.opened: list[int] = []  # descriptors to close at the end
        self.seen: list[tuple[int, ...] | None] = [None] * len(steps)
        self.committed = False

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` to the journal, durably.

        Raises:
            PermissionDenied, WriteFailed: the system refused (the journal named, the record in
                ``step``).
        """
        try:
            self.sealed.append(record, SYSTEM.write, SYSTEM.fsync)
        except OSError as exc:
            raise self._refused(
                exc, "intent" if "steps" in record else next(iter(record))
            ) from None
        self.committed = "committed" in record

    def sync_journal(self) -> None:
        """Make the journal's name durable (its folder fsynced), so that a crash of the machine
        cannot lose the journal of a commit that has begun.

        Raises:
            PermissionDenied, WriteFailed: the system refused.
        """
        try:
            SYSTEM.fsync(self.journals)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise self._refused(exc, "intent") from None
            # A file system that cannot fsync a folder: its renames are as durable as it gets.

    def _refused(self, exc: OSError, step: str) -> EditError:
        err = os_error(exc, os.path.join(self.shown, self.path), "write the journal")
        err.data.update(step=step, journal=self.shown)
        return err

    def prepare(self) -> None:
        for index, (step, plan) in enumerate(zip(self.steps, self.planned, strict=True)):
            with _named(step, "prepare"):
                for name in step.location.missing:
                    self.folders[index] = self._make_folder(index, name, step)
                if step.kind == "write":
                    plan.inode = _write_new(self.folders[index], plan.new, step)

    def _make_folder(self, index: int, name: str, step: Step) -> int:
        parent = self.folders[index]
        try:
            SYSTEM.mkdir(name, 0o777, dir_fd=parent)
            self.made[index].append((parent, name))
        except FileExistsError:
            pass
        try:
            inner = os.open(name, _DIR, dir_fd=parent)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and is_link(parent, name):
                raise step.location.changed() from None
            raise
        self.opened.append(inner)
        return inner

    def check_versions(self) -> None:
        for index, step in enumerate(self.steps):
            with _named(step, "check"):
                now, seen = atomic.version_now(step.location, self.folders[index])
                if now != step.base_version:
                    raise StaleVersion(
                        atomic.race_message(step.display, step.base_version, now),
                        path=step.display,
                        data={"expected_version": step.base_version, "actual_version": now},
                        suggestions=["Re-read the file and send the change again."],
                    )
                self.seen[index] = atomic.identity(seen)

    def run(self) -> None:
        for index, (step, plan) in enumerate(zip(self.steps, self.planned, strict=True)):
            folder, name = self.folders[index], step.location.name
            with _named(step, "commit"):
                self._unchanged(index, step)
                if step.kind == "write" and not plan.existed:
                    try:
                        SYSTEM.link(plan.new, name, src_dir_fd=folder, dst_dir_fd=folder)
                    except FileExistsError:
                        raise StaleVersion(
                            atomic.race_message(step.display, None, "?"),
                            path=step.display,
                            data={"actual_version": "?"},
                        ) from None
                    SYSTEM.unlink(plan.new, dir_fd=folder)
                    continue
                _backup(folder, name, plan.backup)
                if step.kind == "write":
                    SYSTEM.rename(plan.new, name, src_dir_fd=folder, dst_dir_fd=folder)
                else:
                    SYSTEM.unlink(name, dir_fd=folder)

    def _unchanged(self, index: int, step: Step) -> None:
        """A last look at the file right before its step: same inode, size and times as when
        its content was checked."""
        try:
            last = os.lstat(step.location.name, dir_fd=self.folders[index])
        except FileNotFoundError:
            last = None
        if atomic.identity(last) != self.seen[index]:
            raise StaleVersion(
                f"{step.display} was changed by another process while this change was prepared",
                path=step.display,
                data={"expected_version": step.base_version},
                suggestions=["Re-read the file and send the change again."],
            )

    def sync_folders(self) -> None:
        seen: set[tuple[int, int]] = set()
        for index, step in enumerate(self.steps):
            # The file's folder, and each folder that gained a folder this commit created.
            for folder in [*(parent for parent, _ in self.made[index]), self.folders[index]]:
                st = os.fstat(folder)
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    with _named(step, "sync"):
                        SYSTEM.fsync(folder)

    def abort(self, exc: BaseException) -> None:
        """Roll back in this process; if that fails too, keep the journal for recovery."""
        if self.committed:
            self.finish()  # the commit point was passed: the change stands
            return
        try:
            for index in reversed(range(len(self.steps))):
                _roll_back(
                    self.folders[index], self.planned[index], self.steps[index].location.name
                )
                with contextlib.suppress(OSError):  # best effort: recovery checks inodes too
                    _mark_undone(self.sealed, index)
                for parent, name in reversed(self.made[index]):
                    with contextlib.suppress(OSError):
                        os.rmdir(name, dir_fd=parent)
            for folder in self.folders:
                with contextlib.suppress(OSError):
                    SYSTEM.fsync(folder)
            os.unlink(self.path, dir_fd=self.journals)
        except OSError:
            if isinstance(exc, EditError):
                exc.data["recovery"] = "pending"
                exc.message += (
                    "; the files could not all be restored at once: the next editguard start "
                    "restores them"
                )

    def finish(self) -> None:
        """After the commit point: remove the backups and the journal (what fails here is
        finished by the next recovery)."""
        for index, plan in enumerate(self.planned):
            if plan.existed:
                with contextlib.suppress(OSError):
                    os.unlink(plan.backup, dir_fd=self.folders[index])
        with contextlib.suppress(OSError):
            os.unlink(self.path, dir_fd=self.journals)

    def close(self) -> None:
        for fd in [self.fd, self.journals, *self.opened]:
            with contextlib.suppress(OSError):
                os.close(fd)


def _plan(step: Step) -> _Planned:
    where = step.location.where
    folder = os.path.dirname(where.real)
    for _ in step.location.missing:
        folder = os.path.dirname(folder)
    token = secrets.token_hex(4)
    return _Planned(
        step.kind,
        folder,
        list(step.location.missing),
        step.location.name,
        step.base_version is not None,
        f"{atomic.TEMP_PREFIX}{token}{_NEW}",
        f"{atomic.TEMP_PREFIX}{token}{_BAK}",
    )


@contextlib.contextmanager
def _named(step: Step, action: str) -> Iterator[None]:
    """Name the file (and what was being done) in an OSError that escapes."""
    try:
        with error_context(path=step.display):
            yield
    except OSError as exc:
        err = os_error(exc, step.display, "write" if action != "check" else "read")
        err.data["step"] = action
        raise err from None
    except EditError as exc:
        exc.data.setdefault("step", action)
        raise


def _write_new(folder: int, name: str, step: Step) -> tuple[int, int]:
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


def _backup(folder: int, name: str, backup: str) -> None:
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


def _inode(folder: int, name: str) -> tuple[int, int] | None:
    try:
        st = os.lstat(name, dir_fd=folder)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def _roll_back(folder: int, plan: _Planned, name: str) -> None:
    """Undo one step, judging by what is on disk (safe to run again after a crash)."""
    now = _inode(folder, name)
    has_backup = _inode(folder, plan.backup) is not None
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
    if _inode(folder, plan.new) is not None:
        SYSTEM.unlink(plan.new, dir_fd=folder)


def _clean(folder: int, plan: _Planned) -> None:
    """After the commit point: remove what is left of the backup and the new text."""
    for leftover in (plan.backup, plan.new):
        with contextlib.suppress(FileNotFoundError):
            SYSTEM.unlink(leftover, dir_fd=folder)


def _open_path(path: str) -> int:
    """Open the folder ``path`` from ``/``, one component at a time, following no link."""
    fd = os.open("/", _DIR)
    try:
        for part in path.strip("/").split("/") if path != "/" else []:
            inner = os.open(part, _DIR, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _trusted(st: os.stat_result, others: int) -> bool:
    """Whether this user owns ``st`` and nobody else has the ``others`` bits on it."""
    return st.st_uid == os.getuid() and not st.st_mode & others


def _recover_one(
    folder: int,
    name: str,
    key: bytes | str,
    locks: FileLocks | None,
    held: frozenset[str],
    result: Recovery,
) -> None:
    """Recover one journal unless its commit is alive (see :meth:`Journal.recover`); ``key``
    is the journal key, or why there is none to use."""
    try:
        fd = os.open(name, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _trusted(st, 0o022):
            result.rejected[name] = _UNTRUSTED
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # its commit is running
        if _inode(folder, name) != (st.st_dev, st.st_ino):
            # Its commit ended (and removed it) between our open and our lock: the files may
            # have changed since, even by another commit, so the journal must not be replayed.
            return
        # Without a usable key, no record can be authentic: a random one makes sure of it.
        sealed = _Sealed(fd, key if isinstance(key, bytes) else secrets.token_bytes(32), name)
        try:
            records = sealed.read()
            if not records:
                # Not one whole record: nothing was done before the intent was durable.
                os.unlink(name, dir_fd=folder)
                result.recovered.append(name)
                return
            planned, committed, undone = _read_plan(records)
        except _Rejected as exc:
            result.rejected[name] = f"{key}" if isinstance(key, str) else str(exc)
            return
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            result.rejected[name] = _odd(exc)
            return
        paths = {_path_of(p) for p in planned}
        try:
            with _holding(locks, paths - held):
                _recover_steps(planned, committed, undone, lambda i: _mark_undone(sealed, i))
            os.unlink(name, dir_fd=folder)
        except (OSError, EditError):
            result.blocked |= paths  # kept for the next recovery
            return
        with contextlib.suppress(OSError):
            os.fsync(folder)
        result.recovered.append(name)
    finally:
        os.close(fd)


def _path_of(plan: _Planned) -> str:
    return os.path.join(plan.folder, *plan.made, plan.name)


def _mark_undone(sealed: _Sealed, index: int) -> None:
    """Record that step ``index`` is rolled back, before anything else is: a step undone once
    is never judged again (its file's inode may since belong to a new file)."""
    sealed.append({"undone": index})


def _read_plan(records: list[dict[str, Any]]) -> tuple[list[_Planned], bool, set[int]]:
    """The steps of a journal, whether it committed, and the steps already undone.

    Raises:
        ValueError, TypeError, KeyError: a record is not as editguard writes it, or a step's
            folder lies outside the roots the journal recorded.
    """
    steps, roots = records[0]["steps"], records[0]["roots"]
    if not isinstance(steps, list):
        raise TypeError("steps is not a list")
    if not isinstance(roots, list) or not all(_is_real(r) for r in roots):
        raise ValueError("roots is not a list of real paths")
    planned = [_Planned.of(s) for s in steps]
    for plan in planned:
        if not any(_inside(plan.folder, root) for root in roots):
            raise ValueError(f"a step's folder {plan.folder} is outside the journal's roots")
    committed = any(r.get("committed") is True for r in records)
    written = next((r["written"] for r in records if "written" in r), None)
    if written is not None:
        if not isinstance(written, list):
            raise ValueError("written is not a list")
        for plan, inode in zip(planned, written, strict=False):
            if not (isinstance(inode, list) and len(inode) == 2):
                raise ValueError("an inode is not a pair")
            dev, ino = int(inode[0]), int(inode[1])
            plan.inode = (dev, ino) if ino else None
    undone = {r["undone"] for r in records if isinstance(r.get("undone"), int)}
    return planned, committed, undone


@contextlib.contextmanager
def _holding(locks: FileLocks | None, paths: set[str]) -> Iterator[None]:
    """Hold the writers' locks of a journal's files (sorted, as every writer takes them), so
    that no edit lands on a file while recovery puts it back; wait only briefly for each.

    Raises:
        FileBusy: another writer holds one of them.
    """
    if locks is None:
        yield
        return
    with contextlib.ExitStack() as stack:
        for path in sorted(paths):
            stack.enter_context(locks.hold(path, path, timeout=RECOVERY_WAIT))
        yield


def _recover_steps(
    planned: list[_Planned],
    committed: bool,
    undone: AbstractSet[int] = frozenset(),
    mark: Callable[[int], None] | None = None,
) -> None:
    for index in reversed(range(len(planned))):
        plan = planned[index]
        if index in undone:
            continue
        try:
            base = _open_path(plan.folder)
        except FileNotFoundError:
            continue  # the folder is gone: nothing of this step is left to undo
        try:
            folder, chain = _descend(base, plan.made)
            try:
                if committed:
                    _clean(folder, plan)
                else:
                    _roll_back(folder, plan, plan.name)
                with contextlib.suppress(OSError):
                    os.fsync(folder)
            finally:
                for fd in chain:
                    os.close(fd)
            if not committed:
                _remove_made(base, plan.made)
                if mark is not None:
                    mark(index)
        finally:
            os.close(base)


def _descend(base: int, made: Iterable[str]) -> tuple[int, list[int]]:
    """The folder a step's file is in (``base``, or the deepest of ``made`` that exists), and
    the descriptors opened to get there."""
    fd, chain = base, list[int]()
    for name in made:
        try:
            inner = os.open(name, _DIR, dir_fd=fd)
        except FileNotFoundError:
            return fd, chain  # never made: no file of this step below it
        chain.append(inner)
        fd = inner
    return fd, chain


def _remove_made(base: int, made: list[str]) -> None:
    """Remove the folders a step made below ``base`` while they are empty, innermost first,
    each through its parent's descriptor (a folder swapped for a link is not followed)."""
    if not made:
        return
    parents = [base]  # parents[i] holds made[i]
    try:
        for name in made[:-1]:
            try:
                parents.append(os.open(name, _DIR, dir_fd=parents[-1]))
            except OSError:
                break
        for index in reversed(range(len(parents))):
            with contextlib.suppress(OSError):
                os.rmdir(made[index], dir_fd=parents[index])
    finally:
        for fd in parents[1:]:
            os.close(fd)


def _is_real(path: object) -> bool:
    """Whether ``path`` is an absolute, normal path (as the sandbox records a root)."""
    return (
        isinstance(path, str)
        and "\x00" not in path
        and os.path.isabs(path)
        and (os.path.normpath(path) == path or path == "//")
    )


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
