"""Which grammar reads a file, and its tree-sitter parse: cached by content, bounded in time.

Every language editguard knows is parsed with tree-sitter (per-language grammar wheels, loaded on
first use, offline). The file's extension chooses the grammar; a ``.h`` header whose text shows
C++ is read as C++. Trees are cached by content and shared by the symbol locator, the syntax guard
and the background parse after a read, so an edit parses its new text once, incrementally from
the old text's tree when that one is cached.
"""

from __future__ import annotations

import importlib
import re
import threading
import time
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from editguard.core.document import LF
from editguard.core.memo import ContentMemo
from editguard.core.plan import Plan

__all__ = [
    "LANGUAGES",
    "TREES",
    "ParseTimeout",
    "grammar_for",
    "iter_languages",
    "language",
    "language_of",
    "parse",
    "parser_for",
]

# extension -> (language name, grammar module, function returning the language pointer)
_GRAMMARS: dict[str, tuple[str, str, str]] = {}
for _exts, _lang, _module, _fn in (
    ((".py", ".pyi", ".pyw"), "python", "tree_sitter_python", "language"),
    ((".js", ".mjs", ".cjs", ".jsx"), "javascript", "tree_sitter_javascript", "language"),
    ((".ts", ".mts", ".cts"), "typescript", "tree_sitter_typescript", "language_typescript"),
    ((".tsx",), "tsx", "tree_sitter_typescript", "language_tsx"),
    ((".json",), "json", "tree_sitter_json", "language"),
    ((".yaml", ".yml"), "yaml", "tree_sitter_yaml", "language"),
    ((".toml",), "toml", "tree_sitter_toml", "language"),
    ((".go",), "go", "tree_sitter_go", "language"),
    ((".rs",), "rust", "tree_sitter_rust", "language"),
    ((".java",), "java", "tree_sitter_java", "language"),
    ((".c", ".h"), "c", "tree_sitter_c", "language"),
    ((".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"), "cpp", "tree_sitter_cpp", "language"),
    ((".cs",), "csharp", "tree_sitter_c_sharp", "language"),
    ((".rb",), "ruby", "tree_sitter_ruby", "language"),
    ((".php",), "php", "tree_sitter_php", "language_php"),
    ((".sh", ".bash"), "bash", "tree_sitter_bash", "language"),
    ((".html", ".htm"), "html", "tree_sitter_html", "language"),
    ((".css",), "css", "tree_sitter_css", "language"),
):
    for _ext in _exts:
        _GRAMMARS[_ext] = (_lang, _module, _fn)

LANGUAGES: tuple[str, ...] = tuple(sorted({lang for lang, _, _ in _GRAMMARS.values()}))


def _suffix(name: str) -> str:
    """The extension of ``name``, lowercase and with its dot ("" when it has none)."""
    dot = name.rfind(".")
    return name[dot:].lower() if dot >= 0 else ""


def language_of(name: str) -> str | None:
    """The language editguard parses a file called ``name`` as, if any.

    ``name`` may also be just an extension, such as one :func:`grammar_for` returns.
    """
    entry = _GRAMMARS.get(_suffix(name))
    return entry[0] if entry is not None else None


def grammar_for(name: str, *texts: str) -> str | None:
    """The extension whose grammar reads the file ``name`` (lowercase), else None.

    A ``.h`` header is C unless one of ``texts`` (its contents) shows C++: then ``.hpp``.
    """
    ext = _suffix(name)
    if ext == ".h" and any(_CPP_HEADER.search(t) for t in texts):
        return ".hpp"
    return ext if ext in _GRAMMARS else None


# C++ in a .h file: a namespace, class or template, an access label, `using namespace`,
# `extern "C++"` or a scope operator (C has none of these outside comments and strings).
_CPP_HEADER = re.compile(
    r"^[ \t]*(?:namespace\b|template\s*<|class\s+\w+[^;()]*\{|(?:public|private|protected)\s*:"
    r"|using\s+namespace\b|extern\s+\"C\+\+\")|\b\w+::\w",
    re.MULTILINE,
)


def iter_languages() -> Iterator[tuple[str, str]]:
    """(extension, language) for every file type editguard parses."""
    yield from ((ext, lang) for ext, (lang, _, _) in sorted(_GRAMMARS.items()))


@cache
def language(ext: str) -> Any:
    """The tree-sitter ``Language`` of the grammar ``ext`` (an extension :func:`grammar_for`
    returned), loaded on first use.

    Raises:
        KeyError: editguard has no grammar for ``ext``.
    """
    from tree_sitter import Language  # noqa: PLC0415 - loaded on first use

    _, module, fn = _GRAMMARS[ext]
    return Language(getattr(importlib.import_module(module), fn)())


