"""What an undo takes back and what it restores, as plain values; the writer stages them.

Which changes: one by id (:func:`choose` with ``change_id``); else the latest ``steps`` changes
still in effect (an undo is not itself taken back by a plain undo, and a change already taken
back is skipped), of one file or of the whole workspace. With a file, only that file is restored
(and the other end of a move it took part in); the change's other files stay in effect, so a
later undo (of one of them, or of the workspace) still takes them back. Whether a file's part of
a change is in effect is decided per file: the undos still in effect (not undone by a redo) that
restored it.

What they restore (:func:`prepare`): each path as it was before the oldest chosen change of it
(bytes, or absent; its permission bits; a folder made or removed). Each must be exactly as the
newest chosen change of it left it (its version and bits, or absent); one changed since by
anyone is STALE_VERSION, naming what changed it and the diff a forced undo would make, unless
``force``. The bytes are rebuilt from the history (:mod:`editguard.history.rebuild`); a file
that the change moved is moved back, its content travelling with it. The undo is itself a
history entry (its ``undoes``): undoing it is a redo.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Literal

from editguard.core.document import decode
from editguard.errors import BinaryFile, ChangeNotFound, StaleVersion
from editguard.fs.sandbox import Resolved
from editguard.history import records
from editguard.history.rebuild import Files, Rebuild, record_of
from editguard.history.store import Entry, FileRecord, History

PAGE = 100  # entries read at once while looking for the changes to undo
LISTED = 10  # later changes a STALE_VERSION names; the rest are counted
FORCE_DIFF_BYTES = 1_000_000  # a refusal shows the forced diff only for files up to this size
SINCE_DIFF_LINES = 40  # of the diff a forced undo would make, in a STALE_VERSION


@dataclasses.dataclass(frozen=True, slots=True)
class FileRestore:
    """One file an undo puts back.

    Attributes:
        where: its path, as it resolves now.
        content: its bytes before the oldest undone change of it (``None``: it did not exist).
        mode: its permission bits then (``None``: not known).
        version: the version of ``content`` (``None``: absent).
        found: the version it holds now (``None``: absent).
        moved_from: the path its content moves back from (the change moved it there).
        changes: why: the oldest and the newest undone change of it.
        forced: it changed since the newest, and is restored anyway (``force``).
    """

    where: Resolved
    content: bytes | None
    mode: int | None
    version: str | None
    found: str | None
    moved_from: Resolved | None
    changes: tuple[int, int]
    forced: bool = False

    @property
    def action(self) -> Literal["added", "updated", "deleted", "moved"]:
        """What the undo does to the path: ``moved`` back, ``deleted`` (or left absent),
        ``added`` (it is absent now), else ``updated``."""
        if self.moved_from is not None:
            return "moved"
        return "deleted" if self.content is None else "added" if self.found is None else "updated"


@dataclasses.dataclass(frozen=True, slots=True)
class FolderRestore:
    """One folder an undo puts back: removed if the change made it, made if it removed it (only
    while empty: undo never deletes what is in a folder).

    Attributes:
        where: its path, as it resolves now.
        existed: whether it exists now.
        exists: whether it exists once undone.
        changes: why: the oldest and the newest undone change of it.
        forced: it was made or removed since the newest, and is restored anyway (``force``).
    """

    where: Resolved
    existed: bool
    exists: bool
    changes: tuple[int, int]
    forced: bool = False

    @property
    def action(self) -> Literal["added", "updated", "deleted"]:
        """What the undo does to the folder: ``added``, ``deleted``, else ``updated`` (it is
        already as the undo restores it)."""
        if self.existed == self.exists:
            return "updated"
        return "added" if self.exists else "deleted"


@dataclasses.dataclass(frozen=True, slots=True)
class Restoration:
    """What an undo of some changes puts back.

    Attributes:
        undoes: the ids of the changes taken back, ascending.
        files: the files, in the order of the changes' records (newest change first).
        folders: the folders, likewise.
        moves: (from, to) for each file moved back (its :class:`FileRestore` says the same).
        kept: the real paths the undo records even where nothing changes (a path already as
            it restores it: without a record, its part of the change would stay in effect).
    """

    undoes: tuple[int, ...]
    files: tuple[FileRestore, ...]
    folders: tuple[FolderRestore, ...]
    moves: tuple[tuple[Resolved, Resolved], ...]
    kept: frozenset[str]


class _Target:
    """One path to restore: the oldest and the newest record of it among the undone changes."""

    def __init__(self, record: FileRecord, entry: Entry) -> None:
        self.oldest = self.newest = record
        self.oldest_entry = self.newest_entry = entry

    @property
    def changes(self) -> tuple[int, int]:
        return self.oldest_entry.id, self.newest_entry.id


@dataclasses.dataclass(frozen=True, slots=True)
class _Plan:
    """A file to restore, as :func:`prepare` found it."""

    target: _Target
    where: Resolved
    found: str | None
    content: bytes | None
    changed: bool


# -- which changes ----------------------------------------------------------------------------


def choose(
    history: History,
    real: str | None,
    *,
    change_id: int | None = None,
    steps: int = 1,
    path: str | None = None,
) -> list[Entry]:
    """The changes to undo, newest first, in full: change ``change_id``, else the latest
    ``steps`` in effect, of the file ``real`` (as the caller named it: ``path``) or of all. A
    change chosen by ``steps`` holds only its files still in effect (an undo of one file took
    back that file's part alone).

    Raises:
        ChangeNotFound: no such change; it did not touch the file; fewer than ``steps``
            changes can be undone.
    """
    if change_id is not None:
        entry = history.entry(change_id)
        if entry is None:
            raise not_found(history, change_id)
        if real is not None and not _filtered(entry, real):
            raise ChangeNotFound(
                f"change {change_id} did not touch {path}",
                path=path,
                data={"change_id": change_id},
            )
        return [entry]
    chosen: dict[int, set[str]] = {}  # change -> its files still in effect
    taken: set[tuple[int, str]] = set()  # (change, file) an undo in effect took back
    before = None
    size = steps  # usually the latest entries are the ones: pages grow from there
    while len(chosen) < steps:
        page = history.entries(real, size, before=before)
        if not page:
            break
        for entry in page:  # newest first: an undo comes before what it took back
            live = {f.real for f in _filtered(entry, real) if (entry.id, f.real) not in taken}
            if not live:
                continue  # taken back (an undo undone by a redo no longer takes anything back)
            if entry.undoes:
                taken.update((undone, file) for undone in entry.undoes for file in live)
                continue
            chosen[entry.id] = live
            if len(chosen) == steps:
                break
        before = page[-1].id
        size = min(2 * size, PAGE)
    if len(chosen) < steps:
        where = f" of {path}" if path is not None else ""
        raise ChangeNotFound(
            f"there is no change{where} to undo"
            if not chosen
            else f"only {len(chosen)} change(s){where} can be undone, not {steps}",
            path=path,
            data={"found": len(chosen), "steps": steps},
            suggestions=["Call history to see the recorded changes and their ids."],
        )
    out = []
    for change, live in chosen.items():
        entry = history.entry(change)
        if entry is not None:
            out.append(
                dataclasses.replace(entry, files=tuple(f for f in entry.files if f.real in live))
            )
    return out


def not_found(history: History, change: int) -> ChangeNotFound:
    """CHANGE_NOT_FOUND for an id the history does not hold (never recorded, or gone)."""
    latest = history.entries(limit=1)
    newest = latest[0].id if latest else None
    return ChangeNotFound(
        f"no change {change} in the history"
        + (f" (the newest is {newest})" if newest is not None else " (it is empty)"),
        data={"change_id": change, "newest": newest},
        suggestions=["Call history to see the recorded changes and their ids."],
    )


def paths(chosen: list[Entry], real: str | None) -> set[str]:
    """The real paths an undo of ``chosen`` (of the file ``real``, or of all) reads and
    writes: the writer locks them first."""
    return {f.real for e in chosen for f in _filtered(e, real)}


def _filtered(entry: Entry, real: str | None) -> list[FileRecord]:
    """The records of ``entry`` to undo: all, or those of ``real`` and the other end of a
    move it took part in."""
    if real is None:
        return list(entry.files)
    mine = [f for f in entry.files if f.real == real]
    ends = {f.moved for f in mine if f.action == "moved"}
    return [f for f in entry.files if f.real == real or f.real in ends]


def _targets(chosen: list[Entry], real: str | None) -> dict[str, _Target]:
    targets: dict[str, _Target] = {}
    for entry in chosen:  # newest first
        for rec in _filtered(entry, real):
            target = targets.get(rec.real)
            if target is None:
                targets[rec.real] = _Target(rec, entry)
            else:
                target.oldest, target.oldest_entry = rec, entry
    return targets


# -- what they restore ------------------------------------------------------------------------


def prepare(
    files: Files, history: History, chosen: list[Entry], real: str | None, *, force: bool
) -> Restoration:
    """What undoing ``chosen`` (newest first, from :func:`choose`; of the file ``real``, or of
    all) restores, checked against the files as they are now: folders first, then each file
    in turn (changed since?, then its bytes rebuilt).

    Raises:
        StaleVersion: a file or folder is not as the newest undone change left it, unless
            ``force``; a file's bytes cannot be rebuilt.
        NotAFile: a recorded path is now a symbolic link, or a file is where a folder was.
        EditError: the file errors of reading them.
    """
    targets = _targets(chosen, real)
    rebuild = Rebuild(files, history)
    folders = {r: t for r, t in targets.items() if _of_folder(t)}
    restored = tuple(_folder(files, rebuild, t, force) for t in folders.values())
    plans: list[_Plan] = []
    for target in (t for r, t in targets.items() if r not in folders):
        rec = target.oldest
        where, version, mode = rebuild.found(rec.real)
        changed = not _as_left(version, mode, target.newest)
        if changed and not force:
            raise _changed_since(rebuild, target, where, version, mode)
        content = rebuild.before(rec.real, target.oldest_entry)
        plans.append(_Plan(target, where, version, content, changed))
    moves = _moves_back(plans)
    came_from = {dst.real: src for src, dst in moves}
    return Restoration(
        undoes=tuple(sorted(e.id for e in chosen)),
        files=tuple(
            FileRestore(
                where=p.where,
                content=p.content,
                mode=p.target.oldest.before_mode,
                version=p.target.oldest.before_version,
                found=p.found,
                moved_from=came_from.get(p.where.real),
                changes=p.target.changes,
                forced=p.changed,
            )
            for p in plans
        ),
        folders=restored,
        moves=tuple(moves),
        kept=frozenset(targets),
    )


def _of_folder(target: _Target) -> bool:
    """Whether a path to restore is a folder the changes made or removed."""
    return records.is_folder(target.oldest) or records.is_folder(target.newest)


def _folder(files: Files, rebuild: Rebuild, target: _Target, force: bool) -> FolderRestore:
    """How a folder is put back as it was.

    Raises:
        StaleVersion: the folder is not as the newest undone change left it (made or removed
            since), unless ``force``.
        NotAFile: a file or a link is where the folder was.
    """
    rec = target.newest
    where = rebuild.where(rec.real)
    now = files.folder(where)
    left = rec.after_version == records.FOLDER
    if now != left and not force:
        state = "exists again" if now else "is gone"
        raise StaleVersion(
            f"{where.display} {state} since change {target.newest_entry.id}; nothing was written",
            path=where.display,
            data={
                "expected_version": rec.after_version,
                "actual_version": records.FOLDER if now else None,
            },
            suggestions=["Pass force: true to undo anyway (a folder is removed only if empty)."],
        )
    want = target.oldest.before_version == records.FOLDER
    return FolderRestore(where, now, want, target.changes, now != left)


def _moves_back(plans: list[_Plan]) -> list[tuple[Resolved, Resolved]]:
    """The moves that take a change's moves back: a path to restore whose content the change
    moved to another path, which exists now and is to go."""
    going = {p.where.real: p.where for p in plans if p.content is None and p.found is not None}
    out = []
    for p in plans:
        rec = p.target.oldest
        source = going.get(rec.moved or "") if rec.action == "moved" else None
        if p.content is not None and p.found is None and source is not None:
            out.append((source, p.where))
            del going[source.real]
    return out


def _as_left(version: str | None, mode: int | None, rec: FileRecord) -> bool:
    """Whether a file (its version and bits) is as the change recorded in ``rec`` left it:
    its bytes, and its permission bits where the record knows them."""
    if version != rec.after_version:
        return False
    known = rec.after_mode is not None and mode is not None
    return not known or mode == rec.after_mode


def _changed_since(
    rebuild: Rebuild, target: _Target, where: Resolved, version: str | None, mode: int | None
) -> StaleVersion:
    """STALE_VERSION for a file (found at ``version`` with bits ``mode``) that is not as the
    newest undone change left it: which recorded changes came after, whether something outside
    editguard changed it, and the diff a forced undo would make."""
    history, rec = rebuild.history, target.newest
    later = history.later(rec.real, target.newest_entry.id, full=False)
    last = record_of(later[-1], rec.real) if later else rec
    outside = version != last.after_version
    # The bits alone changed outside editguard (where the history knows them).
    bits = not outside and None not in (last.after_mode, mode) and last.after_mode != mode
    display = where.display
    named = _that_matter(later)
    causes = [f"change {e.id} ({_made(e)})" for e in named[:LISTED]]
    if len(named) > LISTED:
        causes.append(f"{len(named) - LISTED} more changes")
    if outside:
        causes.append("an edit outside editguard")
    if bits:
        causes.append(
            f"a change of its permission bits outside editguard "
            f"({last.after_mode or 0:o} to {mode or 0:o})"
        )
    data: dict[str, object] = {
        "expected_version": rec.after_version,
        "actual_version": version,
        "changed_by": [e.id for e in named[:LISTED]],
        "outside_editguard": outside or bits,
    }
    if any(e.client for e in named[:LISTED]):
        data["clients"] = [e.client for e in named[:LISTED]]
    if bits:
        data["expected_mode"] = f"{last.after_mode or 0:o}"
        data["actual_mode"] = f"{mode or 0:o}"
    message = (
        f"{display} changed since change {target.newest_entry.id}: by {', '.join(causes)}"
        f"{'' if version is not None else ' (it is deleted now)'}; nothing was written"
    )
    now = rebuild.current(rec.real)[1]
    # What a forced undo would do, shown only where rebuilding it is cheap.
    if len(now or b"") <= FORCE_DIFF_BYTES and len(later) <= LISTED:
        data.update(_force_diff(rebuild, target, now, display))
    return StaleVersion(
        message,
        path=display,
        data=data,
        suggestions=[
            "Undo the later changes first (undo with their ids, or steps), or pass force: true "
            "to restore the file as it was before anyway (force_diff shows what that changes; "
            "the undo can itself be undone)."
        ],
    )


def _that_matter(later: list[Entry]) -> list[Entry]:
    """The later changes whose effect on the file remains, oldest first: an undo and the
    changes it took back, all among them, cancel out (a change and its undo, an undo and its
    redo), paired newest first, so that a redo of a redo is still named once."""
    present = {e.id for e in later}
    gone: set[int] = set()
    for entry in reversed(later):
        if entry.id in gone or not entry.undoes:
            continue
        if all(u in present and u not in gone for u in entry.undoes):
            gone.add(entry.id)
            gone.update(entry.undoes)
    return [e for e in later if e.id not in gone]


def _made(entry: Entry) -> str:
    """How a change is named in a refusal: its tool, who asked for it, when."""
    by = f" by {entry.client}" if entry.client else ""
    return f"{entry.tool}{by}, {_when(entry.time)}"


def _force_diff(
    rebuild: Rebuild, target: _Target, now: bytes | None, display: str
) -> dict[str, object]:
    """``force_diff``: the diff a forced undo would make (or ``restorable: false``)."""
    try:
        content = rebuild.before(target.oldest.real, target.oldest_entry)
    except StaleVersion:
        return {"restorable": False}
    diff = records.text_diff(_text(now) or "", _text(content) or "", display)
    lines = diff.splitlines()
    if len(lines) > SINCE_DIFF_LINES:
        lines = [*lines[:SINCE_DIFF_LINES], f"... {len(lines) - SINCE_DIFF_LINES} more lines"]
    return {"force_diff": "\n".join(lines)}


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def _text(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return decode(data).text
    except BinaryFile:
        return None
