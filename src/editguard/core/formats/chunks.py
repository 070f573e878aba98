"""Context chunks inside one symbol (``edit_symbol``): the matcher that makes the new symbol text.

A chunk is ``context_before`` / ``old_lines`` / ``new_lines`` / ``context_after`` / ``at_end``.
The contexts are optional lines that must directly surround the old lines (a list, or one string
of whole lines: ``""`` is none, a final line break ends the last line); ``at_end`` pins the
chunk's last line to the symbol's last line. Lines are compared after ``rstrip``
(:data:`~editguard.core.seek.TRAILING_WHITESPACE`); blank context lines that run past the
symbol's first or last line (the blank line between two definitions) are not compared.
Candidates are found by ``context_before`` with :func:`~editguard.core.seek.seek` and settled by
seven checks:

1. ``context_after`` follows the old lines;   2. ``old_lines`` match;
3. an insertion (no old lines) has context or ``at_end`` to place it;   4. a deletion (no new
lines) matches exactly;   5. the chunk stays inside the symbol;   6. with ``at_end``, nothing
follows the chunk;   7. line endings written into a chunk match the file's.

We never guess (as "take the first candidate that passes" would): a chunk that fits
at several places is AMBIGUOUS_MATCH, one that fits nowhere is CHUNK_MISMATCH naming the check
that failed at each candidate, the file's lines there, and (for a context, ``at_end`` or a
deletion's exact lines) the fields that would make it fit. Every chunk is validated against the
original body before anything changes; chunks are then applied from the bottom up.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from editguard.core.diagnosis import landed_note
from editguard.core.document import CR, CRLF, LF
from editguard.core.formats.place.lines import FileLines
from editguard.core.formats.place.refusal import ambiguous, overlapping, uncorrectable
from editguard.core.landed import adds_a_line, telling
from editguard.core.listing import excerpt, listing
from editguard.core.seek import (
    LADDER,
    TRAILING,
    TRAILING_WHITESPACE,
    OnlyIgnored,
    Uncorrectable,
    explain,
    lines_match,
    seek,
    used,
)
from editguard.errors import AmbiguousMatch, ChunkMismatch, InvalidRequest

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
    at_end: bool = False


def _lines_of(value: str | Sequence[str], field: str, index: int, newline: str) -> tuple[str, ...]:
    """A context or line list as lines; line breaks written inside must be the file's (check 7).

    A string is the text of whole lines: ``""`` is none, and a final line break ends its last
    line (``"x\n"`` is the one line ``x``, ``"\n"`` one blank line)."""
    if isinstance(value, str):
        items = [_without_final_break(value)] if value else []
    else:
        items = list(value)
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


def _without_final_break(text: str) -> str:
    for brk in (CRLF, LF, CR):
        if text.endswith(brk):
            return text[: -len(brk)]
    return text


def make_chunk(
    context_before: str | Sequence[str],
    old_lines: Sequence[str],
    new_lines: Sequence[str],
    context_after: str | Sequence[str] = (),
    *,
    index: int,
    newline: str,
    at_end: bool = False,
) -> Chunk:
    """A chunk from the request's fields (raising check 7 failures)."""
    return Chunk(
        _lines_of(context_before, "context_before", index, newline),
        _lines_of(old_lines, "old_lines", index, newline),
        _lines_of(new_lines, "new_lines", index, newline),
        _lines_of(context_after, "context_after", index, newline),
        at_end,
    )


def _same(actual: Sequence[str], expected: Sequence[str]) -> bool:
    return lines_match(actual, expected, TRAILING_WHITESPACE)


@dataclass(frozen=True, slots=True)
class _Failure:
    """Why a chunk does not fit at one candidate, with the file's lines there."""

    check: int
    reason: str
    fix: dict[str, Any] | None = None  # fields that make the chunk fit here (context only)
    found: tuple[str, ...] | None = None  # the symbol's lines where old_lines would be


def _quoted(line: str) -> str:
    return json.dumps(line, ensure_ascii=False)


def _first_difference(actual: Sequence[str], expected: Sequence[str]) -> int:
    return next(
        i for i, (a, e) in enumerate(zip(actual, expected, strict=True)) if not _same([a], [e])
    )


