"""Writing a transaction's staged changes, and recording them: the one place that writes.

::

    one file changes, nothing else (no folder, no move, no permission change)
        -> write_atomic, streamed from its Document and Plan (no journal, no copy of the file)
    else
        -> the new folders, the journal (all files or none, also across a crash), the folders
           that go
    around either: the history entry is committed first, as pending, and counts once the
    files are written (a history that cannot record refuses before any file changes; a
    commit whose process dies leaves a pending entry that ``settle.settle`` reconciles)
    -> warm the parse cache
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet

from editguard.core.delta import Splice
from editguard.core.plan import render_tracked
from editguard.errors import EditError, NotAFile, StaleVersion
from editguard.fs.atomic import write_atomic
from editguard.fs.journal import Step
from editguard.history import History
from editguard.transaction.build import capped
from editguard.transaction.context import Context
from editguard.transaction.folders import folder_empty, make_folder, remove_folder
from editguard.transaction.read import warm_parse
from editguard.transaction.record import records_of
from editguard.transaction.staged import StagedFile, StagedFolder


@dataclasses.dataclass(frozen=True, slots=True)
class Commit:
    """What a commit did: whether it wrote, and its history entry (``None``: none)."""

    written: bool
    change_id: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Staged:
    """What a transaction hands to :func:`commit`: its files and folders, the tool that asks,
    the history entries it takes back and the paths recorded even where unchanged."""

    tool: str
    files: Mapping[str, StagedFile]
    folders: Mapping[str, StagedFolder]
    undoes: Sequence[int] = ()
    kept: AbstractSet[str] = frozenset()


def commit(ctx: Context, staged: Staged, *, dry_run: bool) -> Commit:
    """Write every staged change at once (nothing for a dry run, which still checks what the
    commit would refuse) and record it in the history.

    Raises:
        EditError: STALE_VERSION (a file changed since it was read, a folder to remove is not
            empty), NOT_A_FILE (a file inside a file of the change), PERMISSION_DENIED,
            WRITE_FAILED, naming the file, and a history that cannot be used; nothing was
            written.
    """
    changing = [f for f in staged.files.values() if _changes(f)]
    folders = [f for f in staged.folders.values() if f.existed != f.exists]
    _check_folders(ctx, staged, folders)
    lone = changing[0] if len(changing) == 1 and not folders and _alone(changing[0]) else None
    steps = _steps(ctx, staged.files) if lone is None else []
    history = ctx.history
    if dry_run:
        return Commit(written=False)
    if not (changing or folders):
        if not staged.undoes or history is None:
            return Commit(written=False)
        # Nothing to write (an undo that finds every file as it restores it): the entry still
        # takes the changes back, or every later undo would pick them again.
        entries = records_of(ctx, staged.files.values(), staged.folders.values(), staged.kept)
        return Commit(False, history.record(staged.tool, entries, staged.undoes, client=ctx.client))
    if lone is not None:
        change = _write_one(ctx, staged, lone, history)
    elif history is None:
        _write(ctx, steps, folders)
        change = None
    else:
        entries = records_of(ctx, staged.files.values(), staged.folders.values(), staged.kept)
        with history.recording(staged.tool, entries, staged.undoes, client=ctx.client) as change:
            _write(ctx, steps, folders)
    for file in changing:
        if file.document is not None:
            warm_parse(ctx, file.where, file.document.text, file.plan)
    return Commit(written=True, change_id=change)


def writes(files: Iterable[StagedFile], folders: Iterable[StagedFolder]) -> bool:
    """Whether a commit of these files and folders writes anything."""
    return any(_changes(f) for f in files) or any(f.existed != f.exists for f in folders)


def _changes(file: StagedFile) -> bool:
    """Whether the file's bytes or permission bits change."""
    return (file.version, file.mode) != (file.read_version, file.read_mode)


def _alone(file: StagedFile) -> bool:
    """Whether a file that is the only one to change can be written by itself: it exists
    after, keeps its permission bits, and is no move's destination."""
    return file.exists and file.mode == file.read_mode and file.origin is None


