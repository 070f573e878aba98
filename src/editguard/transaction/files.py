"""The file operations of the patch tools (``apply_patch``, ``apply_diff``), staged in a
transaction: add, delete, update and move files, each reporting a :class:`FileOutcome`.

The two formats share the operations and differ in what they ask of them: a Codex patch adds
over an existing file (an update) and moves one file at a time, replacing what is at the new
path; a unified diff refuses to create a file that exists, deletes a file only when its hunks
leave nothing, and renames all its files together, as git does (two files may swap names, a
rename onto a file that stays is refused). An error of one operation names its file and the
patch line it comes from (a file frame, with ``patch_line`` or ``diff_line`` in data).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from editguard.core.document import Document
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.formats.codex_patch import (
    AddFile,
    DeleteFile,
    PatchOp,
    UpdateFile,
    add_file_text,
    compile_update,
)
from editguard.core.formats.unified_diff import FileDiff, compile_hunks, new_file_text
from editguard.core.formats.whole_text import compile_whole_text
from editguard.core.plan import Plan, Replacement
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
from editguard.transaction import Transaction
from editguard.transaction.build import Change, Mode, diff_of
from editguard.transaction.read import check_version

if TYPE_CHECKING:
    from editguard.validate import Report

Action = Literal["added", "updated", "deleted", "moved"]


@dataclasses.dataclass(frozen=True, slots=True)
class FileOutcome:
    """What one file operation did (or, for a call that only checks, would do).

    ``path``: the file's path as shown (for a move, the new one); ``version``: after the
    change (``None``: deleted); ``previous_version``: before it (``None``: created);
    ``applied``: each chunk or hunk; ``report``: the validation of a changed text.
    """

    path: str
    action: Action
    diff: str
    version: str | None
    previous_version: str | None
    moved_from: str | None = None
    applied: tuple[AppliedEdit, ...] = ()
    report: Report | None = None

    def moved(self, old: str, new: str) -> FileOutcome:
        """This outcome as a move from ``old`` to ``new``; its diff's new side names ``new``."""
        diff = self.diff
        head = f"--- a/{old}\n+++ b/{old}\n"
        if diff.startswith(head):
            diff = f"--- a/{old}\n+++ b/{new}\n" + diff[len(head) :]
        return dataclasses.replace(self, action="moved", moved_from=old, path=new, diff=diff)


def check_expected(txn: Transaction, expected: dict[str, str] | None) -> None:
    """Refuse, before any change is staged, a file whose version is not the one expected.

    Raises:
        StaleVersion: naming the file.
    """
    for path, version in (expected or {}).items():
        where = txn.ctx.sandbox.resolve(path)
        staged = txn.file(where)
        check_version(where.display, version, staged.read_version, staged.version)


# -- the operations, shared -----------------------------------------------------------------


def add(txn: Transaction, where: Resolved, text: str, mode: Mode) -> FileOutcome:
    """Stage ``text`` as the whole file: a new file, or (over an existing one) its update."""
    out = txn.run_edit(
        where, lambda doc: Change.of(compile_whole_text(doc, text)), mode=mode, create=True
    )
    return FileOutcome(
        path=where.display,
        action="added" if out.creates else "updated",
        diff=out.diff(),
        version=out.version,
        previous_version=out.previous_version,
        report=out.report,
    )


def update(
    txn: Transaction, where: Resolved, compile: Callable[[Document], Compiled], mode: Mode
) -> tuple[FileOutcome, Document, Plan]:
    """Stage the change ``compile`` makes of the file's staged text; returns its outcome, and
    the text and plan it was made on and of."""
    out = txn.run_edit(where, lambda doc: Change.of(compile(doc)), mode=mode)
    change = FileOutcome(
        path=where.display,
        action="updated",
        diff=out.diff(),
        version=out.version,
        previous_version=out.previous_version,
        applied=out.change.applied,
        report=out.report,
    )
    return change, out.before, out.change.plan


