"""Line edits (`edit_lines`; `safe_edit` line_edits) compiled to a plan.

Every line number refers to the file as it was read, so one edit never shifts another's target.
Edits must not overlap; several inserts before one line keep their order. Lines are 1-based and
inclusive. Line endings follow the file; a file without a final newline keeps that.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from editguard.core.document import LF, Document, line_numbers, normalize_newlines
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.listing import excerpt, listing
from editguard.core.match import find_all
from editguard.core.plan import Plan, Replacement
from editguard.errors import (
    InvalidRequest,
    LineOutOfRange,
    NoMatch,
    OverlappingEdits,
    TooManyEdits,
    WrongCount,
    error_context,
)

LineKind = Literal["insert", "delete", "replace", "replace_section"]


@dataclass(frozen=True, slots=True)
class LineOp:
    """One line edit.

    ``insert``: ``text`` before line ``line`` (past the last line appends, and the edit's
    note says so). ``delete``: lines ``line``..``end_line`` (``end_line`` defaults to
    ``line``). ``replace``: line ``line`` becomes ``text``, or, with ``old_text``, ``old_text``
    inside that line becomes ``text``.
    ``replace_section``: lines ``line``..``end_line`` become ``text`` (empty text deletes them).
    """

    kind: LineKind
    line: int
    text: str | None = None
    old_text: str | None = None
    end_line: int | None = None


@dataclass(frozen=True, slots=True)
class LineEdit:
    """``safe_edit``'s line edit: lines ``start_line``..``end_line`` become ``new_content``."""

    start_line: int
    end_line: int
    new_content: str


def validate_line_ops(ops: Sequence[LineOp], max_edits: int) -> None:
    """Reject a malformed ``edit_lines`` request before any file is read.

    Raises:
        InvalidRequest: no edits, or a NUL character in a text.
        TooManyEdits: more than ``max_edits`` edits.
    """
    _check_size(len(ops), max_edits, "edits", "edits")
    for index, op in enumerate(ops):
        if op.text is not None and "\x00" in op.text:
            raise InvalidRequest(
                "text contains a NUL character (\\u0000)",
                edit_index=index,
                total_edits=len(ops),
                data={"field": f"edits[{index}].text"},
            )


def validate_line_edits(edits: Sequence[LineEdit], max_edits: int) -> None:
    """Reject a malformed ``safe_edit`` ``line_edits`` list before any file is read.

    Raises:
        InvalidRequest: no edits.
        TooManyEdits: more than ``max_edits`` edits.
    """
    _check_size(len(edits), max_edits, "line_edits", "line edits")


def _check_size(count: int, max_edits: int, field: str, noun: str) -> None:
    if not count:
        raise InvalidRequest(
            f"{field} is empty: send at least one line edit", data={"field": field}
        )
    if count > max_edits:
        raise TooManyEdits(
            f"{count} {noun} in one call; the limit is {max_edits}",
            data={"edits": count, "limit": max_edits},
        )


class _Lines:
    """Where each line of a normalized text starts and ends."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(p + 1 for p in find_all(text, LF))]
        if self.starts[-1] == len(text) and len(self.starts) > 1:
            self.starts.pop()  # a final newline does not start a line
        self.count = 0 if not text else len(self.starts)

    def start(self, n: int) -> int:
        return self.starts[n - 1] if n <= self.count else len(self.text)

    def end(self, n: int) -> int:
        """Where line ``n``'s content ends (its line break, or the end of the text)."""
        stop = self.text.find(LF, self.start(n))
        return len(self.text) if stop < 0 else stop

    def after(self, n: int) -> int:
        """Where the line after ``n`` starts (the end of the text for the last line)."""
        return self.start(n + 1) if n < self.count else len(self.text)

    def whole(self, first: int, last: int, new: str) -> Replacement:
        """Replace lines ``first``..``last`` (with their breaks) by ``new`` as whole lines."""
        new = normalize_newlines(new)
        if new and not new.endswith(LF):
            new += LF
        return Replacement(self.start(first), self.after(last), new)