def _check_folders(ctx: Context, staged: Staged, folders: list[StagedFolder]) -> None:
    """Refuse to remove a folder that is not empty once the change is made.

    Raises:
        StaleVersion: naming the folder.
    """
    gone = {r for r, f in staged.files.items() if not f.exists}
    gone |= {f.where.real for f in folders if not f.exists}
    for folder in folders:
        if not folder.exists and not folder_empty(ctx, folder.where, gone):
            raise StaleVersion(
                f"{folder.where.display} is not empty, so it is not removed; nothing was written",
                path=folder.where.display,
                data={"reason": "folder_not_empty"},
                suggestions=["Move or delete what is in it first, or leave the folder."],
            )


def _write_one(
    ctx: Context, staged: Staged, file: StagedFile, history: History | None
) -> int | None:
    """Write the one file that changes with ``write_atomic``: from its Document and Plan as a
    stream, or its bytes; the history entry is committed once the new bytes are safe in a
    temporary file, just before the file is replaced."""
    splices: list[Splice] = []
    if file.plan is not None:
        assert file.document is not None  # a plan is only staged on a text
        chunks: Iterator[bytes] = capped(
            ctx, file.where, render_tracked(file.document, file.plan, splices)
        )
    else:
        chunks = iter((file.bytes(ctx),))
    ids: list[int] = []

    @contextlib.contextmanager
    def recorded(version: str) -> Iterator[None]:
        assert version == file.version  # the version staged is the version written
        assert history is not None
        if file.plan is not None:
            file.rendered(tuple(splices))
        entries = records_of(ctx, staged.files.values(), staged.folders.values(), staged.kept)
        with history.recording(staged.tool, entries, staged.undoes, client=ctx.client) as change:
            ids.append(change)
            yield

    write_atomic(
        file.location,
        chunks,
        display=file.where.display,
        base_version=file.read_version,
        around=recorded if history is not None else None,
    )
    return ids[0] if ids else None


def _steps(ctx: Context, files: Mapping[str, StagedFile]) -> list[Step]:
    """The journal steps: each file whose final state differs from what was read.

    Raises:
        NotAFile: a file would be created inside a path that is itself a file of the change.
    """
    _no_file_in_a_file(files)
    out: list[Step] = []
    for file in files.values():
        if file.version is None:
            if file.read_version is not None:
                out.append(Step("delete", file.location, file.read_version))
            continue
        if not _changes(file):
            continue
        # The bytes as staged (rendered now), or as read for a change of permission bits.
        out.append(Step("write", file.location, file.read_version, file.bytes(ctx), file.mode))
    return out


def _no_file_in_a_file(files: Mapping[str, StagedFile]) -> None:
    existing = {real: file for real, file in files.items() if file.exists}
    for real, file in existing.items():
        folder = os.path.dirname(real)
        while folder != os.path.dirname(folder) and folder != file.where.root:
            if folder in existing:
                name = existing[folder].where.display
                raise NotAFile(
                    f"{name} is a file (of this change), so {file.where.display} cannot "
                    "be inside it",
                    path=file.where.display,
                    data={"not_a_folder": name},
                )
            folder = os.path.dirname(folder)


def _write(ctx: Context, steps: list[Step], folders: list[StagedFolder]) -> None:
    """Make the new folders, write the files (the journal), then remove the folders to go.
    A folder made here goes again if the files' commit fails; one that cannot be removed
    after the files are written (something was put in it meanwhile) stays."""
    depth = lambda f: f.where.real.count(os.sep)  # noqa: E731 - a sort key
    made: list[StagedFolder] = []
    try:
        for folder in sorted((f for f in folders if f.exists), key=depth):
            if make_folder(ctx, folder.where):
                made.append(folder)  # noqa: PERF401 - so far, for a rollback
        if steps:
            ctx.journal.commit(steps)
    except BaseException:
        for folder in reversed(made):
            with contextlib.suppress(EditError, OSError):
                remove_folder(ctx, folder.where)
        raise
    for folder in sorted((f for f in folders if not f.exists), key=depth, reverse=True):
        with contextlib.suppress(EditError, OSError):
            remove_folder(ctx, folder.where)
