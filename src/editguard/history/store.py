"""The durable record of every change editguard commits: one SQLite database per set of roots.

Each change (one tool call that wrote: an edit, a batch, a patch, an undo) is one entry: an id,
the time, the tool, the client that asked for it (an MCP client's name and version from its
``initialize`` request, ``cli`` or ``python``), and one record per path it touched, with what
is needed to take it back (:mod:`editguard.core.delta`). The database lives outside the
project, in the user's state folder (``$EDITGUARD_HISTORY``, else
``$XDG_STATE_HOME/editguard/history``, else ``~/.local/state/editguard/history``), owner-only,
in WAL mode so that several servers and command-line calls on the same roots share it safely.
Retention keeps at most ``max_entries`` entries and ``max_bytes`` of stored changes; the oldest
go first.

What retention frees goes back to the disk, in every process, however it ends: the database
uses incremental auto-vacuum, so that free pages past a small reserve are given back after a
write; after a write that leaves the write-ahead log longer than :data:`WAL_LIMIT`, the log is
checkpointed into the database and truncated; and each process checkpoints and truncates it
when it closes the database or exits. (A process that exits without doing so leaves the log to
the next, which must read all of it to open the database and cannot reuse it: one ``editguard
call`` after another grew it without bound, and made each open slower.) A checkpoint never
waits for another process: one that cannot finish now is left to the next write or close.
The files on disk (database, ``-wal``, ``-shm``) thus stay within ``max_bytes`` plus the
newest entry and a constant of about :data:`WAL_LIMIT` and :data:`FREE_RESERVE`.

An entry is recorded while the writer still holds its files' locks, so the entries of one file
are in the order its changes were made.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import errno
import hashlib
import os
import stat
import threading
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, overload

from editguard.errors import ChangeNotFound, EditError, PermissionDenied, WriteFailed
from editguard.fs.state import HISTORY_ENV, history_folder

if TYPE_CHECKING:
    import sqlite3

ENV = HISTORY_ENV
DEFAULT_ENTRIES = 10_000
DEFAULT_BYTES = 256 * 1024 * 1024
BUSY_TIMEOUT = 30.0  # seconds another process may hold the database's write lock
WAL_LIMIT = 512 * 1024  # bytes of write-ahead log past which a write checkpoints it
FREE_RESERVE = 64  # free pages kept for the next entries; more go back to the disk

Action = Literal["created", "updated", "deleted", "moved"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time REAL NOT NULL,
    tool TEXT NOT NULL,
    undoes TEXT NOT NULL DEFAULT '',
    undone_by INTEGER,
    bytes INTEGER NOT NULL,
    pending INTEGER NOT NULL DEFAULT 0,
    client TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS files (
    change INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    path BLOB NOT NULL,
    real BLOB NOT NULL,
    action TEXT NOT NULL,
    moved BLOB,
    base BLOB,
    before_version TEXT,
    after_version TEXT,
    before_mode INTEGER,
    after_mode INTEGER,
    added INTEGER NOT NULL,
    removed INTEGER NOT NULL,
    diff BLOB NOT NULL,
    restore BLOB,
    PRIMARY KEY (change, seq)
);
CREATE INDEX IF NOT EXISTS files_real ON files (real, change);
CREATE INDEX IF NOT EXISTS changes_pending ON changes (pending) WHERE pending = 1;
"""


# The open databases of this process, by path: (the process that opened it, the connection).
_OPEN: dict[str, tuple[int, sqlite3.Connection]] = {}
# At most this many stay open (each holds three descriptors); the least recently opened goes.
MAX_OPEN = 8
_LOCKS: dict[str, threading.RLock] = {}
_SHARED_LOCK = threading.Lock()


def default_folder() -> str:
    """Where histories live unless told otherwise: ``$EDITGUARD_HISTORY``, else
    ``$XDG_STATE_HOME/editguard/history``, else ``~/.local/state/editguard/history``."""
    return history_folder()