def compile_line_ops(doc: Document, ops: Sequence[LineOp]) -> Compiled:
    """Compile ``edit_lines`` edits against ``doc``.

    Raises:
        InvalidRequest: a field missing or inconsistent for the edit's type.
        LineOutOfRange: a line past the end of the file.
        OverlappingEdits: two edits touch the same line.
        NoMatch, WrongCount: ``old_text`` is not exactly once in its line.
        EncodingError: a text holds a character the file's encoding cannot store.
    """
    text = doc.text
    lines = _Lines(_whole_lines(text))
    total = len(ops)
    spans: list[tuple[int, int, int, bool]] = []  # first, last, edit index, is an insert
    reps: list[tuple[Replacement, int]] = []
    notes: dict[int, str] = {}  # what the result says about an edit (an insert past the end)
    for index, op in enumerate(ops):
        if op.line < 1:
            raise InvalidRequest(
                f"line_number is {op.line}; lines start at 1",
                data={"field": f"edits[{index}].line_number"},
                edit_index=index,
                total_edits=total,
            )
        if op.kind == "insert":
            body = _required(op.text, "text", index, total)
            reps.append((_insert(lines, op.line, body), index))
            spans.append((op.line, op.line, index, True))
            if op.line > lines.count + 1:
                notes[index] = (
                    f"line {op.line} is past the end of the file, which has {lines.count} "
                    f"line(s): the text was appended after line {lines.count}"
                )
            continue
        last = op.end_line if op.end_line is not None else op.line
        if op.kind == "replace_section" and op.end_line is None:
            raise InvalidRequest(
                "ReplaceSection needs end_line (the last line to replace)",
                data={"field": f"edits[{index}].end_line"},
                edit_index=index,
                total_edits=total,
            )
        if last < op.line:
            raise InvalidRequest(
                f"end_line ({last}) must be >= line_number ({op.line})",
                data={"field": f"edits[{index}].end_line"},
                edit_index=index,
                total_edits=total,
            )
        _check_range(lines, op.line, last, index, total)
        spans.append((op.line, last, index, False))
        if op.kind == "delete":
            reps.append((lines.whole(op.line, last, ""), index))
        elif op.kind == "replace_section":
            reps.append((lines.whole(op.line, last, op.text or ""), index))
        elif op.old_text is None:
            body = _required(op.text, "text", index, total)
            # Replace keeps the line: an empty text leaves it empty (Delete removes it).
            reps.append((lines.whole(op.line, op.line, body or LF), index))
        else:
            body = _required(op.text, "text", index, total)
            reps.append((_within_line(lines, op.line, op.old_text, body, index, total), index))
    _check_overlaps(spans, total)
    compiled = _finish(text, reps, total, notes)
    _check_encodable(doc, [op.text or "" for op in ops])
    return compiled


def compile_line_edits(doc: Document, edits: Sequence[LineEdit]) -> Compiled:
    """Compile ``safe_edit``'s ``line_edits`` on ``doc``.

    Raises:
        InvalidRequest, LineOutOfRange, OverlappingEdits, EncodingError.
    """
    text = doc.text
    lines = _Lines(_whole_lines(text))
    total = len(edits)
    spans: list[tuple[int, int, int, bool]] = []
    reps: list[tuple[Replacement, int]] = []
    for index, (first, last, new) in enumerate(
        (e.start_line, e.end_line, e.new_content) for e in edits
    ):
        if last < first:
            raise InvalidRequest(
                f"end_line ({last}) must be >= start_line ({first})",
                edit_index=index,
                total_edits=total,
                data={"field": f"line_edits[{index}].end_line"},
            )
        _check_range(lines, first, last, index, total)
        spans.append((first, last, index, False))
        reps.append((lines.whole(first, last, new), index))
    _check_overlaps(spans, total)
    compiled = _finish(text, reps, total)
    _check_encodable(doc, [e.new_content for e in edits])
    return compiled


def _check_encodable(doc: Document, texts: Sequence[str]) -> None:
    for index, text in enumerate(texts):
        with error_context(edit_index=index, total_edits=len(texts)):
            doc.check_encodable(text)


def _required(value: str | None, name: str, index: int, total: int) -> str:
    if value is None:
        raise InvalidRequest(
            f"this edit type needs {name}",
            edit_index=index,
            total_edits=total,
            data={"field": f"edits[{index}].{name}"},
        )
    return value


def _insert(lines: _Lines, line: int, body: str) -> Replacement:
    body = normalize_newlines(body)
    pos = lines.start(line)
    return Replacement(pos, pos, body if body.endswith(LF) else body + LF)


def _check_range(lines: _Lines, first: int, last: int, index: int, total: int) -> None:
    if last > lines.count or first > lines.count:
        bad = first if first > lines.count else last
        raise LineOutOfRange(
            f"line {bad} is past the end of the file, which has {lines.count} line(s)",
            edit_index=index,
            total_edits=total,
            data={"line": bad, "total_lines": lines.count},
            suggestions=["Re-read the file (read_file) for its current line numbers."],
        )


