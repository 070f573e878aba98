"""What a tool makes of its request, and the checks it passes before it may be staged.

A tool's pure step (its format) turns the file's Document into a :class:`Change`;
:func:`build_change` runs it, formats what it wrote where the call asks for it
(:mod:`~editguard.transaction.formatting`), and checks what it made: no elision marker
written over real code (:mod:`~editguard.core.elided`), no NUL, not over the size
limit, valid by the mode (the syntax guard, the linters and the tool's own check). Nothing here
reads or writes a file; :class:`Outcome` is what a writing call reports about one file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Generic, Literal, TypeVar, get_args

from editguard.core.diff import render_diff
from editguard.core.document import Document, from_view
from editguard.core.elided import check_plan
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.plan import Plan
from editguard.errors import EditError, FileTooLarge, Frame
from editguard.fs.sandbox import Resolved
from editguard.languages import language_of
from editguard.transaction.context import Context
from editguard.transaction.formatting import Formatting

if TYPE_CHECKING:
    from editguard.core.notebook.model import Notebook

    # Validation (and the parsers behind it) loads with the first edit, not with read_file.
    from editguard.validate import Finding, Report

Mode = Literal["strict", "interactive", "verify_only"]
_, _, VERIFY_ONLY = get_args(Mode)


def checks_only(mode: Mode | None, dry_run: bool) -> bool:
    """Whether a call only checks (a dry run, or mode ``verify_only``): it takes no lock and
    writes nothing. The one place that decides it."""
    return dry_run or mode == VERIFY_ONLY


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


@dataclasses.dataclass(frozen=True, slots=True)
class Subject:
    """A text inside a file that a change edits as if it were a file of its own: a notebook
    cell's source. Its diff is what the result shows, its syntax is what the guard checks (as
    a file called ``name``: a code cell as ``.py`` for a Python kernel; ``None``: not checked),
    and the elision guard looks at its lines, not at the file's JSON.

    ``checked_as``: the texts the syntax guard reads, where they differ from ``before`` and
    ``after`` (IPython's magics masked, see :mod:`~editguard.transaction.cells`)."""

    label: str  # how the diff names it: "path#cell 3"
    name: str | None
    before: Document
    plan: Plan
    checked_as: tuple[str, str, Plan] | None = None
    check: Callable[[str], tuple[Finding, ...]] | None = None  # the tool's own (see Change)
    cell: int | None = None  # a notebook cell's index
    cell_id: str | None = None
    shown: bool = True  # its diff is the result's (else only checked)
    # The file's plan and the subject for another plan of the subject's text (its lines
    # formatted): see build_change.
    remake: Callable[[Plan], tuple[Plan, Subject]] | None = None
    # The notebook as read, for what follows the edit (its code for the analyzers) without
    # scanning its JSON again.
    notebook: Notebook | None = None

    @property
    def after(self) -> str:
        """The subject's text after the change."""
        return self.plan.apply_to_text(self.before.text)


@dataclasses.dataclass(frozen=True, slots=True)
class Change:
    """What a tool made of its request, on the text as read: the plan, what each edit did,
    warnings for the caller, and the tool's own check of the new text (its findings block in
    strict mode like the syntax guard's; it runs with the guard, on the same new text, and is
    skipped with it above the size limit).

    ``subjects``: the texts inside the file the change edits as files of their own (notebook
    cells, see :class:`Subject`): then the diff, the syntax guard and the elision guard are
    theirs, and the file's own text was checked by whoever made the change (a notebook's
    schema)."""

    plan: Plan
    applied: tuple[AppliedEdit, ...] = ()
    warnings: tuple[str, ...] = ()
    check: Callable[[str], tuple[Finding, ...]] | None = None
    subjects: tuple[Subject, ...] = ()

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
    """What a writing call did (or, for a call that only checks, would do) to one file.

    Attributes:
        version: the file's version after the call; for a call that does not write, the
            version the file would have (its current one when nothing changes).
        previous_version: the version that was read (``None``: the file did not exist).
        creates: the file did not exist; ``created`` says whether this call makes it.
        would_modify: the call changes the file's bytes (or creates it).
        written: the transaction writes this change when it commits (a commit that fails
            raises, so no result that claims a write is ever returned).
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
    # The diff, once rendered: the history's record of a lone change shows the same diff.
    memo: dict[str, str] = dataclasses.field(default_factory=dict, compare=False)

    @property
    def created(self) -> bool:
        """Whether this call creates the file."""
        return self.creates and self.written

    def diff(self) -> str:
        """The unified diff of the change (of each subject's text, where it has subjects)."""
        if "diff" not in self.memo:
            subjects = self.change.subjects
            if subjects:
                self.memo["diff"] = "".join(
                    render_diff(s.before.text, s.plan, s.label, max_lines=DIFF_LINES)
                    for s in subjects
                    if s.shown
                )
            else:
                self.memo["diff"] = diff_of(self.before, self.change.plan, self.where.display)
        return self.memo["diff"]


def diff_of(before: Document, plan: Plan, display: str) -> str:
    """The unified diff of ``plan`` on ``before``, as a result shows it."""
    shown = from_view if before.utf8_view else None
    return render_diff(before.text, plan, display, max_lines=DIFF_LINES, shown=shown)


def build_change(
    ctx: Context,
    where: Resolved,
    before: Document,
    build: Callable[[Document], C],
    mode: Mode,
    formatting: Formatting | None = None,
    *,
    allow_markers: bool = False,
) -> tuple[C, bool, Report]:
    """Run the tool's pure step on ``before``, format what it wrote (with ``formatting``: not
    for a view, nor over the validation limit) and check what it made: no NUL, not over the
    size limit, valid by ``mode``. Returns the change, whether it modifies ``before`` and the
    validation report.

    Formatting never refuses: a formatted text that fails a check is dropped (with a note) and
    the change as built is checked instead. The elision guard checks the change as built,
    unless ``allow_markers``.

    Raises:
        EditError: the format's refusal, ELIDED_CONTENT (an elision marker written over lines
            it deletes, :mod:`~editguard.core.elided`), ENCODING_ERROR, FILE_TOO_LARGE,
            VALIDATION_FAILED.
    """
    change = build(before)
    plan = change.plan
    if not allow_markers:
        if change.subjects:
            for s in change.subjects:
                check_plan(s.before.text, s.plan, s.name or s.label, s.label)
        else:
            check_plan(before.text, plan, where.real, where.display, view=before.utf8_view)
    for r in plan.replacements:
        # Formats check that their texts can be encoded (naming the edit); a NUL can come
        # from anywhere (a regex template's \x00, a new body), so it is refused here.
        before.check_no_nul(r.text)
    _check_size(ctx, before, plan)
    size = max(len(before.text), len(before.text) + plan.size_change())
    if formatting is not None and change.subjects and size <= VALIDATE_LIMIT:
        shaped = _formatted_subject(ctx, where, change, formatting)
        if shaped is not None:
            try:
                for r in shaped.plan.replacements:
                    before.check_no_nul(r.text)
                _check_size(ctx, before, shaped.plan)
                report = _validated(ctx, where, before.text, shaped, mode)
            except EditError as exc:
                formatting.unformatted(
                    where, f"the formatted text was refused ({exc.code})", dropped=True
                )
            else:
                return shaped, shaped.plan.modifies(before), report
    if (
        formatting is not None
        and not before.utf8_view
        and size <= VALIDATE_LIMIT
        and not change.subjects
    ):
        try:
            done = formatting.plan_for(ctx, where, before, plan)
        except Exception as exc:  # noqa: BLE001 - formatting never fails an edit, a bug neither
            formatting.unformatted(where, f"formatting failed ({type(exc).__name__})")
            done = None
        if done is not None:
            formatted, line_of = done
            # Where each edit landed, in the formatted text (a block it reformatted above
            # may have more or fewer lines now).
            applied = tuple(
                dataclasses.replace(e, lines=tuple(line_of(n) for n in e.lines))
                for e in change.applied
            )
            shaped = dataclasses.replace(change, plan=formatted, applied=applied)
            try:
                for r in formatted.replacements:
                    before.check_no_nul(r.text)
                _check_size(ctx, before, formatted)
                report = _validated(ctx, where, before.text, shaped, mode)
            except EditError as exc:
                formatting.unformatted(
                    where, f"the formatted text was refused ({exc.code})", dropped=True
                )
            else:
                return shaped, formatted.modifies(before), report
    report = _validated(ctx, where, before.text, change, mode, before.utf8_view)
    return change, plan.modifies(before), report


def _formatted_subject(
    ctx: Context, where: Resolved, change: C, formatting: Formatting
) -> C | None:
    """``change`` with the lines it wrote in its one subject formatted as a file of the
    subject's kind (a notebook's code cell as a module of its kernel's language), the file's
    plan made again for them; ``None`` where nothing is formatted (then noted where a
    formatter was meant to run)."""
    if len(change.subjects) != 1:
        return None
    s = change.subjects[0]
    if s.remake is None or s.name is None or not s.plan.changes(s.before.text):
        return None
    if s.checked_as is not None:
        formatting.unformatted(
            where, f"{s.label} holds IPython magics, which the formatter does not read"
        )
        return None
    as_file = dataclasses.replace(where, real=s.name)
    try:
        done = formatting.plan_for(ctx, as_file, s.before, s.plan)
    except Exception as exc:  # noqa: BLE001 - formatting never fails an edit, a bug neither
        formatting.unformatted(where, f"formatting failed ({type(exc).__name__})")
        return None
    if done is None:
        return None
    formatted, line_of = done
    shown = formatting.shown.pop(as_file.real, None)
    try:
        plan, subject = s.remake(formatted)
    except EditError as exc:
        formatting.unformatted(where, f"the formatted text was refused ({exc.code})")
        return None
    if shown is not None:
        formatting.shown[where.real] = shown
    applied = tuple(
        dataclasses.replace(e, lines=tuple(line_of(n) for n in e.lines)) for e in change.applied
    )
    return dataclasses.replace(change, plan=plan, subjects=(subject,), applied=applied)


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


def _validated(
    ctx: Context, where: Resolved, old: str, change: Change, mode: Mode, view: bool = False
) -> Report:
    """Validate the new text, with the tool's own findings; in strict mode, refuse an edit that
    introduces a blocking problem.

    Raises:
        ValidationFailed: strict mode and a blocking finding.
    """
    from editguard.validate import Report, validate  # noqa: PLC0415 - see the imports

    if change.subjects:
        return _validated_subjects(ctx, where, change, mode)
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


def _validated_subjects(ctx: Context, where: Resolved, change: Change, mode: Mode) -> Report:
    """Validate each subject of a change as the file it stands for (a notebook's code cell as
    a module of its kernel's language), whatever the size of the file around it.

    Raises:
        ValidationFailed: strict mode and a blocking finding (in the subject's lines).
    """
    from editguard.validate import Report, validate  # noqa: PLC0415 - see the imports

    findings: list[Finding] = []
    notes: list[str] = []
    for s in change.subjects:
        if s.name is None:
            continue
        old, new, plan = s.checked_as or (s.before.text, s.after, s.plan)
        if old == new:
            continue
        report = validate(s.name, old, new, plan, ctx.linters, s.check)
        if mode == "strict" and report.blocking:
            exc = report.refusal(where.display, s.after, s.plan)
            if s.cell is not None:
                exc.add(Frame("cell", s.cell, name=s.cell_id))
            raise exc
        findings += report.findings
        notes += report.notes
    return Report(tuple(findings), tuple(notes))