@dataclasses.dataclass(frozen=True, slots=True)
class FileRecord:
    """What one change did to one path.

    Attributes:
        path: as messages show it (relative to its root).
        real: the resolved path, which identifies the file.
        action: ``created``, ``updated``, ``deleted``, or ``moved`` (on the move's both ends:
            ``moved`` names the other end; the old path's record has no ``after_version``).
        before_version, after_version: the file's version before and after (``None``: absent).
        before_mode, after_mode: its permission bits before and after (``None``: absent, or
            not known for a file this change created).
        added, removed: lines, as the diff counts them.
        diff: the unified diff of the change (capped like a result's).
        restore: how to get the bytes before back (:func:`editguard.core.delta.unpack`):
            the whole old bytes, or the deltas to take back from ``base``'s bytes after the
            change; ``None`` when the file did not exist before.
        base: the real path whose bytes after the change ``restore`` applies to (the move's
            new path for a moved file); ``None``: this path itself.
    """

    path: str
    real: str
    action: Action
    before_version: str | None
    after_version: str | None
    before_mode: int | None
    after_mode: int | None
    added: int
    removed: int
    diff: str
    restore: bytes | None = None
    base: str | None = None
    moved: str | None = None

    @property
    def size(self) -> int:
        """What the record costs in the database, roughly."""
        return len(self.diff) + len(self.restore or b"") + len(self.path) + len(self.real) + 64


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """One recorded change."""

    id: int
    time: float
    tool: str
    files: tuple[FileRecord, ...]
    undoes: tuple[int, ...] = ()
    undone_by: int | None = None
    client: str = ""  # who asked for it: an MCP client's name and version, "cli", "python"


