"""``create_directory``: a folder and its missing parents (``mkdir -p``), recorded so that
``undo`` removes them again while they are empty."""

from __future__ import annotations

import os

from pydantic import Field

from editguard.fs.sandbox import Resolved
from editguard.tools._common import Args, Checked
from editguard.tools._tool import Tool
from editguard.transaction import Transaction, check_count, folder_state
from editguard.transaction.context import Context


class CreateDirectoryArgs(Args):
    """Arguments of create_directory."""

    path: str = Field(description="The folder; relative to the root, or absolute.")


class CreateDirectoryResult(Checked):
    """Result of create_directory."""

    path: str
    created: list[str] = Field(description="The folders made, outermost first.")
    existed: bool = Field(description="It was there already (nothing made).")
    change_id: int | None = Field(description="Its history id (for undo).")


def run(txn: Transaction, args: CreateDirectoryArgs) -> CreateDirectoryResult:
    """Make the folder at ``path`` and every missing folder above it, as one recorded change.

    Raises:
        EditError: OUTSIDE_ROOT, NOT_A_FILE (a file is where the folder or one of its parents
            belongs), PERMISSION_DENIED, WRITE_FAILED; nothing was made.
    """
    ctx = txn.ctx
    where = ctx.sandbox.resolve(args.path)
    chain = _chain(ctx, where)
    txn.lock_resolved(chain)
    # Outermost first: the first folder that is missing, and every one below it, are made.
    missing = [w for w in chain if not folder_state(ctx, w)]
    for folder in missing:
        txn.stage_folder(folder, existed=False, exists=True)
    return CreateDirectoryResult(
        path=where.display,
        created=[w.display for w in missing],
        existed=not missing,
        change_id=None,  # the commit's (see Tool.call)
    )


def _chain(ctx: Context, where: Resolved) -> list[Resolved]:
    """``where`` and the folders above it up to its root, outermost first.

    Raises:
        TooManyEdits: more folders than one change may touch (counted before any is resolved:
            resolving each of a thousand nested folders would cost a thousand times the depth).
    """
    check_count(os.path.relpath(where.real, where.root).count(os.sep) + 1)
    chain = [where]
    folder = where.real
    while folder != where.root:
        folder = os.path.dirname(folder)
        if folder != where.root:
            chain.append(ctx.sandbox.resolve(folder))
    chain.reverse()
    return [w for w in chain if w.real != w.root]


TOOL = Tool(
    name="create_directory",
    title="Create a folder",
    description=(
        "Create a folder and its missing parents inside the allowed folders (like mkdir -p). "
        "An existing folder is success (existed: true); a file in the way is NOT_A_FILE. "
        "Recorded in history; undo removes the folders it made while they are empty. Returns "
        "created (the folders made) and change_id."
    ),
    arguments=CreateDirectoryArgs,
    result=CreateDirectoryResult,
    run=run,
    paths=lambda _: [],  # the folder and those above it, locked by run outermost first
    destructive=False,
    idempotent=True,
)
