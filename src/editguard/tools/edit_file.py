"""``edit_file``: search/replace edits in sequence, all of them or none."""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, Field

from editguard.core.document import Document, to_view
from editguard.core.formats.search_replace import (
    SearchReplace,
    compile_search_replace,
    validate_edits,
)
from editguard.tools._common import (
    ALLOW_MARKERS_HELP,
    CELL_HELP,
    CLEAR_OUTPUTS_HELP,
    DRY_RUN_HELP,
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
from editguard.transaction.build import Change, Mode, Outcome


class EditOperation(Args):
    """One search/replace."""

    old_text: str = Field(
        validation_alias=AliasChoices("old_text", "old_string", "old_str", "oldText"),
        description=(
            "Text to replace, copied exactly from the file (indentation too, no 'N│' prefix); "
            "\\n matches CRLF too."
        ),
    )
    new_text: str = Field(
        validation_alias=AliasChoices("new_text", "new_string", "new_str", "newText"),
        description="Replacement; empty deletes old_text.",
    )
    occurrences: int = Field(
        1,
        ge=1,
        description="How often old_text occurs (after the edits before it); all are replaced.",
    )


class EditFileArgs(Args):
    """Arguments of edit_file."""

    path: str = Field(description=PATH_HELP)
    edits: list[EditOperation] = Field(
        description="Applied in order, each on the result of the ones before.",
    )
    dry_run: bool = Field(False, description=DRY_RUN_HELP)
    expected_version: str | None = Field(None, description=VERSION_HELP)
    mode: Mode = Field("strict", description=MODE_HELP)
    format: bool | None = Field(None, description=FORMAT_HELP)
    allow_markers: bool = Field(False, description=ALLOW_MARKERS_HELP)
    exact: bool = Field(False, description=EXACT_HELP)
    cell: int | str | None = Field(
        None, description=CELL_HELP + " Without it, the edits land in the one cell they fit."
    )
    clear_outputs: bool = Field(False, description=CLEAR_OUTPUTS_HELP)


class AppliedEdit(BaseModel):
    """What one edit did."""

    index: int = Field(description="0-based index of the edit in the request.")
    occurrences_replaced: int
    lines: list[int] = Field(
        description="1-based lines of the new file where each replacement starts."
    )
    match: str = Field(
        "exact",
        description=(
            "How old_text was found: exact, or the tolerances that made it match "
            "(e.g. indentation, trailing_whitespace+punctuation); the same correction was "
            "applied to new_text."
        ),
    )
    note: str | None = Field(
        None,
        description=(
            "What differed when the match was not exact; an edit already applied; an insert "
            "past the end, appended."
        ),
    )


class EditFileResult(Checked):
    """Result of edit_file."""

    path: str = Field(description="The file's real path (a symlink's target).")
    diff: str = Field(description="Unified diff of the change, with line numbers in hunk headers.")
    edits_applied: list[AppliedEdit]
    already_applied: list[int] = Field(
        description=(
            "Indexes of edits the file already read as done (a retry): each changed nothing, "
            "and its lines are where its new_text stands."
        )
    )
    total_replacements: int
    version: str = Field(description="Version of the file after this call; pass it to the next.")
    previous_version: str
    dry_run: bool
    would_modify: bool = Field(description="Whether the edits change the file's content.")
    written: bool = Field(description="Whether the file was written.")
    mode: Mode
    validation: Validation

    @classmethod
    def of(cls, out: Outcome[Change], mode: Mode, dry_run: bool) -> EditFileResult:
        """The result of an edit_file or edit_lines call."""
        applied = out.change.applied
        return cls(
            **outcome_fields(out, mode),
            would_modify=out.would_modify,
            diff=out.diff(),
            edits_applied=[AppliedEdit.model_validate(e, from_attributes=True) for e in applied],
            already_applied=[e.index for e in applied if e.already_applied],
            total_replacements=out.change.replacements,
            dry_run=dry_run,
        )


def run(txn: Transaction, args: EditFileArgs) -> EditFileResult:
    """Apply the edits, each on the text the ones before it left.

    Raises:
        EditError: NO_MATCH, WRONG_COUNT, INVALID_REQUEST, TOO_MANY_EDITS, STALE_VERSION,
            ENCODING_ERROR, VALIDATION_FAILED, FILE_BUSY and the file errors of read_file,
            plus WRITE_FAILED.
    """
    return EditFileResult.of(apply_edits(txn, args), args.mode, args.dry_run)


def apply_edits(
    txn: Transaction, args: EditFileArgs, cell: CellCall | None = None
) -> Outcome[Change]:
    """What :func:`run` does, as the transaction's outcome (for a front end that shows the change
    in its own form, as ``--compat filesystem`` does); ``cell``: how a notebook is edited, where
    that front end decides it (``AS_TEXT``: its JSON as plain text), instead of ``args``.

    Raises:
        EditError: as :func:`run`.
    """
    specs = [SearchReplace(e.old_text, e.new_text, e.occurrences) for e in args.edits]
    validate_edits(specs, txn.ctx.max_edits)
    exact = args.exact or txn.ctx.exact
    return txn.run_edit(
        args.path,
        lambda doc: Change.of(compile_search_replace(doc, specs, exact=exact)),
        mode=args.mode,
        expected_version=args.expected_version,
        build_view=lambda view: _in_view(view, specs),
        cell=cell or CellCall(args.cell, anywhere=True, clear_outputs=args.clear_outputs),
    )


def _in_view(view: Document, specs: list[SearchReplace]) -> Change:
    """The edits on a large UTF-8 file read as a view: exact matches only (they are found at
    the same places as in the text). An edit that the exact search refuses may still land on
    the tolerance ladder, which needs the text: the refusal sends the transaction back to it."""
    in_view = [
        SearchReplace(to_view(e.old_text), to_view(e.new_text), e.occurrences) for e in specs
    ]
    return Change.of(compile_search_replace(view, in_view, exact=True))


TOOL = Tool(
    name="edit_file",
    title="Edit a file by search/replace",
    description=(
        "Change part of a text file by search/replace: each edit's old_text (copied exactly "
        "from the file) becomes new_text. old_text must occur exactly `occurrences` times "
        "(default 1), else WRONG_COUNT lists the matches. A near miss (trailing whitespace, "
        "typographic punctuation, pasted line numbers, one indentation shift) is found when "
        "unambiguous and new_text gets the same correction; else NO_MATCH shows the most "
        "similar lines. All edits or none are written; encoding, line endings and untouched "
        "bytes are kept. An edit the file already reads as done (a retry) changes nothing "
        "and is listed in already_applied. Returns the diff, each edit's lines and `match`, "
        "and the version."
    ),
    arguments=EditFileArgs,
    result=EditFileResult,
    run=run,
)
