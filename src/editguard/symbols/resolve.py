"""Resolving a name path (``Class/method``) or a position to one symbol, never a guess."""

from __future__ import annotations

import re
from typing import Any

from rapidfuzz import fuzz, process

from editguard.errors import AmbiguousSymbol, InvalidRequest, SymbolNotFound
from editguard.symbols.locate import Symbol

_INDEX = re.compile(r"^(?P<path>.*?)\[(?P<index>\d+)\]$")


def find_symbol(
    symbols: tuple[Symbol, ...],
    *,
    name_path: str | None = None,
    line: int | None = None,
    column: int | None = None,
) -> Symbol:
    """The symbol a name path (``Class/method``, ``.`` also separates, a leading ``/`` anchors at
    the top level, ``name[1]`` picks the second match) or a position inside it designates.

    Raises:
        SymbolNotFound: nothing matches (the closest names are listed).
        AmbiguousSymbol: several symbols match and no index picks one.
        InvalidRequest: neither a name path nor a line is given.
    """
    if name_path:
        return _by_path(symbols, name_path)
    if line is not None:
        return _by_position(symbols, line, column or 1)
    raise InvalidRequest(
        "give the symbol as a name path (symbol) or as line and column", data={"field": "symbol"}
    )


def _by_path(symbols: tuple[Symbol, ...], raw: str) -> Symbol:
    wanted = raw.strip()
    index: int | None = None
    picked = _INDEX.match(wanted)
    if picked:
        wanted, index = picked.group("path"), int(picked.group("index"))
    anchored = wanted.startswith("/")
    # "/" separates when present (names may hold dots: C# namespaces, [Symbol.iterator]).
    # Without one, a name that holds dots is tried whole first, then "." separates.
    parts = [p for p in wanted.strip("/").split("/") if p]
    if not parts:
        raise InvalidRequest("the symbol's name path is empty", data={"field": "symbol"})

    def matching(parts: list[str]) -> list[Symbol]:
        def matches(symbol: Symbol) -> bool:
            own = symbol.name_path.split("/")
            return own == parts if anchored else own[-len(parts) :] == parts

        return [s for s in symbols if matches(s)]

    found = matching(parts)
    if not found and len(parts) == 1 and "." in parts[0]:
        parts = [p for p in parts[0].split(".") if p]
        found = matching(parts)
    if index is not None:
        if index < len(found):
            return found[index]
        raise SymbolNotFound(
            f"{raw}: there are only {len(found)} symbol(s) named {'/'.join(parts)}",
            data={"symbol": raw, "candidates": [_brief(s) for s in found]},
        )
    if len(found) == 1:
        return found[0]
    if found:
        listing = "\n".join(
            f"  {wanted}[{i}] is {s.name_path}  ({s.kind}, lines {s.start_line}-{s.end_line})"
            for i, s in enumerate(found)
        )
        raise AmbiguousSymbol(
            f"{raw} matches {len(found)} symbols; name the one you mean with a longer name path "
            f"or an index:\n{listing}",
            data={"symbol": raw, "candidates": [_brief(s) for s in found]},
        )
    raise _not_found(symbols, raw, parts)


def _by_position(symbols: tuple[Symbol, ...], line: int, column: int) -> Symbol:
    inside = [s for s in symbols if s.start_line <= line <= s.end_line]
    if not inside:
        raise SymbolNotFound(
            f"no definition contains line {line}, column {column}",
            data={
                "line": line,
                "column": column,
                "candidates": [_brief(s) for s in _nearest(symbols, line)],
            },
        )
    # Where definitions share the line, the column picks those it falls inside.
    exact = [s for s in inside if s.begin <= (line, column) <= s.finish]
    return max(exact or inside, key=lambda s: (s.depth, s.start_line))  # the innermost


def _nearest(symbols: tuple[Symbol, ...], line: int) -> list[Symbol]:
    return sorted(symbols, key=lambda s: min(abs(s.start_line - line), abs(s.end_line - line)))[:5]


def _not_found(symbols: tuple[Symbol, ...], raw: str, parts: list[str]) -> SymbolNotFound:
    choices = [s.name_path for s in symbols]
    close = process.extract("/".join(parts), choices, scorer=fuzz.WRatio, limit=5)
    nearest = [symbols[i] for _, score, i in close if score >= 50]
    listing = (
        "\n".join(
            f"  {s.name_path}  ({s.kind}, lines {s.start_line}-{s.end_line})" for s in nearest
        )
        or "  (no similar names)"
    )
    return SymbolNotFound(
        f"no symbol matches {raw}; the closest names are:\n{listing}",
        data={"symbol": raw, "candidates": [_brief(s) for s in nearest]},
        suggestions=["Use list_symbols to see every name path in the file."],
    )


def _brief(symbol: Symbol) -> dict[str, Any]:
    return {
        "name_path": symbol.name_path,
        "kind": symbol.kind,
        "start_line": symbol.start_line,
        "end_line": symbol.end_line,
    }
