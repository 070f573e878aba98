"""The one pipeline every writing tool runs through, and the loading every tool shares.

::

    resolve in the sandbox -> lock (only when it may write) -> load, stale check
      -> build the change (pure: the tool's format) -> check what may be written
      -> validate by mode -> commit (atomic write) -> warm the parse cache -> Outcome

Every check runs before the first byte is written; a failure anywhere leaves the file as it was
(same bytes, same mtime). Whether a call writes is decided here and nowhere else: it writes when
it is not a dry run, its mode is not ``verify_only``, nothing refused it, and the new bytes differ
from the file's (or the file is being created).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Generic, Literal, Protocol, TypeVar

from editguard.core.delta import Splice
from editguard.core.diff import render_diff
from editguard.core.document import (
    Document,
    content_version,
    decode_stream,
    encode_document,
    from_view,
)
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.images import SNIFF_BYTES
from editguard.core.plan import Plan, render, render_tracked
from editguard.errors import (
    EditError,
    FileBusy,
    FileNotFound,
    FileTooLarge,
    StaleVersion,
    error_context,
)
from editguard.fs.atomic import FileReader, write_atomic
from editguard.fs.journal import Journal
from editguard.fs.location import Location, locate
from editguard.fs.lock import FileLocks
from editguard.fs.nearest import suggesting
from editguard.fs.sandbox import Resolved, Sandbox
from editguard.history import History, records
from editguard.languages import language_of

if TYPE_CHECKING:
    # Validation (and the parsers behind it) loads with the first edit, not with read_file.
    from editguard.validate import Finding, Linter, Report

Mode = Literal["strict", "interactive", "verify_only"]

# A result's diff shows at most this many lines, then says how many more there are.
DIFF_LINES = 2000

# Above this size the syntax guard and linters are skipped (and the result says so): parsing a
# huge file twice would cost more than the edit itself.
VALIDATE_LIMIT = 5_000_000

# Bytes. A UTF-8 file over this size, not all ASCII, is first read as a view (one character a
# byte, see Document.utf8_view) by a tool that can edit one: decoded, one emoji would make the
# text four bytes a character. A text has at least a quarter as many characters as its file
# has bytes, so a file read as a view would never have been validated either.
VIEW_LIMIT = 4 * VALIDATE_LIMIT


class Staging(Protocol):
    """What :func:`run_edit` hands a call to inside a transaction (see
    :class:`editguard.transaction.Transaction`, a layer above): the same steps, staged instead
    of written."""

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
        """Run ``build`` on the file's staged text and stage the result."""
        ...


@dataclasses.dataclass(frozen=True, slots=True)
class Context:
    """What every tool works within: the sandbox, the writers' locks, the limits, the linters."""

    sandbox: Sandbox
    locks: FileLocks
    linters: tuple[Linter, ...]
    max_file_bytes: int
    max_edits: int
    read_lines: int
    prewarm: bool
    max_argument_bytes: int
    max_request_bytes: int
    exact: bool = False  # no tolerance ladder: text must match exactly (core.seek)
    journal: Journal = dataclasses.field(default_factory=Journal)  # multi-file commits
    # Inside batch, apply_patch and apply_diff: the transaction that stages every change, so
    # that run_edit writes nothing and the transaction commits all files at once.
    transaction: Staging | None = None
    history: History | None = None  # where committed changes are recorded (None: nowhere)
    tool: str = ""  # the tool that is running, as history records it
    # Who asked (history records it): an MCP client's name and version, "cli", "python".
    client: str = "python"


@dataclasses.dataclass(frozen=True, slots=True)
class Change:
    """What a tool made of its request, on the text as read: the plan, what each edit did,
    warnings for the caller, and the tool's own check of the new text (its findings block in
    strict mode like the syntax guard's; it runs with the guard, on the same new text, and is
    skipped with it above the size limit)."""

    plan: Plan
    applied: tuple[AppliedEdit, ...] = ()
    warnings: tuple[str, ...] = ()
    check: Callable[[str], tuple[Finding, ...]] | None = None

    @classmethod
    def of(cls, compiled: Compiled) -> Change:
        """The change of a compiled format request."""
        return cls(compiled.plan, compiled.applied, compiled.warnings)

    @property
    def replacements(self) -> int:
        """How many replacements the edits made in all."""
        return sum(e.occurrences_replaced for e in self.applied)


