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

What retention frees goes back to the disk, and how one connection is shared by a process's
threads, is :mod:`editguard.history.database`; the rows, :mod:`editguard.history.rows`.

An entry is recorded while the writer still holds its files' locks, so the entries of one file
are in the order its changes were made.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from editguard.errors import ChangeNotFound, EditError, PermissionDenied, WriteFailed
from editguard.fs.state import HISTORY_ENV, history_folder
from editguard.history import database
from editguard.history.rows import (
    Action,
    Entry,
    FileRecord,
    blob,
    entry_of,
    ids_of,
    record_of,
    row_of,
)

__all__ = [
    "DEFAULT_BYTES",
    "DEFAULT_ENTRIES",
    "ENV",
    "Action",
    "Entry",
    "FileRecord",
    "History",
    "default_folder",
]

if TYPE_CHECKING:
    import sqlite3

ENV = HISTORY_ENV
DEFAULT_ENTRIES = 10_000
DEFAULT_BYTES = 256 * 1024 * 1024


def default_folder() -> str:
    """Where histories live unless told otherwise: ``$EDITGUARD_HISTORY``, else
    ``$XDG_STATE_HOME/editguard/history``, else ``~/.local/state/editguard/history``."""
    return history_folder()


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
        # Every History of one database in this process shares one connection and its lock.
        self._lock = database.lock_of(self.path)

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
        db = database.shared(self.path)
        if db is not None:
            return db
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
            db = database.connect(self.path, self.roots, fresh=st.st_size == 0)
        except sqlite3.Error as exc:
            raise self._unusable(f"the database cannot be used ({exc})") from None
        database.keep(self.path, db)
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
        with self._lock:
            database.close(self.path)

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
        rows = [row_of(f) for f in files]
        with self._lock, self._guard("record the change"):
            db = self._connection()
            with database.write(db):
                change = self._insert(db, tool, rows, size, undoes, pending, client)
            database.tidy(db, self.path)
            return change

    def settle(self, change: int, *, done: bool) -> None:
        """End a pending entry: it counts (``done``; the changes it undoes are marked), or it
        goes (its change was not made).

        Raises:
            WriteFailed: the database refused.
        """
        with self._lock, self._guard("record the change"):
            db = self._connection()
            with database.write(db):
                row = db.execute(
                    "SELECT undoes, bytes FROM changes WHERE id = ? AND pending = 1", (change,)
                ).fetchone()
                if row is None:
                    return
                if done:
                    db.execute("UPDATE changes SET pending = 0 WHERE id = ?", (change,))
                    try:
                        undoes = ids_of(row[0])
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
            database.tidy(db, self.path)

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
                        (blob(real), upper, limit),
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
                    (blob(real), change, limit),
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
        out: list[Entry] = []
        try:
            for row in db.execute(
                f"SELECT {columns} FROM files WHERE change IN ({marks}) ORDER BY change, seq",  # noqa: S608
                ids,
            ):
                if row[0] in files:
                    files[row[0]].append(record_of(row[1:], full))
            out.extend(entry_of(heads[i], files[i]) for i in ids if i in heads)
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


def _meta(db: sqlite3.Connection) -> tuple[int, int]:
    values = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('entries', 'bytes')"))
    return int(values.get("entries", 0)), int(values.get("bytes", 0))