def _failure(lines: list[str], chunk: Chunk, position: int, first_line: int) -> _Failure | None:
    """The first of checks 1-6 that fails with the chunk placed after ``position``, if any."""
    start = position + 1
    end = start + len(chunk.old_lines)
    old, after = chunk.old_lines, chunk.context_after
    last = first_line + len(lines) - 1  # the symbol's last line
    if end > len(lines):
        return _Failure(
            5,
            f"old_lines hold {len(old)} line(s), but from line {first_line + start} the symbol "
            f"has {len(lines) - start} (it ends at line {last}); edit lines outside it with "
            "edit_file",
        )
    if not _same(lines[start:end], old):
        i = _first_difference(lines[start:end], old)
        return _Failure(
            2,
            f"old_lines[{i}] is {_quoted(old[i])} but line {first_line + start + i} is "
            f"{_quoted(lines[start + i])}",
            found=tuple(lines[start:end]),
        )
    # Blank context lines past the symbol's last line are not compared (check 1).
    inside = min(len(after), len(lines) - end)
    real = lines[end : end + inside]
    if not _same(real, after[:inside]):
        i = _first_difference(real, after[:inside])
        return _Failure(
            1,
            f"context_after[{i}] is {_quoted(after[i])} but line {first_line + end + i} is "
            f"{_quoted(lines[end + i])} (context_after may also be left out)",
            fix={"context_after": real},
        )
    if any(line.strip() for line in after[inside:]):
        return _Failure(
            1,
            f"context_after runs {len(after) - inside} line(s) past the symbol's last line "
            f"({last}); lines outside the symbol are no context (context_after may also be "
            "left out)",
            fix={"context_after": real},
        )
    if not old and not chunk.context_before and not after and not chunk.at_end:
        return _Failure(
            3, "an insertion (old_lines []) needs context_before, context_after or at_end: true"
        )
    if not chunk.new_lines and list(lines[start:end]) != list(old):
        return _Failure(
            4,
            "a deletion (new_lines []) needs old_lines exactly, trailing whitespace included",
            fix={"old_lines": lines[start:end]},
        )
    rest = lines[end + inside :]
    if chunk.at_end and rest:
        shown = ", ".join(
            f"{first_line + end + inside + i}: {_quoted(line)}" for i, line in enumerate(rest[:3])
        )
        return _Failure(
            6,
            f"at_end is true (the chunk ends where the symbol ends), but {len(rest)} line(s) "
            f"follow, up to line {last} ({shown}{', ...' if len(rest) > 3 else ''})",
            fix={"at_end": False},
        )
    return None


def _candidates(lines: list[str], before: Sequence[str]) -> list[int]:
    """Each place ``before`` ends at (-1: just above the symbol's first line)."""
    size = len(before)
    found = {hit.line + size - 1 for hit in seek(lines, before, ladder=_LADDER)}
    # Blank lines at the top of context_before may lie above the symbol (the blank line between
    # two definitions): the rest then has to start at the symbol's first line.
    blank = next((i for i, line in enumerate(before) if line.strip()), size)
    for skip in range(1, blank + 1):
        rest = before[skip:]
        if _same(lines[: len(rest)], rest):
            found.add(len(rest) - 1)
    return sorted(found)


