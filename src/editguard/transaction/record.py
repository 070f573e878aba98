"""The history's records of a commit: one for each path whose state changes (and each path an
undo names, changed or not), folders last.

A record holds what takes the change back: the old bytes whole (a small file, a deleted one),
or the deltas of the change; and the diff the history shows, through the plans staged where
they are known. Records are made before the files are written (the history commits its entry
first, see :mod:`editguard.transaction.commit`), so the bytes a change replaces are read from
the file itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from editguard.core.delta import WHOLE, pack_layers
from editguard.core.document import encode_document
from editguard.core.plan import render
from editguard.history import FileRecord, records
from editguard.history.store import Action
from editguard.transaction.build import capped, diff_of
from editguard.transaction.context import Context
from editguard.transaction.staged import StagedFile, StagedFolder, bytes_of


def records_of(
    ctx: Context,
    files: Iterable[StagedFile],
    folders: Iterable[StagedFolder],
    kept: AbstractSet[str] = frozenset(),
) -> list[FileRecord]:
    """The history's record of each path whose state changes, and of each path in ``kept``
    (see :class:`~editguard.history.FileRecord`); folders last."""
    out = []
    for staged in files:
        before = (staged.read_version, staged.read_mode)
        after = (staged.version, staged.mode if staged.exists else None)
        if before != after or staged.origin is not None:
            out.append(_record(ctx, staged, before, after))
        elif staged.where.real in kept:
            out.append(_unchanged(staged, before))
    for folder in folders:
        if folder.existed != folder.exists or folder.where.real in kept:
            where = folder.where
            out.append(
                records.folder_record(where.display, where.real, folder.existed, folder.exists)
            )
    return out


def _record(
    ctx: Context,
    staged: StagedFile,
    before: tuple[str | None, int | None],
    after: tuple[str | None, int | None],
) -> FileRecord:
    where = staged.where
    origin, moved_to = staged.origin, staged.moved_to
    action: Action = (
        "created" if before[0] is None else "deleted" if after[0] is None else "updated"
    )
    moved = None
    if origin is not None:
        action, moved = "moved", origin.where.real
    elif moved_to is not None and after[0] is None:
        action, moved = "moved", moved_to.where.real
    # The file that holds what this path held (its deltas lead back to it).
    holder: StagedFile | None = (
        moved_to if moved_to is not None and moved_to.origin is staged else staged
    )
    if holder is staged and staged.origin is not None:
        holder = None  # this path now holds another file's content; its own is replaced
    restore = None
    if before[0] is not None:
        layers = holder.layers if holder is not None and holder.exists else None
        final = holder if holder is not None and holder.exists else None
        restore = records.restore(
            staged.read_size,
            lambda: _read_bytes(ctx, staged),
            layers,
            None if final is None else lambda: _final_bytes(ctx, final),
        )
    base = holder.where.real if holder is not None and holder is not staged else None
    return records.record(
        path=where.display,
        real=where.real,
        action=action,
        before=before,
        after=after,
        diff=_diff(staged, after),
        restore_data=restore,
        base=base if restore is not None and restore[:1] != WHOLE else None,
        moved=moved,
    )


def _read_bytes(ctx: Context, staged: StagedFile) -> bytes:
    """The bytes the file held when it was read: a text's are its Document encoded (decoding
    keeps every byte, so this is exact, and costs no second read); others are read again."""
    if staged.original is not None:
        return encode_document(staged.original)
    return bytes_of(ctx, staged)


def _final_bytes(ctx: Context, staged: StagedFile) -> bytes:
    """The staged bytes, rendered from a pending plan without keeping its delta (that is
    kept already, see :mod:`~editguard.transaction.commit`)."""
    if staged.plan is not None:
        assert staged.document is not None  # a plan is only staged on a text
        return b"".join(capped(ctx, staged.where, render(staged.document, staged.plan)))
    return staged.bytes(ctx)


def _diff(staged: StagedFile, after: tuple[str | None, int | None]) -> str:
    """The diff the history shows for a path: through the one change staged when that is all
    (the diff its call showed), else through the plans that made the staged text."""
    where, origin, moved_to = staged.where, staged.origin, staged.moved_to
    if staged.binary or (staged.read_version is not None and staged.original is None):
        return ""
    if moved_to is not None and after[0] is None:
        return ""  # shown on the move's new path
    first = origin.original if origin is not None else staged.original
    if (
        origin is None
        and first is not None
        and first is staged.document
        and staged.plan is not None
    ):
        memo = staged.diff_memo if staged.diff_memo is not None else {}
        if "diff" not in memo:
            memo["diff"] = diff_of(first, staged.plan, where.display)
        return memo["diff"]
    old_text = first.text if first is not None else ""
    new_text = staged.text()
    changed = staged.changed if first is not None else None
    plan = changed.plan(old_text, new_text) if changed is not None else None
    diff = records.text_diff(old_text, new_text, where.display, plan)
    if origin is not None:
        diff = _renamed(diff, origin.where.display, where.display)
    return diff


def _unchanged(staged: StagedFile, state: tuple[str | None, int | None]) -> FileRecord:
    """The record of a path the change left as it was: nothing to take back."""
    return records.record(
        path=staged.where.display,
        real=staged.where.real,
        action="deleted" if state[0] is None else "updated",
        before=state,
        after=state,
        diff="",
        restore_data=None if state[0] is None else pack_layers([]),
    )


def _renamed(diff: str, old: str, new: str) -> str:
    """A diff's header naming the path it came from."""
    head = f"--- a/{new}\n+++ b/{new}\n"
    if diff.startswith(head):
        return f"--- a/{old}\n+++ b/{new}\n" + diff[len(head) :]
    return diff
