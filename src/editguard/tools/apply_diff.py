"""``apply_diff``: a unified or git diff over one file or many, all files or none."""

from __future__ import annotations

from pydantic import Field

from editguard.core.formats.unified_diff import parse_diff
from editguard.errors import InvalidPatch
from editguard.tools._files import FileChange, PatchArgs, PatchResult
from editguard.tools._tool import Tool
from editguard.transaction import Transaction
from editguard.transaction.files import apply_file_diffs, check_expected


class ApplyDiffArgs(PatchArgs):
    """Arguments of apply_diff."""

    diff: str = Field(description="diff -u or git diff output, one file or many.")


def paths(args: ApplyDiffArgs) -> list[str]:
    """Every path the diff names, and every path of expected_versions (to lock them all
    before anything is read)."""
    out: list[str] = []
    for fd in parse_diff(args.diff):
        out += [p for p in (fd.old_path, fd.new_path) if p is not None]
    return [*out, *(args.expected_versions or {})]


def run(txn: Transaction, args: ApplyDiffArgs) -> PatchResult:
    """Apply every file of the diff in the call's transaction.

    Raises:
        EditError: INVALID_PATCH (with the diff line), NO_MATCH and AMBIGUOUS_MATCH (naming the
            file and the hunk, with the file's lines), OVERLAPPING_EDITS, FILE_NOT_FOUND,
            STALE_VERSION (a file the diff creates exists), VALIDATION_FAILED and the file
            errors; nothing was written.
    """
    diffs = parse_diff(args.diff)
    if not diffs:
        raise InvalidPatch(
            "the diff holds no file: expected '--- a/path' and '+++ b/path' headers, then "
            "'@@' hunks",
            data={"line": 1},
        )
    check_expected(txn, args.expected_versions)
    files = apply_file_diffs(txn, diffs, mode=args.mode, exact=args.exact or txn.ctx.exact)
    return PatchResult(
        files=[FileChange.of(f) for f in files],
        written=txn.writes and txn.will_write(),
        already_applied=sum(edit.already_applied for change in files for edit in change.applied),
        dry_run=args.dry_run,
        mode=args.mode,
    )


TOOL = Tool(
    name="apply_diff",
    title="Apply a unified or git diff to several files",
    description=(
        "Apply a unified diff (diff -u, git diff: new, deleted and renamed files, mode "
        "changes, CRLF) to one file or many, all or none. A hunk lands at its stated line, "
        "else at the nearest place its context and '-' lines match (two equally near: "
        "refused); context is matched like edit_file's old_text. Returns each file's action, "
        "diff and version, and each hunk's offset."
    ),
    arguments=ApplyDiffArgs,
    result=PatchResult,
    run=run,
    paths=paths,
)