def _within_line(
    lines: _Lines, line: int, old: str, new: str, index: int, total: int
) -> Replacement:
    start, stop = lines.start(line), lines.end(line)
    content = lines.text[start:stop]
    hits = find_all(content, old) if old else []
    if not hits:
        raise NoMatch(
            f"line {line} does not contain old_text >>>{excerpt(old)}<<<; the line is:\n"
            + listing([content], line, width=6),
            data={"line": line, "line_content": excerpt(content), "search_text": excerpt(old)},
            edit_index=index,
            total_edits=total,
            suggestions=[
                "Copy old_text exactly from the line above, or leave old_text out to "
                "replace the whole line."
            ],
        )
    if len(hits) > 1:
        raise WrongCount(
            f"old_text occurs {len(hits)} times in line {line} (columns "
            f"{', '.join(str(h + 1) for h in hits)}); it must occur once:\n"
            + listing([content], line, width=6),
            data={"line": line, "columns": [h + 1 for h in hits], "search_text": excerpt(old)},
            edit_index=index,
            total_edits=total,
            suggestions=["Make old_text longer so that it is unique in the line."],
        )
    return Replacement(start + hits[0], start + hits[0] + len(old), normalize_newlines(new))


def _check_overlaps(spans: list[tuple[int, int, int, bool]], total: int) -> None:
    ordered = sorted(spans)
    for i, (first, last, index, insert) in enumerate(ordered):
        for other_first, other_last, other, other_insert in ordered[i + 1 :]:
            if other_first > last:
                break
            # An insert goes before its line: it clashes only with a range strictly around it.
            if insert and other_insert:
                continue
            if insert and other_first >= first:
                continue
            if other_insert and other_first <= first:
                continue
            a, b = sorted((index, other))
            raise OverlappingEdits(
                f"edits {a + 1} and {b + 1} overlap: lines {_span(first, last, insert)} and "
                f"{_span(other_first, other_last, other_insert)}; all line numbers refer to the "
                "file as read, so merge them into one edit",
                data={"edits": [a, b]},
                total_edits=total,
            )


def _span(first: int, last: int, insert: bool) -> str:
    if insert:
        return f"(insert before {first})"
    return str(first) if first == last else f"{first}-{last}"


def _whole_lines(text: str) -> str:
    """``text`` with a final line break: every line, the last too, then ends with one, so that
    each edit works on whole lines. :func:`_finish` takes the added break away again."""
    return text + LF if text and not text.endswith(LF) else text


def _finish(
    text: str,
    reps: list[tuple[Replacement, int]],
    total: int,
    notes: dict[int, str] | None = None,
) -> Compiled:
    """The plan on ``text`` from replacements compiled on ``_whole_lines(text)``, with a note
    for the edits ``notes`` names."""
    ordered = sorted(reps, key=lambda item: (item[0].start, item[0].end))  # stable: keeps order
    virtual = _whole_lines(text)
    old_lines = line_numbers(virtual, (r.start for r, _ in ordered))
    landed = [0] * total
    shift = 0
    for (r, index), line in zip(ordered, old_lines, strict=True):
        landed[index] = line + shift
        shift += r.text.count(LF) - virtual.count(LF, r.start, r.end)
    replacements = [r for r, _ in ordered]
    if virtual != text:
        replacements = _without_added_break(len(text), replacements)
    notes = notes or {}
    applied = tuple(AppliedEdit(i, 1, (line,), note=notes.get(i)) for i, line in enumerate(landed))
    return Compiled(Plan(tuple(replacements)), applied)


def _without_added_break(n: int, reps: list[Replacement]) -> list[Replacement]:
    """Replacements on a text of ``n`` characters without a final break, from ``reps`` compiled
    on that text plus one added break (at ``n``), so that the result still has no final break.

    The edited virtual text ends with a break (it holds whole lines); the real result is that
    text without its last character. Which piece of the result holds it decides what changes:
    the added break itself (nothing to take away), a replacement's text (cut it off), or a
    break of the file (delete it: the line before becomes the last one).
    """
    reps = list(reps)
    covered = any(r.start <= n < r.end for r in reps)
    end = n + 1  # the end of the virtual text
    last_piece: int | None = None  # index of the replacement that ends the result, if one does
    gap_end: int | None = None  # or the end of the untouched stretch that does
    for i in range(len(reps) - 1, -1, -1):
        if reps[i].end < end:
            gap_end = end
            break
        if reps[i].text:
            last_piece = i
            break
        end = reps[i].start
    else:
        gap_end = end if end > 0 else None
    if last_piece is not None:
        r = reps[last_piece]
        reps[last_piece] = Replacement(r.start, r.end, r.text.removesuffix(LF))
        if not covered:  # appended after the added break, which the real text lacks
            first = next(i for i, x in enumerate(reps) if x.start > n)
            x = reps[first]
            reps[first] = Replacement(x.start, x.end, LF + x.text)
    elif gap_end is not None and gap_end - 1 < n:
        reps.append(Replacement(gap_end - 1, gap_end, ""))  # the break before deleted lines
        reps.sort(key=lambda r: (r.start, r.end))
    return [Replacement(min(r.start, n), min(r.end, n), r.text) for r in reps]