def delete(txn: Transaction, where: Resolved, applied: tuple[AppliedEdit, ...] = ()) -> FileOutcome:
    """Stage the deletion of an existing file (any file, text or not).

    Raises:
        FileNotFound: it does not exist (or an earlier change deleted it).
        NotAFile: it is a symbolic link, a folder or another non-file.
    """
    staged = txn.file(where)
    old, previous, binary = staged.text(), staged.version, staged.binary
    txn.delete(where)
    display = where.display
    diff = f"Binary file {display} deleted\n" if binary else whole_diff(old, "", display)
    return FileOutcome(
        path=display,
        action="deleted",
        diff=diff,
        version=None,
        previous_version=previous,
        applied=applied,
    )


def whole_diff(old: str, new: str, display: str) -> str:
    """The diff from ``old`` to ``new`` (a file created or deleted whole)."""
    plan = Plan((Replacement(0, len(old), new),)) if old != new else Plan()
    return diff_of(Document(old, name=display), plan, display)


# -- a Codex patch --------------------------------------------------------------------------


def apply_patch_ops(
    txn: Transaction, ops: tuple[PatchOp, ...], *, mode: Mode, exact: bool
) -> list[FileOutcome]:
    """Stage every operation of a Codex patch, in order (each sees the ones before).

    Raises:
        EditError: INVALID_PATCH (two moves onto one path), NO_MATCH and AMBIGUOUS_MATCH
            (naming the file and the chunk), FILE_NOT_FOUND, NOT_A_FILE, VALIDATION_FAILED,
            STALE_VERSION and the file errors, each with ``patch_line``.
    """
    _one_move_per_destination(txn, ops)
    out = []
    for op in ops:
        where = txn.ctx.sandbox.resolve(op.path)
        with error_context(Frame("file", name=where.display, data={"patch_line": op.line})):
            out.append(_patch_op(txn, op, where, mode, exact))
    return out


def _patch_op(
    txn: Transaction, op: PatchOp, where: Resolved, mode: Mode, exact: bool
) -> FileOutcome:
    if isinstance(op, DeleteFile):
        return delete(txn, where)
    if isinstance(op, AddFile):
        return add(txn, where, add_file_text(op), mode)
    change, _, _ = update(txn, where, lambda doc: compile_update(doc, op, exact=exact), mode)
    if op.move_to:
        destination = txn.ctx.sandbox.resolve(op.move_to)
        if destination.real != where.real:
            txn.move(where, destination)
            change = change.moved(where.display, destination.display)
    return change


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


# -- a unified diff -------------------------------------------------------------------------


def apply_file_diffs(
    txn: Transaction, diffs: tuple[FileDiff, ...], *, mode: Mode, exact: bool
) -> list[FileOutcome]:
    """Stage every file of a unified or git diff; its renames all together, at the end.

    Raises:
        EditError: INVALID_PATCH, NO_MATCH and AMBIGUOUS_MATCH (naming the file and the hunk),
            OVERLAPPING_EDITS, FILE_NOT_FOUND, STALE_VERSION (a file the diff creates exists),
            VALIDATION_FAILED and the file errors, each with ``diff_line``.
    """
    files: list[FileOutcome] = []
    moves: list[tuple[Resolved, Resolved]] = []
    for fd in diffs:
        change, move = _file_diff(txn, fd, mode, exact)
        files.append(change)
        if move is not None:
            moves.append(move)
    if moves:
        # All renames together, as git applies them: two files may swap names, but a
        # rename onto a file that stays is refused.
        txn.move_all(moves, replace=False)
    return files


Move = tuple[Resolved, Resolved]


