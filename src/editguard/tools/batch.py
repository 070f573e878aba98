"""``batch``: several writing calls, on one file or many, as one transaction."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from pydantic import Field

from editguard.errors import Frame, InvalidRequest, TooManyEdits, error_context
from editguard.fs.sandbox import Resolved
from editguard.tools._common import (
    ALLOW_MARKERS_HELP,
    DRY_RUN_HELP,
    FORMAT_HELP,
    Args,
    Checked,
)
from editguard.tools._tool import Tool, allows_markers
from editguard.transaction import Transaction

WRITING = (
    "edit_file",
    "edit_lines",
    "safe_edit",
    "write_file",
    "edit_symbol",
    "edit_snippet",
    "edit_notebook",
    "apply_patch",
    "apply_diff",
)


class BatchCall(Args):
    """One call of a batch."""

    tool: str = Field(description="A writing tool.")
    arguments: dict[str, Any] = Field(description="Its arguments, as the tool takes them.")


class BatchArgs(Args):
    """Arguments of batch."""

    calls: list[BatchCall] = Field(
        min_length=1,
        description="Run in order, each on the result of the ones before.",
    )
    dry_run: bool = Field(False, description=DRY_RUN_HELP)
    # Every call's own format and allow_markers, unless the call gives one in its arguments.
    format: bool | None = Field(None, description=FORMAT_HELP)
    allow_markers: bool = Field(False, description=ALLOW_MARKERS_HELP)


class BatchResult(Checked):
    """Result of batch."""

    results: list[dict[str, Any]] = Field(description="Each call's own result, in order.")
    written: bool = Field(description="Whether the files were written (all of them).")
    dry_run: bool


def run(txn: Transaction, args: BatchArgs) -> BatchResult:
    """Run every call in the batch's transaction (committed by Tool.call): a call that only
    checks (its own dry_run, verify_only) is checked where it stands, and stages nothing.

    Raises:
        EditError: the first call that fails, named (``call`` in data, "call k of n" in the
            message); nothing was written. INVALID_REQUEST for an unknown or read-only tool,
            TOO_MANY_EDITS past the limit of calls.
    """
    from editguard.tools import tool_named  # noqa: PLC0415 - the registry imports this module

    ctx = txn.ctx
    total = len(args.calls)
    if total > ctx.max_edits:
        raise TooManyEdits(
            f"batch holds {total} calls; the limit is {ctx.max_edits}",
            data={"calls": total, "limit": ctx.max_edits},
            suggestions=["Split the calls over several batches."],
        )
    parsed = []
    for index, call in enumerate(args.calls):
        with _call(index, total, call.tool):
            if call.tool not in WRITING:
                raise InvalidRequest(
                    f"{call.tool!r} cannot be part of a batch; the tools that can are: "
                    f"{', '.join(WRITING)}",
                    data={"field": f"calls[{index}].tool"},
                )
            tool = tool_named(call.tool)
            parsed.append((tool, tool.parse(call.arguments)))
    wheres: list[Resolved] = []
    for index, (tool, arguments) in enumerate(parsed):
        with _call(index, total, tool.name):
            wheres += [ctx.sandbox.resolve(p) for p in tool.paths_of(arguments)]
    txn.lock_resolved(wheres)
    results = []
    for index, (tool, arguments) in enumerate(parsed):
        with (
            _call(index, total, tool.name),
            txn.checking(tool.checks_only(arguments)),
            txn.formatting(getattr(arguments, "format", None)),
            txn.allowing_markers(allows_markers(arguments)),
        ):
            results.append(tool.run(txn, arguments).model_dump(mode="json"))
    return BatchResult(results=results, written=txn.will_write(), dry_run=args.dry_run)


def _call(index: int, total: int, tool: str) -> AbstractContextManager[None]:
    """Name the call in an error raised inside: "call k of n (tool)" before the rest of its
    text, ``call`` and ``tool`` in data."""
    return error_context(Frame("call", index, total, tool))


TOOL = Tool(
    name="batch",
    title="Several writing calls as one transaction",
    description=(
        "Run several writing calls (edit_file, edit_lines, safe_edit, write_file, "
        "edit_symbol, edit_snippet, edit_notebook, apply_patch, apply_diff) as one "
        "transaction: each sees "
        "the ones before, all files are written or none, even across a crash; an error names "
        "the call (call k of n). Returns each call's result."
    ),
    arguments=BatchArgs,
    result=BatchResult,
    run=run,
)