class History:
    """The history of the changes made inside one set of roots.

    Args:
        roots: the allowed folders (resolved); they pick the database.
        folder: where databases live (default: :func:`default_folder`).
        max_entries, max_bytes: retention; the oldest entries go first.

    The database is opened on first use; one connection serves the process's threads in turn.
    """

    def __init__(
        self,
        roots: Sequence[str],
        folder: str | None = None,
        *,
        max_entries: int = DEFAULT_ENTRIES,
        max_bytes: int = DEFAULT_BYTES,
    ) -> None:
        if max_entries < 1 or max_bytes < 1:
            raise ValueError("history retention must keep at least one entry and one byte")
        self.roots = tuple(sorted(roots))
        self.folder = os.path.abspath(folder) if folder is not None else default_folder()
        key = hashlib.sha256("\0".join(self.roots).encode("utf-8", "surrogateescape"))
        self.path = os.path.join(self.folder, f"{key.hexdigest()[:24]}.sqlite3")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        with _SHARED_LOCK:
            # Every History of one database in this process shares one connection and its lock.
            self._lock = _LOCKS.setdefault(self.path, threading.RLock())

    def __repr__(self) -> str:
        return f"History({self.path!r})"

    # -- opening -------------------------------------------------------------------------

    def ready(self) -> None:
        """Open the database now, so that a history that cannot be used refuses a change
        before anything is written.

        Raises:
            PermissionDenied, WriteFailed: naming the database, with how to move or turn off
                the history.
        """
        with self._lock:
            self._connection()

    def _connection(self) -> sqlite3.Connection:
        shared = _OPEN.get(self.path)
        # A connection must not cross a fork: a child opens its own (and leaves the parent's).
        if shared is not None and shared[0] == os.getpid():
            return shared[1]
        import sqlite3  # noqa: PLC0415 - only a process that writes or asks needs it

        self._check_folder()
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise self._unusable(f"it cannot be opened ({exc.strerror})", exc) from None
        try:
            st = os.fstat(fd)
        finally:
            os.close(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise self._unusable(
                f"it is not a file that only this user can use (mode {stat.S_IMODE(st.st_mode):o})"
            )
        try:
            db = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
            )
            if st.st_size == 0:
                # Before WAL mode writes the header, so that a new database gives freed pages
                # back (an older one is converted once, below; asking every time costs ms).
                db.execute(f"PRAGMA auto_vacuum={_INCREMENTAL}")
            db.execute("PRAGMA journal_mode=WAL")
            # A log that is restarted is also cut back to this size.
            db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
            # In WAL mode, NORMAL never corrupts; a power cut may lose the last entries.
            db.execute("PRAGMA synchronous=NORMAL")
            with _write(db):
                for statement in _SCHEMA.split(";"):
                    if "changes_pending" in statement:
                        # A database made before entries could be pending, or named their
                        # client, gets the columns.
                        columns = {r[1] for r in db.execute("PRAGMA table_info(changes)")}
                        for column, kind in _ADDED_COLUMNS:
                            if column not in columns:
                                db.execute(f"ALTER TABLE changes ADD COLUMN {column} {kind}")
                    if statement.strip():
                        db.execute(statement)
                db.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('roots', ?), ('entries', 0), ('bytes', 0)",
                    ("\n".join(self.roots).encode("utf-8", "surrogateescape"),),
                )
            if db.execute("PRAGMA auto_vacuum").fetchone()[0] != _INCREMENTAL:
                db.execute(f"PRAGMA auto_vacuum={_INCREMENTAL}")
                db.execute("VACUUM")  # made before auto-vacuum: converted once
        except sqlite3.Error as exc:
            raise self._unusable(f"the database cannot be used ({exc})") from None
        with _SHARED_LOCK:
            _OPEN[self.path] = (os.getpid(), db)
        _close_spare(self.path)
        return db

    def _check_folder(self) -> None:
        try:
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            st = os.stat(self.folder)
        except OSError as exc:
            raise self._unusable(f"its folder cannot be created ({exc.strerror})", exc) from None
        if st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise self._unusable(
                f"its folder {self.folder} is not this user's alone "
                f"(owner {st.st_uid}, mode {stat.S_IMODE(st.st_mode):o})"
            )

    def _unusable(self, why: str, exc: OSError | None = None) -> EditError:
        cls = (
            PermissionDenied
            if exc is None or exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
            else WriteFailed
        )
        return cls(
            f"the history database {self.path} cannot be used: {why}; nothing was written",
            data={"history": self.path},
            suggestions=[
                f"Give editguard a folder it owns for its history: set {ENV}, or pass --history "
                "DIR (history= in Python); or turn the history off with --no-history."
            ],
        )

    def close(self) -> None:
        """Close the database (for every History of it in this process; it is opened again
        when needed)."""
        with self._lock, _SHARED_LOCK:
            shared = _OPEN.pop(self.path, None)
            if shared is not None and shared[0] == os.getpid():
                _shut(shared[1])

    # -- writing -------------------------------------------------------------------------

    def record(
        self,
        tool: str,
        files: Sequence[FileRecord],
        undoes: Sequence[int] = (),
        *,
        client: str = "",
    ) -> int:
        """Record one change (already made), asked for by ``client``; returns its id. Entries
        past the retention limits go.

        Raises:
            WriteFailed: the database refused (disk full, locked past the timeout).
        """
        return self._write_entry(tool, files, undoes, pending=False, client=client)

    @contextmanager
    def recording(
        self,
        tool: str,
        files: Sequence[FileRecord],
        undoes: Sequence[int] = (),
        *,
        client: str = "",
    ) -> Iterator[int]:
        """Record one change made by the ``with`` block: the entry is committed first, as
        pending (so a history that cannot record refuses before anything changes, and a change
        whose process dies is found again, see :meth:`pending`); it counts once the block ends,
        and is dropped if the block raises. Yields the entry's id.

        Raises:
            WriteFailed: the database refused before the block (nothing was made).
        """
        change = self._write_entry(tool, files, undoes, pending=True, client=client)
        try:
            yield change
        except BaseException:
            with contextlib.suppress(EditError):
                self.settle(change, done=False)
            raise
        # If this fails (disk full), the entry stays pending and is settled later.
        with contextlib.suppress(EditError):
            self.settle(change, done=True)

    def _write_entry(
        self,
        tool: str,
        files: Sequence[FileRecord],
        undoes: Sequence[int],
        *,
        pending: bool,
        client: str = "",
    ) -> int:
        size = sum(f.size for f in files) + len(client)
        rows = [_row(f) for f in files]
        with self._lock, self._guard("record the change"):
            db = self._connection()
            with _write(db):
                change = self._insert(db, tool, rows, size, undoes, pending, client)
            self._tidy(db)
            return change

    def settle(self, change: int, *, done: bool) -> None:
        """End a pending entry: it counts (``done``; the changes it undoes are marked), or it
        goes (its change was not made).

        Raises:
            WriteFailed: the database refused.
        """
        with self._lock, self._guard("record the change"):
            db = self._connection()
            with _write(db):
                row = db.execute(
                    "SELECT undoes, bytes FROM changes WHERE id = ? AND pending = 1", (change,)
                ).fetchone()
                if row is None:
                    return
                if done:
                    db.execute("UPDATE changes SET pending = 0 WHERE id = ?", (change,))
                    try:
                        undoes = _ids(row[0])
                    except ValueError:
                        undoes = ()  # a damaged list: the entry counts, marking nothing
                    db.executemany(
                        "UPDATE changes SET undone_by = ? WHERE id = ?",
                        [(change, u) for u in undoes],
                    )
                    return
                db.execute("DELETE FROM files WHERE change = ?", (change,))
                db.execute("DELETE FROM changes WHERE id = ?", (change,))
                db.execute("UPDATE meta SET value = value - 1 WHERE key = 'entries'")
                db.execute("UPDATE meta SET value = value - ? WHERE key = 'bytes'", (row[1],))
            self._tidy(db)

    def _tidy(self, db: sqlite3.Connection) -> None:
        """After a write (committed): give free pages past :data:`FREE_RESERVE` back to the
        disk, and checkpoint a write-ahead log longer than :data:`WAL_LIMIT` (see the module
        docstring). Housekeeping: it never waits for another process and never fails the
        write; what it cannot do now, the next write does."""
        import sqlite3  # noqa: PLC0415

        with _not_waiting(db):
            try:
                free = int(db.execute("PRAGMA freelist_count").fetchone()[0])
                if free > FREE_RESERVE:
                    # One page per step, and execute() takes only the first: executescript
                    # runs it to the end (no transaction is open: nothing else is committed).
                    db.executescript(f"PRAGMA incremental_vacuum({free - FREE_RESERVE})")
                log = os.stat(self.path + "-wal").st_size
                if log > WAL_LIMIT:
                    db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except (sqlite3.Error, OSError):
                pass

    def pending(self) -> list[Entry]:
        """Entries whose change may or may not have been made (its process died, or the
        database refused to confirm it), oldest first, without diffs."""
        with self._lock, self._guard("read the history"):
            db = self._connection()
            ids = [r[0] for r in db.execute("SELECT id FROM changes WHERE pending = 1 ORDER BY id")]
            return self._load(db, ids, full=False, pending=True)

    def _insert(
        self,
        db: sqlite3.Connection,
        tool: str,
        rows: list[tuple[Any, ...]],
        size: int,
        undoes: Sequence[int],
        pending: bool = False,
        client: str = "",
    ) -> int:
        # Room is made first, so that the new entry reuses the pages of those it replaces.
        self._prune(db, size)
        cur = db.execute(
            "INSERT INTO changes (time, tool, undoes, bytes, pending, client) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (time.time(), tool, ",".join(map(str, undoes)), size, int(pending), client),
        )
        change = cur.lastrowid
        assert change is not None
        db.executemany(
            "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(change, seq, *row) for seq, row in enumerate(rows)],
        )
        if undoes and not pending:
            db.executemany(
                "UPDATE changes SET undone_by = ? WHERE id = ?", [(change, u) for u in undoes]
            )
        db.execute("UPDATE meta SET value = value + 1 WHERE key = 'entries'")
        db.execute("UPDATE meta SET value = value + ? WHERE key = 'bytes'", (size,))
        return change

    def _prune(self, db: sqlite3.Connection, incoming: int) -> None:
        """Drop the oldest entries until one more of ``incoming`` bytes fits the retention
        limits (inside the write); the entry about to be recorded always stays."""
        entries, total = _meta(db)

        def over() -> bool:
            full = total + incoming > self.max_bytes and entries > 0
            return entries >= self.max_entries or full

        while over():
            last = None
            for change, size in db.execute(
                "SELECT id, bytes FROM changes ORDER BY id LIMIT 500"
            ).fetchall():
                if not over():
                    break
                entries, total, last = entries - 1, total - size, change
            if last is None:
                break
            db.execute("DELETE FROM files WHERE change <= ?", (last,))
            db.execute("DELETE FROM changes WHERE id <= ?", (last,))
        db.execute("UPDATE meta SET value = ? WHERE key = 'entries'", (entries,))
        db.execute("UPDATE meta SET value = ? WHERE key = 'bytes'", (total,))

    # -- reading -------------------------------------------------------------------------

    def entries(
        self, real: str | None = None, limit: int = 20, *, before: int | None = None
    ) -> list[Entry]:
        """The latest entries, newest first: all of them, or those that touched ``real``;
        ``before``: only entries older than that id. Records carry no diff or restore data
        (see :meth:`entry`)."""
        with self._lock, self._guard("read the history"):
            db = self._connection()
            upper = before if before is not None else 1 << 62
            if real is None:
                ids = [
                    r[0]
                    for r in db.execute(
                        "SELECT id FROM changes WHERE id < ? AND pending = 0 "
                        "ORDER BY id DESC LIMIT ?",
                        (upper, limit),
                    )
                ]
            else:
                ids = [
                    r[0]
                    for r in db.execute(
                        "SELECT DISTINCT change FROM files JOIN changes ON change = id "
                        "WHERE real = ? AND change < ? AND pending = 0 "
                        "ORDER BY change DESC LIMIT ?",
                        (_blob(real), upper, limit),
                    )
                ]
            return self._load(db, ids, full=False)

    def entry(self, change: int, *, full: bool = True) -> Entry | None:
        """The entry with id ``change``, with each file's diff and restore data (unless not
        ``full``)."""
        with self._lock, self._guard("read the history"):
            db = self._connection()
            found = self._load(db, [change], full=full)
            return found[0] if found else None

    def later(self, real: str, change: int, *, limit: int = -1, full: bool = True) -> list[Entry]:
        """The entries after ``change`` that touched ``real``, oldest first (at most
        ``limit``; -1: all), in full unless told not."""
        with self._lock, self._guard("read the history"):
            db = self._connection()
            ids = [
                r[0]
                for r in db.execute(
                    "SELECT DISTINCT change FROM files JOIN changes ON change = id "
                    "WHERE real = ? AND change > ? AND pending = 0 ORDER BY change LIMIT ?",
                    (_blob(real), change, limit),
                )
            ]
            return self._load(db, ids, full=full)

    def stats(self) -> tuple[int, int]:
        """How many entries the history holds, and their stored bytes."""
        with self._lock, self._guard("read the history"):
            return _meta(self._connection())

    def _load(
        self, db: sqlite3.Connection, ids: list[int], *, full: bool, pending: bool = False
    ) -> list[Entry]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        heads = {
            r[0]: r
            for r in db.execute(
                f"SELECT id, time, tool, undoes, undone_by, client FROM changes "  # noqa: S608
                f"WHERE id IN ({marks}) AND pending = ?",
                [*ids, int(pending)],
            )
        }
        columns = "change, path, real, action, moved, base, before_version, after_version, "
        columns += "before_mode, after_mode, added, removed"
        columns += ", diff, restore" if full else ""
        files: dict[int, list[FileRecord]] = {i: [] for i in heads}
        out = []
        try:
            for row in db.execute(
                f"SELECT {columns} FROM files WHERE change IN ({marks}) ORDER BY change, seq",  # noqa: S608
                ids,
            ):
                if row[0] in files:
                    files[row[0]].append(_record(row[1:], full))
            for i in ids:
                if i in heads:
                    _, when, tool, undoes, undone_by, client = heads[i]
                    undone = _number(undone_by, 1 << 62, optional=True)
                    entry = Entry(
                        i,
                        _time(when),
                        _tool(tool),
                        tuple(files[i]),
                        _ids(undoes),
                        undone,
                        _tool(client),
                    )
                    out.append(entry)
        except (ValueError, TypeError, OverflowError, zlib.error, UnicodeError) as exc:
            raise ChangeNotFound(
                f"the history database {self.path} holds a damaged record ({exc})",
                data={"history": self.path},
                suggestions=["Move the database aside to start a new history."],
            ) from None
        return out

    @contextmanager
    def _guard(self, what: str) -> Iterator[None]:
        import sqlite3  # noqa: PLC0415

        try:
            yield
        except sqlite3.Error as exc:
            raise WriteFailed(
                f"the history database {self.path} could not {what}: {exc}",
                data={"history": self.path},
            ) from None


