"""What the tools that change several files at once (apply_patch, apply_diff) share: their
arguments and the per-file result they return (the file operations themselves are
:mod:`editguard.transaction.files`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from editguard.core.formats import AppliedEdit
from editguard.tools._common import (
    ALLOW_MARKERS_HELP,
    DRY_RUN_HELP,
    EXACT_HELP,
    FORMAT_HELP,
    MODE_HELP,
    Args,
    Checked,
    Validation,
)
from editguard.transaction.build import Mode
from editguard.transaction.files import FileOutcome

Action = Literal["added", "updated", "deleted", "moved"]

EXPECTED_VERSIONS_HELP = "{path: version read_file returned}; a file changed since: STALE_VERSION."


class PatchArgs(Args):
    """What apply_patch and apply_diff take besides the patch itself."""

    dry_run: bool = Field(False, description=DRY_RUN_HELP)
    mode: Mode = Field("strict", description=MODE_HELP)
    format: bool | None = Field(None, description=FORMAT_HELP)
    allow_markers: bool = Field(False, description=ALLOW_MARKERS_HELP)
    exact: bool = Field(False, description=EXACT_HELP)
    expected_versions: dict[str, str] | None = Field(None, description=EXPECTED_VERSIONS_HELP)


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

    @classmethod
    def of(cls, out: FileOutcome) -> FileChange:
        """The wire form of one file's outcome."""
        return cls(
            path=out.path,
            action=out.action,
            moved_from=out.moved_from,
            diff=out.diff,
            version=out.version,
            previous_version=out.previous_version,
            hunks=[HunkResult.of(e) for e in out.applied],
            validation=Validation.of(out.report) if out.report is not None else None,
        )


class PatchResult(Checked):
    """Result of apply_patch and apply_diff."""

    files: list[FileChange]
    written: bool = Field(description="Whether the files were written (all of them).")
    already_applied: int = Field(
        0, description="Chunks or hunks whose new lines were in their file already (not redone)."
    )
    dry_run: bool
    mode: Mode
