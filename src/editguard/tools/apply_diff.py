"""``apply_diff``: a unified or git diff over one file or many, all files or none."""

from __future__ import annotations

from pydantic import Field

from editguard.core.formats.unified_diff import FileDiff, compile_hunks, new_file_text, parse_diff
from editguard.core.formats.whole_text import compile_whole_text
from editguard.errors import (
    FileNotFound,
    Frame,
    InvalidPatch,
    NoMatch,
    StaleVersion,
    error_context,
)
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
    transaction,
    whole_diff,
)
from editguard.tools._tool import Tool
from editguard.transaction import Transaction


class ApplyDiffArgs(PatchArgs):
    """Arguments of apply_diff."""

    diff: str = Field(description="diff -u or git diff output, one file or many.")


def paths(args: ApplyDiffArgs) -> list[str]:
    """Every path the diff names (to lock them all before anything is read)."""
    return _paths(parse_diff(args.diff))


def _paths(diffs: tuple[FileDiff, ...]) -> list[str]:
    out: list[str] = []
    for fd in diffs:
        out += [p for p in (fd.old_path, fd.new_path) if p is not None]
    return out


def run(ctx: Context, args: ApplyDiffArgs) -> PatchResult:
    """Apply every file of the diff as one transaction.

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
    checks_only = args.dry_run or args.mode == "verify_only"
    with transaction(ctx, checks_only) as (txn, owned):
        if owned:
            txn.lock([*_paths(diffs), *(args.expected_versions or {})])
        check_expected(txn, args.expected_versions)
        stage = owned or not checks_only
        files: list[FileChange] = []
        moves: list[tuple[Resolved, Resolved]] = []
        for fd in diffs:
            change, move = _apply(txn, fd, args, stage)
            files.append(change)
            if move is not None:
                moves.append(move)
        if stage and moves:
            # All renames together, as git applies them: two files may swap names, but a
            # rename onto a file that stays is refused.
            txn.move_all(moves, replace=False)
        written = txn.commit() if owned else stage
    already = sum(hunk.already_applied for change in files for hunk in change.hunks)
    return PatchResult(
        files=files,
        written=written,
        already_applied=already,
        dry_run=args.dry_run,
        mode=args.mode,
    )


def _apply(
    txn: Transaction, fd: FileDiff, args: ApplyDiffArgs, stage: bool
) -> tuple[FileChange, tuple[Resolved, Resolved] | None]:
    """Stage one file's section; a git rename is returned (source, destination) for later."""
    if fd.old_path is None and fd.new_path is None:
        raise InvalidPatch(
            "a file section of the diff names no file ('/dev/null' on both sides)",
            data={"line": fd.line},
        )
    where = _target(txn, fd)
    with error_context(Frame("file", name=where.display, data={"diff_line": fd.line})):
        if fd.binary:
            raise InvalidPatch(
                f"the diff changes {where.display} with a binary patch, which apply_diff "
                "does not apply",
                data={"line": fd.line},
                suggestions=["Leave binary files out of the diff."],
            )
        kinds = {m & 0o170000 for m in (fd.old_mode, fd.new_mode) if m is not None}
        if kinds - {0, 0o100000}:
            raise InvalidPatch(
                f"the diff makes {where.display} a symbolic link or a submodule (mode "
                f"{max(kinds):o}), which apply_diff does not apply; only regular files",
                data={"line": fd.line},
                suggestions=["Leave symbolic links and submodules out of the diff."],
            )
        if fd.old_path is None:
            return _create(txn, fd, args, stage, where), None
        return _update(txn, fd, args, stage, where)


def _target(txn: Transaction, fd: FileDiff) -> Resolved:
    """The file a section changes. Two different names without git's rename headers (``diff
    -u a.txt.orig a.txt``) are one file changed, as GNU patch reads them: the name that
    exists; of two, the one with the fewest folders, then the shorter base name, then the
    shorter name (the new name on a tie)."""
    sandbox = txn.ctx.sandbox
    old, new = fd.old_path, fd.new_path
    if old is None or new is None or fd.rename or old == new:
        name = old if old is not None else new
        assert name is not None  # checked by the caller
        return sandbox.resolve(name)
    candidates = [sandbox.resolve(new), sandbox.resolve(old)]
    existing = [w for w in candidates if txn.file(w).exists] or candidates
    return min(
        existing,
        key=lambda w: (
            w.requested.count("/"),
            len(w.requested.rsplit("/", 1)[-1]),
            len(w.requested),
        ),
    )


