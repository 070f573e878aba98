"""``edit_lines``: insert, delete and replace lines by number, every number as read."""

from __future__ import annotations

from typing import cast

from pydantic import AliasChoices, Field, field_validator

from editguard.core.formats.lines import LineKind, LineOp, compile_line_ops, validate_line_ops
from editguard.tools._common import (
    ALLOW_MARKERS_HELP,
    CELL_HELP,
    CLEAR_OUTPUTS_HELP,
    DRY_RUN_HELP,
    FORMAT_HELP,
    MODE_HELP,
    PATH_HELP,
    VERSION_HELP,
    Args,
)
from editguard.tools._tool import Tool
from editguard.tools.edit_file import EditFileResult
from editguard.transaction import CellCall, Transaction
from editguard.transaction.build import Change, Mode

_LINE_TYPES = {
    "insert": "insert",
    "delete": "delete",
    "replace": "replace",
    "replacesection": "replace_section",
}


class LineEditOp(Args):
    """One line edit; line numbers refer to the file as read."""

    line_number: int = Field(
        validation_alias=AliasChoices("line_number", "LineNumber", "lineNumber", "line"),
        description="1-based line, as read (Insert: the line to insert before).",
    )
    type: str = Field(
        validation_alias=AliasChoices("type", "Type"),
        description=(
            "Insert (before line_number; past the end appends), Delete or ReplaceSection "
            "(line_number..end_line), Replace (the line, or old_text in it)."
        ),
    )
    text: str | None = Field(
        None,
        validation_alias=AliasChoices("text", "Text"),
        description="New line(s), \\n between; empty ReplaceSection deletes.",
    )
    old_text: str | None = Field(
        None,
        validation_alias=AliasChoices("old_text", "OldText", "oldText"),
        description="Replace: the text to replace inside the line.",
    )
    end_line: int | None = Field(
        None,
        validation_alias=AliasChoices("end_line", "EndLine", "endLine"),
        description="Last line (inclusive) of Delete and ReplaceSection.",
    )

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        key = value.replace("_", "").replace("-", "").replace(" ", "").lower()
        if key not in _LINE_TYPES:
            raise ValueError(
                f"unknown type {value!r}; use Insert, Delete, Replace or ReplaceSection"
            )
        return _LINE_TYPES[key]


class EditLinesArgs(Args):
    """Arguments of edit_lines."""

    path: str = Field(description=PATH_HELP)
    edits: list[LineEditOp] = Field(
        validation_alias=AliasChoices("edits", "editsJson", "edits_json"),
        description="Non-overlapping; numbers as read (edits do not shift each other).",
    )
    dry_run: bool = Field(
        False,
        validation_alias=AliasChoices("dry_run", "dryRun"),
        description=DRY_RUN_HELP,
    )
    expected_version: str | None = Field(
        None,
        description=VERSION_HELP,
    )
    mode: Mode = Field("strict", description=MODE_HELP)
    format: bool | None = Field(None, description=FORMAT_HELP)
    allow_markers: bool = Field(False, description=ALLOW_MARKERS_HELP)
    cell: int | str | None = Field(
        None, description=CELL_HELP + " Required there: lines are numbered within the cell."
    )
    clear_outputs: bool = Field(False, description=CLEAR_OUTPUTS_HELP)


def run(txn: Transaction, args: EditLinesArgs) -> EditFileResult:
    """Apply the line edits, all of them or none.

    Raises:
        EditError: LINE_OUT_OF_RANGE, OVERLAPPING_EDITS, INVALID_REQUEST, NO_MATCH and
            WRONG_COUNT (old_text inside a line), STALE_VERSION, VALIDATION_FAILED, and the
            file errors of edit_file; on a notebook CELL_NOT_FOUND, INVALID_NOTEBOOK, and
            INVALID_REQUEST without ``cell``.
    """
    ops = [
        # LineEditOp's validator keeps only the four kinds.
        LineOp(cast(LineKind, e.type), e.line_number, e.text, e.old_text, e.end_line)
        for e in args.edits
    ]
    validate_line_ops(ops, txn.ctx.max_edits)
    out = txn.run_edit(
        args.path,
        lambda doc: Change.of(compile_line_ops(doc, ops)),
        mode=args.mode,
        expected_version=args.expected_version,
        cell=CellCall(args.cell, clear_outputs=args.clear_outputs),
    )
    return EditFileResult.of(out, args.mode, args.dry_run)


TOOL = Tool(
    name="edit_lines",
    title="Edit a file by line numbers",
    description=(
        "Insert, delete or replace lines by number, as read_file shows them; all edits or "
        "none are written. Pass read_file's version as expected_version: stale line numbers "
        "hit wrong lines. Prefer edit_file when you can quote the text. Returns the diff and "
        "the new version.\n"
        'Example: {"path": "a.py", "edits": [{"line_number": 3, "type": "Insert", "text": '
        '"import os"}, {"line_number": 10, "type": "ReplaceSection", "end_line": 12, "text": '
        '"    return 0"}]}'
    ),
    arguments=EditLinesArgs,
    result=EditFileResult,
    run=run,
)
