"""``list_symbols``: every definition of a source file, and the symbol model edit_symbol shares."""

from __future__ import annotations

from pydantic import BaseModel, Field

from editguard.errors import error_context
from editguard.symbols import symbols_of
from editguard.tools._common import PATH_HELP, Args
from editguard.tools._tool import Tool
from editguard.transaction.context import Context
from editguard.transaction.read import read

SYMBOL_RANGE = "A range is whole lines, with decorators and the doc comments above."
SYMBOL_LANGUAGES = " Python, JS, TS, TSX, Go, Rust, Java, C, C++, C#, Ruby, PHP."


class SymbolModel(BaseModel):
    """One definition of a file."""

    name: str
    kind: str
    name_path: str
    start_line: int
    end_line: int
    depth: int = Field(description="0 for top-level definitions.")


class ListSymbolsArgs(Args):
    """Arguments of list_symbols."""

    path: str = Field(description=PATH_HELP)
    depth: int | None = Field(None, ge=1, description="1: top level only (default: all).")


class ListSymbolsResult(BaseModel):
    """Result of list_symbols."""

    path: str
    symbols: list[SymbolModel] = Field(description="Every definition, in file order.")
    version: str


def run(ctx: Context, args: ListSymbolsArgs) -> ListSymbolsResult:
    """The symbols down to ``depth``.

    Raises:
        EditError: INVALID_REQUEST (a file type without symbols) and the file errors.
    """
    where, doc, version = read(ctx, args.path)
    with error_context(path=where.display):
        found = symbols_of(doc.name, doc.text)
    depth = args.depth
    return ListSymbolsResult(
        path=where.real,
        symbols=[
            SymbolModel.model_validate(s, from_attributes=True)
            for s in found
            if depth is None or s.depth < depth
        ],
        version=version,
    )


TOOL = Tool(
    name="list_symbols",
    title="List the definitions of a source file",
    description=(
        "List the definitions of a source file (classes, functions, methods ...) in file "
        "order: name, kind, name_path (e.g. 'Parser/parse', for edit_symbol), start_line, "
        "end_line, depth. " + SYMBOL_RANGE + SYMBOL_LANGUAGES
    ),
    arguments=ListSymbolsArgs,
    result=ListSymbolsResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)
