"""``edit_symbol``: chunks inside one definition, a new body, or lines before or after it."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field, model_validator

from editguard.core.document import Document
from editguard.core.formats.symbol_edit import (
    Chunks,
    ChunkText,
    InsertAfter,
    InsertBefore,
    NewBody,
    SymbolAction,
    Target,
    compile_symbol_edit,
    new_lines_of,
    replaces_symbol,
)
from editguard.errors import TooManyEdits
from editguard.symbols import Symbol, find_symbol, shares_lines, symbols_of
from editguard.tools._common import (
    ALLOW_MARKERS_HELP,
    CELL_HELP,
    CLEAR_OUTPUTS_HELP,
    DRY_RUN_HELP,
    EXACT_HELP,
    FORMAT_HELP,
    MODE_HELP,
    VERSION_HELP,
    Args,
    Checked,
    Validation,
    outcome_fields,
)
from editguard.tools._tool import Tool
from editguard.tools.list_symbols import SYMBOL_LANGUAGES, SYMBOL_RANGE, SymbolModel
from editguard.transaction import CellCall, Transaction
from editguard.transaction.build import Change, Mode
from editguard.validate import Finding
from editguard.validate.structure import structure_findings


class ChunkModel(Args):
    """One change inside the symbol: old_lines replaced by new_lines."""

    context_before: str | list[str] = Field("", description="Lines right above old_lines.")
    old_lines: list[str] = Field(description="Whole lines to replace ([]: insert).")
    new_lines: list[str] = Field(description="Their replacement ([]: delete).")
    context_after: str | list[str] = Field("", description="Lines right below old_lines.")
    at_end: bool = Field(False, description="The chunk ends at the symbol's last line.")


class EditSymbolArgs(Args):
    """Arguments of edit_symbol: the symbol, and exactly one action."""

    path: str = Field(description="File that holds the symbol.")
    symbol: str | None = Field(
        None,
        description=(
            "Name path: 'Class/method' ('.' also separates; a leading '/' anchors at the top "
            "level; 'name[1]' picks the second of several matches). Or give line and column."
        ),
    )
    line: int | None = Field(None, ge=1, description="A line inside the definition (1-based).")
    column: int | None = Field(None, ge=1, description="A column on that line (1-based).")
    chunks: list[ChunkModel] | None = Field(None, description="Changes inside the symbol.")
    new_body: str | None = Field(
        None,
        description="The symbol's whole new text, first line (and decorators) included, "
        "written exactly as given, indentation too.",
    )
    insert_before: str | None = Field(
        None, description="Whole lines to insert before the symbol's range, exactly as given."
    )
    insert_after: str | None = Field(
        None, description="Whole lines to insert after the symbol's range, exactly as given."
    )
    dry_run: bool = Field(False, description=DRY_RUN_HELP)
    expected_version: str | None = Field(None, description=VERSION_HELP)
    mode: Mode = Field("strict", description=MODE_HELP)
    format: bool | None = Field(None, description=FORMAT_HELP)
    allow_markers: bool = Field(False, description=ALLOW_MARKERS_HELP)
    exact: bool = Field(False, description=EXACT_HELP)
    cell: int | str | None = Field(
        None,
        description=CELL_HELP + " Without it, the symbol is looked for in every code cell "
        "(line and column need it).",
    )
    clear_outputs: bool = Field(False, description=CLEAR_OUTPUTS_HELP)

    @model_validator(mode="after")
    def _one_action(self) -> EditSymbolArgs:
        actions = [
            a
            for a in (self.chunks, self.new_body, self.insert_before, self.insert_after)
            if a is not None
        ]
        if len(actions) != 1:
            raise ValueError("give exactly one of chunks, new_body, insert_before, insert_after")
        if not self.symbol and self.line is None:
            raise ValueError("give the symbol as a name path (symbol) or as line and column")
        if self.symbol and self.line is not None:
            raise ValueError(
                "give the symbol either as a name path (symbol) or as line and column, not both"
            )
        return self


class EditSymbolResult(Checked):
    """Result of edit_symbol."""

    path: str
    symbol: SymbolModel = Field(description="The symbol as it was before the edit.")
    new_start_line: int = Field(description="Where the edited range starts in the new file.")
    new_end_line: int
    diff: str
    version: str
    previous_version: str
    dry_run: bool
    would_modify: bool
    written: bool
    mode: Mode
    validation: Validation
    chunks_matched: list[str] | None = Field(
        None,
        description=(
            "chunks: how each chunk was found: exact (lines compared without trailing "
            "whitespace), or the tolerances that made it fit (its new_lines got the same "
            "correction)."
        ),
    )
    notes: list[str] = Field(
        default=[], description="What differed, for chunks not exact; chunks already applied."
    )
    already_applied: list[int] = Field(
        default=[],
        description="chunks: indexes of chunks the symbol already read as done (a retry); "
        "each changed nothing.",
    )


@dataclass(frozen=True, slots=True)
class SymbolChange(Change):
    """The change, and the symbol it was made on (as it was before)."""

    target: Symbol | None = None


def run(txn: Transaction, args: EditSymbolArgs) -> EditSymbolResult:
    """Locate the symbol in the file as read, then edit it in the transaction.

    Raises:
        EditError: SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, CHUNK_MISMATCH, AMBIGUOUS_MATCH,
            OVERLAPPING_EDITS, VALIDATION_FAILED, INVALID_REQUEST, STALE_VERSION and the
            file errors; on a notebook CELL_NOT_FOUND, AMBIGUOUS_MATCH (a symbol defined in
            several cells), INVALID_NOTEBOOK.
    """
    ctx = txn.ctx
    if args.chunks is not None and len(args.chunks) > ctx.max_edits:
        raise TooManyEdits(
            f"{len(args.chunks)} chunks in one call; the limit is {ctx.max_edits}",
            data={"edits": len(args.chunks), "limit": ctx.max_edits},
            suggestions=["Split the chunks over several calls, or send a new_body."],
        )
    action = _action(args, args.exact or ctx.exact)

    def build(doc: Document) -> SymbolChange:
        found = symbols_of(doc.name, doc.text)
        target = find_symbol(found, name_path=args.symbol, line=args.line, column=args.column)
        span = Target(
            target.name_path,
            target.start,
            target.end,
            target.start_line,
            target.end_line,
            shares_lines(target),
        )
        compiled = compile_symbol_edit(doc, span, action)
        plan = compiled.plan
        replaced = replaces_symbol(action)

        def structure(new: str) -> tuple[Finding, ...]:
            return structure_findings(doc.name, doc.text, new, plan, found, target, replaced)

        return SymbolChange(plan, compiled.applied, check=structure, target=target)

    out = txn.run_edit(
        args.path,
        build,
        mode=args.mode,
        expected_version=args.expected_version,
        # A name path may be looked for in every code cell; a line, only in the cell named.
        cell=CellCall(
            args.cell,
            anywhere=args.symbol is not None,
            clear_outputs=args.clear_outputs,
            code_only=True,
        ),
    )
    subjects = out.change.subjects
    if subjects:  # a notebook's cell: its lines (its source is what the plan was made on)
        text, plan = subjects[0].before.text, subjects[0].plan
    else:
        text, plan = out.before.text, out.change.plan
    new_first, new_last = new_lines_of(text, plan.replacements[0])
    applied = out.change.applied
    return EditSymbolResult(
        **outcome_fields(out, args.mode),
        would_modify=out.would_modify,
        symbol=SymbolModel.model_validate(out.change.target, from_attributes=True),
        new_start_line=new_first,
        new_end_line=new_last,
        diff=out.diff(),
        dry_run=args.dry_run,
        chunks_matched=[e.match for e in applied] if args.chunks is not None else None,
        notes=[e.note for e in applied if e.note],
        already_applied=[e.index for e in applied if e.already_applied],
    )


def _action(args: EditSymbolArgs, exact: bool) -> SymbolAction:
    if args.chunks is not None:
        return Chunks(
            tuple(
                ChunkText(c.context_before, c.old_lines, c.new_lines, c.context_after, c.at_end)
                for c in args.chunks
            ),
            exact=exact,
        )
    if args.new_body is not None:
        return NewBody(args.new_body)
    if args.insert_before is not None:
        return InsertBefore(args.insert_before)
    return InsertAfter(args.insert_after or "")


TOOL = Tool(
    name="edit_symbol",
    title="Edit one definition by name",
    description=(
        "Edit one function, method or class, named by its name path ('Class/method'; '.' also "
        "separates; a leading '/' anchors at the top level; 'name[1]' picks the second match) or "
        "by line and column. Exactly one action: chunks (cheapest for a small change in a "
        "symbol of 20+ lines), new_body (the symbol's whole new text, first line included, "
        "exactly as given), insert_before or insert_after (whole lines next to the symbol). A "
        "chunk replaces old_lines by new_lines; context_before/context_after (optional; lines, "
        "or a string of whole lines) must directly surround old_lines: omit them when old_lines "
        "occur once in the symbol; at_end: true pins the chunk to the symbol's end. Lines "
        "compare without trailing whitespace; blank context lines past the symbol's edges are "
        "ignored. A chunk that fits no place or several writes nothing; the error shows the "
        "real lines and what to send. Everything outside the symbol "
        "stays identical; the result is syntax-checked and every other symbol must still exist "
        "(mode 'strict' refuses otherwise). " + SYMBOL_RANGE + SYMBOL_LANGUAGES + "\n"
        'Example: {"path": "src/app.py", "symbol": "Parser/parse", "chunks": [{"context_before":'
        ' "    def parse(self, text):", "old_lines": ["        text = text.rstrip()"], '
        '"new_lines": ["        text = text.strip()"]}]}'
    ),
    arguments=EditSymbolArgs,
    result=EditSymbolResult,
    run=run,
)
