"""``list_symbols``: every definition of a source file, and the symbol model edit_symbol shares.

On a notebook: the definitions of each code cell of the kernel's language (or of the one cell
named), each with its cell, lines numbered within the cell, as edit_symbol finds them (see
:func:`~editguard.transaction.cells.source_name`).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from editguard.core.document import Document
from editguard.core.notebook.model import is_notebook, read_notebook
from editguard.errors import InvalidRequest, error_context
from editguard.symbols import Symbol, symbols_of
from editguard.tools._common import PATH_HELP, Args, InCell
from editguard.tools._tool import Tool
from editguard.transaction.cells import find_cell, in_language, source_name
from editguard.transaction.context import Context
from editguard.transaction.read import read

SYMBOL_RANGE = "A range is whole lines, with decorators and the doc comments above."
SYMBOL_LANGUAGES = " Python, JS, TS, TSX, Go, Rust, Java, C, C++, C#, Ruby, PHP."


class SymbolModel(InCell):
    """One definition of a file; on a notebook, with the cell that holds it (its lines are
    the cell's)."""

    name: str
    kind: str
    name_path: str
    start_line: int
    end_line: int
    depth: int = Field(description="0 for top-level definitions.")
    cell: int | None = None
    cell_id: str | None = None


class ListSymbolsArgs(Args):
    """Arguments of list_symbols."""

    path: str = Field(description=PATH_HELP)
    depth: int | None = Field(None, ge=1, description="1: top level only (default: all).")
    cell: int | str | None = Field(
        None,
        description="A notebook's cell (index from 0, or id): its symbols only (default: "
        "every code cell's, each with its cell).",
    )


class ListSymbolsResult(BaseModel):
    """Result of list_symbols."""

    path: str
    symbols: list[SymbolModel] = Field(description="Every definition, in file order.")
    version: str


def run(ctx: Context, args: ListSymbolsArgs) -> ListSymbolsResult:
    """The symbols down to ``depth``.

    Raises:
        EditError: INVALID_REQUEST (a file type without symbols, or a notebook's cell without
            them) and the file errors; on a notebook CELL_NOT_FOUND, INVALID_NOTEBOOK.
    """
    where, doc, version = read(ctx, args.path)
    depth = args.depth
    with error_context(path=where.display):
        if is_notebook(where.real):
            found = _in_cells(doc, args.cell)
        elif args.cell is not None:
            raise InvalidRequest(
                f"`cell` names a cell of a notebook (.ipynb), and {where.display} is no notebook",
                data={"field": "cell"},
                suggestions=["Send the call again without `cell`."],
            )
        else:
            found = [(s, None, None) for s in symbols_of(doc.name, doc.text)]
    return ListSymbolsResult(
        path=where.real,
        symbols=[
            SymbolModel.model_validate(s, from_attributes=True).model_copy(
                update={"cell": cell, "cell_id": cell_id}
            )
            for s, cell, cell_id in found
            if depth is None or s.depth < depth
        ],
        version=version,
    )


def _in_cells(doc: Document, ref: int | str | None) -> list[tuple[Symbol, int | None, str | None]]:
    """The symbols of a notebook's cells (see the module docstring): of the cell ``ref``
    (refused as a file of its kind would be, where it has no symbols), else of every code
    cell of the kernel's language.

    Raises:
        EditError: INVALID_NOTEBOOK, CELL_NOT_FOUND, INVALID_REQUEST.
    """
    nb = read_notebook(doc.text, doc.name)
    if ref is not None:
        cell = find_cell(nb, ref)
        found = symbols_of(source_name(nb, cell, doc.name), cell.source)
        return [(s, cell.index, cell.id) for s in found]
    out: list[tuple[Symbol, int | None, str | None]] = []
    for cell in nb.cells:
        if in_language(nb, cell):
            # A kernel's language without symbols is refused as a file of it would be.
            found = symbols_of(source_name(nb, cell, doc.name), cell.source)
            out += [(s, cell.index, cell.id) for s in found]
    return out


TOOL = Tool(
    name="list_symbols",
    title="List the definitions of a source file",
    description=(
        "List the definitions of a source file (classes, functions, methods ...) in file "
        "order: name, kind, name_path (e.g. 'Parser/parse', for edit_symbol), start_line, "
        "end_line, depth. On a notebook, each code cell's (or `cell`'s), with its cell and "
        "lines within it. " + SYMBOL_RANGE + SYMBOL_LANGUAGES
    ),
    arguments=ListSymbolsArgs,
    result=ListSymbolsResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)
