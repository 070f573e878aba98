"""``undo``: put the files of a recorded change back as they were before it, as one transaction.

Which changes, what they restore and when an undo refuses is :mod:`editguard.history.undo`'s to
decide; this module locks the files, stages what it gives in the call's transaction (which
Tool.call commits: the commit records the undo even where every file is already as before), and
reports each file.
"""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import BaseModel, Field

from editguard.errors import FileBusy, InvalidRequest
from editguard.fs.sandbox import Resolved
from editguard.history import records
from editguard.history.undo import FileRestore, Restoration, choose, paths, prepare
from editguard.tools._common import DRY_RUN_HELP, Args, Checked
from editguard.tools._tool import Tool
from editguard.tools.history import history_of
from editguard.transaction import StagedFile, Transaction, bytes_of, folder_state, settle

MAX_STEPS = 100
LOCK_ROUNDS = 5  # times undo locks again when the changes to undo changed meanwhile


class UndoArgs(Args):
    """Arguments of undo."""

    change_id: int | None = Field(
        None, ge=1, le=2**62, description="An id from history (default: the latest change)."
    )
    path: str | None = Field(None, description="Undo this file's latest changes (only this file).")
    steps: int = Field(
        1, ge=1, le=MAX_STEPS, description="How many latest changes (not with change_id)."
    )
    dry_run: bool = Field(False, description=DRY_RUN_HELP)
    force: bool = Field(False, description="Undo even if a file changed since.")


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


class UndoResult(Checked):
    """Result of undo."""

    undone: list[int] = Field(description="The ids of the changes taken back.")
    change_id: int | None = Field(
        description="This undo's own history id (undo it to redo); none for a dry run."
    )
    files: list[RestoredFile]
    written: bool
    dry_run: bool


def run(txn: Transaction, args: UndoArgs) -> UndoResult:
    """Undo the chosen changes.

    Raises:
        EditError: INVALID_REQUEST, FILE_BUSY, and those of :func:`~editguard.history.undo.choose`
            and :func:`~editguard.history.undo.prepare`; nothing was written.
    """
    if args.change_id is not None and args.steps != 1:
        raise InvalidRequest("give either change_id or steps, not both", data={"field": "steps"})
    ctx = txn.ctx
    history = history_of(ctx)
    settle(ctx)
    real = ctx.sandbox.resolve(args.path).real if args.path is not None else None
    pick = functools.partial(
        choose, history, real, change_id=args.change_id, steps=args.steps, path=args.path
    )
    wanted: set[str] = set()
    for _ in range(LOCK_ROUNDS):
        wanted |= paths(pick(), real)
        txn.lock(sorted(wanted))
        # Again, now that no editguard writer can act on these files: a change made in between
        # may name others, which are all locked again, in order, on the next round (never one
        # by one, which could wait on another undo in a cycle).
        chosen = pick()
        if not paths(chosen, real) <= wanted:
            wanted |= paths(chosen, real)
            txn.release()
            continue
        files = stage(txn, prepare(_Found(txn), history, chosen, real, force=args.force))
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


class _Found:
    """The transaction's files, as :mod:`editguard.history.undo` reads them (each once, locked)."""

    def __init__(self, txn: Transaction) -> None:
        self.txn, self.sandbox, self.max_file_bytes = txn, txn.ctx.sandbox, txn.ctx.max_file_bytes

    def found(self, where: Resolved) -> tuple[str | None, int | None]:
        return self.txn.file(where).read_version, self.txn.file(where).read_mode

    def content(self, where: Resolved) -> bytes:
        return bytes_of(self.txn.ctx, self.txn.file(where))

    def folder(self, where: Resolved) -> bool:
        return folder_state(self.txn.ctx, where)


def stage(txn: Transaction, restoration: Restoration) -> list[RestoredFile]:
    """Stage ``restoration`` in ``txn``; the result's lines (a move back: one, on its end)."""
    folders = []
    for folder in restoration.folders:
        txn.stage_folder(folder.where, existed=folder.existed, exists=folder.exists)
        folders.append(
            RestoredFile(
                path=folder.where.display + "/",
                action=folder.action,
                diff="",
                version=records.FOLDER if folder.exists else None,
                previous_version=records.FOLDER if folder.existed else None,
            )
        )
    staged = {f.where.real: txn.file(f.where) for f in restoration.files}
    if restoration.moves:
        txn.move_all(list(restoration.moves), replace=False)
    for restore in restoration.files:
        file = staged[restore.where.real]
        if restore.content is None:
            if file.exists:
                txn.delete(file.where)
        else:
            txn.put(file, restore.content, restore.mode)
    txn.undoes = list(restoration.undoes)
    txn.kept = set(restoration.kept)
    moved_away = {source.real for source, _ in restoration.moves}
    lines = [_line(staged, f) for f in restoration.files if f.where.real not in moved_away]
    return lines + folders


def _line(files: dict[str, StagedFile], restore: FileRestore) -> RestoredFile:
    """The result's line for a restored path, once staged: the diff from the file as read (a
    move's: its source) to what is restored; none for a file that is not text."""
    staged, moved_from = files[restore.where.real], restore.moved_from
    source = files[moved_from.real] if moved_from is not None else None
    display = staged.where.display
    old, new = (source or staged).original, staged.document
    was, now = restore.found is not None or source is not None, restore.content is not None
    binary = (was and old is None) or (now and new is None)
    return RestoredFile(
        path=display,
        action=restore.action,
        moved_from=source.where.display if source else None,
        diff=""
        if binary
        else records.text_diff(old.text if old else "", new.text if new else "", display),
        version=restore.version,
        previous_version=(source or staged).read_version,
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
