"""Context chunks inside one symbol (``edit_symbol``): the matcher that makes the new symbol text.

A chunk is ``context_before`` / ``old_lines`` / ``new_lines`` / ``context_after``, each a list of
lines (a context may be one string; an empty string is no context). Lines are compared after
``rstrip`` (:data:`~editguard.core.seek.TRAILING_WHITESPACE`). Candidates are found by
``context_before`` with :func:`~editguard.core.seek.seek` and settled by seven checks:

1. ``context_after`` follows the old lines;   2. ``old_lines`` match;
3. an insertion (no old lines) has context to place it;   4. a deletion (no new lines) matches
exactly;   5. the chunk stays inside the symbol;   6. an empty ``context_after`` means the chunk
ends where the symbol ends;   7. line endings written into a chunk match the file's.

We never guess (as "take the first candidate that passes" would): a chunk that fits
at several places is AMBIGUOUS_MATCH, one that fits nowhere is CHUNK_MISMATCH naming the check
that failed at each candidate. Every chunk is validated against the original body before
anything changes; chunks are then applied from the bottom up.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from editguard.core.document import CR, CRLF, LF
from editguard.core.listing import excerpt, listing
from editguard.core.seek import (
    LADDER,
    TRAILING,
    TRAILING_WHITESPACE,
    OnlyIgnored,
    Uncorrectable,
    correct,
    explain,
    file_uses_tabs,
    indent_unit,
    lines_match,
    seek,
    tolerance_names,
    used,
)
from editguard.errors import AmbiguousMatch, ChunkMismatch, InvalidRequest, OverlappingEdits

# Chunk lines are compared without trailing whitespace, and only so (no exact rung first):
# a context line that differs only there is the same line.
_LADDER = (TRAILING_WHITESPACE,)
# When a chunk fits nowhere so, the looser rungs, each with trailing whitespace ignored too.
_LOOSE = tuple(r for r in LADDER if TRAILING in r.tolerances and r != TRAILING_WHITESPACE)

Matched = tuple[str, str | None]  # the rung a chunk was found on, and what differed


@dataclass(frozen=True, slots=True)
class Chunk:
    """One change inside a symbol, its lines without line breaks."""

    context_before: tuple[str, ...]
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    context_after: tuple[str, ...]


def _lines_of(value: str | Sequence[str], field: str, index: int, newline: str) -> tuple[str, ...]:
    """A context or line list as lines; line breaks written inside must be the file's (check 7)."""
    items = ([value] if value else []) if isinstance(value, str) else list(value)
    out: list[str] = []
    for item in items:
        if CR in item or LF in item:
            used = CRLF if CRLF in item else (CR if CR in item else LF)
            if used != newline:
                raise ChunkMismatch(
                    f"chunk {index + 1}: check 7 (line endings) failed: {field} holds "
                    f"{used!r} line breaks but the file uses {newline!r}",
                    edit_index=index,
                    data={"check": 7, "field": f"chunks[{index}].{field}"},
                    suggestions=["Send each line as its own list item, without line breaks."],
                )
            out.extend(item.replace(CRLF, LF).replace(CR, LF).split(LF))
        else:
            out.append(item)
    return tuple(out)


def make_chunk(
    context_before: str | Sequence[str],
    old_lines: Sequence[str],
    new_lines: Sequence[str],
    context_after: str | Sequence[str],
    *,
    index: int,
    newline: str,
) -> Chunk:
    """A chunk from the request's fields (raising check 7 failures)."""
    return Chunk(
        _lines_of(context_before, "context_before", index, newline),
        _lines_of(old_lines, "old_lines", index, newline),
        _lines_of(new_lines, "new_lines", index, newline),
        _lines_of(context_after, "context_after", index, newline),
    )


def _same(actual: Sequence[str], expected: Sequence[str]) -> bool:
    return lines_match(actual, expected, TRAILING_WHITESPACE)


def _failure(lines: list[str], chunk: Chunk, position: int) -> tuple[int, str] | None:
    """The first of checks 1-6 that fails with the chunk placed after ``position``, if any."""
    start = position + 1
    end = start + len(chunk.old_lines)
    if end > len(lines):
        return 5, f"old_lines would run past the end of the symbol (line {len(lines)})"
    if not _same(lines[start:end], chunk.old_lines):
        return 2, "old_lines differ from the symbol's lines there"
    if end + len(chunk.context_after) > len(lines):
        return 1, "context_after would run past the end of the symbol"
    if not _same(lines[end : end + len(chunk.context_after)], chunk.context_after):
        return 1, "context_after differs from the lines that follow old_lines"
    if not chunk.old_lines and not chunk.context_before and not chunk.context_after:
        return 3, "an insertion needs context_before or context_after to place it"
    if not chunk.new_lines and list(lines[start:end]) != list(chunk.old_lines):
        return 4, "a deletion must match old_lines exactly, trailing whitespace included"
    if not chunk.context_after and end != len(lines):
        return 6, "context_after is empty, which means the end of the symbol, but lines follow"
    return None