def _create(
    txn: Transaction, fd: FileDiff, args: ApplyDiffArgs, stage: bool, where: Resolved
) -> FileChange:
    staged = txn.file(where)
    if staged.exists:
        raise StaleVersion(
            f"the diff creates {where.display}, which exists already",
            path=where.display,
            data={"actual_version": staged.version},
            suggestions=["Re-read the file; to change it, send a diff against what it holds."],
        )
    text = new_file_text(fd)
    if fd.crlf:
        text = text.replace("\n", "\r\n")
    out = txn.run_edit(
        where,
        lambda doc: Change.of(compile_whole_text(doc, text)),
        mode=args.mode,
        dry_run=not stage,
        create=True,
    )
    if stage and fd.new_mode is not None:
        txn.set_executable(staged, bool(fd.new_mode & 0o111))
    return FileChange(
        path=where.display,
        action="added",
        diff=out.diff(),
        version=out.version,
        previous_version=None,
        validation=Validation.of(out.report),
    )


def _update(
    txn: Transaction, fd: FileDiff, args: ApplyDiffArgs, stage: bool, where: Resolved
) -> tuple[FileChange, tuple[Resolved, Resolved] | None]:
    ctx = txn.ctx
    if not fd.hunks:  # a rename, a mode change or an empty file's deletion: the bytes stay
        return _unchanged_text(txn, fd, stage, where)
    exact = args.exact or ctx.exact
    out = txn.run_edit(
        where,
        lambda doc: Change.of(compile_hunks(doc, fd, exact=exact)),
        mode=args.mode,
        dry_run=not stage,
    )
    hunks = [HunkResult.of(e) for e in out.change.applied]
    staged = txn.file(where)
    if fd.new_path is None:  # deleted: what the hunks leave must be nothing
        left = out.change.plan.apply_to_text(out.before.text)
        if left:
            count = left.count("\n") + (0 if left.endswith("\n") else 1)
            raise NoMatch(
                f"the diff deletes {where.display}, but the file holds {count} line(s) its "
                "hunks do not remove; nothing was written",
                path=where.display,
                data={"left_lines": count},
                suggestions=["Re-read the file and make the diff against what it holds."],
            )
        previous = out.previous_version
        if stage:
            txn.delete(where)
        deleted = FileChange(
            path=where.display,
            action="deleted",
            diff=whole_diff(out.before.text, "", where.display),
            version=None,
            previous_version=previous,
            hunks=hunks,
        )
        return deleted, None
    if stage and fd.new_mode is not None and fd.new_mode != fd.old_mode:
        txn.set_executable(staged, bool(fd.new_mode & 0o111))
    change = FileChange(
        path=where.display,
        action="updated",
        diff=out.diff(),
        version=out.version,
        previous_version=out.previous_version,
        hunks=hunks,
        validation=Validation.of(out.report),
    )
    return _as_move(txn, fd, where, change)


def _as_move(
    txn: Transaction, fd: FileDiff, where: Resolved, change: FileChange
) -> tuple[FileChange, tuple[Resolved, Resolved] | None]:
    """The change as a move, and the move to stage, when the section is a git rename."""
    if not fd.rename or fd.new_path is None:
        return change, None
    destination = txn.ctx.sandbox.resolve(fd.new_path)
    if destination.real == where.real:
        return change, None
    moved(change, where.display, destination.display)
    return change, (where, destination)


def _unchanged_text(
    txn: Transaction, fd: FileDiff, stage: bool, where: Resolved
) -> tuple[FileChange, tuple[Resolved, Resolved] | None]:
    """A section without hunks: the file's bytes stay (any file, text or not)."""
    staged = txn.file(where)
    if not staged.exists:
        raise with_nearest(
            FileNotFound(f"{where.display} does not exist", path=where.display), where
        )
    previous = staged.version
    if fd.new_path is None:
        if staged.document is None or staged.document.text:
            raise NoMatch(
                f"the diff deletes {where.display} without a hunk, but the file is not empty; "
                "nothing was written",
                path=where.display,
                suggestions=["Make the diff with the file's lines as '-' lines."],
            )
        if stage:
            txn.delete(where)
        gone = FileChange(
            path=where.display, action="deleted", diff="", version=None, previous_version=previous
        )
        return gone, None
    if stage and fd.new_mode is not None and fd.new_mode != fd.old_mode:
        txn.set_executable(staged, bool(fd.new_mode & 0o111))
    kept = FileChange(
        path=where.display, action="updated", diff="", version=previous, previous_version=previous
    )
    return _as_move(txn, fd, where, kept)


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
