"""``edit_symbol``'s language: one action on one symbol's whole lines, everything else kept.

The symbol is located elsewhere (tree-sitter, in :mod:`editguard.symbols`); this module gets its
span as a :class:`Target` and makes the one replacement the action asks for:

- :class:`Chunks`: context chunks inside the symbol (matched by :mod:`.chunks`);
- :class:`NewBody`: the symbol's whole new text, first line included, written as given;
- :class:`InsertBefore` / :class:`InsertAfter`: whole lines next to the symbol's range.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from editguard.core.document import Document, line_numbers, normalize_newlines
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.formats.chunks import apply_chunks_with_endings, make_chunk
from editguard.core.listing import listing
from editguard.core.plan import Plan, Replacement
from editguard.errors import InvalidRequest


@dataclass(frozen=True, slots=True)
class Target:
    """Where the symbol is: character offsets of its whole lines in the normalized text, its
    1-based lines, and whether other code shares its first or last line."""

    name_path: str
    start: int
    end: int
    start_line: int
    end_line: int
    shares_lines: bool = False


@dataclass(frozen=True, slots=True)
class ChunkText:
    """One chunk as the request gives it: each context a string of whole lines (``""``: none)
    or a list of lines; ``at_end``: the chunk ends at the symbol's last line."""

    context_before: str | Sequence[str]
    old_lines: Sequence[str]
    new_lines: Sequence[str]
    context_after: str | Sequence[str] = ()
    at_end: bool = False


@dataclass(frozen=True, slots=True)
class Chunks:
    """Change lines inside the symbol, each chunk located by its context."""

    chunks: tuple[ChunkText, ...]
    exact: bool = False  # no match ladder beyond the chunks' own rule


@dataclass(frozen=True, slots=True)
class NewBody:
    """Replace the symbol's whole lines by ``text``."""

    text: str


@dataclass(frozen=True, slots=True)
class InsertBefore:
    """Insert ``text`` as whole lines before the symbol's range."""

    text: str


@dataclass(frozen=True, slots=True)
class InsertAfter:
    """Insert ``text`` as whole lines after the symbol's range."""

    text: str


SymbolAction = Chunks | NewBody | InsertBefore | InsertAfter


def replaces_symbol(action: SymbolAction) -> bool:
    """Whether ``action`` rewrites the symbol's own lines (not only lines next to it)."""
    return isinstance(action, Chunks | NewBody)


def compile_symbol_edit(doc: Document, target: Target, action: SymbolAction) -> Compiled:
    """The one replacement ``action`` makes on ``target`` in ``doc``.

    Raises:
        InvalidRequest: no chunks, or a new body for a symbol that shares a line with other code.
        ChunkMismatch, AmbiguousMatch, OverlappingEdits: a chunk fits nowhere, at several places,
            or over another chunk.
        EncodingError: the new text holds a character the file's encoding cannot store.
    """
    replacement, applied = _replacement(doc, target, action)
    doc.check_encodable(replacement.text)
    return Compiled(Plan((replacement,)), applied)


def _replacement(
    doc: Document, target: Target, action: SymbolAction
) -> tuple[Replacement, tuple[AppliedEdit, ...]]:
    text = doc.text
    body = text[target.start : target.end]
    at_end_without_break = target.end == len(text) and not text.endswith("\n")
    if isinstance(action, Chunks):
        chunks = [
            make_chunk(
                c.context_before,
                c.old_lines,
                c.new_lines,
                c.context_after,
                index=i,
                newline=doc.newline,
                at_end=c.at_end,
            )
            for i, c in enumerate(action.chunks)
        ]
        # A file that mixes line endings: lines the chunks leave alone keep their own.
        endings = doc.line_endings
        body_codes = None
        if endings is not None:
            first_break = target.start_line - 1  # the symbol starts a line
            body_codes = endings[first_break : first_break + body.count("\n")]
        new, codes, matched, landed = apply_chunks_with_endings(
            body, chunks, target.start_line, target.name_path, body_codes, exact=action.exact
        )
        applied = tuple(
            AppliedEdit(i, 0 if i in landed else 1, (), *m, already_applied=i in landed)
            for i, m in enumerate(matched)
        )
        return Replacement(target.start, target.end, new, codes), applied
    if isinstance(action, NewBody):
        if target.shares_lines:
            first, last = target.start_line, target.end_line
            lines = body.split("\n")[: last - first + 1]
            shared = "\n".join(
                listing([line], n, width=6)
                for n, line in enumerate(lines, first)
                if n in (first, last)
            )
            raise InvalidRequest(
                f"{target.name_path} shares a line with other code; new_body replaces whole "
                f"lines {first}-{last} and would change that code too:\n{shared}",
                data={"field": "new_body", "start_line": first, "end_line": last},
                suggestions=[
                    "Use chunks (old_lines hold whole lines, so you decide what the rest of "
                    "the line becomes), or edit_file with the exact text."
                ],
            )
        new = _as_lines(action.text, not at_end_without_break)
        if at_end_without_break:
            new = new.removesuffix("\n")
        return Replacement(target.start, target.end, new), ()
    if isinstance(action, InsertBefore):
        return Replacement(target.start, target.start, _as_lines(action.text, True)), ()
    inserted = _as_lines(action.text, True)
    if at_end_without_break:
        return Replacement(target.end, target.end, "\n" + inserted.removesuffix("\n")), ()
    return Replacement(target.end, target.end, inserted), ()


def _as_lines(text: str, final_break: bool) -> str:
    """``text`` as whole lines: normalized, with a final break unless the file has none."""
    text = normalize_newlines(text)
    if not text:
        return ""
    return text if text.endswith("\n") or not final_break else text + "\n"


def new_lines_of(old: str, replacement: Replacement) -> tuple[int, int]:
    """The first and last line of the new text that ``replacement``'s text occupies (``old`` is
    the text before it)."""
    text = replacement.text
    first = line_numbers(old, [replacement.start])[0]
    if text.startswith("\n") and replacement.start > 0 and old[replacement.start - 1] != "\n":
        first, text = first + 1, text[1:]  # appended after a last line without a break
    lines = text.count("\n") + (0 if text.endswith("\n") else 1) if text else 1
    return first, first + lines - 1