def apply_chunks_with_endings(
    body: str,
    chunks: Sequence[Chunk],
    first_line: int,
    symbol: str,
    codes: bytes | None,
    *,
    exact: bool = False,
) -> tuple[str, bytes | None, tuple[Matched, ...]]:
    """The symbol's new text (``body`` is its whole lines, normalized) after ``chunks``, and the
    line-ending code of each break of the new text when
    ``codes`` gives those of ``body`` (a file that mixes endings): lines the chunks leave alone
    keep theirs, a new line takes the ending of the old line it replaces, extra lines the
    ending of the line before them. Last, the rung each chunk was found on (``exact`` for
    the chunks' own rule, lines compared without trailing whitespace).

    A chunk that fits nowhere so is looked for as one block (context, old lines, context) on
    the looser rungs of the match ladder (unless ``exact``), each with trailing whitespace
    ignored; found at one place, its new lines get the same correction.

    Raises:
        InvalidRequest: no chunks.
        ChunkMismatch: a chunk fits nowhere (the failed check at each candidate is named).
        AmbiguousMatch: a chunk fits at several places.
        OverlappingEdits: two chunks change the same lines.
    """
    if not chunks:
        raise InvalidRequest("chunks is empty: send at least one chunk", data={"field": "chunks"})
    final_break = body.endswith(LF)
    lines = (body[:-1] if final_break else body).split(LF)
    placed: list[tuple[int, int, int]] = []  # start, end (lines of the body), chunk index
    news = [list(chunk.new_lines) for chunk in chunks]
    matched: list[Matched] = [("exact", None)] * len(chunks)
    unit = indent_unit(lines)
    for index, chunk in enumerate(chunks):
        # A candidate is the line just before old_lines (-1: the symbol's start).
        size = len(chunk.context_before)
        candidates = [
            hit.line + size - 1 for hit in seek(lines, chunk.context_before, ladder=_LADDER)
        ]
        fitting = []
        failures = []
        for p in candidates:
            failed = _failure(lines, chunk, p)
            if failed is None:
                fitting.append(p)
            else:
                failures.append((p, failed))
        if not fitting and not exact:
            loose = _loose(lines, chunk, index, len(chunks), first_line, symbol, unit)
            if loose is not None:
                start, new_lines, matched[index] = loose
                news[index] = new_lines
                placed.append((start, start + len(chunk.old_lines), index))
                continue
        if not candidates:
            raise _not_found(lines, chunk, index, len(chunks), first_line, symbol)
        if len(fitting) > 1:
            where = [first_line + p + 1 for p in fitting]
            raise AmbiguousMatch(
                f"chunk {index + 1} of {len(chunks)} fits at {len(fitting)} places in {symbol} "
                f"(old_lines would start at lines {', '.join(map(str, where))}); add context "
                "lines to make it unique",
                edit_index=index,
                total_edits=len(chunks),
                data={"lines": where},
            )
        if not fitting:
            raise _mismatch(lines, chunk, failures, index, len(chunks), first_line, symbol)
        placed.append((fitting[0] + 1, fitting[0] + 1 + len(chunk.old_lines), index))
    ordered = sorted(placed)
    for (s1, e1, i1), (s2, _e2, i2) in itertools.pairwise(ordered):
        if e1 > s2 or (s1 == s2 and e1 > s1):
            a, b = sorted((i1, i2))
            raise OverlappingEdits(
                f"chunks {a + 1} and {b + 1} change the same lines of {symbol} (from line "
                f"{first_line + s2}); merge them into one chunk",
                data={"edits": [a, b]},
                total_edits=len(chunks),
            )
    working = list(lines)
    # One ending per line (None: the last line, which has no break, or not known).
    endings: list[int | None] = list(codes or b"") + [None] * (len(lines) - len(codes or b""))
    # From the last position to the first, so earlier positions stay valid. At one position, a
    # replacement goes before insertions (they then land in front of its new lines), and
    # insertions go last to first (they end up in request order).
    for start, end, index in sorted(placed, reverse=True):
        new_lines = news[index]
        old = endings[start:end] or endings[max(start - 1, 0) : start]
        working[start:end] = new_lines
        endings[start:end] = [
            old[min(i, len(old) - 1)] if old else None for i in range(len(new_lines))
        ]
    text = LF.join(working) + (LF if final_break and working else "")
    if codes is None:
        return text, None, tuple(matched)
    breaks = text.count(LF)
    fallback = next((c for c in endings if c is not None), 0)
    out = bytes(c if c is not None else fallback for c in endings[:breaks])
    return text, out + bytes([fallback]) * (breaks - len(out)), tuple(matched)


