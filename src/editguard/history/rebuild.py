"""The bytes of a file before and after recorded changes, rebuilt from the file as it is now and
the history.

A change's record keeps the bytes before it whole, or only the deltas that take the bytes after
it back (:mod:`editguard.core.delta`). So the bytes before a change are found by walking forward
through the later recorded changes of the file to the first state the file holds now (a version
names its bytes), then taking each change back in turn; every step is checked against the
recorded version, and a file changed outside editguard on the way, a damaged record or a chain
longer than :data:`MAX_CHAIN` refuses (STALE_VERSION, ``restorable: false``).

The files are read through a :class:`Files`, which the writer provides: each is read once, under
its lock, and a path that is now a symbolic link is refused (undo would write through it).
"""

from __future__ import annotations

from typing import Protocol

from editguard.core.delta import CorruptDelta, take_back_all, unpack
from editguard.core.document import content_version
from editguard.errors import NotAFile, StaleVersion
from editguard.fs.sandbox import Resolved, Sandbox, names_a_link
from editguard.history.store import Entry, FileRecord, History

# Recorded changes one rebuild may go through (each costs the file's size once).
MAX_CHAIN = 200


class Files(Protocol):
    """The files as the writer found them (each read once, under its lock)."""

    @property
    def sandbox(self) -> Sandbox:
        """Where the recorded paths are resolved."""

    @property
    def max_file_bytes(self) -> int:
        """The largest file that may be read."""

    def found(self, where: Resolved) -> tuple[str | None, int | None]:
        """The version and permission bits of the file at ``where`` (``None``: absent, or not
        known).

        Raises:
            EditError: the file errors (NOT_A_FILE, PERMISSION_DENIED, FILE_TOO_LARGE, ...).
        """

    def content(self, where: Resolved) -> bytes:
        """The bytes of the file at ``where``, which exists (as :meth:`found` found it).

        Raises:
            StaleVersion: it changed since it was found.
        """

    def folder(self, where: Resolved) -> bool:
        """Whether a folder is at ``where`` (``False``: nothing is).

        Raises:
            NotAFile: something else is there.
        """


class Unrestorable(Exception):
    """A file's bytes before a change cannot be rebuilt from the history and the disk."""


class Rebuild:
    """The bytes of files before and after recorded changes (memoized; each step checked
    against the recorded version)."""

    def __init__(self, files: Files, history: History) -> None:
        self.files, self.history = files, history
        self.memo: dict[tuple[str, int], bytes | None] = {}  # what before() gave
        self.now: dict[str, bytes] = {}
        self.depth = 0

    def where(self, real: str) -> Resolved:
        """A recorded path, resolved as it is now.

        Raises:
            NotAFile: the path is now a symbolic link (undo would write through it).
        """
        sandbox = self.files.sandbox
        where = sandbox.resolve(real)
        if where.real != real or names_a_link(sandbox, where):
            raise NotAFile(
                f"{real} is now a symbolic link (to {where.display}); undo does not write "
                "through it; nothing was written",
                path=real,
                data={"target": where.display},
                suggestions=["Remove the link, then undo again."],
            )
        return where

    def found(self, real: str) -> tuple[Resolved, str | None, int | None]:
        """The file at a recorded path: where it is, its version and its permission bits.

        Raises:
            NotAFile: the path is now a symbolic link.
            EditError: the file errors.
        """
        where = self.where(real)
        return (where, *self.files.found(where))

    def current(self, real: str) -> tuple[str | None, bytes | None]:
        """The file's version and bytes now (read once)."""
        where, version, _ = self.found(real)
        if version is None:
            return None, None
        if real not in self.now:
            self.now[real] = self.files.content(where)
        return version, self.now[real]

    def before(self, real: str, entry: Entry) -> bytes | None:
        """The bytes of ``real`` just before ``entry`` (``None``: it did not exist).

        Raises:
            StaleVersion: they cannot be rebuilt (a file changed outside editguard where a
                later state is needed, or a stored change is damaged).
        """
        key = (real, entry.id)
        if key in self.memo:
            return self.memo[key]
        self.depth = 0  # each file's rebuild has its own chain
        try:
            data = self._before(real, entry)
        except Unrestorable as exc:
            display = self.where(real).display
            raise StaleVersion(
                f"{display} cannot be restored as it was before change {entry.id}: {exc}; "
                "nothing was written",
                path=display,
                data={"change_id": entry.id, "restorable": False},
                suggestions=[
                    "Restore the file another way (version control); the history keeps only "
                    "the changed lines of files over 64 KB."
                ],
            ) from None
        self.memo[key] = data
        return data

    def _before(self, real: str, entry: Entry) -> bytes | None:
        rec = record_of(entry, real)
        if rec.before_version is None:
            return None
        if self.found(real)[1] == rec.before_version:
            return self.current(real)[1]  # the file holds those bytes now (put back already)
        if rec.restore is None:
            raise Unrestorable("the stored change is damaged (no restore data)")
        # A stored change holds at most a file's bytes, plus its splices' headers.
        limit = 2 * self.files.max_file_bytes + (1 << 20)
        try:
            stored = unpack(rec.restore, limit)
            if isinstance(stored, bytes):
                data = stored
            else:
                base = rec.base or real
                after = self._after(base, entry)
                if after is None:
                    raise Unrestorable(f"{_display(entry, base)} no longer holds its content")
                data = take_back_all(after, stored)
        except CorruptDelta as exc:
            raise Unrestorable(f"the stored change is damaged ({exc})") from None
        if content_version([data]) != rec.before_version:
            raise Unrestorable("the rebuilt bytes are not the recorded version")
        return data

    def _after(self, real: str, entry: Entry) -> bytes | None:
        rec = record_of(entry, real)
        if rec.after_version is None:
            return None
        if self.found(real)[1] == rec.after_version:
            # The file holds those bytes now (a version names its bytes): the later changes
            # that led back to them (an undo, the same change made again) need no taking back.
            return self.current(real)[1]
        self.depth += 1
        if self.depth > MAX_CHAIN:
            raise Unrestorable(f"it is more than {MAX_CHAIN} recorded changes back")
        later = self.history.later(real, entry.id, limit=1)
        if later:
            after = later[0]
            if record_of(after, real).before_version != rec.after_version:
                raise Unrestorable(
                    f"{rec.path} changed outside editguard between change {entry.id} and "
                    f"change {after.id}"
                )
            return self._before(real, after)
        version, data = self.current(real)
        if version != rec.after_version:
            raise Unrestorable(f"{rec.path} changed outside editguard since change {entry.id}")
        return data


def record_of(entry: Entry, real: str) -> FileRecord:
    """The record of ``real`` in ``entry``.

    Raises:
        Unrestorable: the entry holds none.
    """
    for rec in entry.files:
        if rec.real == real:
            return rec
    raise Unrestorable(f"change {entry.id} holds no record of the file")


def _display(entry: Entry, real: str) -> str:
    return next((f.path for f in entry.files if f.real == real), real)