def apply_chunks_with_endings(
    body: str,
    chunks: Sequence[Chunk],
    first_line: int,
    symbol: str,
    codes: bytes | None,
    *,
    exact: bool = False,
) -> tuple[str, bytes | None, tuple[Matched, ...], frozenset[int]]:
    """The symbol's new text (``body`` is its whole lines, normalized) after ``chunks``, and the
    line-ending code of each break of the new text when
    ``codes`` gives those of ``body`` (a file that mixes endings): lines the chunks leave alone
    keep theirs, a new line takes the ending of the old line it replaces, extra lines the
    ending of the line before them. Then the rung each chunk was found on (``exact`` for
    the chunks' own rule, lines compared without trailing whitespace), and last the chunks
    the symbol already reads as done (a retry, see :func:`_landed`), which change nothing.

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
    landed: set[int] = set()  # chunks the symbol already reads as done (core.landed)
    file = FileLines(lines, first_line=first_line)  # the symbol's lines, for the ladder
    for index, chunk in enumerate(chunks):
        # A candidate is the line just before old_lines (-1: the symbol's start).
        candidates = _candidates(lines, chunk.context_before)
        fitting = []
        failures = []
        for p in candidates:
            failed = _failure(lines, chunk, p, first_line)
            if failed is None:
                fitting.append(p)
            else:
                failures.append((p, failed))
        done = _landed(file, chunk, fitting, index, len(chunks), first_line, symbol, exact)
        if done is not None:
            matched[index] = ("exact", landed_note([done], what="new_lines"))
            landed.add(index)
            continue
        if not fitting and not exact:
            loose = _loose(file, chunk, index, len(chunks), first_line, symbol)
            if loose is not None:
                start, new_lines, matched[index] = loose
                news[index] = new_lines
                placed.append((start, start + len(chunk.old_lines), index))
                continue
        if not chunk.context_before:  # every line is a candidate: keep those old_lines fit
            failures = [(p, f) for p, f in failures if f.check not in (2, 5)]
        if not candidates or not (fitting or failures):
            raise _not_found(lines, chunk, index, len(chunks), first_line, symbol)
        if len(fitting) > 1:
            starts = [p + 1 for p in fitting]
            raise _ambiguous(lines, chunk, starts, index, len(chunks), first_line, symbol)
        if not fitting:
            raise _mismatch(lines, chunk, failures, index, len(chunks), first_line, symbol)
        placed.append((fitting[0] + 1, fitting[0] + 1 + len(chunk.old_lines), index))
    ordered = sorted(placed)
    for (s1, e1, i1), (s2, _e2, i2) in itertools.pairwise(ordered):
        if e1 > s2 or (s1 == s2 and e1 > s1):
            a, b = sorted((i1, i2))
            raise overlapping(
                a,
                b,
                first_line + s2,
                what=f"chunks {a + 1} and {b + 1} change the same lines of {symbol} (from line "
                f"{first_line + s2})",
                tip="merge them into one chunk",
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
        return text, None, tuple(matched), frozenset(landed)
    breaks = text.count(LF)
    fallback = next((c for c in endings if c is not None), 0)
    out = bytes(c if c is not None else fallback for c in endings[:breaks])
    return text, out + bytes([fallback]) * (breaks - len(out)), tuple(matched), frozenset(landed)


def _landed(
    file: FileLines,
    chunk: Chunk,
    fitting: list[int],
    index: int,
    total: int,
    first_line: int,
    symbol: str,
    exact: bool,
) -> int | None:
    """The line (in the file) where the chunk's new lines stand when the symbol already reads
    as the chunk done, by the rule of :mod:`editguard.core.landed` on blocks of lines (context,
    lines, context; compared as chunks are): every place the chunk fits lies inside the one
    place its new block is; or it fits nowhere and its new block is at exactly one place (a
    new block with at least as many lines as the old, and a line with text the old block
    lacks). ``None``: not done.

    Raises:
        AmbiguousMatch: it fits nowhere exactly, fits with a tolerance, and its new block is in
            the symbol exactly: a retry would land a second time at a look-alike place.
    """
    lines = file.lines
    before, after = chunk.context_before, chunk.context_after
    old = [*before, *chunk.old_lines, *after]
    new = [*before, *chunk.new_lines, *after]
    if not telling(LF.join(chunk.old_lines), LF.join(chunk.new_lines)) or new == old:
        return None
    if fitting:
        covers = {_copy_around(lines, p + 1 - len(before), len(old), new) for p in fitting}
        found = [c for c in covers if c is not None]
        if len(covers) != 1 or not found:
            return None
        at = found[0]
    else:
        if len(new) < len(old) or not adds_a_line(LF.join(old), LF.join(new)):
            return None  # lines removed: what is left was in the symbol before too
        copies = [
            q
            for q in range(len(lines) - len(new) + 1)
            if _same(lines[q : q + len(new)], new)
            and (not chunk.at_end or q + len(new) == len(lines))
        ]
        if len(copies) != 1:
            return None
        at = copies[0]
        if not exact and _loose(file, chunk, index, total, first_line, symbol):
            where = first_line + at + len(before)
            raise AmbiguousMatch(
                f"chunk {index + 1} of {total} is not in {symbol} as sent and fits with a "
                f"tolerance, but its new lines are already at line {where}: it may have been "
                "applied already, so which is meant cannot be told; nothing was changed",
                edit_index=index,
                total_edits=total,
                data={"applied_lines": [where]},
                suggestions=[
                    "If the chunk is done, drop it; else copy its lines exactly from the place "
                    "you mean."
                ],
            )
    return first_line + at + len(before)


def _copy_around(lines: list[str], start: int, size: int, new: list[str]) -> int | None:
    """Where the block ``new`` stands over lines ``start``..``start + size`` (the block the
    chunk fits), if it does."""
    for q in range(max(start + size - len(new), 0), max(start, 0) + 1):
        if q + len(new) <= len(lines) and _same(lines[q : q + len(new)], new):
            return q
    return None


def _loose(
    file: FileLines,
    chunk: Chunk,
    index: int,
    total: int,
    first_line: int,
    symbol: str,
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
    lines = file.lines
    start = max(len(lines) - len(block), 0) if chunk.at_end else 0  # check 6
    hits = file.seek(block, start, ladder=_LOOSE)
    if not hits:
        return None
    if len(hits) > 1:
        starts = [h.line + len(before) for h in hits]
        raise _ambiguous(lines, chunk, starts, index, total, first_line, symbol, hits[0].rung)
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
        new_lines = file.correct(own, chunk.new_lines)
    except OnlyIgnored:
        return None
    except Uncorrectable as exc:
        raise uncorrectable(
            lines,
            hit.line,
            hit.line + len(block),
            what=f"chunk {index + 1} of {total}",
            rung=hit.rung,
            reason=str(exc),
            search=LF.join(block),
            first_line=first_line,
            error=ChunkMismatch,
            data={"check": 2},
            edit_index=index,
            total_edits=total,
            within=symbol,
            fix="Copy the chunk's lines exactly from the numbered lines above.",
        ) from None
    return at, new_lines, (used(own, found), explain(own, found, "the chunk"))


def _ambiguous(
    lines: list[str],
    chunk: Chunk,
    starts: list[int],
    index: int,
    total: int,
    first_line: int,
    symbol: str,
    rung: str = "exact",
) -> AmbiguousMatch:
    """The chunk fits where its old lines would start at ``starts`` (on its own rule, or as
    one block on a looser ``rung``)."""
    return ambiguous(
        lines,
        starts,
        len(chunk.old_lines),
        what=f"chunk {index + 1} of {total}",
        rung=rung,
        why=f" in {symbol}" + ("" if rung == "exact" else ", none as sent"),
        tip="copy the chunk's lines exactly from the place you mean, and add to "
        "context_before or context_after a line that only it has, or set at_end: true if it is "
        "the symbol's end.",
        first_line=first_line,
        before=len(chunk.context_before) + 1,
        after=len(chunk.context_after) + 1,
        edit_index=index,
        total_edits=total,
    )


def _numbered(lines: list[str], first_line: int, lo: int, hi: int) -> str:
    lo, hi = max(0, lo), min(len(lines), hi)
    return listing(lines[lo:hi], first_line + lo, width=len(str(first_line + hi)))


def _not_found(
    lines: list[str], chunk: Chunk, index: int, total: int, first_line: int, symbol: str
) -> ChunkMismatch:
    """context_before is nowhere in the symbol (check 0), or, without it, old_lines (check 2)."""
    field = "context_before" if chunk.context_before else "old_lines"
    sent = chunk.context_before or chunk.old_lines
    last = first_line + len(lines) - 1
    shown = _numbered(lines, first_line, 0, 60) + ("\n..." if len(lines) > 60 else "")
    head = next((line for line in sent if line.strip()), "")
    close = difflib.get_close_matches(head.strip(), [x.strip() for x in lines], n=1, cutoff=0.6)
    nearest = ""
    data: dict[str, Any] = {"check": 0 if chunk.context_before else 2, "symbol": symbol}
    if close:
        at = next(i for i, x in enumerate(lines) if x.strip() == close[0])
        nearest = f" The closest line is {first_line + at}: {_quoted(lines[at])}."
        data["closest_line"] = first_line + at
    return ChunkMismatch(
        f"chunk {index + 1} of {total}: {field} >>>{excerpt(LF.join(sent))}<<< is not in "
        f"{symbol}, lines {first_line}-{last} (lines compared without trailing whitespace)."
        f"{nearest} The symbol's lines:\n{shown}",
        edit_index=index,
        total_edits=total,
        data=data,
        suggestions=[
            f"Copy {field} exactly from the lines above (without the numbers); context must "
            "lie inside the symbol."
        ],
    )


def _mismatch(
    lines: list[str],
    chunk: Chunk,
    failures: list[tuple[int, _Failure]],
    index: int,
    total: int,
    first_line: int,
    symbol: str,
) -> ChunkMismatch:
    parts = []
    for p, failed in failures[:5]:
        tail = len(chunk.context_after) + (3 if failed.check == 6 else 1)
        parts.append(
            f"at line {first_line + p + 1}: check {failed.check} failed: {failed.reason}"
            + (f"; send {json.dumps(failed.fix, ensure_ascii=False)}" if failed.fix else "")
            + ":\n"
            + _numbered(
                lines,
                first_line,
                p + 1 - len(chunk.context_before),
                p + 1 + len(chunk.old_lines) + tail,
            )
        )
    more = f"\n... and {len(failures) - 5} more candidates" if len(failures) > 5 else ""
    candidates = []
    for p, failed in failures:
        candidate: dict[str, Any] = {
            "line": first_line + p + 1,
            "check": failed.check,
            "reason": failed.reason,
        }
        if failed.fix is not None:
            candidate["fix"] = failed.fix
        if failed.found is not None:
            candidate["found"] = list(failed.found)
        candidates.append(candidate)
    fixes = [f.fix for _, f in failures if f.fix is not None]
    tip = (
        f"Send the chunk again with {json.dumps(fixes[0], ensure_ascii=False)}."
        if len(failures) == 1 and fixes
        else "Copy old_lines and the contexts exactly from the numbered lines above."
    )
    found = "context_before was" if chunk.context_before else "old_lines were"
    return ChunkMismatch(
        f"chunk {index + 1} of {total} fits nowhere in {symbol}; {found} found "
        f"{len(failures)} time(s):\n" + "\n".join(parts) + more,
        edit_index=index,
        total_edits=total,
        data={"check": failures[0][1].check, "candidates": candidates},
        suggestions=[tip],
    )
