"""``apply_patch``: Codex's patch format (add, delete, update and move files), all files or none."""

from __future__ import annotations

from pydantic import Field

from editguard.core.formats.codex_patch import AddFile, PatchOp, UpdateFile, parse_patch
from editguard.tools._files import FileChange, PatchArgs, PatchResult
from editguard.tools._tool import Tool
from editguard.transaction import Transaction
from editguard.transaction.files import FileOutcome, apply_patch_ops, check_expected


class ApplyPatchArgs(PatchArgs):
    """Arguments of apply_patch."""

    patch: str = Field(description="From '*** Begin Patch' to '*** End Patch'.")


def paths(args: ApplyPatchArgs) -> list[str]:
    """Every path the patch names, and every path of expected_versions (to lock them all
    before anything is read)."""
    out: list[str] = []
    for op in parse_patch(args.patch):
        out.append(op.path)
        if isinstance(op, UpdateFile) and op.move_to:
            out.append(op.move_to)
    return [*out, *(args.expected_versions or {})]


def run(txn: Transaction, args: ApplyPatchArgs) -> PatchResult:
    """Apply every file operation of the patch, in order, in the call's transaction.

    Raises:
        EditError: INVALID_PATCH (with the patch line), NO_MATCH and AMBIGUOUS_MATCH (naming
            the file and the chunk, with the file's lines), FILE_NOT_FOUND, NOT_A_FILE,
            VALIDATION_FAILED, STALE_VERSION and the file errors; nothing was written.
    """
    ops = parse_patch(args.patch)
    check_expected(txn, args.expected_versions)
    files = apply_patch_ops(txn, ops, mode=args.mode, exact=args.exact or txn.ctx.exact)
    return PatchResult(
        files=[FileChange.of(f) for f in files],
        written=txn.writes and txn.will_write(),
        already_applied=_already(ops, files),
        dry_run=args.dry_run,
        mode=args.mode,
    )


def _already(ops: tuple[PatchOp, ...], files: list[FileOutcome]) -> int:
    """Chunks whose lines were there already, and files added again with the text they have
    (a patch sent twice): nothing of them is redone."""
    chunks = sum(edit.already_applied for change in files for edit in change.applied)
    return chunks + sum(
        isinstance(op, AddFile) and change.action == "updated" and not change.diff
        for op, change in zip(ops, files, strict=True)
    )


TOOL = Tool(
    name="apply_patch",
    title="Apply a Codex-format patch to several files",
    description=(
        "Apply a Codex apply_patch patch: add, delete, update and move files, all or none. "
        "Per file '*** Add File: p' (+ lines), '*** Delete File: p' or '*** Update File: p' "
        "(optional '*** Move to: q') with chunks: '@@' or '@@ line to find first', then ' ' "
        "context, '-' and '+' lines; '*** End of File' pins a chunk to the end. Context is "
        "matched like edit_file's old_text. Returns each file's action, diff and version.\n"
        'Example: {"patch": "*** Begin Patch\\n*** Update File: a.py\\n@@ def main():\\n'
        '-    return 1\\n+    return 0\\n*** End Patch"}'
    ),
    arguments=ApplyPatchArgs,
    result=PatchResult,
    run=run,
    paths=paths,
)
