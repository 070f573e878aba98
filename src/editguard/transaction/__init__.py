"""The one way editguard writes: every writing call runs in a :class:`Transaction`.

:meth:`Tool.call <editguard.tools._tool.Tool.call>` opens one for each writing call (``batch``
runs all its calls in its own) and commits it when the call has run. A call stages its changes
in it: :meth:`Transaction.run_edit` reads each file once, from disk the first time and from the
staged state after that (so every change sees the ones before it), builds, checks and validates
the change and stages it, writing nothing. :meth:`Transaction.commit` then writes them all or
none (:mod:`~editguard.transaction.commit`: one file alone with an atomic write, streamed; more
through the journal) and records them in the history.

::

    lock the files the call names (sorted by real path) -> for each change: load or take the
    staged text, check expected_version, build, format what it wrote when the call asks
    (formatting.py), check and validate (build.py), stage ->
    commit: write (commit.py), with the history's record (record.py) -> warm the parse cache

Whether a call writes is decided here and nowhere else: a change is staged when it modifies
the file and its call does not only check (see :meth:`Transaction.checking`), and committed
unless the transaction is a dry run. A dry run takes no lock and commits nothing; it stages as
usual, so that later changes of the call see earlier ones.

Folders: a change may also make folders (``create_directory``, the new folders of a move's
destination) and remove empty ones (an undo of those), staged with :meth:`Transaction.stage_folder`:
they are made before the files are written and removed after, and recorded in the same history
entry (version :data:`~editguard.history.records.FOLDER`), so that undo takes them back.

Locks: the files a call names are locked before anything is read, in the order of their real
paths, so two transactions over the same files cannot deadlock; a file met only later (a path
that only a call inside a batch names) is locked when it is first touched, and a lock that cannot
be had within the timeout is FILE_BUSY, never a deadlock.

The modules, each one step, importing only downwards (tests/test_layers.py checks the order):
``context`` (configuration) <- ``formatting`` (the project's formatter on the written lines)
<- ``build`` (the change and its checks) <- ``read`` <- ``folders``,
``staged`` (a file's staged state) <- ``record`` (the history's records) <- ``settle`` (after a
crash), ``commit`` (the one place that writes) <- this module <- ``files`` (the file operations
of apply_patch and apply_diff), ``move`` (move_file's).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import cast

from editguard.analyze.base import Edit
from editguard.analyze.notebook import CodeChange
from editguard.core.delta import between
from editguard.core.document import Document, content_version, decode, from_view
from editguard.core.notebook.model import Notebook, is_notebook
from editguard.core.plan import Changed, render
from editguard.errors import (
    BinaryFile,
    EditError,
    FileNotFound,
    NotAFile,
    StaleVersion,
    error_context,
)
from editguard.fs.atomic import UMASK
from editguard.fs.journal import enough_descriptors
from editguard.fs.location import locate
from editguard.fs.nearest import suggesting, with_nearest
from editguard.fs.sandbox import Resolved, names_a_link
from editguard.history import FileRecord
from editguard.transaction.build import C, Change, Mode, Outcome, build_change, capped
from editguard.transaction.cells import AS_TEXT, CellCall, notebook_build
from editguard.transaction.commit import Commit, Staged, commit, writes
from editguard.transaction.context import Context
from editguard.transaction.folders import folder_state
from editguard.transaction.formatting import Formatting
from editguard.transaction.notebooks_seen import is_known, known_valid, remember
from editguard.transaction.read import check_version, load_with_mode
from editguard.transaction.record import records_of
from editguard.transaction.settle import recovered, settle
from editguard.transaction.staged import (
    MAX_FILES,
    StagedFile,
    StagedFolder,
    bytes_of,
    check_count,
    read_staged,
)

__all__ = [
    "AS_TEXT",
    "MAX_FILES",
    "CellCall",
    "Change",
    "Commit",
    "Context",
    "Formatting",
    "Mode",
    "Outcome",
    "StagedFile",
    "StagedFolder",
    "Transaction",
    "bytes_of",
    "check_count",
    "folder_state",
    "settle",
]


class Transaction:
    """See the module docstring. Use it as a context manager (it holds locks and folders).

    ``tool``: the tool that runs it, as the history records it. ``dry_run``: stage and check
    everything as usual, commit nothing (and take no lock).
    """

    def __init__(self, ctx: Context, *, tool: str = "batch", dry_run: bool = False) -> None:
        self.ctx = ctx
        self.tool = tool
        self.dry_run = dry_run
        self.undoes: list[int] = []  # the history entries this transaction takes back
        # Paths recorded even where unchanged (an undo's files already as it restores them:
        # without a record the history would keep their part of the undone change in effect).
        self.kept: set[str] = set()
        self.change_id: int | None = None  # the history entry of the commit
        self.files: dict[str, StagedFile] = {}
        self.folders: dict[str, StagedFolder] = {}
        self._locked: set[str] = set()
        # For the analyzers: each text file the transaction changed, its text before the
        # first change and (made when asked) after the last (see edits()).
        self._texts: dict[str, tuple[str | None, Callable[[], str | None]]] = {}
        self._checks = False  # the call running only checks (see checking)
        self._format = ctx.format  # the call formats what it writes (see formatting)
        self.formatted = Formatting()  # what formatting did, for the result
        self._markers = False  # the call may write elision markers (see allowing_markers)
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

    @contextlib.contextmanager
    def checking(self, only: bool) -> Iterator[None]:
        """Run one call of the transaction (a call of a batch) that, with ``only``, only
        checks (a dry run, ``verify_only``): its changes are checked but not staged, so
        nothing of it is written and later calls do not see it."""
        was = self._checks
        self._checks = was or only
        try:
            yield
        finally:
            self._checks = was

    @contextlib.contextmanager
    def formatting(self, on: bool | None) -> Iterator[None]:
        """Run one call (or a batch of them) that formats the lines it writes with the
        project's formatter (``on``), or does not; ``None`` keeps what holds already (the
        batch's choice, else the workspace's)."""
        was = self._format
        self._format = was if on is None else on
        try:
            yield
        finally:
            self._format = was

    @contextlib.contextmanager
    def allowing_markers(self, allow: bool | None) -> Iterator[None]:
        """Run one call (or a batch of them) whose new text may hold elision markers where it
        deletes lines (``allow``: a file that should hold such a comment), or may not (the
        elision guard, :mod:`~editguard.core.elided`); ``None`` keeps what holds already (the
        batch's choice, else the guard)."""
        was = self._markers
        self._markers = was if allow is None else allow
        try:
            yield
        finally:
            self._markers = was

    @property
    def stages(self) -> bool:
        """Whether a change made now is staged (see :meth:`checking`)."""
        return not self._checks

    @property
    def writes(self) -> bool:
        """Whether a change made now is written by the commit."""
        return not self._checks and not self.dry_run

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
        check_count(len(set(resolved) | set(self.files) | self._locked))
        fresh = [real for real in sorted(resolved) if real not in self._locked]
        for real in fresh:
            self._lock(resolved[real], recover=False)
        if fresh and not self.dry_run:
            recovered(self.ctx, frozenset(self._locked))

    def release(self) -> None:
        """Let go of every lock, before anything is read (a caller that found it needs more
        files locks them all again, in order: never one more while holding others, which could
        wait in a cycle)."""
        assert not self.files, "nothing is read before every lock is had"
        assert not self.folders, "nothing is staged before every lock is had"
        self._stack.close()
        self._stack = contextlib.ExitStack()
        self._locked.clear()

    def _lock(self, where: Resolved, *, recover: bool = True) -> None:
        """Lock one file; then (unless told not to) finish a dead commit that names it, so
        that what is read is never half done."""
        if self.dry_run or where.real in self._locked:
            return
        if not self._locked:
            enough_descriptors(4 * MAX_FILES + 64)
        self._stack.enter_context(self.ctx.locks.hold(where.real, where.display))
        self._locked.add(where.real)
        if recover:
            recovered(self.ctx, frozenset(self._locked))

    def file(self, where: Resolved, *, view: bool = False) -> StagedFile:
        """The staged file at ``where``, read from disk the first time (locked first; with
        ``view``, a large UTF-8 file is read as a view, see :meth:`run_edit`).

        Raises:
            TooManyEdits: the transaction already touches :data:`MAX_FILES` files.
            EditError: the file errors (NOT_A_FILE, PERMISSION_DENIED, FILE_TOO_LARGE, ...);
                a missing file is no error (it is staged as not existing).
        """
        staged = self.files.get(where.real)
        if staged is not None:
            return staged
        check_count(len(self.files) + 1)
        self._lock(where)
        location = self._stack.enter_context(locate(self.ctx.sandbox, where, create=True))
        staged = read_staged(self.ctx, where, location, view=view)
        self.files[where.real] = staged
        return staged

    def current(
        self,
        where: Resolved,
        *,
        create: bool = False,
        expected_version: str | None = None,
        view: bool = False,
    ) -> tuple[StagedFile, Document]:
        """The file's staged text (an empty Document for a file to create).

        ``expected_version`` may be the version that was read or the one staged last.

        Raises:
            FileNotFound: it does not exist (and ``create`` is false).
            BinaryFile: it is not text.
            StaleVersion: ``expected_version`` is neither.
        """
        staged = self.file(where, view=view)
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
            if staged.refusal is not None and staged.version == staged.read_version:
                raise staged.refusal  # what reading it said
            raise BinaryFile(
                f"{display} is not a text file; it can only be deleted or moved",
                path=display,
            )
        check_version(display, expected_version, staged.read_version, staged.version)
        staged.flush(self.ctx)
        assert staged.document is not None
        return staged, staged.document

    def run_edit(
        self,
        path: str | Resolved,
        build: Callable[[Document], C],
        *,
        mode: Mode,
        expected_version: str | None = None,
        create: bool = False,
        build_view: Callable[[Document], C] | None = None,
        cell: CellCall | None = None,
    ) -> Outcome[C]:
        """Run ``build`` (the tool's pure step: a Document in, a Change out) on the file's
        staged text, check the change and stage it (see :meth:`checking`); ``written`` in the
        outcome says that the commit will write it.

        ``create`` lets the call create a missing file: ``build`` then gets an empty Document,
        and an ``expected_version`` is refused as stale (the caller read a file that is gone).

        ``build_view``, when the tool has one, is run instead of ``build`` on a large UTF-8
        file read as a view (:data:`~editguard.transaction.build.VIEW_LIMIT`): it must make the
        change ``build`` would make, in the view's terms, or raise (a refusal, or a
        UnicodeError): the file is then read again as text and ``build`` decides, so that what
        a call does and every message it gives are the same either way, and only memory
        differs.

        On a notebook, ``build`` runs on the cell ``cell`` names (see
        :func:`~editguard.transaction.cells.notebook_build`; a tool that passes no ``cell``
        edits the whole JSON, checked as a notebook).

        Raises:
            EditError: any refusal, with the file's path attached; nothing was staged.
        """
        where = self.ctx.sandbox.resolve(path) if isinstance(path, str) else path
        named = cell is not None and cell.ref is not None  # (refused on another file)
        if (is_notebook(where.real) or named) and not (cell is not None and cell.text):
            build = cast("Callable[[Document], C]", notebook_build(build, where.real, cell))
            # A cell's edit reads a large notebook as a view (its JSON scanned in the view, the
            # cell's source decoded); an edit of the whole JSON reads it as text.
            build_view = build if cell is not None else None
        with error_context(path=where.display), suggesting(where):
            staged, before = self.current(
                where,
                create=create,
                expected_version=expected_version,
                view=build_view is not None,
            )
            built = None
            formatting = self.formatted if self._format else None
            if is_notebook(where.real) and is_known(where.real, staged.version):
                build = known_valid(build)
                build_view = known_valid(build_view) if build_view is not None else None
            if before.utf8_view:
                if build_view is not None:
                    try:
                        # (formatting: a notebook cell's lines, formatted as its subject's;
                        # a view's whole text is never formatted, see build_change)
                        built = build_change(
                            self.ctx,
                            where,
                            before,
                            build_view,
                            mode,
                            formatting,
                            allow_markers=self._markers,
                        )
                    except (EditError, UnicodeError):
                        built = None
                if built is None:  # (out of the handler, whose traceback still holds the view)
                    del before
                    before = self._as_text(staged)
            if built is None:
                built = build_change(
                    self.ctx, where, before, build, mode, formatting, allow_markers=self._markers
                )
            change, modifies, report = built
            version = staged.version
            creates = version is None
            modifies = modifies or creates
            new_version = version
            if modifies:
                new_version = content_version(capped(self.ctx, where, render(before, change.plan)))
            assert new_version is not None
            out = Outcome(
                where,
                before,
                change,
                version,
                new_version,
                creates,
                modifies,
                modifies and self.writes,
                report,
            )
            if modifies and self.stages:
                staged.stage_plan(before, change.plan, new_version, out.memo)
            sources = _cell_sources(change) if modifies and not creates else None
            if sources is not None:  # (checked as found and as left: valid at the new version)
                remember(where.real, new_version)
            if sources is not None:
                self._changed_cells(where.real, before, sources, change.subjects[0].notebook)
            elif modifies and not before.utf8_view:
                old = None if creates else before.text
                self._changed_text(
                    where.real, lambda: old, lambda: change.plan.apply_to_text(old or "")
                )
        return out

    def _changed_cells(
        self, real: str, before: Document, sources: dict[int, str], nb: Notebook | None
    ) -> None:
        """Note an edit of a notebook's cells for the analyzers: its code before and after,
        without its outputs (:func:`~editguard.analyze.notebook.lean`), made from the text as
        read (or its view; ``nb``: as the build read it) and the cells' new sources, never
        from the whole edited text."""
        analysis = self.ctx.analysis
        if analysis is None or not analysis.takes(real, len(before.text), code_only=True):
            return  # (a notebook too large to analyse: its code is not even gathered)
        code = CodeChange(before.text, before.utf8_view, nb, sources)
        self._changed_text(real, code.before, code.after)

    def _changed_text(
        self, real: str, before: Callable[[], str | None], after: Callable[[], str | None]
    ) -> None:
        """Note a text change for the analyzers (only where one of them checks the file):
        ``before`` gives the text now, ``after`` (called later) the text it is changed to."""
        analysis = self.ctx.analysis
        if analysis is None or not analysis.accepts(real):
            return
        first = self._texts.get(real)
        self._texts[real] = (first[0] if first is not None else before(), after)

    def edits(self) -> list[Edit]:
        """The text files this transaction changed (or, a call that only checks, would
        change), each with its text before and after, for the analyzers."""
        out = []
        analysis = self.ctx.analysis
        for real, (before, after) in self._texts.items():
            if (
                before is not None
                and analysis is not None
                and not analysis.takes(real, len(before))
            ):
                continue  # too large to analyse: its new text is not made for nothing
            now = after()
            if before != now:
                out.append(Edit(real, before, now))
        return out

    def _as_text(self, staged: StagedFile) -> Document:
        """The staged file, read as a view, as text instead (read again from disk while it is
        as read; else its staged view decoded)."""
        document = staged.document
        assert document is not None
        assert document.utf8_view
        if staged.version == staged.read_version and staged.plan is None:
            staged.document = staged.original = None
            del document
            doc, version, _ = load_with_mode(self.ctx, staged.location)
            check_version(staged.where.display, staged.read_version, version)
            staged.document = staged.original = doc
            staged.read_size = len(doc.text)
            return doc
        text = dataclasses.replace(document, text=from_view(document.text), utf8_view=False)
        staged.document = text
        return text

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
        if self.stages:
            self._changed_text(where.real, lambda: _text_of(staged), lambda: None)
            staged.stage_gone()
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
            content = src.bytes(self.ctx)
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
        if not self.stages:
            return
        # Where each moved content came from, for the history, before the sources are staged away.
        lineage = [
            (
                src.origin or src,
                None if src.layers is None else list(src.layers),
                None if src.changed is None else Changed(list(src.changed.spans)),
            )
            for *_, src in taken
        ]
        # For the analyzers: each text gone from one path and come to another (the files that
        # imported a module by its old name no longer find it), sources first (a swap).
        texts = [None if d is None or d.utf8_view else d.text for d, *_ in taken]
        for (source, _), text in zip(pairs, texts, strict=True):
            self._changed_text(source.real, functools.partial(_same, text), _nothing)
        for (_, destination), text in zip(pairs, texts, strict=True):
            was = functools.partial(_text_of, self.file(destination))
            self._changed_text(destination.real, was, functools.partial(_same, text))
        for source, _ in pairs:
            self.file(source).stage_gone()
        for (document, content, mode, _), (_, destination), (origin, layers, changed) in zip(
            taken, pairs, lineage, strict=True
        ):
            dst = self.file(destination)
            if document is None:  # not text: its bytes as read
                dst.stage_bytes(content)
            else:
                dst.stage_text(dataclasses.replace(document, name=destination.display), content)
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
        analysis = self.ctx.analysis
        checked = analysis is not None and analysis.accepts(staged.where.real)
        was = _text_of(staged) if checked else None
        if staged.exists:
            layer = between(staged.bytes(self.ctx), content)
        try:
            document: Document | None = dataclasses.replace(
                decode(content), name=staged.where.display
            )
        except BinaryFile:
            document = None
        if document is not None:
            staged.stage_text(document, content, layer)
        else:
            staged.stage_bytes(content, layer)
        text = None if document is None or document.utf8_view else document.text
        self._changed_text(staged.where.real, lambda: was, lambda: text)
        if mode is not None and mode != staged.read_mode:
            staged.mode = mode & 0o777
        elif staged.mode is None:
            staged.mode = staged.read_mode

    def set_executable(self, staged: StagedFile, executable: bool) -> None:
        """Set or clear the executable bits (a diff's mode change: git records no more), where
        the file is readable; special bits are never set."""
        if not self.stages:
            return
        mode = staged.mode if staged.mode is not None else 0o666 & ~UMASK
        if executable:
            mode |= (mode & 0o444) >> 2
        else:
            mode &= ~0o111
        staged.mode = mode & 0o777

    def will_write(self) -> bool:
        """Whether the commit, made now, would write anything (never for a dry run)."""
        return not self.dry_run and writes(self.files.values(), self.folders.values())

    def records(self) -> list[FileRecord]:
        """The history's records of what is staged (see
        :func:`~editguard.transaction.record.records_of`)."""
        return records_of(self.ctx, self.files.values(), self.folders.values(), self.kept)

    def commit(self) -> Commit:
        """Write every staged change at once (nothing for a dry run) and record it in the
        history (see :mod:`~editguard.transaction.commit`).

        Raises:
            EditError: the commit's refusals (STALE_VERSION, NOT_A_FILE, PERMISSION_DENIED,
                WRITE_FAILED), naming the file, and a history that cannot be used; nothing
                was written.
        """
        staged = Staged(self.tool, self.files, self.folders, self.undoes, self.kept)
        done = commit(self.ctx, staged, dry_run=self.dry_run)
        self.change_id = done.change_id
        return done


def _same(text: str | None) -> str | None:
    return text


def _nothing() -> None:
    return None


def _cell_sources(change: Change) -> dict[int, str] | None:
    """{cell index: new source} of a change that edits a notebook's cell sources and nothing
    the analyzers read besides: a cell edit's, whose subjects hold the notebook as read
    (``None``: another change, edit_notebook's among them)."""
    if not change.subjects or any(s.cell is None or s.notebook is None for s in change.subjects):
        return None
    return {s.cell: s.after for s in change.subjects if s.cell is not None}


def _text_of(staged: StagedFile) -> str | None:
    """A staged file's text now, for the analyzers (``None``: none, or read as a view)."""
    if not staged.exists or staged.document is None or staged.document.utf8_view:
        return None
    return staged.text()
