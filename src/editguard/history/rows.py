"""What the history stores: an entry per change and a record per path, and their rows.

:class:`Entry` is one recorded change and :class:`FileRecord` what it did to one path. A record
is stored as one row of the ``files`` table (:func:`row_of`): paths as their bytes (a name need
not be UTF-8), the diff compressed. Reading back checks every column for its type and range
(:func:`record_of`, :func:`entry_of`), since a damaged database must give an error, never a
wrong restore: each checker raises ValueError, which the store reports as a damaged record.
"""

from __future__ import annotations

import dataclasses
import os
import zlib
from collections.abc import Sequence
from typing import Any, Literal, overload

Action = Literal["created", "updated", "deleted", "moved"]


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


def _time(value: object) -> float:
    """A stored time (seconds since the epoch, within what a date can show).

    Raises:
        ValueError: not such a time.
    """
    when = float(value)  # type: ignore[arg-type]
    if not 0 <= when < 1e11:
        raise ValueError(f"a time of {value}")
    return when


def ids_of(text: str) -> tuple[int, ...]:
    """Change ids as stored (``"3,4"``).

    Raises:
        ValueError: not such a list.
    """
    return tuple(int(u) for u in str(text).split(",") if u)


def blob(path: str) -> bytes:
    """A path as stored: its bytes (a name need not be UTF-8)."""
    return os.fsencode(path)


def row_of(f: FileRecord) -> tuple[Any, ...]:
    """The ``files`` row of a record, after its change id and sequence number."""
    return (
        blob(f.path),
        blob(f.real),
        f.action,
        blob(f.moved) if f.moved is not None else None,
        blob(f.base) if f.base is not None else None,
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


def record_of(row: Sequence[Any], full: bool) -> FileRecord:
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


def entry_of(head: Sequence[Any], files: Sequence[FileRecord]) -> Entry:
    """One stored change (its ``changes`` row: id, time, tool, undoes, undone_by, client) with
    its file records, each column checked.

    Raises:
        ValueError: a column that does not hold what it should (a damaged database).
    """
    change, when, tool, undoes, undone_by, client = head
    undone = _number(undone_by, 1 << 62, optional=True)
    return Entry(
        change, _time(when), _tool(tool), tuple(files), ids_of(undoes), undone, _tool(client)
    )
