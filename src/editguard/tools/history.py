"""``history``: the changes editguard made, newest first; one change in full with its diff."""

from __future__ import annotations

import datetime

from pydantic import BaseModel, Field

from editguard.errors import ChangeNotFound
from editguard.history import Entry, FileRecord, History
from editguard.history.undo import not_found
from editguard.tools._common import Args
from editguard.tools._tool import Tool
from editguard.transaction.context import Context
from editguard.transaction.settle import settle

MAX_LIMIT = 1000


class HistoryArgs(Args):
    """Arguments of history."""

    path: str | None = Field(None, description="Only this file's changes.")
    limit: int = Field(10, ge=1, le=MAX_LIMIT, description="How many, newest first.")
    change_id: int | None = Field(None, ge=1, le=2**62, description="One change, with diffs.")


class ChangedFile(BaseModel):
    """What one change did to one file."""

    path: str
    action: str = Field(description="created, updated, deleted or moved.")
    moved_from: str | None = None
    previous_version: str | None
    version: str | None
    added: int
    removed: int
    diff: str | None = None


class ChangeModel(BaseModel):
    """One recorded change."""

    id: int
    time: str = Field(description="UTC, ISO 8601.")
    tool: str
    client: str | None = Field(None, description="Who asked: MCP client name version, cli, python.")
    files: list[ChangedFile]
    undoes: list[int] | None = None
    undone_by: int | None = None


class HistoryResult(BaseModel):
    """Result of history."""

    changes: list[ChangeModel]
    note: str | None = Field(None, description="Journals editguard did not act on, if any.")


def history_of(ctx: Context) -> History:
    """The workspace's history.

    Raises:
        ChangeNotFound: the history is turned off.
    """
    if ctx.history is None:
        raise ChangeNotFound(
            "the history is turned off (--no-history), so no change is recorded",
            data={"history": None},
        )
    return ctx.history


def run(ctx: Context, args: HistoryArgs) -> HistoryResult:
    """The latest changes, or one in full.

    Raises:
        EditError: CHANGE_NOT_FOUND (an unknown id, or the history is off), OUTSIDE_ROOT.
    """
    history = history_of(ctx)
    settle(ctx)  # a change whose process died is in the history, or not, before it is shown
    if args.change_id is not None:
        entry = history.entry(args.change_id)
        if entry is None:
            raise not_found(history, args.change_id)
        if args.path is not None:
            named = ctx.sandbox.resolve(args.path).real
            if not any(f.real == named for f in entry.files):
                raise ChangeNotFound(
                    f"change {args.change_id} did not touch {args.path}",
                    path=args.path,
                    data={"change_id": args.change_id},
                )
        return HistoryResult(changes=[change_model(entry, full=True)], note=_rejected(ctx))
    real = ctx.sandbox.resolve(args.path).real if args.path is not None else None
    return HistoryResult(
        changes=[change_model(e, full=False) for e in history.entries(real, args.limit)],
        note=_rejected(ctx),
    )


def _rejected(ctx: Context) -> str | None:
    """What to tell of journals recovery will not act on (not editguard's, or naming folders
    outside their roots): the changes they describe were neither finished nor rolled back."""
    rejected = ctx.journal.rejected()
    if not rejected:
        return None
    named = "; ".join(f"{name}: {why}" for name, why in rejected.items())
    return (
        f"{len(rejected)} journal(s) in {ctx.journal.folder} were not acted on ({named}); "
        "a person should look at them"
    )


def shown(entry: Entry) -> list[FileRecord]:
    """The records a reader sees: a move once, on its new path (the old path's record stands
    for it when the new path has none: moved, then deleted)."""
    reals = {f.real for f in entry.files}
    return [
        f
        for f in entry.files
        if not (f.action == "moved" and f.after_version is None and f.moved in reals)
    ]


def _end(by_real: dict[str, FileRecord], f: FileRecord) -> str | None:
    """The shown path of the other end of a move (``None``: not a move)."""
    if f.action != "moved" or f.moved is None:
        return None
    other = by_real.get(f.moved)
    return other.path if other is not None else f.moved


def change_model(entry: Entry, *, full: bool) -> ChangeModel:
    """The wire form of an entry (with diffs when ``full``)."""
    when = datetime.datetime.fromtimestamp(entry.time, datetime.UTC)
    # A move's version before is its old path's; the other end is named as it is shown.
    by_real = {f.real: f for f in entry.files}
    return ChangeModel(
        id=entry.id,
        time=when.isoformat(timespec="seconds").replace("+00:00", "Z"),
        tool=entry.tool,
        client=entry.client or None,
        files=[
            ChangedFile(
                path=f.path,
                action=f.action,
                moved_from=_end(by_real, f) if f.after_version is not None else None,
                previous_version=by_real[f.moved].before_version
                if f.action == "moved" and f.moved in by_real and f.after_version is not None
                else f.before_version,
                version=f.after_version,
                added=f.added,
                removed=f.removed,
                diff=f.diff if full else None,
            )
            for f in shown(entry)
        ],
        undoes=list(entry.undoes) or None,
        undone_by=entry.undone_by,
    )


TOOL = Tool(
    name="history",
    title="List the changes editguard made",
    description=(
        "The changes editguard made (kept across restarts), newest first: id, time, tool, "
        "client, and per file the action, versions and lines added/removed; change_id shows "
        "one with its diffs. Use an id with undo."
    ),
    arguments=HistoryArgs,
    result=HistoryResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)
