"""``safe_edit``: the whole content, line edits or one search/replace, syntax-checked."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from editguard.core.document import Document
from editguard.core.formats import lines, regex_replace
from editguard.core.formats.whole_text import compile_whole_text
from editguard.tools._common import (
    ALLOW_MARKERS_HELP,
    CELL_HELP,
    CLEAR_OUTPUTS_HELP,
    EXACT_HELP,
    FORMAT_HELP,
    MODE_HELP,
    PATH_HELP,
    VERSION_HELP,
    Args,
    Checked,
    Validation,
    outcome_fields,
)
from editguard.tools._tool import Tool
from editguard.transaction import CellCall, Transaction
from editguard.transaction.build import Change, Mode

EditMode = Literal["content", "line_edits", "search_replace"]


class LineEdit(Args):
    """Replace lines start_line..end_line (inclusive, as read) with new_content."""

    start_line: int = Field(ge=1, description="First line to replace (1-based).")
    end_line: int = Field(ge=1, description="Last line to replace (inclusive).")
    new_content: str = Field(description="New lines, \\n between; empty deletes.")

    @model_validator(mode="after")
    def _range(self) -> LineEdit:
        if self.end_line < self.start_line:
            raise ValueError(
                f"end_line ({self.end_line}) must be >= start_line ({self.start_line})"
            )
        return self


class SearchReplaceOp(Args):
    """A literal or regular-expression replacement over the whole file."""

    search: str = Field(description="Literal text, or a regular expression with regex.")
    replace: str = Field(description="Replacement; with regex, \\1 and \\g<name> work.")
    regex: bool = Field(False, description="search is a Python regular expression.")
    exact: bool = Field(False, description=EXACT_HELP)
    count: int | None = Field(
        None,
        json_schema_extra={"minimum": 0},
        description="Replace the first this many (0 or none: all); fewer matches: "
        "WRONG_COUNT (strict mode).",
    )
    flags: int | str = Field(
        0,
        description="re flags: an int, or names like 'IGNORECASE|MULTILINE'.",
    )

    @field_validator("count")
    @classmethod
    def _count_not_negative(cls, value: int | None) -> int | None:
        if value is not None and value < 0:
            raise ValueError("count must be >= 0")  # the message scripts already match
        return value


class SafeEditArgs(Args):
    """Arguments of safe_edit: exactly one of content, line_edits, search_replace."""

    path: str = Field(description=PATH_HELP)
    mode: Mode = Field("strict", description=MODE_HELP)
    format: bool | None = Field(None, description=FORMAT_HELP)
    allow_markers: bool = Field(False, description=ALLOW_MARKERS_HELP)
    show_diff: bool = Field(True, description="Return the diff.")
    content: str | None = Field(None, description="The whole new file (may create it).")
    line_edits: list[LineEdit] | None = Field(
        None, description="Line ranges to replace; numbers as read; no overlaps."
    )
    search_replace: SearchReplaceOp | None = Field(
        None, description="One literal or regex replacement over the whole file."
    )
    expected_version: str | None = Field(None, description=VERSION_HELP)
    cell: int | str | None = Field(
        None,
        description=CELL_HELP + " Without it: search_replace lands in the one cell it fits, "
        "content is the whole file, line_edits are refused.",
    )
    clear_outputs: bool = Field(False, description=CLEAR_OUTPUTS_HELP)

    @model_validator(mode="after")
    def _exactly_one(self) -> SafeEditArgs:
        chosen = [m for m in (self.content, self.line_edits, self.search_replace) if m is not None]
        if not chosen:
            raise ValueError(
                "At least one edit mode must be specified (content, line_edits, or search_replace)"
            )
        if len(chosen) > 1:
            raise ValueError("Only one edit mode can be specified at a time")
        return self


class SafeEditResult(Checked):
    """Result of safe_edit."""

    path: str
    edit_mode: EditMode
    mode: Mode
    diff: str | None = Field(description="Unified diff (null when show_diff is false).")
    replacements: int = Field(description="search_replace: how many replacements were made.")
    match: str = Field(
        "exact",
        description="search_replace: how the literal was found (exact, or the tolerances used).",
    )
    note: str | None = Field(
        None, description="What differed, when the match was not exact; or already applied."
    )
    already_applied: list[int] = Field(
        description="search_replace: [0] when the file already read as done (a retry); "
        "nothing was changed."
    )
    created: bool
    would_modify: bool
    written: bool
    version: str | None = Field(description="Version of the file after this call.")
    previous_version: str | None
    validation: Validation
    warnings: list[str] = Field(description="E.g. a pattern not found in interactive mode.")


def run(txn: Transaction, args: SafeEditArgs) -> SafeEditResult:
    """Apply the one edit mode given.

    Raises:
        EditError: INVALID_REQUEST (not exactly one edit mode, bad ranges), LINE_OUT_OF_RANGE,
            OVERLAPPING_EDITS, NO_MATCH (pattern not found, strict mode), INVALID_REGEX,
            REGEX_TIMEOUT, VALIDATION_FAILED, STALE_VERSION and the file errors; on a
            notebook CELL_NOT_FOUND, AMBIGUOUS_MATCH (a search that fits several cells),
            INVALID_NOTEBOOK.
    """
    ctx = txn.ctx
    edit_mode: EditMode
    if args.content is not None:
        edit_mode, content = "content", args.content

        def build(doc: Document) -> Change:
            return Change.of(compile_whole_text(doc, content))

    elif args.line_edits is not None:
        edit_mode = "line_edits"
        edits = [lines.LineEdit(e.start_line, e.end_line, e.new_content) for e in args.line_edits]
        lines.validate_line_edits(edits, ctx.max_edits)

        def build(doc: Document) -> Change:
            return Change.of(lines.compile_line_edits(doc, edits))

    else:
        assert args.search_replace is not None  # SafeEditArgs holds exactly one mode
        edit_mode, sr = "search_replace", args.search_replace
        request = regex_replace.RegexReplace(
            sr.search, sr.replace, sr.regex, sr.count, sr.flags, sr.exact or ctx.exact
        )

        def build(doc: Document) -> Change:
            compiled = regex_replace.compile_regex_replace(
                doc, request, required=args.mode == "strict", max_size=ctx.max_file_bytes
            )
            return Change.of(compiled)

    # On a notebook: the cell named; without one, content is the notebook's whole JSON
    # (checked as a notebook, as write_file writes it), a search lands in the one cell it
    # fits, and line numbers, which mean nothing across cells, are refused.
    call = None
    if args.cell is not None or edit_mode != "content":
        call = CellCall(
            args.cell, anywhere=edit_mode == "search_replace", clear_outputs=args.clear_outputs
        )
    out = txn.run_edit(
        args.path,
        build,
        mode=args.mode,
        expected_version=args.expected_version,
        create=edit_mode == "content" and args.cell is None,
        cell=call,
    )
    applied = out.change.applied
    replacements = {
        "content": 0,
        "line_edits": len(args.line_edits or ()),
        "search_replace": out.change.replacements,
    }[edit_mode]
    return SafeEditResult(
        **outcome_fields(out, args.mode),
        would_modify=out.would_modify,
        edit_mode=edit_mode,
        diff=out.diff() if args.show_diff else None,
        replacements=replacements,
        match=applied[0].match if applied else "exact",
        note=applied[0].note if applied else None,
        already_applied=[e.index for e in applied if e.already_applied],
        created=out.created,
        warnings=list(out.change.warnings),
    )


TOOL = Tool(
    name="safe_edit",
    title="Edit a file in one of three ways, syntax-checked",
    description=(
        "Edit a file with exactly one of content (the whole file), line_edits or "
        "search_replace (literal or regex, all matches by default), syntax-checked before "
        "anything is written (see mode). Returns the diff, replacements, created and the new "
        "version."
    ),
    arguments=SafeEditArgs,
    result=SafeEditResult,
    run=run,
)