C = TypeVar("C", bound=Change)


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome(Generic[C]):
    """What a writing call did (or, for a dry run, would do).

    Attributes:
        version: the file's version after the call; for a call that did not write, the version
            the file would have (its current one when nothing changes).
        previous_version: the version that was read (``None``: the file did not exist).
        creates: the file did not exist; ``created`` says whether this call made it.
        would_modify: the call changes the file's bytes (or creates it).
    """

    where: Resolved
    before: Document
    change: C
    previous_version: str | None
    version: str
    creates: bool
    would_modify: bool
    written: bool
    report: Report
    diff_text: str | None = None  # the diff, once rendered (for the history)

    @property
    def created(self) -> bool:
        """Whether this call created the file."""
        return self.creates and self.written

    def diff(self) -> str:
        """The unified diff of the change."""
        if self.diff_text is not None:
            return self.diff_text
        return diff_of(self.before, self.change.plan, self.where.display)


def diff_of(before: Document, plan: Plan, display: str) -> str:
    """The unified diff of ``plan`` on ``before``, as a result shows it."""
    shown = from_view if before.utf8_view else None
    return render_diff(before.text, plan, display, max_lines=DIFF_LINES, shown=shown)


def load_with_mode(
    ctx: Context, location: Location, *, view: bool = False
) -> tuple[Document, str, int]:
    """Read the located file as a Document (named for messages), with its version and
    permission bits (no version check); ``view``: a UTF-8 file over :data:`VIEW_LIMIT` is read
    as a view.

    Raises:
        EditError: the file errors (FILE_NOT_FOUND, NOT_A_FILE, BINARY_FILE, FILE_TOO_LARGE,
            PERMISSION_DENIED).
    """
    where = location.where
    reader = FileReader(location, where.display, ctx.max_file_bytes)
    try:
        with error_context(path=where.display):
            head = reader.head()
            assert reader.stat is not None  # head() ran
            utf8_view = view and reader.stat.st_size > VIEW_LIMIT
            doc = decode_stream(head, reader, utf8_view=utf8_view)
    finally:
        reader.close()
    assert reader.stat is not None  # head() ran
    mode = reader.stat.st_mode & 0o7777
    return dataclasses.replace(doc, name=where.display), reader.version, mode


def check_version(display: str, expected: str | None, *actual: str | None) -> None:
    """Refuse a call whose ``expected_version`` is none of the file's ``actual`` versions.

    Raises:
        StaleVersion: naming both versions.
    """
    if expected is None or expected in actual:
        return
    now = actual[-1]
    if now is None:
        raise StaleVersion(
            f"{display} does not exist (expected version {expected})",
            path=display,
            data={"expected_version": expected, "actual_version": None},
        )
    raise StaleVersion(
        f"{display} has changed since version {expected} was read (it is now {now})",
        path=display,
        data={"expected_version": expected, "actual_version": now},
        suggestions=["Re-read the file (read_file) and make the edit again on what it holds now."],
    )


def read(ctx: Context, path: str, *, warm: bool = False) -> tuple[Resolved, Document, str]:
    """Resolve and load ``path`` for a tool that only reads; ``warm`` parses it in the
    background afterwards, for the edit that may follow."""
    where, doc, version = read_text_or_raw(ctx, path, _text, warm=warm)
    assert isinstance(doc, Document)  # no file is sniffed as raw
    return where, doc, version


def _text(_head: bytes, _size: int) -> None:
    """A sniff that takes every file for text (see :func:`read_text_or_raw`)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Raw:
    """A file read as bytes, not as text: ``kind`` is what the caller's sniff saw in its start."""

    kind: str
    data: bytes


def read_text_or_raw(
    ctx: Context, path: str, sniff: Callable[[bytes, int], str | None], *, warm: bool = False
) -> tuple[Resolved, Document | Raw, str]:
    """:func:`read`, except that a file ``sniff`` recognises is read as bytes, undecoded.

    ``sniff`` gets the file's first :data:`SNIFF_BYTES` bytes and its size, and returns a kind
    (an image's MIME type, say) or ``None`` for a text file; it may raise to refuse the file
    (too large for its kind). The version is the same either way: a hash of the bytes read.

    Raises:
        EditError: what :func:`read` raises, and whatever ``sniff`` raises, with the path.
    """
    where = ctx.sandbox.resolve(path)
    with suggesting(where), locate(ctx.sandbox, where) as location:
        reader = FileReader(location, where.display, ctx.max_file_bytes)
        try:
            with error_context(path=where.display):
                head = reader.head(SNIFF_BYTES)
                assert reader.stat is not None  # head() ran
                kind = sniff(head, reader.stat.st_size)
                if kind is not None:
                    found: Document | Raw = Raw(kind, b"".join(reader()))
                else:
                    doc = decode_stream(head, reader)
                    found = dataclasses.replace(doc, name=where.display)
        finally:
            reader.close()
    if warm and isinstance(found, Document):
        _warm(ctx, where, found.text, None)
    return where, found, reader.version


