"""The state of one file (or folder) in a transaction: as it was read, and as it will be.

A change of a text file is staged as the Document it applies to and its Plan, not as bytes:
a transaction of one file renders it straight into the file at commit, as a stream, so that an
edit of a large file never holds its new bytes (or its new text) whole. The bytes are made only
when something needs them: a later change of the same file, a move, the journal of a commit of
several files (:meth:`StagedFile.flush`).
"""

from __future__ import annotations

import dataclasses

from editguard.core.delta import Layer, Splice
from editguard.core.document import Document, content_version
from editguard.core.plan import Changed, Plan, applied, render_tracked
from editguard.errors import BinaryFile, FileNotFound, TooManyEdits
from editguard.fs.atomic import UMASK
from editguard.fs.location import Location
from editguard.fs.sandbox import Resolved
from editguard.transaction.build import capped
from editguard.transaction.context import Context
from editguard.transaction.read import load_with_mode, raw_bytes, raw_state

# Files one transaction may touch: each holds a lock and a folder descriptor until the commit
# ends (two descriptors, and the journal opens a few more), which the usual limit of 1,024 open
# files per process must hold.
MAX_FILES = 256


@dataclasses.dataclass(slots=True)
class StagedFile:
    """One file of a transaction: as it was read, and as it will be.

    ``document`` is ``None`` while the file does not exist (never did, or is deleted); a file
    that is not text (BINARY_FILE) can only be deleted or replaced whole, so its ``document``
    stays ``None`` with ``binary`` set (and ``refusal``, what reading it as text said).

    The staged state is ``document`` with ``plan`` applied, when a plan is pending (its bytes
    are rendered at commit, or by :meth:`flush`); else ``document``, whose bytes are
    ``content`` when they are known.
    """

    where: Resolved
    location: Location
    read_version: str | None  # None: it did not exist
    read_mode: int | None
    document: Document | None
    version: str | None
    mode: int | None
    plan: Plan | None = None  # a change of ``document``, not rendered yet
    content: bytes | None = None  # the staged bytes, when they are known
    binary: bool = False
    refusal: BinaryFile | None = None
    # For the history: the text as read, and the deltas of each change staged since (oldest
    # first) that take the staged bytes back to what was read (``None``: not known, so the
    # old bytes are kept whole).
    original: Document | None = None
    read_size: int | None = None  # characters of the text as read (bytes of a binary file)
    layers: list[Layer] | None = dataclasses.field(default_factory=list)
    changed: Changed | None = dataclasses.field(default_factory=Changed)  # for its diff
    origin: StagedFile | None = None  # a moved file: the file whose content this continues
    moved_to: StagedFile | None = None  # a file moved away: where its content went
    diff_memo: dict[str, str] | None = None  # the diff of the one change staged, once shown

    @property
    def exists(self) -> bool:
        """Whether the file exists in the staged state."""
        return self.version is not None

    def stage_plan(self, before: Document, plan: Plan, version: str, memo: dict[str, str]) -> None:
        """Stage ``plan`` on ``before`` (the staged text), to be rendered at commit; ``version``
        is what it renders to, ``memo`` where its diff is kept once shown."""
        self.track(None, plan, pending=True)
        self.document, self.plan, self.content = before, plan, None
        self.version = version
        self.binary = False
        self.diff_memo = memo if self.original is before else None
        if self.mode is None:
            self.mode = self.read_mode

    def stage_text(self, document: Document, content: bytes, layer: Layer | None = None) -> None:
        """Stage ``document`` whose bytes are ``content`` (and ``layer``, if known, the delta
        that takes them back to the bytes staged before)."""
        self.track(layer, None)
        self.document, self.plan, self.content = document, None, content
        self.version = content_version([content])
        self.binary = False
        if self.mode is None:
            self.mode = self.read_mode

    def stage_bytes(self, content: bytes, layer: Layer | None = None) -> None:
        """Stage ``content``, not a text, as the file's bytes (see :meth:`stage_text`)."""
        self.track(layer, None)
        self.document, self.plan, self.content = None, None, content
        self.version = content_version([content])
        self.binary = True

    def stage_gone(self) -> None:
        """Stage the file's deletion."""
        self.document, self.plan, self.version, self.content = None, None, None, None
        self.binary = False
        # What was read is gone: the history keeps it whole.
        self.layers, self.changed, self.origin = None, None, None
        # A file made again at this path is a new file: it gets a new file's mode, not the
        # deleted one's (which may have been setuid).
        self.mode = 0o666 & ~UMASK if self.read_version is not None else None

    def track(self, layer: Layer | None, plan: Plan | None, *, pending: bool = False) -> None:
        """Follow a new staged state of an existing file for the history: its delta (what takes
        it back; for a ``pending`` plan, kept when it is rendered) and its plan (what its diff
        shows); either is lost once one is not known."""
        known = self.exists
        if self.layers is not None and known and layer is not None:
            self.layers.append(layer)
        elif not (pending and known):
            self.layers = None
        if self.changed is not None and known and plan is not None:
            self.changed.then(plan)
        else:
            self.changed = None

    def flush(self, ctx: Context) -> None:
        """Render a pending plan: the staged Document and its bytes become known (and the
        delta that takes them back is kept for the history)."""
        if self.plan is None:
            return
        assert self.document is not None  # a plan is only staged on a text
        splices: list[Splice] = []
        self.content = b"".join(
            capped(ctx, self.where, render_tracked(self.document, self.plan, splices))
        )
        self.rendered(tuple(splices))
        self.document = applied(self.document, self.plan)
        self.plan = None

    def rendered(self, layer: Layer) -> None:
        """Keep the delta of the pending plan, now rendered (``layer``)."""
        if self.layers is not None:
            self.layers.append(layer)

    def text(self) -> str:
        """The staged text (empty for a file that will not exist)."""
        if self.document is None:
            return ""
        if self.plan is not None:
            return self.plan.apply_to_text(self.document.text)
        return self.document.text

    def bytes(self, ctx: Context) -> bytes:
        """The staged bytes (rendered, or read again: the file as read) of a file that exists
        in the staged state.

        Raises:
            StaleVersion: the file changed since it was read.
        """
        self.flush(ctx)
        return self.content if self.content is not None else bytes_of(ctx, self)


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


def read_staged(ctx: Context, where: Resolved, location: Location, *, view: bool) -> StagedFile:
    """The file as it is now: text, bytes of a non-text file's version, or nothing; ``view``:
    a large UTF-8 file is read as a view (see :func:`.read.load_with_mode`)."""
    if location.missing:
        return StagedFile(where, location, None, None, None, None, None)
    try:
        doc, version, mode = load_with_mode(ctx, location, view=view)
    except FileNotFound:
        return StagedFile(where, location, None, None, None, None, None)
    except BinaryFile as exc:
        version, mode, size = raw_state(ctx, where, location)
        return StagedFile(
            where,
            location,
            version,
            mode,
            None,
            version,
            mode,
            binary=True,
            refusal=exc,
            read_size=size,
        )
    return StagedFile(
        where, location, version, mode, doc, version, mode, original=doc, read_size=len(doc.text)
    )


def bytes_of(ctx: Context, staged: StagedFile) -> bytes:
    """The file's bytes as read (read again; the version is checked).

    Raises:
        StaleVersion: the file changed since it was read.
    """
    # The journal checks again that the file still holds the version that was read.
    return raw_bytes(ctx, staged.where, staged.location, staged.read_version)
