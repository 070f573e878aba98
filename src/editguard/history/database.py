"""The history's SQLite databases in this process: opened once, shared, given back to the disk.

One connection per database serves the process's threads in turn, under one lock per database
(:func:`lock_of`); a connection never crosses a fork. At most :data:`MAX_OPEN` stay open (each
holds three descriptors): the least recently opened one goes, when no thread uses it.

What retention frees goes back to the disk, in every process, however it ends: the database
uses incremental auto-vacuum, so that free pages past a small reserve are given back after a
write; after a write that leaves the write-ahead log longer than :data:`WAL_LIMIT`, the log is
checkpointed into the database and truncated (:func:`tidy`); and each process checkpoints and
truncates it when it closes the database or exits. (A process that exits without doing so
leaves the log to the next, which must read all of it to open the database and cannot reuse it:
one ``editguard call`` after another grew it without bound, and made each open slower.) A
checkpoint never waits for another process: one that cannot finish now is left to the next
write or close. The files on disk (database, ``-wal``, ``-shm``) thus stay within the store's
``max_bytes`` plus the newest entry and a constant of about :data:`WAL_LIMIT` and
:data:`FREE_RESERVE`.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

BUSY_TIMEOUT = 30.0  # seconds another process may hold the database's write lock
WAL_LIMIT = 512 * 1024  # bytes of write-ahead log past which a write checkpoints it
FREE_RESERVE = 64  # free pages kept for the next entries; more go back to the disk
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


def lock_of(path: str) -> threading.RLock:
    """The lock under which this process's threads use the database at ``path``, one each."""
    with _SHARED_LOCK:
        return _LOCKS.setdefault(path, threading.RLock())


def shared(path: str) -> sqlite3.Connection | None:
    """This process's open connection to the database at ``path``, if any."""
    found = _OPEN.get(path)
    # A connection must not cross a fork: a child opens its own (and leaves the parent's).
    if found is not None and found[0] == os.getpid():
        return found[1]
    return None


def connect(path: str, roots: Sequence[str], *, fresh: bool) -> sqlite3.Connection:
    """Open the database at ``path`` (a file that only this user can use; ``fresh``: still
    empty), in WAL mode, with its tables made or brought up to date.

    Raises:
        sqlite3.Error: the database cannot be used.
    """
    import sqlite3  # noqa: PLC0415 - only a process that writes or asks needs it

    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
    if fresh:
        # Before WAL mode writes the header, so that a new database gives freed pages
        # back (an older one is converted once, below; asking every time costs ms).
        db.execute(f"PRAGMA auto_vacuum={_INCREMENTAL}")
    db.execute("PRAGMA journal_mode=WAL")
    # A log that is restarted is also cut back to this size.
    db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
    # In WAL mode, NORMAL never corrupts; a power cut may lose the last entries.
    db.execute("PRAGMA synchronous=NORMAL")
    with write(db):
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
            ("\n".join(roots).encode("utf-8", "surrogateescape"),),
        )
    if db.execute("PRAGMA auto_vacuum").fetchone()[0] != _INCREMENTAL:
        db.execute(f"PRAGMA auto_vacuum={_INCREMENTAL}")
        db.execute("VACUUM")  # made before auto-vacuum: converted once
    return db


def keep(path: str, db: sqlite3.Connection) -> None:
    """Share ``db`` as this process's connection to ``path`` (closing spare ones)."""
    with _SHARED_LOCK:
        _OPEN[path] = (os.getpid(), db)
    _close_spare(path)


def close(path: str) -> None:
    """Close this process's connection to ``path`` (the caller holds its lock)."""
    with _SHARED_LOCK:
        found = _OPEN.pop(path, None)
        if found is not None and found[0] == os.getpid():
            _shut(found[1])


def tidy(db: sqlite3.Connection, path: str) -> None:
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
            log = os.stat(path + "-wal").st_size
            if log > WAL_LIMIT:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except (sqlite3.Error, OSError):
            pass


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
def write(db: sqlite3.Connection) -> Iterator[None]:
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
