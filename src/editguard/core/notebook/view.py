"""A notebook as a model reads it: cells, not JSON.

Each cell shows as a header line, its source as numbered lines and its outputs summarised::

    [cell 1] code id=3c4d exec=5
    1│import numpy as np
    2│print("hi ±")
    [out 0] stream stdout, 1 line(s)
    > hi ±
    [out 1] display_data: image/png 23,456 bytes, text/plain 36 chars
    > <Figure size 432x288 with 1 Axes>

Only source lines carry the ``N│`` prefix, numbered within the cell from 1 (the numbers an
edit with ``cell`` uses): a header (``[cell ...]``, ``[out ...]``) or an output's text (``> ``)
can never be taken for a line of the source. An output shows its kind, its MIME types with
their sizes, and the first lines of its text (an error: its name, value and the last lines of
its traceback, ANSI escapes taken out), within caps per output and per cell.

:func:`render` shows a range of cells within a window of lines and characters, and says where
the next call goes on when the window ends first. Pure: the notebook
(:mod:`~editguard.core.notebook.model`) in, text out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from editguard.core.document import normalize_newlines
from editguard.core.notebook.model import Cell, Notebook, source_text

OUTPUT_LINES = 5  # lines of text shown of one output
ERROR_LINES = 5  # the last lines of a traceback shown
CELL_OUTPUT_LINES = 20  # lines of text shown of all the outputs of one cell
OUTPUTS_SHOWN = 10  # outputs of one cell listed; the others are counted
OUTPUT_WIDTH = 200  # characters of one line of output shown
# Outputs a read may return as images (what MCP's image content carries).
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
# What a header may grow by once the lines shown of its cell are known (" lines 1-9 of 9").
_HEADER_SLACK = 48

# CSI sequences (colours, cursor moves) and OSC ones (titles, links), as IPython's
# tracebacks hold them.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
_TOKEN = re.compile(r"[A-Za-z0-9_.-]+")


def strip_ansi(text: str) -> str:
    """``text`` without its ANSI escape sequences."""
    return _ANSI.sub("", text)


def source_lines(source: str) -> list[str]:
    """A cell's source as the lines an edit numbers (split at each line break, ``\\r\\n`` and
    ``\\r`` too, as a file's are; a final line break starts no line, as
    :attr:`~editguard.core.document.Document.line_count` counts)."""
    if not source:
        return []
    lines = normalize_newlines(source).split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def cell_header(cell: Cell, lines: tuple[int, int, int] | None = None) -> str:
    """The header line of a cell: ``[cell 3] code id=ab12 exec=5``; ``lines``: (first, last,
    total) when only some of its source lines are shown."""
    parts = [f"[cell {cell.index}]", _token(cell.cell_type or "?")]
    if cell.id is not None:
        parts.append(f"id={_token(cell.id)}")
    count = cell.known.get("execution_count")  # (kept decoded: only outputs are decoded again)
    if cell.cell_type == "code" and isinstance(count, int) and not isinstance(count, bool):
        parts.append(f"exec={count}")
    if not cell.source:
        parts.append("(empty)")
    elif lines is not None:
        first, last, total = lines
        shown = f"line {first}" if first == last else f"lines {first}-{last}"
        parts.append(f"{shown} of {total}" if last >= first else f"of {total} lines")
    return " ".join(parts)


def _token(text: str) -> str:
    """A name as a header shows it: as it is when it is a plain token, else quoted."""
    return text if _TOKEN.fullmatch(text) else json.dumps(text, ensure_ascii=False)


def output_rows(cell: Cell) -> list[str]:
    """The lines that summarise a cell's outputs (none for a cell without)."""
    outputs = cell.outputs
    rows: list[str] = []
    left = CELL_OUTPUT_LINES
    for k, output in enumerate(outputs[:OUTPUTS_SHOWN]):
        head, text, total = describe_output(output)
        rows.append(f"[out {k}] {head}")
        shown = text[: max(left, 0)]
        left -= len(shown)
        more = total - len(shown)
        if more and _kind(output) == "error":  # the last lines are shown: say what is before
            rows.append(f"> … {more:,} line(s) before")
        rows += [f"> {_cut(line)}" for line in shown]
        if more and _kind(output) != "error":
            rows.append(f"> … {more:,} more line(s)")
    if len(outputs) > OUTPUTS_SHOWN:
        rows.append(f"[out] … {len(outputs) - OUTPUTS_SHOWN:,} more output(s)")
    return rows