def _close_spare(keep: str) -> None:
    """Close the oldest open databases past :data:`MAX_OPEN` (a server whose clients' roots
    change, a test suite), each only while no thread uses it."""
    with _SHARED_LOCK:
        spare = [path for path in _OPEN if path != keep][: max(0, len(_OPEN) - MAX_OPEN)]
    for path in spare:
        _close_idle(path)  # one in use goes another time


def _close_idle(path: str) -> None:
    """Close the database at ``path`` unless a thread is using it."""
    lock = _LOCKS.get(path)
    if lock is None or not lock.acquire(blocking=False):
        return
    try:
        with _SHARED_LOCK:
            shared = _OPEN.pop(path, None)
        if shared is not None and shared[0] == os.getpid():
            _shut(shared[1])
    finally:
        lock.release()


@contextmanager
def _not_waiting(db: sqlite3.Connection) -> Iterator[None]:
    """Within the block, a statement that another process's lock blocks fails at once."""
    db.execute("PRAGMA busy_timeout=0")
    try:
        yield
    finally:
        db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT * 1000)}")


def _shut(db: sqlite3.Connection) -> None:
    """Close a connection, leaving no write-ahead log behind (unless another process is using
    the database at this instant: it is then left for the next write or close)."""
    import sqlite3  # noqa: PLC0415

    with contextlib.suppress(sqlite3.Error), _not_waiting(db):
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    db.close()