def _file_diff(
    txn: Transaction, fd: FileDiff, mode: Mode, exact: bool
) -> tuple[FileOutcome, Move | None]:
    """Stage one file's section; a git rename is returned (source, destination) for later."""
    if fd.old_path is None and fd.new_path is None:
        raise InvalidPatch(
            "a file section of the diff names no file ('/dev/null' on both sides)",
            data={"line": fd.line},
        )
    where = _target(txn, fd)
    with error_context(Frame("file", name=where.display, data={"diff_line": fd.line})):
        _refuse_what_is_not_text(fd, where)
        if fd.old_path is None:
            return _create(txn, fd, mode, where), None
        if not fd.hunks:  # a rename, a mode change or an empty file's deletion: the bytes stay
            return _unchanged_text(txn, fd, where)
        return _update(txn, fd, mode, exact, where)


def _refuse_what_is_not_text(fd: FileDiff, where: Resolved) -> None:
    """Refuse a binary patch, a symbolic link and a submodule.

    Raises:
        InvalidPatch: naming the file.
    """
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


def _create(txn: Transaction, fd: FileDiff, mode: Mode, where: Resolved) -> FileOutcome:
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
    change = add(txn, where, text, mode)
    if fd.new_mode is not None:
        txn.set_executable(staged, bool(fd.new_mode & 0o111))
    return dataclasses.replace(change, previous_version=None)


def _update(
    txn: Transaction, fd: FileDiff, mode: Mode, exact: bool, where: Resolved
) -> tuple[FileOutcome, Move | None]:
    change, before, plan = update(txn, where, lambda doc: compile_hunks(doc, fd, exact=exact), mode)
    if fd.new_path is None:  # deleted: what the hunks leave must be nothing
        left = plan.apply_to_text(before.text)
        if left:
            count = left.count("\n") + (0 if left.endswith("\n") else 1)
            raise NoMatch(
                f"the diff deletes {where.display}, but the file holds {count} line(s) its "
                "hunks do not remove; nothing was written",
                path=where.display,
                data={"left_lines": count},
                suggestions=["Re-read the file and make the diff against what it holds."],
            )
        txn.delete(where)
        deleted = FileOutcome(
            path=where.display,
            action="deleted",
            diff=whole_diff(before.text, "", where.display),
            version=None,
            previous_version=change.previous_version,
            applied=change.applied,
        )
        return deleted, None
    _mode_change(txn, fd, where)
    return _as_move(txn, fd, where, change)


def _unchanged_text(
    txn: Transaction, fd: FileDiff, where: Resolved
) -> tuple[FileOutcome, Move | None]:
    """A section without hunks: the file's bytes stay (any file, text or not)."""
    staged = txn.file(where)
    if not staged.exists:
        raise with_nearest(
            FileNotFound(f"{where.display} does not exist", path=where.display), where
        )
    previous = staged.version
    if fd.new_path is None:
        if staged.document is None or staged.text():
            raise NoMatch(
                f"the diff deletes {where.display} without a hunk, but the file is not empty; "
                "nothing was written",
                path=where.display,
                suggestions=["Make the diff with the file's lines as '-' lines."],
            )
        txn.delete(where)
        gone = FileOutcome(
            path=where.display, action="deleted", diff="", version=None, previous_version=previous
        )
        return gone, None
    _mode_change(txn, fd, where)
    kept = FileOutcome(
        path=where.display, action="updated", diff="", version=previous, previous_version=previous
    )
    return _as_move(txn, fd, where, kept)


def _mode_change(txn: Transaction, fd: FileDiff, where: Resolved) -> None:
    """Stage the executable bits a section's mode change sets or clears."""
    if fd.new_mode is not None and fd.new_mode != fd.old_mode:
        txn.set_executable(txn.file(where), bool(fd.new_mode & 0o111))


def _as_move(
    txn: Transaction, fd: FileDiff, where: Resolved, change: FileOutcome
) -> tuple[FileOutcome, Move | None]:
    """The change as a move, and the move to stage, when the section is a git rename."""
    if not fd.rename or fd.new_path is None:
        return change, None
    destination = txn.ctx.sandbox.resolve(fd.new_path)
    if destination.real == where.real:
        return change, None
    return change.moved(where.display, destination.display), (where, destination)