def _kind(output: Any) -> str:
    return str(output.get("output_type", "?")) if isinstance(output, dict) else "?"


def _cut(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= OUTPUT_WIDTH else line[:OUTPUT_WIDTH] + "…"


def describe_output(output: Any) -> tuple[str, list[str], int]:
    """One output's summary line (its kind, and its MIME types with their sizes), the lines of
    its text a read may show (the first ones; an error's: the last lines of its traceback) and
    how many lines that text has in all."""
    if not isinstance(output, dict):
        return "(not a JSON object)", [], 0
    kind = _kind(output)
    if kind == "stream":
        lines = strip_ansi(source_text(output.get("text"))).splitlines()
        name = _token(str(output.get("name", "?")))
        return f"stream {name}, {len(lines):,} line(s)", lines[:OUTPUT_LINES], len(lines)
    if kind == "error":
        ename, evalue = str(output.get("ename", "")), str(output.get("evalue", ""))
        found = output.get("traceback")
        trace = [t for t in found if isinstance(t, str)] if isinstance(found, list) else []
        lines = [x for x in strip_ansi("\n".join(trace)).splitlines() if x.strip()]
        head = f"error {strip_ansi(ename)}: {_cut(strip_ansi(evalue))}"
        return head, lines[-ERROR_LINES:], len(lines)
    if kind in ("execute_result", "display_data", "update_display_data"):
        data = output.get("data")
        bundle: dict[str, Any] = data if isinstance(data, dict) else {}
        sizes = ", ".join(f"{mime} {_size(mime, value)}" for mime, value in bundle.items())
        count = output.get("execution_count")
        if kind == "execute_result" and isinstance(count, int):
            kind = f"{kind} exec={count}"
        text = strip_ansi(source_text(bundle.get("text/plain"))).splitlines()
        return (f"{kind}: {sizes}" if sizes else kind), text[:OUTPUT_LINES], len(text)
    return _token(kind), [], 0


def _size(mime: str, value: Any) -> str:
    if mime.startswith("image/") and mime != "image/svg+xml":
        return f"{image_size(source_text(value)):,} bytes"
    if isinstance(value, str | list):
        return f"{len(source_text(value)):,} chars"
    return f"{len(json.dumps(value, ensure_ascii=False)):,} chars"


def image_size(b64: str) -> int:
    """The size in bytes of the image whose base64 text is ``b64`` (line breaks allowed)."""
    clean = "".join(b64.split())
    return len(clean) * 3 // 4 - len(clean) + len(clean.rstrip("="))


@dataclass(frozen=True, slots=True)
class Image:
    """An image output of a cell: its cell and output index, MIME type, size and base64."""

    cell: int
    output: int
    mime_type: str
    size: int
    data: str


def images(cell: Cell) -> list[Image]:
    """The images among a cell's outputs (PNG, JPEG, GIF, WebP), in order; an output with
    several is counted once, its first image type in :data:`IMAGE_TYPES` order."""
    found: list[Image] = []
    for k, output in enumerate(cell.outputs):
        data = output.get("data") if isinstance(output, dict) else None
        if not isinstance(data, dict):
            continue
        for mime in IMAGE_TYPES:
            if mime in data:
                b64 = "".join(source_text(data[mime]).split())
                found.append(Image(cell.index, k, mime, image_size(b64), b64))
                break
    return found


@dataclass(slots=True)
class Budget:
    """What a read may still show: lines (headers and outputs count) and characters."""

    lines: int
    chars: int


@dataclass(frozen=True, slots=True)
class Span:
    """The cells asked for (``first``..``last``, indexes), from line ``start_line`` (and its
    character ``start_column``) of the first, to line ``end_line`` of the last (``None``: its
    end)."""

    first: int
    last: int
    start_line: int = 1
    start_column: int = 1
    end_line: int | None = None


@dataclass(slots=True)
class Shown:
    """What :func:`render` shows: the text, the cells shown (wholly or in part: ``outputs``
    lists those whose outputs were shown), and where to go on when the window ended first
    (``next_cell``; ``next_line`` and ``next_column`` within it when it was cut inside)."""

    content: str
    first_cell: int | None = None
    last_cell: int | None = None
    outputs: list[int] = field(default_factory=list)
    next_cell: int | None = None
    next_line: int | None = None
    next_column: int | None = None


def render(nb: Notebook, span: Span, budget: Budget) -> Shown:
    """The cells of ``span`` as the module docstring shows them, as many as ``budget`` allows
    (taken from it). A cell that does not fit whole is left for the next call, unless it is
    the first: then its header and the source lines that fit are shown (its first line cut
    short if even that does not fit)."""
    rows: list[str] = []
    shown = Shown("")
    for index in range(span.first, span.last + 1):
        cell = nb.cells[index]
        lines = source_lines(cell.source)
        total = len(lines)
        first = span.start_line if index == span.first else 1
        last = total if index != span.last or span.end_line is None else min(span.end_line, total)
        skip = span.start_column - 1 if index == span.first else 0
        whole = first == 1 and last == total and skip == 0
        outs = output_rows(cell) if last == total else []
        width = len(str(max(last, 1)))
        taken = lines[first - 1 : last]
        need_lines = 1 + len(taken) + len(outs)
        need_chars = (
            _HEADER_SLACK
            + sum(len(x) + width + 2 for x in taken)
            - skip
            + sum(len(x) + 1 for x in outs)
        )
        if rows and (need_lines > budget.lines or need_chars > budget.chars):
            shown.next_cell = index
            break
        if shown.first_cell is None:
            shown.first_cell = index
        shown.last_cell = index
        at = len(rows)
        # The first cell's header is free: a window of one line still shows a line of source.
        budget.lines -= 1 if rows else 0
        budget.chars -= _HEADER_SLACK
        kept, cut = _take(taken, skip, width, budget)
        end = first + len(kept) - 1
        rows += _numbered(kept, first, len(str(max(end, 1))))
        complete = cut is None and len(kept) == len(taken)
        header = cell_header(cell, None if whole and complete else (first, end, total))
        rows.insert(at, header)
        if not complete:
            shown.next_cell = index
            shown.next_line = end if cut is not None else end + 1
            shown.next_column = cut
            break
        if outs:
            cost = sum(len(x) + 1 for x in outs)
            if len(outs) > budget.lines or cost > budget.chars:
                rows.append(
                    f"[out] {len(cell.outputs):,} output(s) not shown: over the window (read "
                    f"cell {index} alone)"
                )
                shown.next_cell = index + 1 if index < span.last else None
                break
            rows += outs
            budget.lines -= len(outs)
            budget.chars -= cost
            shown.outputs.append(index)
        if budget.lines <= 0 and index < span.last:
            shown.next_cell = index + 1
            break
    shown.content = "\n".join(rows)
    return shown


def _take(lines: list[str], skip: int, width: int, budget: Budget) -> tuple[list[str], int | None]:
    """Source lines as many as ``budget`` allows (taken from it), the first one without its
    first ``skip`` characters; and, when the first line shown had to be cut short, the column
    (1-based) where it goes on."""
    kept: list[str] = []
    for k, line in enumerate(lines):
        text = line[skip:] if k == 0 else line
        room = budget.chars - (width + 2)
        if budget.lines <= 0 or len(text) > room:
            if kept or room <= 0 or budget.lines <= 0:
                break
            kept.append(text[:room])
            budget.lines -= 1
            budget.chars -= width + 2 + room
            return kept, skip + room + 1
        kept.append(text)
        budget.lines -= 1
        budget.chars -= width + 2 + len(text)
    return kept, None


def _numbered(lines: list[str], first: int, width: int) -> list[str]:
    return [f"{n:>{width}}│{line}" for n, line in enumerate(lines, first)]
