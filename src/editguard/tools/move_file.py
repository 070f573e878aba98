"""``move_file``: move or rename a file, as a recorded change that ``undo`` moves back."""

from __future__ import annotations

import os

from pydantic import BaseModel, Field

from editguard.errors import FileNotFound, InvalidRequest, NotAFile, StaleVersion, error_context
from editguard.fs.nearest import with_nearest
from editguard.fs.sandbox import Resolved
from editguard.tools._common import DRY_RUN_HELP, PATH_HELP, Args
from editguard.tools._tool import Tool
from editguard.transaction import Transaction, folder_state


class MoveFileArgs(Args):
    """Arguments of move_file."""

    source: str = Field(description=PATH_HELP)
    destination: str = Field(description="The new path (not a folder to move into).")
    overwrite: bool = Field(False, description="Replace a file at destination.")
    dry_run: bool = Field(False, description=DRY_RUN_HELP)


class MoveFileResult(BaseModel):
    """Result of move_file."""

    source: str
    destination: str
    created_folders: list[str] = Field(description="Folders made for the destination.")
    replaced_version: str | None = Field(description="The version of the file replaced, if any.")
    version: str
    change_id: int | None = Field(description="Its history id (for undo).")
    written: bool
    dry_run: bool


def paths(args: MoveFileArgs) -> list[str]:
    """Both ends of the move (locked before anything is read)."""
    return [args.source, args.destination]


def run(txn: Transaction, args: MoveFileArgs) -> MoveFileResult:
    """Move ``source`` to ``destination`` in one transaction (the journal writes the new path
    and removes the old one together); the bytes and permission bits move with it.

    Raises:
        EditError: OUTSIDE_ROOT (either path, or a symbolic link to outside), FILE_NOT_FOUND
            (no source), NOT_A_FILE (a folder, a symbolic link, or a file where a folder of
            the destination belongs), STALE_VERSION (the destination exists and overwrite is
            false), INVALID_REQUEST (both name one file), FILE_TOO_LARGE, PERMISSION_DENIED,
            WRITE_FAILED; nothing was changed.
    """
    if args.destination.endswith(("/", os.sep)):
        raise InvalidRequest(
            f"destination {args.destination} names a folder; move_file needs the new path of "
            "the file itself",
            data={"field": "destination"},
            suggestions=[f"Send {args.destination.rstrip('/' + os.sep)}/NAME as destination."],
        )
    source = txn.ctx.sandbox.resolve(args.source)
    destination = txn.ctx.sandbox.resolve(args.destination)
    if source.real == destination.real:
        raise InvalidRequest(
            f"{args.source} and {args.destination} are the same file",
            path=source.display,
            data={"field": "destination"},
        )
    _refuse_folders(txn, source, destination)
    if not txn.file(source).exists:
        raise with_nearest(
            FileNotFound(
                f"{source.display} does not exist; nothing was moved", path=source.display
            ),
            source,
        )
    dst = txn.file(destination)
    replaced = dst.version
    if replaced is not None and not args.overwrite:
        raise StaleVersion(
            f"{destination.display} exists already; nothing was moved",
            path=destination.display,
            data={"reason": "destination_exists", "actual_version": replaced},
            suggestions=["Choose another destination, or pass overwrite: true to replace it."],
        )
    made = _new_folders(txn, destination, len(dst.location.missing))
    with error_context(path=source.display):
        txn.move_all([(source, destination)], replace=args.overwrite)
    version = dst.version
    assert version is not None  # the move staged the content there
    return MoveFileResult(
        source=source.display,
        destination=destination.display,
        created_folders=[w.display for w in made],
        replaced_version=replaced,
        version=version,
        change_id=None,  # the commit's (see Tool.call)
        written=txn.writes,
        dry_run=args.dry_run,
    )


def _refuse_folders(txn: Transaction, source: Resolved, destination: Resolved) -> None:
    """Folders are not moved (their files have no history of their own to move back with),
    and a folder as the destination is not moved into (name the new path in full).

    Raises:
        NotAFile: either path is a folder.
    """
    for where, field in ((source, "source"), (destination, "destination")):
        is_folder = where.real == where.root
        if not is_folder:
            try:
                is_folder = folder_state(txn.ctx, where)
            except NotAFile:
                is_folder = False  # a file (or a link): move_all judges it
        if is_folder:
            hint = (
                "Move the files one by one (create_directory makes the new folder)."
                if field == "source"
                else f"Name the new path in full: {where.display}/{os.path.basename(source.real)}"
            )
            raise NotAFile(
                f"{where.display} is a folder; move_file moves one file to a new path",
                path=where.display,
                data={"field": field},
                suggestions=[hint],
            )


def _new_folders(txn: Transaction, destination: Resolved, missing: int) -> list[Resolved]:
    """Stage the folders the destination needs (recorded, so that undo removes them again
    while they are empty), outermost first."""
    made: list[Resolved] = []
    folder = os.path.dirname(destination.real)
    for _ in range(missing):
        made.append(txn.ctx.sandbox.resolve(folder))
        folder = os.path.dirname(folder)
    made.reverse()
    for where in made:
        txn.stage_folder(where, existed=False, exists=True)
    return made


TOOL = Tool(
    name="move_file",
    title="Move or rename a file",
    description=(
        "Move or rename one file inside the allowed folders, keeping its bytes and permissions; "
        "missing folders of destination are created. Refused, nothing changed: destination "
        "exists (STALE_VERSION; overwrite: true replaces it), no source, a folder or a symbolic "
        "link. Recorded in history; undo moves it back. Returns created_folders, version and "
        "change_id."
    ),
    arguments=MoveFileArgs,
    result=MoveFileResult,
    run=run,
    paths=paths,
)
