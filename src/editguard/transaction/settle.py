"""After a crash: a multi-file commit that died is finished (or rolled back) by the journal
before any writer reads one of its files (:func:`recovered`), and the history's entries whose
change may not have ended are settled (:func:`settle`)."""

from __future__ import annotations

import contextlib

from editguard.errors import EditError, FileBusy, FileNotFound, NotAFile
from editguard.fs.location import locate
from editguard.fs.sandbox import Resolved
from editguard.history import FileRecord, records
from editguard.history.store import Entry, History
from editguard.transaction.context import Context
from editguard.transaction.folders import folder_state
from editguard.transaction.read import raw_state


def recovered(ctx: Context, held: frozenset[str]) -> None:
    """Finish any multi-file commit that died since this process started, now that the
    caller holds the locks of ``held`` (a commit holds all its files' locks while it runs, so
    a journal naming one of them is dead): the caller must not read a half-done file. A
    directory listing when there is nothing to recover.

    Raises:
        FileBusy: a dead commit that names one of ``held`` cannot be finished now (another
            writer holds one of its other files).
    """
    blocked = ctx.journal.recover(ctx.locks, held).blocked & held
    if blocked:
        name = min(blocked)
        raise FileBusy(
            f"{name} is part of a change of several files that was interrupted and cannot be "
            "finished now (another writer holds one of its files); nothing was written",
            path=name,
            data={"recovery": "pending"},
            suggestions=["Try again in a moment."],
        )


# How long settling waits for each file's lock: a live commit holds it, so a busy file means the
# entry's change may still be running (it is settled another time).
SETTLE_WAIT = 0.2


def settle(ctx: Context) -> None:
    """Settle the history's pending entries whose change is not running: an entry whose files
    all hold what it wrote counts; one whose files all hold what it found goes (the change was
    rolled back, or never made). What a file held when the change ended is what the next
    recorded change of it found, or else what it holds now (bytes and permission bits). Any
    other entry stays pending, out of the history's view. Costs one query when nothing is
    pending; never raises: an entry that cannot be settled now (a busy file, a file outside the
    roots) is left for another time, and the others are still settled."""
    history = ctx.history
    if history is None:
        return
    try:
        entries = history.pending()
    except EditError:
        return  # a history that fails: another time
    for entry in entries:
        with contextlib.suppress(EditError):
            _settle_one(ctx, history, entry)


def _settle_one(ctx: Context, history: History, entry: Entry) -> None:
    with contextlib.ExitStack() as stack:
        wheres = [ctx.sandbox.resolve(f.real) for f in entry.files]
        for where in sorted(wheres, key=lambda w: w.real):
            stack.enter_context(ctx.locks.hold(where.real, where.display, SETTLE_WAIT))
        recovered(ctx, frozenset(w.real for w in wheres))
        pairs = [
            (_state_after(ctx, history, entry.id, f, w), f)
            for f, w in zip(entry.files, wheres, strict=True)
        ]
        # The files decide where there are any: the folders a change makes or removes around
        # them (before and after the journal's commit) may be left either way by a crash.
        pairs = [p for p in pairs if not records.is_folder(p[1])] or pairs
        if all(_holds(state, f.after_version, f.after_mode) for state, f in pairs):
            history.settle(entry.id, done=True)
        elif all(_holds(state, f.before_version, f.before_mode) for state, f in pairs):
            history.settle(entry.id, done=False)


def _state_after(
    ctx: Context, history: History, change: int, rec: FileRecord, where: Resolved
) -> tuple[str | None, int | None]:
    """What the file of ``rec`` held once change ``change`` ended: what the next recorded
    change of it found (it was made after, under the file's lock), or else what it holds now
    (the caller holds its lock)."""
    for later in history.later(rec.real, change, limit=1, full=False):
        for found in later.files:
            if found.real == rec.real:
                return found.before_version, found.before_mode
    if records.is_folder(rec):
        try:
            return (records.FOLDER if folder_state(ctx, where) else None), None
        except NotAFile:
            return "", None  # a file where the folder was: neither state
    with locate(ctx.sandbox, where, create=True) as location:
        if location.missing:
            return None, None
        try:
            version, mode, _ = raw_state(ctx, where, location)
        except FileNotFound:
            return None, None
        return version, mode


def _holds(state: tuple[str | None, int | None], version: str | None, mode: int | None) -> bool:
    """Whether a file's state is that version, with those permission bits where both are
    known."""
    return state[0] == version and (mode is None or state[1] is None or state[1] == mode)