@atexit.register
def _close_all() -> None:
    """At exit, close this process's databases, so that a short process (one ``editguard
    call``) leaves no log behind for the next to read. A database a thread is still using is
    left as it is."""
    for path in list(_OPEN):
        _close_idle(path)


@contextmanager
def _write(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taking the database's write lock at once (so that two
    processes queue instead of failing to upgrade a read lock)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


_INCREMENTAL = 2  # PRAGMA auto_vacuum's value for incremental
# Columns of ``changes`` added since the first databases were made (ALTER TABLE adds them).
_ADDED_COLUMNS = (("pending", "INTEGER NOT NULL DEFAULT 0"), ("client", "TEXT NOT NULL DEFAULT ''"))


def _time(value: object) -> float:
    """A stored time (seconds since the epoch, within what a date can show).

    Raises:
        ValueError: not such a time.
    """
    when = float(value)  # type: ignore[arg-type]
    if not 0 <= when < 1e11:
        raise ValueError(f"a time of {value}")
    return when


def _ids(text: str) -> tuple[int, ...]:
    """Change ids as stored (``"3,4"``).

    Raises:
        ValueError: not such a list.
    """
    return tuple(int(u) for u in str(text).split(",") if u)


def _meta(db: sqlite3.Connection) -> tuple[int, int]:
    values = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('entries', 'bytes')"))
    return int(values.get("entries", 0)), int(values.get("bytes", 0))


