"""``edit_lines``: insert, delete and replace lines by number, every number as read."""

from __future__ import annotations

from typing import cast

from pydantic import AliasChoices, Field, field_validator

from editguard.core.formats.lines import LineKind, LineOp, compile_line_ops, validate_line_ops
from editguard.pipeline import Change, Context, Mode, run_edit
from editguard.tools._common import MODE_HELP, PATH_HELP, Args
from editguard.tools._tool import Tool
from editguard.tools.edit_file import EditFileResult

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
        description="1-based line the edit applies to (Insert: the line to insert before).",
    )
    type: str = Field(
        validation_alias=AliasChoices("type", "Type"),
        description=(
            "Insert (text before line_number; past the last line appends), Delete (line_number "
            "through end_line), Replace (the whole line, or only old_text inside it), "
            "ReplaceSection (line_number through end_line become text). Any case; "
            "replace_section also works."
        ),
    )
    text: str | None = Field(
        None,
        validation_alias=AliasChoices("text", "Text"),
        description=(
            "The new line(s); \\n between lines. Empty: ReplaceSection deletes the lines, "
            "Replace leaves an empty line."
        ),
    )
    old_text: str | None = Field(
        None,
        validation_alias=AliasChoices("old_text", "OldText", "oldText"),
        description="Replace only: the exact text to replace inside line line_number.",
    )
    end_line: int | None = Field(
        None,
        validation_alias=AliasChoices("end_line", "EndLine", "endLine"),
        description="Last line (inclusive) for Delete (default: line_number) and ReplaceSection.",
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
        description=(
            "Line edits. Every line number refers to the file as you read it (edits do not "
            "shift each other); edits must not overlap; all succeed or nothing is written."
        ),
    )
    dry_run: bool = Field(
        False,
        validation_alias=AliasChoices("dry_run", "dryRun"),
        description="Check the edits and return the diff without writing anything.",
    )
    expected_version: str | None = Field(
        None,
        description=(
            "The version read_file returned. Strongly recommended: line numbers from a stale "
            "read hit the wrong lines; a changed file gives STALE_VERSION instead."
        ),
    )
    mode: Mode = Field("strict", description=MODE_HELP)


def run(ctx: Context, args: EditLinesArgs) -> EditFileResult:
    """Apply the line edits, all of them or none.

    Raises:
        EditError: LINE_OUT_OF_RANGE, OVERLAPPING_EDITS, INVALID_REQUEST, NO_MATCH and
            WRONG_COUNT (old_text inside a line), STALE_VERSION, VALIDATION_FAILED, and the
            file errors of edit_file.
    """
    ops = [
        # LineEditOp's validator keeps only the four kinds.
        LineOp(cast(LineKind, e.type), e.line_number, e.text, e.old_text, e.end_line)
        for e in args.edits
    ]
    validate_line_ops(ops, ctx.max_edits)
    out = run_edit(
        ctx,
        args.path,
        lambda doc: Change.of(compile_line_ops(doc, ops)),
        mode=args.mode,
        dry_run=args.dry_run,
        expected_version=args.expected_version,
    )
    return EditFileResult.of(out, args.mode, args.dry_run)


TOOL = Tool(
    name="edit_lines",
    title="Edit a file by line numbers",
    description=(
        "Insert, delete or replace lines by number (1-based, as read_file shows them). Types: "
        "Insert (text before line_number; past the last line appends), Delete (line_number "
        "through end_line), Replace (the whole line, or only old_text inside it), "
        "ReplaceSection (line_number through end_line become text; empty text deletes). Every "
        "line number refers to the file as you read it, so edits never shift each other; "
        "overlapping edits are refused; all succeed or nothing is written. Line numbers go stale "
        "when the file changes: pass the version from read_file as expected_version. Prefer "
        "edit_file when you can quote the text to change.\n"
        'Example: {"path": "src/app.py", "expected_version": "5c0f3c6d9f0b7a1e", "edits": '
        '[{"line_number": 3, "type": "Insert", "text": "import os"}, {"line_number": 10, '
        '"type": "ReplaceSection", "end_line": 12, "text": "    return 0"}]}'
    ),
    arguments=EditLinesArgs,
    result=EditFileResult,
    run=run,
)
