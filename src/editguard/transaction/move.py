"""Moving one file to a new path (``move_file``), staged in a transaction: what must hold
first, and the folders the new path needs.

Folders are not moved (their files have no history of their own to move back with), and a
folder as the destination is not moved into (the new path is named in full). The bytes and
permission bits move with the file; missing folders of the destination are made and recorded,
so that undo removes them again while they are empty.
"""

from __future__ import annotations

import dataclasses
import os

from editguard.errors import FileNotFound, NotAFile, StaleVersion, error_context
from editguard.fs.nearest import with_nearest
from editguard.fs.sandbox import Resolved
from editguard.transaction import Transaction
from editguard.transaction.folders import folder_state


@dataclasses.dataclass(frozen=True, slots=True)
class Moved:
    """What a move stages: the folders it makes (outermost first), the version of the file it
    replaces (``None``: none), and the file's version at its new path."""

    created_folders: tuple[Resolved, ...]
    replaced_version: str | None
    version: str


def move_file(
    txn: Transaction, source: Resolved, destination: Resolved, *, overwrite: bool
) -> Moved:
    """Stage moving the file at ``source`` to ``destination`` (another file).

    Raises:
        FileNotFound: no source.
        NotAFile: either path is a folder or a symbolic link, or a file is where a folder of
            the destination belongs.
        StaleVersion: the destination exists and ``overwrite`` is false.
    """
    _refuse_folders(txn, source, destination)
    version = txn.file(source).version  # the bytes move as they are
    if version is None:
        raise with_nearest(
            FileNotFound(
                f"{source.display} does not exist; nothing was moved", path=source.display
            ),
            source,
        )
    dst = txn.file(destination)
    replaced = dst.version
    if replaced is not None and not overwrite:
        raise StaleVersion(
            f"{destination.display} exists already; nothing was moved",
            path=destination.display,
            data={"reason": "destination_exists", "actual_version": replaced},
            suggestions=["Choose another destination, or pass overwrite: true to replace it."],
        )
    made = _new_folders(txn, destination, len(dst.location.missing))
    with error_context(path=source.display):
        txn.move_all([(source, destination)], replace=overwrite)
    return Moved(tuple(made), replaced, version)


def _refuse_folders(txn: Transaction, source: Resolved, destination: Resolved) -> None:
    """Refuse a folder at either end.

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