_PARSERS = threading.local()


def parser_for(ext: str) -> Any:
    """This thread's parser for ``ext`` (a tree-sitter parser must not be shared by threads:
    the MCP server runs calls on several worker threads)."""
    from tree_sitter import Parser  # noqa: PLC0415

    parsers: dict[str, Any] = _PARSERS.__dict__.setdefault("by_ext", {})
    if ext not in parsers:
        parsers[ext] = Parser(language(ext))
    return parsers[ext]


# Parse trees by content, shared by the symbol locator and the syntax guard: an edit parses its
# new text once, and a parse started in the background after a read serves the edit that follows.
# Only parse() fills it; others may peek into it, or clear it (benchmarks start cold this way).
TREES: ContentMemo[Any] = ContentMemo(size=8, limit=5_000_000)  # larger texts are not kept


class ParseTimeout(Exception):
    """tree-sitter did not finish within its time budget (heavy error recovery)."""


def parse(
    ext: str,
    text: str,
    base: tuple[str, Plan] | None = None,
    budget: float | None = None,
    cancel: Callable[[], bool] | None = None,
) -> Any:
    """The tree-sitter tree of ``text`` (cached by content).

    Every caller gets its own tree object (trees are not thread-safe; copies share their nodes).
    With ``base = (old, plan)`` where ``plan`` turns ``old`` into ``text`` and ``old``'s tree is
    cached, the new tree is reparsed incrementally from the old one (a small edit of a
    5,000-line file then costs a few milliseconds instead of a full parse).

    ``cancel`` (with a ``budget``) is asked now and then during the parse; True stops it.

    Raises:
        ParseTimeout: ``budget`` seconds passed, or ``cancel`` said so, before the parse ended
            (nothing is kept).
    """

    def make() -> Any:
        previous = None
        if base is not None:
            old, plan = base
            old_tree = TREES.peek(ext, old)
            if old_tree is not None and plan.replacements:
                previous = old_tree.copy()  # the cached tree itself stays as it is
                _edit_tree(previous, old, plan)
        data = text.encode("utf-8", "surrogatepass")
        parser = parser_for(ext)
        if budget is None:
            return parser.parse(data, previous) if previous is not None else parser.parse(data)
        view = memoryview(data)
        deadline = time.monotonic() + budget

        def read(offset: int, _point: Any) -> memoryview:
            return view[offset:]

        def stop(_offset: int, _errors: bool) -> bool:
            return time.monotonic() > deadline or (cancel is not None and cancel())

        try:
            if previous is not None:
                return parser.parse(read, previous, progress_callback=stop)
            return parser.parse(read, progress_callback=stop)
        except ValueError:
            parser.reset()  # a cancelled parse would otherwise resume on the next call
            raise ParseTimeout(
                f"the parser gave up after {budget:g} s (error recovery on a large broken file)"
            ) from None

    # A tree must not be used by two threads at once; a copy is cheap (shared nodes).
    return TREES.get(ext, text, make).copy()


def _edit_tree(tree: Any, old: str, plan: Plan) -> None:
    """Tell ``tree`` (of ``old``) about every replacement of ``plan``, last one first, so that
    the positions of the earlier ones stay valid."""
    places = sorted({p for r in plan.replacements for p in (r.start, r.end)})
    where = dict(zip(places, _byte_points(old, places), strict=True))
    for r in reversed(plan.replacements):
        start_byte, start_row, start_col = where[r.start]
        end_byte, end_row, end_col = where[r.end]
        added = r.text.encode("utf-8", "surrogatepass")
        breaks = r.text.count(LF)
        tail = len(added) - (added.rfind(b"\n") + 1) if breaks else start_col + len(added)
        tree.edit(
            start_byte=start_byte,
            old_end_byte=end_byte,
            new_end_byte=start_byte + len(added),
            start_point=(start_row, start_col),
            old_end_point=(end_row, end_col),
            new_end_point=(start_row + breaks, tail),
        )


def _byte_points(text: str, positions: list[int]) -> list[tuple[int, int, int]]:
    """(byte offset, row, byte column) of sorted character ``positions``, in one pass."""
    out: list[tuple[int, int, int]] = []
    byte = row = last = 0
    line_start_byte = 0
    for pos in positions:
        piece = text[last:pos]
        size = len(piece) if piece.isascii() else len(piece.encode("utf-8", "surrogatepass"))
        nl = piece.rfind(LF)
        if nl >= 0:
            row += piece.count(LF)
            after = piece[nl + 1 :]
            line_start_byte = (
                byte
                + size
                - (len(after) if after.isascii() else len(after.encode("utf-8", "surrogatepass")))
            )
        byte += size
        last = pos
        out.append((byte, row, byte - line_start_byte))
    return out