def _loose(
    lines: list[str],
    chunk: Chunk,
    index: int,
    total: int,
    first_line: int,
    symbol: str,
    unit: int,
) -> tuple[int, list[str], Matched] | None:
    """Where a chunk that fits nowhere on its own rung fits on the first looser rung that finds
    it as one block, and its corrected new lines; ``None`` when no rung finds it (the caller
    then explains why it fits nowhere).

    A deletion never lands so (check 4 asks for its old lines exactly), nor a chunk with no
    text to find, nor one whose change is only what the rung ignores.

    Raises:
        AmbiguousMatch: the rung finds the block at several places.
        ChunkMismatch: its correction cannot be carried over to the new lines.
    """
    before, old, after = chunk.context_before, chunk.old_lines, chunk.context_after
    block = [*before, *old, *after]
    if not chunk.new_lines or not any(line.strip() for line in block):
        return None
    # An empty context_after means the end of the symbol (check 6).
    start = 0 if after else max(len(lines) - len(block), 0)
    hits = seek(lines, block, start=start, ladder=_LOOSE, first_line=first_line, indent_unit=unit)
    if not hits:
        return None
    if len(hits) > 1:
        where = [first_line + h.line + len(before) for h in hits]
        raise AmbiguousMatch(
            f"chunk {index + 1} of {total} is not in {symbol} as sent, and fits with tolerance "
            f"for {tolerance_names(hits[0].rung)} at {len(hits)} places (old_lines would start at "
            f"lines {', '.join(map(str, where))}); copy its lines exactly, with context that "
            "only the place you mean has",
            edit_index=index,
            total_edits=total,
            data={"lines": where, "match": hits[0].rung},
        )
    hit = hits[0]
    at = hit.line + len(before)
    found = lines[at : at + len(old)]
    own = dataclasses.replace(
        hit,
        line=at,
        column=0,
        pattern=hit.pattern[len(before) : len(before) + len(old)],
        number=hit.number + len(before) if hit.number else 0,
    )
    try:
        new_lines = correct(own, found, chunk.new_lines, file_uses_tabs=file_uses_tabs(lines))
    except OnlyIgnored:
        return None
    except Uncorrectable as exc:
        first = first_line + hit.line
        raise ChunkMismatch(
            f"chunk {index + 1} of {total} is not in {symbol} as sent; it matches lines "
            f"{first}-{first + len(block) - 1} with tolerance for {tolerance_names(hit.rung)}, but "
            f"{exc}:\n" + _numbered(lines, first_line, hit.line, hit.line + len(block)),
            edit_index=index,
            total_edits=total,
            data={"check": 2, "match": hit.rung, "lines": [first, first + len(block) - 1]},
            suggestions=["Copy the chunk's lines exactly from the numbered lines above."],
        ) from None
    return at, new_lines, (used(own, found), explain(own, found, "the chunk"))


def _numbered(lines: list[str], first_line: int, lo: int, hi: int) -> str:
    lo, hi = max(0, lo), min(len(lines), hi)
    return listing(lines[lo:hi], first_line + lo, width=len(str(first_line + hi)))


def _not_found(
    lines: list[str], chunk: Chunk, index: int, total: int, first_line: int, symbol: str
) -> ChunkMismatch:
    shown = _numbered(lines, first_line, 0, 60)
    context = excerpt(LF.join(chunk.context_before))
    return ChunkMismatch(
        f"chunk {index + 1} of {total}: context_before >>>{context}<<< is "
        f"not in {symbol} (lines compared without trailing whitespace). The symbol's lines:\n"
        f"{shown}" + ("\n..." if len(lines) > 60 else ""),
        edit_index=index,
        total_edits=total,
        data={"check": 0, "symbol": symbol},
        suggestions=["Copy context_before exactly from the lines above (without the numbers)."],
    )


def _mismatch(
    lines: list[str],
    chunk: Chunk,
    failures: list[tuple[int, tuple[int, str]]],
    index: int,
    total: int,
    first_line: int,
    symbol: str,
) -> ChunkMismatch:
    parts = []
    for p, (check, reason) in failures[:5]:
        parts.append(
            f"at line {first_line + p + 1}: check {check} failed: {reason}:\n"
            + _numbered(
                lines,
                first_line,
                p + 1 - len(chunk.context_before),
                p + 2 + len(chunk.old_lines) + len(chunk.context_after),
            )
        )
    more = f"\n... and {len(failures) - 5} more candidates" if len(failures) > 5 else ""
    return ChunkMismatch(
        f"chunk {index + 1} of {total} fits nowhere in {symbol}; context_before was found "
        f"{len(failures)} time(s):\n" + "\n".join(parts) + more,
        edit_index=index,
        total_edits=total,
        data={
            "check": failures[0][1][0],
            "candidates": [
                {"line": first_line + p + 1, "check": c, "reason": r} for p, (c, r) in failures
            ],
        },
        suggestions=["Copy old_lines and context_after exactly from the numbered lines above."],
    )
