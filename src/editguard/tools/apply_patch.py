"""``apply_patch``: Codex's patch format (add, delete, update and move files), all files or none."""

from __future__ import annotations

from pydantic import Field

from editguard.core.formats.codex_patch import (
    AddFile,
    DeleteFile,
    PatchOp,
    UpdateFile,
    add_file_text,
    compile_update,
    parse_patch,
)
from editguard.core.formats.whole_text import compile_whole_text
from editguard.errors import FileNotFound, Frame, InvalidPatch, error_context
from editguard.fs.nearest import with_nearest
from editguard.fs.sandbox import Resolved
from editguard.pipeline import Change, Context
from editguard.tools._common import Validation
from editguard.tools._files import (
    FileChange,
    HunkResult,
    PatchArgs,
    PatchResult,
    check_expected,
    moved,
    text_of,
    transaction,
    whole_diff,
)
from editguard.tools._tool import Tool
from editguard.transaction import Transaction


class ApplyPatchArgs(PatchArgs):
    """Arguments of apply_patch."""

    patch: str = Field(description="From '*** Begin Patch' to '*** End Patch'.")


def paths(args: ApplyPatchArgs) -> list[str]:
    """Every path the patch names (to lock them all before anything is read)."""
    return _paths(parse_patch(args.patch))


def _paths(ops: tuple[PatchOp, ...]) -> list[str]:
    out: list[str] = []
    for op in ops:
        out.append(op.path)
        if isinstance(op, UpdateFile) and op.move_to:
            out.append(op.move_to)
    return out


def run(ctx: Context, args: ApplyPatchArgs) -> PatchResult:
    """Apply every file operation of the patch, in order, as one transaction.

    Raises:
        EditError: INVALID_PATCH (with the patch line), NO_MATCH and AMBIGUOUS_MATCH (naming
            the file and the chunk, with the file's lines), FILE_NOT_FOUND, NOT_A_FILE,
            VALIDATION_FAILED, STALE_VERSION and the file errors; nothing was written.
    """
    ops = parse_patch(args.patch)
    checks_only = args.dry_run or args.mode == "verify_only"
    with transaction(ctx, checks_only) as (txn, owned):
        if owned:
            txn.lock([*_paths(ops), *(args.expected_versions or {})])
        check_expected(txn, args.expected_versions)
        # Inside a batch, a call that only checks stages nothing; on its own, the transaction
        # stages everything (later operations see earlier ones) and commits nothing.
        stage = owned or not checks_only
        _one_move_per_destination(txn, ops)
        files = [_apply(txn, op, args, stage) for op in ops]
        written = txn.commit() if owned else stage
    # A chunk whose lines were there already, or a file added again with the text it has (a
    # patch sent twice): nothing of it is redone.
    already = sum(hunk.already_applied for change in files for hunk in change.hunks) + sum(
        isinstance(op, AddFile) and change.action == "updated" and not change.diff
        for op, change in zip(ops, files, strict=True)
    )
    return PatchResult(
        files=files,
        written=written,
        already_applied=already,
        dry_run=args.dry_run,
        mode=args.mode,
    )


def _one_move_per_destination(txn: Transaction, ops: tuple[PatchOp, ...]) -> None:
    """Refuse two moves onto one path: the second would silently drop the first file (Codex
    overwrites; a destination that existed before the patch may still be replaced).

    Raises:
        InvalidPatch: naming the path and both operations' lines.
    """
    seen: dict[str, int] = {}
    for op in ops:
        if isinstance(op, UpdateFile) and op.move_to:
            real = txn.ctx.sandbox.resolve(op.move_to).real
            if real in seen:
                raise InvalidPatch(
                    f"two operations move a file onto {op.move_to} (patch lines {seen[real]} and "
                    f"{op.line}); the second would drop the first",
                    data={"line": op.line, "lines": [seen[real], op.line]},
                    suggestions=["Move each file to its own path."],
                )
            seen[real] = op.line


def _apply(txn: Transaction, op: PatchOp, args: ApplyPatchArgs, stage: bool) -> FileChange:
    where = txn.ctx.sandbox.resolve(op.path)
    with error_context(Frame("file", name=where.display, data={"patch_line": op.line})):
        return _operation(txn, op, args, where, stage)


def _operation(
    txn: Transaction, op: PatchOp, args: ApplyPatchArgs, where: Resolved, stage: bool
) -> FileChange:
    ctx, display = txn.ctx, where.display
    if isinstance(op, DeleteFile):
        staged = txn.file(where)
        old, previous, binary = text_of(staged.document), staged.version, staged.binary
        if stage:
            txn.delete(where)
        elif not staged.exists:
            raise with_nearest(
                FileNotFound(f"{display} does not exist, so it cannot be deleted", path=display),
                where,
            )
        diff = f"Binary file {display} deleted\n" if binary else whole_diff(old, "", display)
        return FileChange(
            path=display, action="deleted", diff=diff, version=None, previous_version=previous
        )
    if isinstance(op, AddFile):
        text = add_file_text(op)
        out = txn.run_edit(
            where,
            lambda doc: Change.of(compile_whole_text(doc, text)),
            mode=args.mode,
            dry_run=not stage,
            create=True,
        )
        return FileChange(
            path=display,
            action="added" if out.creates else "updated",
            diff=out.diff(),
            version=out.version,
            previous_version=out.previous_version,
            validation=Validation.of(out.report),
        )
    exact = args.exact or ctx.exact
    out = txn.run_edit(
        where,
        lambda doc: Change.of(compile_update(doc, op, exact=exact)),
        mode=args.mode,
        dry_run=not stage,
    )
    change = FileChange(
        path=display,
        action="updated",
        diff=out.diff(),
        version=out.version,
        previous_version=out.previous_version,
        hunks=[HunkResult.of(e) for e in out.change.applied],
        validation=Validation.of(out.report),
    )
    if op.move_to:
        destination = ctx.sandbox.resolve(op.move_to)
        if destination.real != where.real:
            if stage:
                txn.move(where, destination)
            moved(change, display, destination.display)
    return change


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
