"""Symbols: the definitions of a source file (classes, functions, methods ...), found with
tree-sitter and our own per-language tables, and addressed by name path or by position.

A symbol's range covers the whole definition plus what belongs to it: decorators, attributes and
annotations, an ``export`` keyword or template header around it, and the doc comments directly
above it (no blank line between). Ranges are whole lines.
"""

from __future__ import annotations

from editguard.symbols.locate import Symbol, shares_lines, symbols_of, symbols_supported
from editguard.symbols.resolve import find_symbol

__all__ = ["Symbol", "find_symbol", "shares_lines", "symbols_of", "symbols_supported"]