def run_edit(
    ctx: Context,
    path: str,
    build: Callable[[Document], C],
    *,
    mode: Mode,
    dry_run: bool = False,
    expected_version: str | None = None,
    create: bool = False,
    build_view: Callable[[Document], C] | None = None,
) -> Outcome[C]:
    """Run ``build`` (the tool's pure step: a Document in, a Change out) through the pipeline.

    ``create`` lets the call create a missing file: ``build`` then gets an empty Document, and
    an ``expected_version`` is refused as stale (the caller read a file that is gone).

    ``build_view``, when the tool has one, is run instead of ``build`` on a large UTF-8 file
    read as a view (:data:`VIEW_LIMIT`): it must make the change ``build`` would make, in the
    view's terms, or raise (a refusal, or a UnicodeError): the file is then read again as
    text and ``build`` decides, so that what a call does and every message it gives are the
    same either way, and only memory differs. Not inside a transaction.

    Raises:
        EditError: any refusal, with the file's path attached; nothing was written.
    """
    where = ctx.sandbox.resolve(path)
    if ctx.transaction is not None:
        return ctx.transaction.run_edit(
            where,
            build,
            mode=mode,
            dry_run=dry_run,
            expected_version=expected_version,
            create=create,
        )
    writes = not dry_run and mode != "verify_only"
    with (
        _writer(ctx, where, writes),
        error_context(path=where.display),
        suggesting(where),
        locate(ctx.sandbox, where, create=create) as location,
    ):
        if writes:
            recovered(ctx, frozenset({where.real}))
        view = build_view is not None
        before, version, file_mode = _load_or_new(ctx, location, expected_version, create, view)
        built = None
        if before.utf8_view:
            assert build_view is not None  # only asked for with one
            try:
                built = build_change(ctx, where, before, build_view, mode)
            except (EditError, UnicodeError):
                built = None
            if built is None:  # (out of the handler, whose traceback still holds the view)
                del before
                before, version, file_mode = _load_or_new(ctx, location, expected_version, create)
        if built is None:
            built = build_change(ctx, where, before, build, mode)
        change, modifies, report = built
        plan = change.plan
        creates = version is None
        modifies = modifies or creates
        diff = None
        if not modifies:
            assert version is not None  # a file to create always modifies
            new_version, written = version, False
        elif not writes:
            new_version = content_version(capped(ctx, where, render(before, plan)))
            written = False
        else:
            history = ctx.history
            splices: list[Splice] = []
            if history is not None:
                history.ready()  # a history that cannot be used refuses before the write
            new_version = write_atomic(
                location,
                capped(ctx, where, render_tracked(before, plan, splices)),
                display=where.display,
                base_version=version,
            )
            written = True
            if history is not None:
                diff = diff_of(before, plan, where.display)
                report = _record(
                    ctx,
                    history,
                    where,
                    before,
                    report,
                    diff,
                    splices,
                    (version, file_mode),
                    new_version,
                )
            _warm(ctx, where, before.text, plan)
    return Outcome(
        where, before, change, version, new_version, creates, modifies, written, report, diff
    )


def _record(
    ctx: Context,
    history: History,
    where: Resolved,
    before: Document,
    report: Report,
    diff: str,
    splices: list[Splice],
    old: tuple[str | None, int | None],
    new_version: str,
) -> Report:
    """Record a single file's change in the history (the file is written and still locked).
    A history that fails now (it was usable just before the write) adds a note to the
    report: the change itself is done."""
    created = old[0] is None
    entry = records.record(
        path=where.display,
        real=where.real,
        action="created" if created else "updated",
        before=old,
        after=(new_version, None if created else old[1]),
        diff=diff,
        restore_data=None
        if created
        else records.restore(len(before.text), lambda: encode_document(before), [tuple(splices)]),
    )
    try:
        history.record(ctx.tool or "edit", [entry], client=ctx.client)
    except EditError as exc:
        note = f"this change is not in the history, so undo cannot take it back: {exc.message}"
        return dataclasses.replace(report, notes=(*report.notes, note))
    return report


def recovered(ctx: Context, held: frozenset[str]) -> None:
    """Finish any multi-file commit that died since this process started, now that the
    caller holds the locks of ``held`` (a commit holds all its files' locks while it runs, so
    a journal naming one of them is dead): the caller must not read a half-done file. A
    directory listing when there is nothing to recover.

    Raises:
        FileBusy: a dead commit that names one of ``held`` cannot be finished now (another
            writer holds one of its other files).
    """
    blocked = ctx.journal.recover(ctx.locks, held).blocked & held
    if blocked:
        name = min(blocked)
        raise FileBusy(
            f"{name} is part of a change of several files that was interrupted and cannot be "
            "finished now (another writer holds one of its files); nothing was written",
            path=name,
            data={"recovery": "pending"},
            suggestions=["Try again in a moment."],
        )


