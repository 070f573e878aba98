"""``move_file``: move or rename a file, as a recorded change that ``undo`` moves back."""

from __future__ import annotations

import os

from pydantic import Field

from editguard.errors import InvalidRequest
from editguard.tools._common import DRY_RUN_HELP, PATH_HELP, Args, Checked
from editguard.tools._tool import Tool
from editguard.transaction import Transaction
from editguard.transaction.move import move_file


class MoveFileArgs(Args):
    """Arguments of move_file."""

    source: str = Field(description=PATH_HELP)
    destination: str = Field(description="The new path (not a folder to move into).")
    overwrite: bool = Field(False, description="Replace a file at destination.")
    dry_run: bool = Field(False, description=DRY_RUN_HELP)


class MoveFileResult(Checked):
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
    """Move ``source`` to ``destination`` in the call's transaction (the journal writes the
    new path and removes the old one together); the bytes and permission bits move with it.

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
    moved = move_file(txn, source, destination, overwrite=args.overwrite)
    return MoveFileResult(
        source=source.display,
        destination=destination.display,
        created_folders=[w.display for w in moved.created_folders],
        replaced_version=moved.replaced_version,
        version=moved.version,
        change_id=None,  # the commit's (see Tool.call)
        written=txn.writes,
        dry_run=args.dry_run,
    )


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
