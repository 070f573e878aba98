"""What a history record holds for one path, built from what the writer already knows.

The bytes before a change are kept whole when the file is small (up to :data:`WHOLE_LIMIT`
characters of text), deleted or not text; otherwise only the spans the change replaced are kept
(:mod:`editguard.core.delta`), so a one-line edit of a 100 MB file costs about one line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from editguard.core.delta import Layer, between, common_ends, pack_layers, pack_whole
from editguard.core.diff import render_diff
from editguard.core.plan import Plan, Replacement
from editguard.history.store import Action, FileRecord

WHOLE_LIMIT = 64 * 1024
DIFF_LINES = 2000  # as a result's diff

# The "version" of a path that is a folder (no content hash is this short, nor has letters past
# f): a folder made by a change is recorded as created (before None, after FOLDER), one removed
# by an undo as deleted, and shown with a trailing "/". The store needs nothing new, and undo
# tells folders from files by it.
FOLDER = "folder"


def folder_record(path: str, real: str, before: bool, after: bool) -> FileRecord:
    """The record of a folder a change made (``before`` false, ``after`` true), removed (the
    other way round), or left as it was (both the same: an undo's folder already as it
    restores it)."""
    state = (FOLDER if before else None, None), (FOLDER if after else None, None)
    action: Action = "created" if after and not before else "updated" if after else "deleted"
    return record(
        path=path.rstrip("/") + "/",
        real=real,
        action=action,
        before=state[0],
        after=state[1],
        diff="",
        restore_data=None,
    )


def is_folder(rec: FileRecord) -> bool:
    """Whether a record is of a folder (see :data:`FOLDER`)."""
    return FOLDER in (rec.before_version, rec.after_version)


def text_diff(old: str, new: str, display: str, plan: Plan | None = None) -> str:
    """The diff from ``old`` to ``new`` (through ``plan`` when it is known, else through the
    one span between their common start and end)."""
    if plan is None:
        head, tail = common_ends(old, new)
        plan = Plan((Replacement(head, len(old) - tail, new[head : len(new) - tail]),))
    return render_diff(old, plan, display, max_lines=DIFF_LINES)


def counts(diff: str) -> tuple[int, int]:
    """Lines added and removed, as the diff shows them."""
    added = removed = 0
    for line in diff.splitlines()[2:]:
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return added, removed


def restore(
    old_size: int | None,
    old_bytes: Callable[[], bytes],
    layers: Sequence[Layer] | None,
    new_bytes: Callable[[], bytes] | None = None,
) -> bytes:
    """The restore data of a path that existed before: its whole bytes (small, or deleted:
    ``layers`` is ``None``), or what takes the change back. Several layers (a file changed by
    several calls of one change) are stored as one, the net change from ``old_bytes`` to
    ``new_bytes``, so that what is kept never grows with the number of calls."""
    if layers is None or old_size is None or old_size <= WHOLE_LIMIT:
        return pack_whole(old_bytes())
    if len(layers) > 1 and new_bytes is not None:
        layers = [between(old_bytes(), new_bytes())]
    return pack_layers(layers)


def record(
    *,
    path: str,
    real: str,
    action: Action,
    before: tuple[str | None, int | None],
    after: tuple[str | None, int | None],
    diff: str,
    restore_data: bytes | None,
    base: str | None = None,
    moved: str | None = None,
) -> FileRecord:
    """A record, with its line counts taken from ``diff``."""
    added, removed = counts(diff)
    return FileRecord(
        path=path,
        real=real,
        action=action,
        before_version=before[0],
        after_version=after[0],
        before_mode=before[1],
        after_mode=after[1],
        added=added,
        removed=removed,
        diff=diff,
        restore=restore_data,
        base=base,
        moved=moved,
    )
