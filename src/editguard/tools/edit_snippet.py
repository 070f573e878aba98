"""``edit_snippet``: the new text of a file or of one symbol, with elision markers
(``// ... existing code ...``) for what stays, merged by the rules of
:mod:`editguard.core.formats.snippet`, never by a guess.

Besides the merge's own refusals, a merge that would remove a definition (a function, class,
method ...) from the text it replaces is refused unless the snippet names it: a marker the model
left out, or a snippet that is less than the file, would delete code silently otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import Field

from editguard.core.document import Document
from editguard.core.formats.snippet import compile_snippet
from editguard.core.markers import marker_lines
from editguard.core.plan import Plan
from editguard.errors import ElidedContent, InvalidRequest
from editguard.symbols import Symbol, find_symbol, shares_lines, symbols_of
from editguard.tools._common import (
    CELL_HELP,
    CLEAR_OUTPUTS_HELP,
    DRY_RUN_HELP,
    EXACT_HELP,
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


class EditSnippetArgs(Args):
    """Arguments of edit_snippet."""

    path: str = Field(description=PATH_HELP)
    snippet: str = Field(description="The new text, with marker lines for what stays.")
    symbol: str | None = Field(
        None,
        description="Name path ('Class/method'): the snippet is that symbol's new text.",
    )
    dry_run: bool = Field(False, description=DRY_RUN_HELP)
    expected_version: str | None = Field(None, description=VERSION_HELP)
    mode: Mode = Field("strict", description=MODE_HELP)
    format: bool | None = Field(None, description=FORMAT_HELP)
    exact: bool = Field(False, description=EXACT_HELP)
    cell: int | str | None = Field(
        None, description=CELL_HELP + " Without it, the snippet lands in the one cell it fits."
    )
    clear_outputs: bool = Field(False, description=CLEAR_OUTPUTS_HELP)


class EditSnippetResult(EditFileResult):
    """Result of edit_snippet: edit_file's, one entry of edits_applied per part of the snippet
    between markers."""

    notes: list[str] = Field(default=[], description="What differed where a match was not exact.")


def run(txn: Transaction, args: EditSnippetArgs) -> EditSnippetResult:
    """Merge the snippet into the file (or the symbol) and write it through the transaction.

    Raises:
        EditError: NO_MATCH, AMBIGUOUS_MATCH, INVALID_REQUEST, SYMBOL_NOT_FOUND,
            AMBIGUOUS_SYMBOL, STALE_VERSION, ENCODING_ERROR, VALIDATION_FAILED and the file
            errors of read_file, plus WRITE_FAILED; on a notebook CELL_NOT_FOUND,
            INVALID_NOTEBOOK.
    """
    if "\x00" in args.snippet:
        raise InvalidRequest(
            "snippet contains a NUL character (\\u0000), which would make the file binary",
            data={"field": "snippet"},
        )
    exact = args.exact or txn.ctx.exact

    def build(doc: Document) -> Change:
        before: tuple[Symbol, ...] = ()
        if doc.text:
            # A snippet of a symbol needs symbols; one of a file has none to lose in a file
            # (or a notebook's cell) of a kind without them (text, markdown).
            before = symbols_of(doc.name, doc.text) if args.symbol else _symbols(doc)
        span = None
        named = ""
        if args.symbol is not None:
            target = find_symbol(before, name_path=args.symbol)
            span = (target.start_line, target.end_line)
            if shares_lines(target) and not marker_lines(args.snippet, doc.name):
                raise InvalidRequest(
                    f"{target.name_path} shares a line with other code, and a snippet without "
                    f"markers replaces its whole lines {span[0]}-{span[1]}, that code too",
                    data={"field": "snippet", "start_line": span[0], "end_line": span[1]},
                    suggestions=[
                        "Keep the symbol's first and last lines with markers between them, or "
                        "use edit_file with the exact text."
                    ],
                )
            named = target.name_path  # the request names it: a new name is a rename
        compiled = compile_snippet(doc, args.snippet, span=span, exact=exact)
        _check_definitions(doc, compiled.plan, before, args.snippet, named)
        return Change.of(compiled)

    out = txn.run_edit(
        args.path,
        build,
        mode=args.mode,
        expected_version=args.expected_version,
        cell=CellCall(
            args.cell,
            anywhere=True,
            clear_outputs=args.clear_outputs,
            code_only=args.symbol is not None,
        ),
    )
    base = EditFileResult.of(out, args.mode, args.dry_run)
    return EditSnippetResult(
        **dict(base),
        notes=[e.note for e in out.change.applied if e.note],
    )


def _symbols(doc: Document) -> tuple[Symbol, ...]:
    """The definitions of ``doc``; none in a file (or a notebook's cell) of a kind without
    symbols (text, markdown), where the merge has none to lose."""
    try:
        return symbols_of(doc.name, doc.text)
    except InvalidRequest:
        return ()


def _flat(symbols: Iterable[Symbol]) -> list[Symbol]:
    out: list[Symbol] = []
    for s in symbols:
        out.append(s)
        out += _flat(s.children)
    return out


def _check_definitions(
    doc: Document, plan: Plan, before: Sequence[Symbol], snippet: str, named: str = ""
) -> None:
    """Refuse a merge that removes a definition from the text it replaces when the snippet
    never names it (nor the request: ``named`` is the name path of the symbol edited).

    Raises:
        EditError: ELIDED_CONTENT (INVALID_REQUEST until the elision guard has its code).
    """
    touched = [
        s
        for s in _flat(before)
        if any(r.start < s.end and s.start < r.end for r in plan.replacements)
    ]
    if not touched:
        return
    after = {s.name_path for s in _flat(symbols_of(doc.name, plan.apply_to_text(doc.text)))}
    lost = [
        s
        for s in touched
        if s.name_path not in after
        and s.name_path != named
        and not re.search(rf"\b{re.escape(s.name)}\b", snippet)
    ]
    if not lost:
        return
    named = ", ".join(f"{s.kind} {s.name_path} (lines {s.start_line}-{s.end_line})" for s in lost)
    error = ElidedContent(
        f"the merged snippet would remove {named} from {doc.name or 'the file'}, and the "
        "snippet never names it: a stretch of the file that stays needs a marker line "
        "(a comment such as '... existing code ...'), or the snippet is less than the text it "
        "replaces; nothing was written",
        data={
            "field": "snippet",
            "removed": [
                {"name_path": s.name_path, "start_line": s.start_line, "end_line": s.end_line}
                for s in lost
            ],
        },
        suggestions=[
            "Put a marker line where that code stays, or name it in the snippet if you mean to "
            "remove it (or remove it with edit_symbol)."
        ],
    )
    raise error


TOOL = Tool(
    name="edit_snippet",
    title="Merge a snippet with '... existing code ...' markers",
    description=(
        "Change part of a file, or of one symbol (name path), by sending its new text with a "
        "comment line such as '// ... existing code ...' for each stretch that stays. The "
        "lines next to each marker and at the snippet's ends must be unchanged lines of the "
        "file, in order, each at one place; between them the file's text is kept (marker) or "
        "replaced (the snippet's lines). No marker: from its first line to its last (whole file: "
        "write_file). A line not found or "
        "not placeable is refused (NO_MATCH, AMBIGUOUS_MATCH) with the real lines. Returns "
        "the diff, each part's lines and `match`, and the version."
    ),
    arguments=EditSnippetArgs,
    result=EditSnippetResult,
    run=run,
)