def build_change(
    ctx: Context, where: Resolved, before: Document, build: Callable[[Document], C], mode: Mode
) -> tuple[C, bool, Report]:
    """Run the tool's pure step on ``before`` and check what it made: no NUL, not over the size
    limit, valid by ``mode``. Returns the change, whether it modifies ``before`` and the
    validation report.

    Raises:
        EditError: the format's refusal, ENCODING_ERROR, FILE_TOO_LARGE, VALIDATION_FAILED.
    """
    change = build(before)
    plan = change.plan
    for r in plan.replacements:
        # Formats check that their texts can be encoded (naming the edit); a NUL can come
        # from anywhere (a regex template's \x00, a new body), so it is refused here.
        before.check_no_nul(r.text)
    _check_size(ctx, before, plan)
    report = _validated(ctx, where, before.text, change, mode, before.utf8_view)
    return change, plan.modifies(before), report


def warm(ctx: Context, where: Resolved, text: str) -> None:
    """Parse ``text`` (the file's new content) in the background, for the next edit."""
    _warm(ctx, where, text, None)


def _check_size(ctx: Context, before: Document, plan: Plan) -> None:
    """Refuse, before anything is written, a result that is over the file size limit for sure
    (every character takes a byte at least; two in UTF-16, four in UTF-32)."""
    chars = len(before.text) + plan.size_change()
    width = 4 if before.encoding.startswith("utf-32") else 2 if "16" in before.encoding else 1
    if chars * width > ctx.max_file_bytes:
        raise _too_large(ctx, before.name, chars * width)


def capped(ctx: Context, where: Resolved, chunks: Iterator[bytes]) -> Iterator[bytes]:
    """``chunks``, refused as soon as they add up to more than the file size limit (the bytes
    of multi-byte characters are only known while they are encoded)."""
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > ctx.max_file_bytes:
            raise _too_large(ctx, where.display, total)
        yield chunk


def _too_large(ctx: Context, display: str, size: int) -> FileTooLarge:
    return FileTooLarge(
        f"the edit would make {display} {size:,} bytes or more; the limit is "
        f"{ctx.max_file_bytes:,}; nothing was written",
        path=display,
        data={"size": size, "limit": ctx.max_file_bytes, "result": True},
        suggestions=["Split the content over several files, or make a smaller change."],
    )


def _load_or_new(
    ctx: Context, location: Location, expected_version: str | None, create: bool, view: bool = False
) -> tuple[Document, str | None, int | None]:
    where = location.where
    try:
        doc, version, mode = load_with_mode(ctx, location, view=view)
    except FileNotFound:
        if not create:
            raise
        check_version(where.display, expected_version, None)
        return Document("", name=where.display), None, None
    check_version(where.display, expected_version, version)
    return doc, version, mode


def _writer(ctx: Context, where: Resolved, writes: bool) -> AbstractContextManager[None]:
    """The file's lock for a call that may write it (none for a dry run)."""
    return ctx.locks.hold(where.real, where.display) if writes else nullcontext()


def _warm(ctx: Context, where: Resolved, text: str, plan: Plan | None) -> None:
    """Parse the file's text (``text``, after ``plan`` if given) in the background, for the
    edit that may follow. The new text is built only when it will be parsed."""
    if not ctx.prewarm:
        return
    from editguard import prewarm  # noqa: PLC0415 - a one-shot command never warms

    size = len(text) + (plan.size_change() if plan is not None else 0)
    if prewarm.Prewarmer.wants(where.real, size):
        if plan is None:
            prewarm.SHARED.schedule(where.real, text)
        else:
            prewarm.SHARED.schedule(where.real, plan.apply_to_text(text), (text, plan))


def _validated(
    ctx: Context, where: Resolved, old: str, change: Change, mode: Mode, view: bool = False
) -> Report:
    """Validate the new text, with the tool's own findings; in strict mode, refuse an edit that
    introduces a blocking problem.

    Raises:
        ValidationFailed: strict mode and a blocking finding.
    """
    from editguard.validate import Report, validate  # noqa: PLC0415 - see the imports

    name, plan = where.real, change.plan
    checked = language_of(name) is not None or any(
        linter.applies_to(name) for linter in ctx.linters
    )
    if (not checked and change.check is None) or not plan.changes(old):
        return Report()
    if max(len(old), len(old) + plan.size_change()) > VALIDATE_LIMIT or view:
        return Report(
            notes=(f"validation skipped: the file is over {VALIDATE_LIMIT // 1_000_000} MB",)
        )
    new = plan.apply_to_text(old)
    report = validate(name, old, new, plan, ctx.linters, change.check)
    if mode == "strict" and report.blocking:
        raise report.refusal(where.display, new, plan)
    return report
