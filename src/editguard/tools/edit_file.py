"""``edit_file``: search/replace edits in sequence, all of them or none."""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, Field

from editguard.core.formats.search_replace import (
    SearchReplace,
    compile_search_replace,
    validate_edits,
)
from editguard.pipeline import Change, Context, Mode, Outcome, run_edit
from editguard.tools._common import (
    DRY_RUN_HELP,
    EXACT_HELP,
    MODE_HELP,
    PATH_HELP,
    VERSION_HELP,
    Args,
    Validation,
    outcome_fields,
)
from editguard.tools._tool import Tool


class EditOperation(Args):
    """One search/replace."""

    old_text: str = Field(
        validation_alias=AliasChoices("old_text", "old_string", "old_str", "oldText"),
        description=(
            "The exact text to replace, copied from the file character for character "
            "(indentation, quotes and line breaks included; without read_file's line-number "
            "prefix). Must not be empty. Write line breaks as \\n: they match CRLF files too."
        ),
    )
    new_text: str = Field(
        validation_alias=AliasChoices("new_text", "new_string", "new_str", "newText"),
        description="The replacement text. Empty deletes old_text. Line breaks follow the file.",
    )
    occurrences: int = Field(
        1,
        ge=1,
        description=(
            "How many times old_text occurs in the file at this point (after the earlier edits "
            "of this call). The edit fails with WRONG_COUNT unless the count is exactly this; "
            "all of them are replaced."
        ),
    )


class EditFileArgs(Args):
    """Arguments of edit_file."""

    path: str = Field(description=PATH_HELP)
    edits: list[EditOperation] = Field(
        description=(
            "Edits applied in order: each sees the result of the ones before it. All succeed "
            "or nothing is written."
        ),
    )
    dry_run: bool = Field(False, description=DRY_RUN_HELP)
    expected_version: str | None = Field(None, description=VERSION_HELP)
    mode: Mode = Field("strict", description=MODE_HELP)
    exact: bool = Field(False, description=EXACT_HELP)


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
    note: str | None = Field(None, description="What differed, when the match was not exact.")


class EditFileResult(BaseModel):
    """Result of edit_file."""

    path: str = Field(description="The file's real path (a symlink's target).")
    diff: str = Field(description="Unified diff of the change, with line numbers in hunk headers.")
    edits_applied: list[AppliedEdit]
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
            total_replacements=out.change.replacements,
            dry_run=dry_run,
        )


def run(ctx: Context, args: EditFileArgs) -> EditFileResult:
    """Apply the edits, each on the text the ones before it left.

    Raises:
        EditError: NO_MATCH, WRONG_COUNT, INVALID_REQUEST, TOO_MANY_EDITS, STALE_VERSION,
            ENCODING_ERROR, VALIDATION_FAILED, FILE_BUSY and the file errors of read_file,
            plus WRITE_FAILED.
    """
    specs = [SearchReplace(e.old_text, e.new_text, e.occurrences) for e in args.edits]
    validate_edits(specs, ctx.max_edits)
    out = run_edit(
        ctx,
        args.path,
        lambda doc: Change.of(compile_search_replace(doc, specs, exact=args.exact or ctx.exact)),
        mode=args.mode,
        dry_run=args.dry_run,
        expected_version=args.expected_version,
    )
    return EditFileResult.of(out, args.mode, args.dry_run)


TOOL = Tool(
    name="edit_file",
    title="Edit a file by search/replace",
    description=(
        "Change an existing text file by search/replace. Each edit replaces old_text "
        "(copied exactly from the file, no line-number prefix) with new_text. Edits apply in "
        "order, each on the result of the previous ones. old_text must occur exactly "
        "`occurrences` times (default 1) or the call fails with WRONG_COUNT and lists every "
        "match. An old_text that differs only in trailing whitespace, typographic punctuation, "
        "pasted line numbers or one indentation shift is still found when that is unambiguous, "
        "new_text gets the same correction and the result's `match` says so. Otherwise "
        "NO_MATCH shows the most similar lines of the file and what differs. All edits "
        "succeed or nothing is written. Encoding, BOM, line endings and untouched bytes are "
        "kept. Use dry_run to preview the diff. Use write_file instead to "
        "create a file or replace all of it.\n"
        'Example: {"path": "src/app.py", "edits": [{"old_text": "    return a + b\\n", '
        '"new_text": "    return a - b\\n"}, {"old_text": "DEBUG = True", "new_text": '
        '"DEBUG = False"}]}'
    ),
    arguments=EditFileArgs,
    result=EditFileResult,
    run=run,
)