def _blob(path: str) -> bytes:
    """A path as stored: its bytes (a name need not be UTF-8)."""
    return os.fsencode(path)


def _row(f: FileRecord) -> tuple[Any, ...]:
    return (
        _blob(f.path),
        _blob(f.real),
        f.action,
        _blob(f.moved) if f.moved is not None else None,
        _blob(f.base) if f.base is not None else None,
        f.before_version,
        f.after_version,
        f.before_mode,
        f.after_mode,
        f.added,
        f.removed,
        zlib.compress(f.diff.encode("utf-8", "surrogatepass"), 1),
        f.restore,
    )


_ACTIONS = ("created", "updated", "deleted", "moved")


def _record(row: Sequence[Any], full: bool) -> FileRecord:
    """One stored file record, each column checked for its type.

    Raises:
        ValueError: a column that does not hold what it should (a damaged database).
    """
    path, real, action, moved, base, bv, av, bm, am, added, removed = row[:11]
    if action not in _ACTIONS:
        raise ValueError(f"an action of {action!r}")
    diff, restore = "", None
    if full:
        diff = zlib.decompress(_bytes(row[11])).decode("utf-8", "surrogatepass")
        restore = _bytes(row[12]) if row[12] is not None else None
    return FileRecord(
        path=os.fsdecode(_bytes(path)),
        real=os.fsdecode(_bytes(real)),
        action=action,
        before_version=_text(bv),
        after_version=_text(av),
        before_mode=_number(bm, 0o7777, optional=True),
        after_mode=_number(am, 0o7777, optional=True),
        added=_number(added, 1 << 62),
        removed=_number(removed, 1 << 62),
        diff=diff,
        restore=restore,
        base=os.fsdecode(_bytes(base)) if base is not None else None,
        moved=os.fsdecode(_bytes(moved)) if moved is not None else None,
    )


def _bytes(value: object) -> bytes:
    """A stored blob. Raises ValueError for anything else."""
    if not isinstance(value, bytes):
        raise ValueError(f"{type(value).__name__} where bytes belong")  # noqa: TRY004
    return value


def _tool(value: object) -> str:
    """A stored tool or client name. Raises ValueError for anything else."""
    if not isinstance(value, str):
        raise ValueError(f"a name of {value!r}")  # noqa: TRY004
    return value


def _text(value: object) -> str | None:
    """A stored version (text or NULL). Raises ValueError for anything else."""
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{type(value).__name__} where a version belongs")
    return value


@overload
def _number(value: object, most: int, *, optional: Literal[True]) -> int | None: ...
@overload
def _number(value: object, most: int, *, optional: Literal[False] = ...) -> int: ...
def _number(value: object, most: int, *, optional: bool = False) -> int | None:
    """A stored count, mode or id in ``0..most`` (or NULL, when ``optional``).

    Raises:
        ValueError: anything else.
    """
    if value is None and optional:
        return None
    if type(value) is not int or not 0 <= value <= most:
        raise ValueError(f"{value!r} where a number up to {most} belongs")
    return value
