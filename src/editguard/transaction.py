"""Several changes to several files, staged in memory and committed together or not at all.

``batch``, ``apply_patch`` and ``apply_diff`` open a :class:`Transaction` and run their changes
in it. Inside, :func:`~editguard.pipeline.run_edit` (every writing tool's one path) reads each
file once, from disk the first time and from the staged text after that, so every call sees the
changes before it; it builds, checks and validates exactly as for a single file, but writes
nothing. :meth:`Transaction.commit` then hands the files whose final state differs from what
was read to the journal (:mod:`editguard.fs.journal`), which writes them all or none, also
across a crash.

::

    lock every known file (sorted by real path) -> for each change: load or take the staged
    text, check expected_version, build, validate, stage -> commit: journal (versions checked
    again, all files or none) -> warm the parse cache

Folders: a change may also make folders (``create_directory``, the new folders of a move's
destination) and remove empty ones (an undo of those), staged with :meth:`Transaction.stage_folder`:
they are made before the journal commits the files and removed after it, and recorded in the same
history entry (version :data:`~editguard.history.records.FOLDER`), so that undo takes them back.

Locks: the files a request names are locked before anything is read, in the order of their real
paths, so two transactions over the same files cannot deadlock; a file met only later (a path
that only a call inside a batch names) is locked when it is first touched, and a lock that cannot
be had within the timeout is FILE_BUSY, never a deadlock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import stat
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from types import TracebackType

from editguard.core.delta import WHOLE, Layer, Splice, between, pack_layers
from editguard.core.document import Document, content_version, decode
from editguard.core.plan import Changed, Plan, applied, render, render_tracked
from editguard.errors import (
    BinaryFile,
    EditError,
    FileNotFound,
    NotAFile,
    StaleVersion,
    TooManyEdits,
    error_context,
)
from editguard.fs.atomic import UMASK, FileReader
from editguard.fs.journal import Step, enough_descriptors
from editguard.fs.location import Location, locate
from editguard.fs.nearest import with_nearest
from editguard.fs.oserror import os_error
from editguard.fs.sandbox import Resolved, names_a_link
from editguard.history import FileRecord, records
from editguard.history.store import Action, Entry, History
from editguard.pipeline import (
    C,
    Context,
    Mode,
    Outcome,
    build_change,
    capped,
    check_version,
    load_with_mode,
    recovered,
    warm,
)

# Files one transaction may touch: each holds a lock and a folder descriptor until the commit
# ends (two descriptors, and the journal opens a few more), which the usual limit of 1,024 open
# files per process must hold.
MAX_FILES = 256


@dataclasses.dataclass(slots=True)
class StagedFile:
    """One file of a transaction: as it was read, and as it will be.

    ``document`` is ``None`` while the file does not exist (never did, or is deleted); a file
    that is not text (BINARY_FILE) can only be deleted or replaced whole, so its ``document``
    stays ``None`` with ``binary`` set.
    """

    where: Resolved
    location: Location
    read_version: str | None  # None: it did not exist
    read_mode: int | None
    document: Document | None
    version: str | None
    mode: int | None
    content: bytes | None = None  # the staged bytes, once a change staged them
    binary: bool = False
    # For the history: the text as read, and the deltas of each change staged since (oldest
    # first) that take the staged bytes back to what was read (``None``: not known, so the
    # old bytes are kept whole).
    original: Document | None = None
    read_size: int | None = None  # characters of the text as read (bytes of a binary file)
    layers: list[Layer] | None = dataclasses.field(default_factory=list)
    changed: Changed | None = dataclasses.field(default_factory=Changed)  # for its diff
    origin: StagedFile | None = None  # a moved file: the file whose content this continues
    moved_to: StagedFile | None = None  # a file moved away: where its content went

    @property
    def exists(self) -> bool:
        """Whether the file exists in the staged state."""
        return self.version is not None


@dataclasses.dataclass(slots=True)
class StagedFolder:
    """A folder a transaction makes or removes (or, for an undo, finds as it restores it).

    Folders are made before the files are written (parents first) and removed after (children
    first, and only while empty); the history records each with the version
    :data:`~editguard.history.records.FOLDER`.
    """

    where: Resolved
    existed: bool
    exists: bool


def check_count(files: int) -> None:
    """Refuse a change of more than :data:`MAX_FILES` files and folders.

    Raises:
        TooManyEdits: ``files`` is over the limit.
    """
    if files > MAX_FILES:
        raise TooManyEdits(
            f"one change may touch at most {MAX_FILES} files; this one touches {files}",
            data={"files": files, "limit": MAX_FILES},
            suggestions=["Split the change into several calls."],
        )


class Transaction:
    """See the module docstring. Use it as a context manager (it holds locks and folders).

    ``dry_run``: stage and check everything as usual, commit nothing (and take no lock).
    """

    def __init__(self, ctx: Context, *, dry_run: bool = False) -> None:
        self.ctx = dataclasses.replace(ctx, transaction=self)
        enough_descriptors(4 * MAX_FILES + 64)

        self.dry_run = dry_run
        self.undoes: list[int] = []  # the history entries this transaction takes back
        # Paths recorded even where unchanged (an undo's files already as it restores them:
        # without a record the history would keep their part of the undone change in effect).
        self.kept: set[str] = set()
        self.change_id: int | None = None  # the history entry of the commit
        self.files: dict[str, StagedFile] = {}
        self.folders: dict[str, StagedFolder] = {}
        self._locked: set[str] = set()
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Transaction:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stack.close()

    def lock(self, paths: Iterable[str]) -> None:
        """Resolve ``paths`` and lock them, in the order of their real paths.

        Raises:
            EditError: a path the sandbox refuses; FILE_BUSY.
        """
        self.lock_resolved([self.ctx.sandbox.resolve(p) for p in paths])

    def lock_resolved(self, wheres: Iterable[Resolved]) -> None:
        """Lock paths the sandbox accepted, in the order of their real paths.

        Raises:
            FileBusy: another writer held one of them for longer than the timeout.
        """
        resolved = {w.real: w for w in wheres}
        self._check_count(len(set(resolved) | set(self.files) | self._locked))
        fresh = [real for real in sorted(resolved) if real not in self._locked]
        for real in fresh:
            self._lock(resolved[real], recover=False)
        if fresh and not self.dry_run:
            recovered(self.ctx, frozenset(self._locked))

    def _lock(self, where: Resolved, *, recover: bool = True) -> None:
        """Lock one file; then (unless told not to) finish a dead commit that names it, so
        that what is read is never half done."""
        if self.dry_run or where.real in self._locked:
            return
        self._stack.enter_context(self.ctx.locks.hold(where.real, where.display))
        self._locked.add(where.real)
        if recover:
            recovered(self.ctx, frozenset(self._locked))

    def file(self, where: Resolved) -> StagedFile:
        """The staged file at ``where``, read from disk the first time (locked first).

        Raises:
            TooManyEdits: the transaction already touches :data:`MAX_FILES` files.
            EditError: the file errors (NOT_A_FILE, PERMISSION_DENIED, FILE_TOO_LARGE, ...);
                a missing file is no error (it is staged as not existing).
        """
        staged = self.files.get(where.real)
        if staged is not None:
            return staged
        self._check_count(len(self.files) + 1)
        self._lock(where)
        location = self._stack.enter_context(locate(self.ctx.sandbox, where, create=True))
        staged = _read(self.ctx, where, location)
        self.files[where.real] = staged
        return staged

    def _check_count(self, files: int) -> None:
        check_count(files)

    def current(
        self, where: Resolved, *, create: bool = False, expected_version: str | None = None
    ) -> tuple[StagedFile, Document]:
        """The file's staged text (an empty Document for a file to create).

        ``expected_version`` may be the version that was read or the one staged last.

        Raises:
            FileNotFound: it does not exist (and ``create`` is false).
            BinaryFile: it is not text.
            StaleVersion: ``expected_version`` is neither.
        """
        staged = self.file(where)
        display = where.display
        if not staged.exists:
            if not create:
                raise with_nearest(
                    FileNotFound(
                        f"{display} does not exist"
                        + (
                            " (an earlier change of this call deleted it)"
                            if staged.read_version
                            else ""
                        ),
                        path=display,
                    ),
                    where,
                )
            check_version(display, expected_version, None)
            return staged, Document("", name=display)
        if staged.binary:
            raise BinaryFile(
                f"{display} is not a text file; it can only be deleted or moved",
                path=display,
            )
        check_version(display, expected_version, staged.read_version, staged.version)
        assert staged.document is not None
        return staged, staged.document

    def run_edit(
        self,
        where: Resolved,
        build: Callable[[Document], C],
        *,
        mode: Mode,
        dry_run: bool = False,
        expected_version: str | None = None,
        create: bool = False,
    ) -> Outcome[C]:
        """:func:`~editguard.pipeline.run_edit` inside the transaction: the change is staged
        (unless it is a dry run or ``verify_only``), not written; ``written`` in the outcome
        says it will be written by the commit."""
        with error_context(path=where.display):
            staged, before = self.current(where, create=create, expected_version=expected_version)
            version = staged.version
            change, modifies, report = build_change(self.ctx, where, before, build, mode)
            creates = version is None
            modifies = modifies or creates
            # A dry run of the whole transaction still stages, so that later calls see this
            # one's result; it only never commits.
            stages = modifies and not (dry_run or mode == "verify_only")
            new_version = version
            if modifies:
                splices: list[Splice] = []
                content = b"".join(
                    capped(self.ctx, where, render_tracked(before, change.plan, splices))
                )
                new_version = content_version([content])
                if stages:
                    self.stage(
                        staged, applied(before, change.plan), content, tuple(splices), change.plan
                    )
            assert new_version is not None
        written = stages and not self.dry_run
        return Outcome(
            where, before, change, version, new_version, creates, modifies, written, report
        )

    def stage(
        self,
        staged: StagedFile,
        document: Document | None,
        content: bytes | None = None,
        layer: Layer | None = None,
        plan: Plan | None = None,
    ) -> None:
        """Stage a new state: ``document`` (with its bytes, if known, and the delta from the
        staged bytes before and the plan that made it, if known), or ``None`` to delete."""
        if document is None:
            staged.document, staged.version, staged.content = None, None, None
            staged.binary = False
            # What was read is gone: the history keeps it whole.
            staged.layers, staged.changed, staged.origin = None, None, None
            # A file made again at this path is a new file: it gets a new file's mode, not
            # the deleted one's (which may have been setuid).
            staged.mode = 0o666 & ~UMASK if staged.read_version is not None else None
            return
        if content is None:
            content = b"".join(capped(self.ctx, staged.where, render(document, Plan())))
        self._track(staged, layer, plan)
        staged.document, staged.content = document, content
        staged.version = content_version([content])
        staged.binary = False
        if staged.mode is None:
            staged.mode = staged.read_mode

    def _track(self, staged: StagedFile, layer: Layer | None, plan: Plan | None) -> None:
        """Follow a new staged state of an existing file for the history: its delta (what takes
        it back) and its plan (what its diff shows); either is lost once one is not known."""
        known = staged.exists
        if staged.layers is not None and known and layer is not None:
            staged.layers.append(layer)
        else:
            staged.layers = None
        if staged.changed is not None and known and plan is not None:
            staged.changed.then(plan)
        else:
            staged.changed = None

    def delete(self, where: Resolved) -> StagedFile:
        """Stage the deletion of an existing file.

        Raises:
            FileNotFound: it does not exist (or an earlier change deleted it).
            NotAFile: it is a folder or another non-file.
        """
        self._not_a_link(where, "deleted")
        staged = self.file(where)
        if not staged.exists:
            raise with_nearest(
                FileNotFound(
                    f"{where.display} does not exist, so it cannot be deleted", path=where.display
                ),
                where,
            )
        self.stage(staged, None)
        return staged

    def _not_a_link(self, where: Resolved, what: str) -> None:
        """Refuse to delete or move a file through a symbolic link: that would act on the
        link's target and leave the link dangling (or write through it).

        Raises:
            NotAFile: naming the link.
        """
        if names_a_link(self.ctx.sandbox, where):
            raise NotAFile(
                f"{where.requested} is a symbolic link (to {where.display}); a link is not "
                f"{what} through it",
                path=where.requested,
                data={"target": where.display},
                suggestions=["Name the file itself (the link's target), or leave the link alone."],
            )

    def move(self, source: Resolved, destination: Resolved) -> None:
        """Stage moving the file at ``source`` (as staged) to ``destination``, replacing what
        is there (Codex's ``Move to``); the file keeps its permission bits.

        Raises:
            FileNotFound: the source does not exist (now).
            NotAFile: either path is a symbolic link.
        """
        self.move_all([(source, destination)], replace=True)

    def move_all(self, pairs: list[tuple[Resolved, Resolved]], *, replace: bool) -> None:
        """Stage several moves at once, as ``git mv`` would do them together: every source is
        taken first, so two files may swap names. Without ``replace``, a destination that
        exists and is not itself moved away is refused, as git refuses it.

        Raises:
            FileNotFound: a source does not exist (now).
            NotAFile: a path is a symbolic link.
            StaleVersion: without ``replace``, a destination exists (or two moves share one).
        """
        pairs = [(s, d) for s, d in pairs if s.real != d.real]
        taken: list[tuple[Document | None, bytes, int | None, StagedFile]] = []
        for source, destination in pairs:
            self._not_a_link(source, "moved")
            self._not_a_link(destination, "replaced by a move")
            src = self.file(source)
            if not src.exists:
                raise with_nearest(
                    FileNotFound(
                        f"{source.display} does not exist, so it cannot be moved",
                        path=source.display,
                    ),
                    source,
                )
            content = src.content if src.content is not None else bytes_of(self.ctx, src)
            # What moves, taken before any source is staged away (a swap reads both first).
            taken.append((src.document, content, src.mode, src))
        sources = {s.real for s, _ in pairs}
        targets: set[str] = set()
        for _, destination in pairs:
            dst = self.file(destination)
            clash = destination.real in targets or (dst.exists and destination.real not in sources)
            if clash and not replace:
                raise StaleVersion(
                    f"{destination.display} exists already, so nothing can be moved onto it",
                    path=destination.display,
                    data={"actual_version": dst.version},
                    suggestions=["Move the file somewhere free, or delete the existing one first."],
                )
            targets.add(destination.real)
        # Where each moved content came from, for the history, before the sources are staged away.
        lineage = [
            (
                src.origin or src,
                None if src.layers is None else list(src.layers),
                None if src.changed is None else Changed(list(src.changed.spans)),
            )
            for *_, src in taken
        ]
        for source, _ in pairs:
            self.stage(self.file(source), None)
        for (document, content, mode, _), (_, destination), (origin, layers, changed) in zip(
            taken, pairs, lineage, strict=True
        ):
            dst = self.file(destination)
            if document is None:  # not text: its bytes as read
                dst.document, dst.content, dst.binary = None, content, True
                dst.version = content_version([content])
            else:
                self.stage(dst, dataclasses.replace(document, name=destination.display), content)
            dst.layers, dst.changed = layers, changed
            # Content moved back where it started is an update of that path, not a move.
            dst.origin = None if origin is dst else origin
            origin.moved_to = None if origin is dst else dst
            # The permission bits move with the file; setuid, setgid and sticky do not (the
            # moved file may get another owner).
            dst.mode = None if mode is None else mode & 0o777

    def stage_folder(self, where: Resolved, *, existed: bool, exists: bool) -> StagedFolder:
        """Stage a folder's state: made (``exists`` where it did not), removed (the other way
        round; it must be empty when the commit comes) or left as it is. The caller has locked
        it and looked at it (:func:`folder_state`)."""
        staged = self.folders.get(where.real)
        if staged is None:
            staged = self.folders[where.real] = StagedFolder(where, existed, exists)
        staged.exists = exists
        return staged

    def put(self, staged: StagedFile, content: bytes, mode: int | None) -> None:
        """Stage ``content`` as the file's bytes (an undo's restore), with permission bits
        ``mode`` where they differ from the file's now (special bits are never set)."""
        layer = None
        if staged.exists:
            now = staged.content if staged.content is not None else bytes_of(self.ctx, staged)
            layer = between(now, content)
        try:
            document: Document | None = dataclasses.replace(
                decode(content), name=staged.where.display
            )
        except BinaryFile:
            document = None
        if document is not None:
            self.stage(staged, document, content, layer)
        else:
            self._track(staged, layer, None)
            staged.document, staged.content, staged.binary = None, content, True
            staged.version = content_version([content])
        if mode is not None and mode != staged.read_mode:
            staged.mode = mode & 0o777
        elif staged.mode is None:
            staged.mode = staged.read_mode

    def set_executable(self, staged: StagedFile, executable: bool) -> None:
        """Set or clear the executable bits (a diff's mode change: git records no more), where
        the file is readable; special bits are never set."""
        mode = staged.mode if staged.mode is not None else 0o666 & ~UMASK
        if executable:
            mode |= (mode & 0o444) >> 2
        else:
            mode &= ~0o111
        staged.mode = mode & 0o777

    def steps(self) -> list[Step]:
        """The journal steps: each file whose final state differs from what was read.

        Raises:
            NotAFile: a file would be created inside a path that is itself a file of the change.
        """
        self._no_file_in_a_file()
        out: list[Step] = []
        for staged in self.files.values():
            if staged.version is None:
                if staged.read_version is not None:
                    out.append(Step("delete", staged.location, staged.read_version))
                continue
            same = staged.version == staged.read_version and staged.mode == staged.read_mode
            if same:
                continue
            content = staged.content
            if content is None:  # a mode change alone: the bytes as read
                content = bytes_of(self.ctx, staged)
            out.append(Step("write", staged.location, staged.read_version, content, staged.mode))
        return out

    def _no_file_in_a_file(self) -> None:
        files = {real: staged for real, staged in self.files.items() if staged.exists}
        for real, staged in files.items():
            folder = os.path.dirname(real)
            while folder != os.path.dirname(folder) and folder != staged.where.root:
                if folder in files:
                    name = files[folder].where.display
                    raise NotAFile(
                        f"{name} is a file (of this change), so {staged.where.display} cannot "
                        "be inside it",
                        path=staged.where.display,
                        data={"not_a_folder": name},
                    )
                folder = os.path.dirname(folder)

    def commit(self) -> bool:
        """Write every staged change at once (nothing for a dry run) and record it in the
        history; ``True`` if it wrote.

        Raises:
            EditError: the journal's refusals (STALE_VERSION, PERMISSION_DENIED, WRITE_FAILED),
                naming the file, and a history that cannot be used; nothing was written.
        """
        steps = self.steps()
        folders = [f for f in self.folders.values() if f.existed != f.exists]
        # What is gone once the change is made: a folder to remove may hold only that.
        gone = {r for r, f in self.files.items() if not f.exists}
        gone |= {f.where.real for f in folders if not f.exists}
        for folder in folders:
            if not folder.exists and not folder_empty(self.ctx, folder.where, gone):
                raise StaleVersion(
                    f"{folder.where.display} is not empty, so it is not removed; nothing was "
                    "written",
                    path=folder.where.display,
                    data={"reason": "folder_not_empty"},
                    suggestions=["Move or delete what is in it first, or leave the folder."],
                )
        if self.dry_run or not (steps or folders):
            return False
        history = self.ctx.history
        if history is None:
            self._write(steps, folders)
        else:
            entries = self.records()  # reads what is replaced, before it is
            # The entry is written first and committed with the files: a history that cannot
            # record refuses the change before any file is touched.
            with history.recording(
                self.ctx.tool or "batch", entries, self.undoes, client=self.ctx.client
            ) as change:
                self._write(steps, folders)
            self.change_id = change
        for staged in self.files.values():
            if staged.document is not None and staged.content is not None:
                warm(self.ctx, staged.where, staged.document.text)
        return True

    def _write(self, steps: list[Step], folders: list[StagedFolder]) -> None:
        """Make the new folders, write the files (the journal), then remove the folders to go.
        A folder made here goes again if the files' commit fails; one that cannot be removed
        after the files are written (something was put in it meanwhile) stays."""
        depth = lambda f: f.where.real.count(os.sep)  # noqa: E731 - a sort key
        made: list[StagedFolder] = []
        try:
            for folder in sorted((f for f in folders if f.exists), key=depth):
                if make_folder(self.ctx, folder.where):
                    made.append(folder)  # noqa: PERF401 - so far, for a rollback
            if steps:
                self.ctx.journal.commit(steps)
        except BaseException:
            for folder in reversed(made):
                with contextlib.suppress(EditError, OSError):
                    remove_folder(self.ctx, folder.where)
            raise
        for folder in sorted((f for f in folders if not f.exists), key=depth, reverse=True):
            with contextlib.suppress(EditError, OSError):
                remove_folder(self.ctx, folder.where)

    def records(self) -> list[FileRecord]:
        """The history's record of each path whose state changes, and of each path in
        :attr:`kept` (see :class:`~editguard.history.FileRecord`); folders last."""
        out = []
        for staged in self.files.values():
            before = (staged.read_version, staged.read_mode)
            after = (staged.version, staged.mode if staged.exists else None)
            if before != after or staged.origin is not None:
                out.append(self._record(staged, before, after))
            elif staged.where.real in self.kept:
                out.append(_unchanged(staged, before))
        for folder in self.folders.values():
            if folder.existed != folder.exists or folder.where.real in self.kept:
                where = folder.where
                out.append(
                    records.folder_record(where.display, where.real, folder.existed, folder.exists)
                )
        return out

    def _record(
        self,
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
            final = holder.content if holder is not None else None
            restore = records.restore(
                staged.read_size,
                lambda: bytes_of(self.ctx, staged),
                layers,
                None if final is None else lambda: final,
            )
        if staged.binary or (staged.read_version is not None and staged.original is None):
            diff = ""
        elif moved_to is not None and after[0] is None:
            diff = ""  # shown on the move's new path
        else:
            first = origin.original if origin is not None else staged.original
            old_text = first.text if first is not None else ""
            head = origin.where.display if origin is not None else where.display
            new_text = text_of_staged(staged)
            changed = staged.changed if first is not None else None
            plan = changed.plan(old_text, new_text) if changed is not None else None
            diff = records.text_diff(old_text, new_text, where.display, plan)
            if origin is not None:
                diff = _renamed(diff, head, where.display)
        base = holder.where.real if holder is not None and holder is not staged else None
        return records.record(
            path=where.display,
            real=where.real,
            action=action,
            before=before,
            after=after,
            diff=diff,
            restore_data=restore,
            base=base if restore is not None and restore[:1] != WHOLE else None,
            moved=moved,
        )


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


def text_of_staged(staged: StagedFile) -> str:
    """The staged text (empty for a file that will not exist)."""
    return staged.document.text if staged.document is not None else ""


def _renamed(diff: str, old: str, new: str) -> str:
    """A diff's header naming the path it came from."""
    head = f"--- a/{new}\n+++ b/{new}\n"
    if diff.startswith(head):
        return f"--- a/{old}\n+++ b/{new}\n" + diff[len(head) :]
    return diff


def folder_state(ctx: Context, where: Resolved) -> bool:
    """Whether a folder is at ``where`` (``False``: nothing is).

    Raises:
        NotAFile: something else is there (a file), or a folder of the path is a file.
        OutsideRoot, StaleVersion: a folder of the path was swapped for a symbolic link.
    """
    if where.real == where.root:
        return True
    with locate(ctx.sandbox, where, create=True) as location:
        if location.missing:
            return False
        try:
            found = os.lstat(location.name, dir_fd=location.folder)
        except FileNotFoundError:
            return False
        if stat.S_ISDIR(found.st_mode):
            return True
        if stat.S_ISLNK(found.st_mode):
            raise location.changed()
        raise NotAFile(
            f"{where.display} is a file, not a folder",
            path=where.display,
            data={"not_a_folder": where.display},
            suggestions=["Choose another name, or move the file away first."],
        )


def folder_empty(ctx: Context, where: Resolved, gone: AbstractSet[str] = frozenset()) -> bool:
    """Whether the folder at ``where`` is empty but for the real paths in ``gone`` (a missing
    one counts as empty)."""
    with locate(ctx.sandbox, where, create=True) as location:
        if location.missing:
            return True
        try:
            fd = os.open(location.name, _FOLDER, dir_fd=location.folder)
        except FileNotFoundError:
            return True
        except OSError:
            return False  # not a folder (or not one to look into): not to be removed
        try:
            return all(os.path.join(where.real, name) in gone for name in os.listdir(fd))
        finally:
            os.close(fd)


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def make_folder(ctx: Context, where: Resolved) -> bool:
    """Make the folder at ``where`` (its parents exist, or are made too); ``False`` if another
    process made it meanwhile.

    Raises:
        NotAFile: a file is in the way.
        OutsideRoot, StaleVersion, PermissionDenied, WriteFailed: as :func:`locate`.
    """
    with locate(ctx.sandbox, where, create=True) as location:
        names = [*location.missing, location.name]
        folder = location.folder
        made = False
        try:
            for name in names:
                try:
                    os.mkdir(name, 0o777, dir_fd=folder)
                    made = True
                except FileExistsError:
                    pass
                except OSError as exc:
                    raise os_error(exc, where.display, "create the folder") from None
                try:
                    inner = os.open(name, _FOLDER, dir_fd=folder)
                except OSError as exc:
                    if exc.errno == errno.ELOOP:
                        raise location.changed() from None
                    if exc.errno == errno.ENOTDIR:
                        raise NotAFile(
                            f"{where.display} cannot be created: {name} is a file",
                            path=where.display,
                            data={"not_a_folder": name},
                        ) from None
                    raise os_error(exc, where.display, "open the folder") from None
                with contextlib.suppress(OSError):
                    os.fsync(folder)  # the new name is durable
                if folder != location.folder:
                    os.close(folder)
                folder = inner
        finally:
            if folder != location.folder:
                os.close(folder)
    return made


def remove_folder(ctx: Context, where: Resolved) -> None:
    """Remove the empty folder at ``where`` (never through a symbolic link).

    Raises:
        OSError: it is not empty, or not a folder.
        EditError: as :func:`locate`.
    """
    with locate(ctx.sandbox, where) as location:
        os.rmdir(location.name, dir_fd=location.folder)
        with contextlib.suppress(OSError):
            os.fsync(location.folder)


def _read(ctx: Context, where: Resolved, location: Location) -> StagedFile:
    """The file as it is now: text, bytes of a non-text file's version, or nothing."""
    if location.missing:
        return StagedFile(where, location, None, None, None, None, None)
    try:
        doc, version, mode = load_with_mode(ctx, location)
    except FileNotFound:
        return StagedFile(where, location, None, None, None, None, None)
    except BinaryFile:
        version, mode, size = _raw(ctx, where, location)
        return StagedFile(
            where, location, version, mode, None, version, mode, binary=True, read_size=size
        )
    return StagedFile(
        where, location, version, mode, doc, version, mode, original=doc, read_size=len(doc.text)
    )


def _raw(ctx: Context, where: Resolved, location: Location) -> tuple[str, int, int]:
    """The version, mode and size of a file that is not text."""
    reader = FileReader(location, where.display, ctx.max_file_bytes)
    try:
        reader.head()
        for _ in reader():
            pass
    finally:
        reader.close()
    assert reader.stat is not None
    return reader.version, reader.stat.st_mode & 0o7777, reader.stat.st_size


def bytes_of(ctx: Context, staged: StagedFile) -> bytes:
    reader = FileReader(staged.location, staged.where.display, ctx.max_file_bytes)
    try:
        reader.head()
        data = b"".join(reader())
    finally:
        reader.close()
    # The journal checks again that the file still holds the version that was read.
    check_version(staged.where.display, staged.read_version, reader.version)
    return data


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
            version, mode, _ = _raw(ctx, where, location)
        except FileNotFound:
            return None, None
        return version, mode


def _holds(state: tuple[str | None, int | None], version: str | None, mode: int | None) -> bool:
    """Whether a file's state is that version, with those permission bits where both are
    known."""
    return state[0] == version and (mode is None or state[1] is None or state[1] == mode)
