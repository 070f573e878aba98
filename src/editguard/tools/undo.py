"""``undo``: put the files of a recorded change back as they were before it, as one transaction.

Which change: ``change_id``; else the latest ``steps`` changes still in effect (an undo is not
itself taken back by a plain ``undo``, and a change already taken back is skipped), of ``path``
or of the whole workspace. With ``path``, only that file is restored (and the other end of a
move it took part in); the change's other files stay in effect, so a later ``undo`` (of one of
them, or of the workspace) still takes them back. Whether a file's part of a change is in effect
is decided per file: the undos still in effect (not undone by a redo) that restored it.

Each file must be exactly as the newest undone change left it (its version, or absent); a file
changed since by anyone is STALE_VERSION, naming the file and what changed it, unless
``force``. The bytes to restore are rebuilt from the history: kept whole, or taken back step by
step from the file as it is now through the later recorded changes, up to the earliest state
that matches it (none when the change itself left the file as it is, as after an undo and its
redo; a rebuild that does not give the recorded version is refused). The undo is itself a history
entry: undoing it is a redo.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Literal

from pydantic import BaseModel, Field

from editguard.core.delta import CorruptDelta, take_back_all, unpack
from editguard.core.document import content_version, decode
from editguard.errors import (
    BinaryFile,
    ChangeNotFound,
    FileBusy,
    InvalidRequest,
    NotAFile,
    StaleVersion,
)
from editguard.fs.sandbox import Resolved, names_a_link
from editguard.history import Entry, FileRecord, History, records
from editguard.tools._common import DRY_RUN_HELP, Args
from editguard.tools._tool import Tool
from editguard.tools.history import history_of, not_found
from editguard.transaction import StagedFile, Transaction, bytes_of, folder_state, settle

MAX_STEPS = 100
LOCK_ROUNDS = 5  # times undo locks again when the changes to undo changed meanwhile
MAX_ID = 2**62
LISTED = 10  # later changes a STALE_VERSION names; the rest are counted
FORCE_DIFF_BYTES = 1_000_000  # a refusal shows the forced diff only for files up to this size
# Recorded changes one rebuild may go through (each costs the file's size once).
MAX_CHAIN = 200
PAGE = 100  # entries read at once while looking for the changes to undo
SINCE_DIFF_LINES = 40  # of the diff a forced undo would make, in a STALE_VERSION


class UndoArgs(Args):
    """Arguments of undo."""

    change_id: int | None = Field(
        None,
        ge=1,
        le=MAX_ID,
        description="An id from history (default: the latest change).",
    )
    path: str | None = Field(None, description="Undo this file's latest changes (only this file).")
    steps: int = Field(
        1, ge=1, le=MAX_STEPS, description="How many latest changes (not with change_id)."
    )
    dry_run: bool = Field(False, description=DRY_RUN_HELP)
    force: bool = Field(
        False,
        description="Undo even if a file changed since.",
    )


class RestoredFile(BaseModel):
    """One file undo puts back."""

    path: str
    action: Literal["added", "updated", "deleted", "moved"]
    moved_from: str | None = Field(
        None, description="moved: the path it moved back from (diff: only a content change)."
    )
    diff: str
    version: str | None = Field(description="Its version now (none: deleted).")
    previous_version: str | None


class UndoResult(BaseModel):
    """Result of undo."""

    undone: list[int] = Field(description="The ids of the changes taken back.")
    change_id: int | None = Field(
        description="This undo's own history id (undo it to redo); none for a dry run."
    )
    files: list[RestoredFile]
    written: bool
    dry_run: bool


class _Target:
    """One path to restore: the oldest and the newest record of it among the undone changes."""

    def __init__(self, record: FileRecord, entry: Entry) -> None:
        self.oldest = self.newest = record
        self.oldest_entry = self.newest_entry = entry


def run(txn: Transaction, args: UndoArgs) -> UndoResult:
    """Undo the chosen changes.

    Raises:
        EditError: CHANGE_NOT_FOUND, STALE_VERSION (a file changed since; or, with force, one
            that cannot be rebuilt), INVALID_REQUEST, FILE_BUSY and the file errors; nothing
            was written.
    """
    if args.change_id is not None and args.steps != 1:
        raise InvalidRequest("give either change_id or steps, not both", data={"field": "steps"})
    ctx = txn.ctx
    history = history_of(ctx)
    settle(ctx)
    real = ctx.sandbox.resolve(args.path).real if args.path is not None else None
    wanted: set[str] = set()
    for _ in range(LOCK_ROUNDS):
        chosen = _choose(history, args, real)
        wanted |= _paths(chosen, real)
        txn.lock(sorted(wanted))
        # Again, now that no editguard writer can act on these files: a change made in
        # between may name others, which are locked in order on the next round (never one
        # by one, which could wait on another undo in a cycle).
        chosen = _choose(history, args, real)
        if not _paths(chosen, real) <= wanted:
            wanted |= _paths(chosen, real)
            txn.release()
            continue
        files = _undo(txn, history, chosen, real, args)
        break
    else:
        raise FileBusy(
            "the changes to undo kept changing while their files were locked; nothing was written",
            data={"rounds": LOCK_ROUNDS},
            suggestions=["Try again in a moment."],
        )
    return UndoResult(
        undone=txn.undoes,
        change_id=None,  # the commit's (see Tool.call)
        files=files,
        written=txn.will_write(),
        dry_run=args.dry_run,
    )


def _undo(
    txn: Transaction, history: History, chosen: list[Entry], real: str | None, args: UndoArgs
) -> list[RestoredFile]:
    """Check, rebuild and stage every file of ``chosen`` (the commit records the undo even
    where every file is already as before)."""
    targets = _targets(chosen, real)
    rebuild = _Rebuild(txn, history)
    folders = {r: t for r, t in targets.items() if _of_folder(t)}
    restored = [_stage_folder(txn, rebuild, t, args.force) for t in folders.values()]
    plans = []
    for target in (t for r, t in targets.items() if r not in folders):
        rec = target.oldest
        staged = rebuild.staged(rec.real)
        if not _as_left(staged, target.newest) and not args.force:
            raise _changed_since(rebuild, target, staged)
        plans.append((target, staged, rebuild.before(rec.real, target.oldest_entry)))
    # A file moved by the change moves back (its content travels with it, so the undo's own
    # record keeps a delta, not the whole file).
    moves = _moves_back(plans)
    if moves:
        txn.move_all(moves, replace=False)
    # A move back is one line of the result, on its destination.
    came_from = {dst.real: src.real for src, dst in moves}
    moved_away = {staged.where.real: staged for _, staged, _ in plans}
    files = []
    for target, staged, content in plans:
        if content is None:
            if staged.exists:
                txn.delete(staged.where)
        else:
            txn.put(staged, content, target.oldest.before_mode)
        if staged.where.real in came_from.values():
            continue
        source = came_from.get(staged.where.real)
        if source is not None:
            files.append(_moved_back(moved_away[source], staged, target.oldest))
        else:
            files.append(_change(staged, target.oldest))
    files.extend(restored)
    txn.undoes = sorted(e.id for e in chosen)
    txn.kept = set(targets)
    return files


def _of_folder(target: _Target) -> bool:
    """Whether a path to restore is a folder the changes made or removed."""
    return records.is_folder(target.oldest) or records.is_folder(target.newest)


def _stage_folder(
    txn: Transaction, rebuild: _Rebuild, target: _Target, force: bool
) -> RestoredFile:
    """Stage putting a folder back as it was (removed if the change made it, made if the
    change removed it); the commit removes a folder only while it is empty (else
    STALE_VERSION, even with ``force``: undo never deletes what is in a folder).

    Raises:
        StaleVersion: the folder is not as the newest undone change left it (made or removed
            since), unless ``force``.
        NotAFile: a file or a link is where the folder was.
    """
    rec = target.newest
    where = rebuild.staged_path(rec.real)
    now = folder_state(txn.ctx, where)
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
    txn.stage_folder(where, existed=now, exists=want)
    return RestoredFile(
        path=where.display + "/",
        action="updated" if now == want else "added" if want else "deleted",
        diff="",
        version=records.FOLDER if want else None,
        previous_version=records.FOLDER if now else None,
    )


def _moves_back(
    plans: list[tuple[_Target, StagedFile, bytes | None]],
) -> list[tuple[Resolved, Resolved]]:
    """The moves that take a change's moves back: a path to restore whose content the change
    moved to another path, which exists now and is to go."""
    going = {
        staged.where.real: staged
        for target, staged, content in plans
        if content is None and staged.exists
    }
    out = []
    for target, staged, content in plans:
        rec = target.oldest
        source = going.get(rec.moved or "") if rec.action == "moved" else None
        if content is not None and not staged.exists and source is not None:
            out.append((source.where, staged.where))
            del going[source.where.real]
    return out


def _as_left(staged: StagedFile, rec: FileRecord) -> bool:
    """Whether the file is as the change recorded in ``rec`` left it: its bytes, and its
    permission bits where the record knows them."""
    if staged.read_version != rec.after_version:
        return False
    known = rec.after_mode is not None and staged.read_mode is not None
    return not known or staged.read_mode == rec.after_mode


def _paths(chosen: list[Entry], real: str | None) -> set[str]:
    """The files an undo of ``chosen`` reads and writes."""
    return {f.real for e in chosen for f in _filtered(e, real)}


def _choose(history: History, args: UndoArgs, real: str | None) -> list[Entry]:
    """The changes to undo, newest first, in full; a change chosen by ``steps`` holds only
    its files still in effect (an undo with a path took back that file's part alone)."""
    if args.change_id is not None:
        entry = history.entry(args.change_id)
        if entry is None:
            raise not_found(history, args.change_id)
        if real is not None and not _filtered(entry, real):
            raise ChangeNotFound(
                f"change {args.change_id} did not touch {args.path}",
                path=args.path,
                data={"change_id": args.change_id},
            )
        return [entry]
    chosen: dict[int, set[str]] = {}  # change -> its files still in effect
    taken: set[tuple[int, str]] = set()  # (change, file) an undo in effect took back
    before = None
    size = args.steps  # usually the latest entries are the ones: pages grow from there
    while len(chosen) < args.steps:
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
            if len(chosen) == args.steps:
                break
        before = page[-1].id
        size = min(2 * size, PAGE)
    if len(chosen) < args.steps:
        where = f" of {args.path}" if args.path is not None else ""
        raise ChangeNotFound(
            f"there is no change{where} to undo"
            if not chosen
            else f"only {len(chosen)} change(s){where} can be undone, not {args.steps}",
            path=args.path,
            data={"found": len(chosen), "steps": args.steps},
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


class _Unrestorable(Exception):
    """A file's bytes before a change cannot be rebuilt from the history and the disk."""


class _Rebuild:
    """The bytes of files before and after recorded changes, rebuilt from the files as they
    are now and the history (memoized; each step checked against the recorded version)."""

    def __init__(self, txn: Transaction, history: History) -> None:
        self.txn, self.history = txn, history
        self.memo: dict[tuple[str, int], bytes | None] = {}  # what before() gave
        self.now: dict[str, bytes] = {}
        self.depth = 0

    def staged(self, real: str) -> StagedFile:
        """The file at a recorded path, locked.

        Raises:
            NotAFile: the path is now a symbolic link (undo would write through it).
        """
        return self.txn.file(self.staged_path(real))

    def staged_path(self, real: str) -> Resolved:
        """A recorded path, resolved as it is now.

        Raises:
            NotAFile: the path is now a symbolic link (undo would write through it).
        """
        where = self.txn.ctx.sandbox.resolve(real)
        if where.real != real or names_a_link(self.txn.ctx.sandbox, where):
            raise NotAFile(
                f"{real} is now a symbolic link (to {where.display}); undo does not write "
                "through it; nothing was written",
                path=real,
                data={"target": where.display},
                suggestions=["Remove the link, then undo again."],
            )
        return where

    def current(self, real: str) -> tuple[str | None, bytes | None]:
        """The file's version and bytes now (read once)."""
        staged = self.staged(real)
        if staged.read_version is None:
            return None, None
        if real not in self.now:
            self.now[real] = bytes_of(self.txn.ctx, staged)
        return staged.read_version, self.now[real]

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
        except _Unrestorable as exc:
            display = self.staged(real).where.display
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
        rec = _record_of(entry, real)
        if rec.before_version is None:
            return None
        if self.staged(real).read_version == rec.before_version:
            return self.current(real)[1]  # the file holds those bytes now (put back already)
        if rec.restore is None:
            raise _Unrestorable("the stored change is damaged (no restore data)")
        # A stored change holds at most a file's bytes, plus its splices' headers.
        limit = 2 * self.txn.ctx.max_file_bytes + (1 << 20)
        try:
            stored = unpack(rec.restore, limit)
            if isinstance(stored, bytes):
                data = stored
            else:
                base = rec.base or real
                after = self._after(base, entry)
                if after is None:
                    raise _Unrestorable(f"{_display(entry, base)} no longer holds its content")
                data = take_back_all(after, stored)
        except CorruptDelta as exc:
            raise _Unrestorable(f"the stored change is damaged ({exc})") from None
        if content_version([data]) != rec.before_version:
            raise _Unrestorable("the rebuilt bytes are not the recorded version")
        return data

    def _after(self, real: str, entry: Entry) -> bytes | None:
        rec = _record_of(entry, real)
        if rec.after_version is None:
            return None
        if self.staged(real).read_version == rec.after_version:
            # The file holds those bytes now (a version names its bytes): the later changes
            # that led back to them (an undo, the same change made again) need no taking back.
            return self.current(real)[1]
        self.depth += 1
        if self.depth > MAX_CHAIN:
            raise _Unrestorable(f"it is more than {MAX_CHAIN} recorded changes back")
        later = self.history.later(real, entry.id, limit=1)
        if later:
            after = later[0]
            if _record_of(after, real).before_version != rec.after_version:
                raise _Unrestorable(
                    f"{rec.path} changed outside editguard between change {entry.id} and "
                    f"change {after.id}"
                )
            return self._before(real, after)
        version, data = self.current(real)
        if version != rec.after_version:
            raise _Unrestorable(f"{rec.path} changed outside editguard since change {entry.id}")
        return data


def _record_of(entry: Entry, real: str) -> FileRecord:
    for rec in entry.files:
        if rec.real == real:
            return rec
    raise _Unrestorable(f"change {entry.id} holds no record of the file")


def _display(entry: Entry, real: str) -> str:
    return next((f.path for f in entry.files if f.real == real), real)


def _changed_since(rebuild: _Rebuild, target: _Target, staged: StagedFile) -> StaleVersion:
    """STALE_VERSION for a file that is not as the newest undone change left it: which
    recorded changes came after, whether something outside editguard changed it, and the diff
    a forced undo would make."""
    history, rec = rebuild.history, target.newest
    later = history.later(rec.real, target.newest_entry.id, full=False)
    last = _record_of(later[-1], rec.real) if later else rec
    outside = staged.read_version != last.after_version
    # The bits alone changed outside editguard (where the history knows them).
    bits = (
        not outside
        and None not in (last.after_mode, staged.read_mode)
        and last.after_mode != staged.read_mode
    )
    display = staged.where.display
    named = _that_matter(later)
    causes = [f"change {e.id} ({_made(e)})" for e in named[:LISTED]]
    if len(named) > LISTED:
        causes.append(f"{len(named) - LISTED} more changes")
    if outside:
        causes.append("an edit outside editguard")
    if bits:
        causes.append(
            f"a change of its permission bits outside editguard "
            f"({last.after_mode or 0:o} to {staged.read_mode or 0:o})"
        )
    data: dict[str, object] = {
        "expected_version": rec.after_version,
        "actual_version": staged.read_version,
        "changed_by": [e.id for e in named[:LISTED]],
        "outside_editguard": outside or bits,
    }
    if any(e.client for e in named[:LISTED]):
        data["clients"] = [e.client for e in named[:LISTED]]
    if bits:
        data["expected_mode"] = f"{last.after_mode or 0:o}"
        data["actual_mode"] = f"{staged.read_mode or 0:o}"
    message = (
        f"{display} changed since change {target.newest_entry.id}: by {', '.join(causes)}"
        f"{'' if staged.read_version is not None else ' (it is deleted now)'}; nothing was written"
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
    rebuild: _Rebuild, target: _Target, now: bytes | None, display: str
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


def _change(staged: StagedFile, rec: FileRecord) -> RestoredFile:
    """The result's line for one restored path, once its restore is staged: the diff from
    the file as read (``staged.original``, decoded when it was read) to what is restored
    (``staged.document``, decoded when it was staged)."""
    display = staged.where.display
    was, now = staged.read_version is not None, staged.exists
    old, new = staged.original, staged.document
    binary = (was and old is None) or (now and new is None)
    action: Literal["added", "updated", "deleted"] = (
        "deleted" if not now else "added" if not was else "updated"
    )
    return RestoredFile(
        path=display,
        action=action,
        diff=""
        if binary
        else records.text_diff(old.text if old else "", new.text if new else "", display),
        version=rec.before_version,
        previous_version=staged.read_version,
    )


def _moved_back(source: StagedFile, staged: StagedFile, rec: FileRecord) -> RestoredFile:
    """The result's line for a move taken back: where from, and the diff of its content only
    (none when the content moves back unchanged)."""
    old, new = source.original, staged.document
    display = staged.where.display
    diff = "" if old is None or new is None else records.text_diff(old.text, new.text, display)
    return RestoredFile(
        path=display,
        action="moved",
        moved_from=source.where.display,
        diff=diff,
        version=rec.before_version,
        previous_version=source.read_version,
    )


TOOL = Tool(
    name="undo",
    title="Undo a recorded change",
    description=(
        "Put files back exactly as before a change editguard made (created files deleted, "
        "deleted ones recreated, moves reversed), all or none. A file changed since fails with "
        "STALE_VERSION showing what changed. An undo is recorded too: undo it to redo. Returns "
        "the undone ids, this undo's change_id and each file's diff."
    ),
    arguments=UndoArgs,
    result=UndoResult,
    run=run,
    paths=lambda _: [],  # run locks the files of the changes it undoes, all at once
)
