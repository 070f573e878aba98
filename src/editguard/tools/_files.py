"""What the tools that change several files at once share: the transaction they run in, and
the per-file result they return."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from pydantic import BaseModel, Field

from editguard.core.diff import render_diff
from editguard.core.document import Document
from editguard.core.formats import AppliedEdit
from editguard.core.plan import Plan, Replacement
from editguard.pipeline import DIFF_LINES, Context, Mode, check_version
from editguard.tools._common import DRY_RUN_HELP, EXACT_HELP, MODE_HELP, Args, Validation
from editguard.transaction import Transaction

Action = Literal["added", "updated", "deleted", "moved"]


@contextmanager
def transaction(ctx: Context, dry_run: bool) -> Iterator[tuple[Transaction, bool]]:
    """The transaction to stage changes in: the caller's (inside ``batch``), or a new one that
    the caller commits (the flag says which)."""
    if ctx.transaction is not None:
        assert isinstance(ctx.transaction, Transaction)  # the only staging there is
        yield ctx.transaction, False
        return
    with Transaction(ctx, dry_run=dry_run) as txn:
        yield txn, True


EXPECTED_VERSIONS_HELP = "{path: version read_file returned}; a file changed since: STALE_VERSION."


class PatchArgs(Args):
    """What apply_patch and apply_diff take besides the patch itself."""

    dry_run: bool = Field(False, description=DRY_RUN_HELP)
    mode: Mode = Field("strict", description=MODE_HELP)
    exact: bool = Field(False, description=EXACT_HELP)
    expected_versions: dict[str, str] | None = Field(None, description=EXPECTED_VERSIONS_HELP)


def check_expected(txn: Transaction, expected: dict[str, str] | None) -> None:
    """Refuse, before any change is staged, a file whose version is not the one expected.

    Raises:
        StaleVersion: naming the file.
    """
    for path, version in (expected or {}).items():
        where = txn.ctx.sandbox.resolve(path)
        staged = txn.file(where)
        check_version(where.display, version, staged.read_version, staged.version)


class HunkResult(BaseModel):
    """Where one chunk (apply_patch) or hunk (apply_diff) landed."""

    index: int = Field(description="0-based, within its file.")
    line: int = Field(description="1-based line of the new file where its text starts.")
    match: str = Field("exact", description="exact, or the tolerances that made it match.")
    note: str | None = None
    offset: int | None = Field(
        None, description="apply_diff: lines between the stated place and the place it landed."
    )
    already_applied: bool = Field(
        False, description="Its new lines were in the file already (sent again): nothing changed."
    )

    @classmethod
    def of(cls, edit: AppliedEdit) -> HunkResult:
        """The wire form of one applied chunk or hunk."""
        return cls(
            index=edit.index,
            line=edit.lines[0] if edit.lines else 0,
            match=edit.match,
            note=edit.note,
            offset=edit.offset,
            already_applied=edit.already_applied,
        )


class FileChange(BaseModel):
    """What happened to one file."""

    path: str = Field(description="Relative to its root; for a move, the new path.")
    action: Action
    moved_from: str | None = None
    diff: str
    version: str | None = Field(description="The file's version after the change (none: deleted).")
    previous_version: str | None = Field(description="The version before (none: it was created).")
    hunks: list[HunkResult] = Field(default_factory=list)
    validation: Validation | None = None


class PatchResult(BaseModel):
    """Result of apply_patch and apply_diff."""

    files: list[FileChange]
    written: bool = Field(description="Whether the files were written (all of them).")
    already_applied: int = Field(
        0, description="Chunks or hunks whose new lines were in their file already (not redone)."
    )
    dry_run: bool
    mode: Mode


def whole_diff(old: str, new: str, display: str) -> str:
    """The diff from ``old`` to ``new`` (a file created or deleted whole)."""
    plan = Plan((Replacement(0, len(old), new),)) if old != new else Plan()
    return render_diff(old, plan, display, max_lines=DIFF_LINES)


def moved(change: FileChange, old: str, new: str) -> None:
    """Mark ``change`` as a move from ``old`` to ``new``; its diff's new side names ``new``."""
    change.action, change.moved_from, change.path = "moved", old, new
    if change.diff.startswith(f"--- a/{old}\n+++ b/{old}\n"):
        head = len(f"--- a/{old}\n+++ b/{old}\n")
        change.diff = f"--- a/{old}\n+++ b/{new}\n" + change.diff[head:]


def text_of(doc: Document | None) -> str:
    """A staged document's text; empty for none."""
    return doc.text if doc is not None else ""
