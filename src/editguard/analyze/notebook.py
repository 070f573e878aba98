"""A notebook's code as the analyzers see it: the cells' sources, and where a problem stands
in them.

An analyzer checks a notebook as a whole (a name a cell defines is known in the cells after
it), but reports a problem by cell: its index (from 0, as read_file and ``cell`` count) and its
line within the cell's source. To tell which problems an edit introduced, the cells' sources
are laid end to end, each followed by a marker line, and problems compared there
(:func:`flat`): a cell edit then moves the problems of the cells after it as an edit of a file
moves the lines below, and a problem of an untouched cell is never new.

The analyzers are given the notebook without its outputs (:func:`lean`): what they read of it
(cell types, sources, the kernel's language) in a text a fraction of the file's size. Pure:
texts in, values out.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from editguard.analyze.problem import Problem, compare
from editguard.core.notebook.model import Notebook, read_notebook
from editguard.errors import EditError

# The line that stands between two cells' sources in the flat text (no source line is one: a
# NUL character in a source is written as an escape, and no code holds one).
MARKER = "\x00"

# The top-level metadata an analyzer reads (which language the notebook's code is).
_LANGUAGE_KEYS = ("kernelspec", "language_info")


@dataclass(frozen=True, slots=True)
class CellCode:
    """One cell as the analyzers see it."""

    index: int
    id: str | None
    cell_type: str
    source: str


def _read(text: str, view: bool = False) -> Notebook | None:
    try:
        return read_notebook(text, view=view)
    except EditError:
        return None


# Up to this size a notebook's text is decoded whole to find its cells (fast); a larger one is
# scanned, its outputs never all decoded at once.
DECODE_CHARS = 4_000_000


def cells_of(text: str | None) -> list[CellCode] | None:
    """The cells of a notebook's JSON text (``None``: no text, or not a notebook)."""
    if text is None:
        return None
    if len(text) <= DECODE_CHARS:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return None
        cells = data.get("cells") if isinstance(data, dict) else None
        if not isinstance(cells, list):
            return None
        return [_code(i, c if isinstance(c, dict) else {}) for i, c in enumerate(cells)]
    nb = _read(text)
    if nb is None:
        return None
    return [CellCode(c.index, c.id, c.cell_type, c.source) for c in nb.cells]


def _code(index: int, cell: dict[str, Any]) -> CellCode:
    found, source = cell.get("id"), cell.get("source", "")
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return CellCode(
        index,
        found if isinstance(found, str) else None,
        str(cell.get("cell_type", "")),
        source if isinstance(source, str) else "",
    )


def lean(text: str, *, view: bool = False) -> str:
    """The notebook without what no analyzer reads: outputs, execution counts, attachments
    and the cells' metadata go; the cells (all of them, in order: the problems' cell numbers
    stay the file's), their types, ids and sources and the kernel's language stay. A text
    that is not a notebook is returned as it is (the analyzer reports it unreadable). The
    outputs are never decoded all at once (see :mod:`~editguard.core.notebook.model`).
    ``view``: ``text`` is a UTF-8 view of the file."""
    nb = _read(text, view)
    return text if nb is None else lean_of(nb)


def lean_of(nb: Notebook) -> str:
    """:func:`lean` of a notebook already read."""
    cells = []
    for cell in nb.cells:
        kept: dict[str, Any] = {
            "cell_type": cell.cell_type,
            "metadata": {},
            "source": cell.known.get("source", ""),
        }
        if cell.id is not None:
            kept["id"] = cell.id
        if cell.cell_type == "code":
            kept["execution_count"] = None
            kept["outputs"] = []
        cells.append(kept)
    out = {
        "cells": cells,
        "metadata": {k: nb.metadata[k] for k in _LANGUAGE_KEYS if k in nb.metadata},
        "nbformat": nb.nbformat or 4,
        "nbformat_minor": nb.nbformat_minor,
    }
    return json.dumps(out, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Flat:
    """The cells' sources end to end (see the module docstring): ``text``, and the line of the
    flat text before each cell's first line."""

    text: str
    starts: tuple[int, ...]

    def line_of(self, problem: Problem) -> Problem:
        """The problem at its line in the flat text."""
        if problem.cell is None or not 0 <= problem.cell < len(self.starts):
            return problem
        return dataclasses.replace(problem, line=self.starts[problem.cell] + problem.line)


def flat(cells: Sequence[CellCode]) -> Flat:
    """The :class:`Flat` text of these cells."""
    parts = []
    starts = []
    line = 0
    for cell in cells:
        starts.append(line)
        parts.append(cell.source)
        line += cell.source.count("\n") + 2  # its lines, then the marker
    return Flat(f"\n{MARKER}\n".join(parts), tuple(starts))


def with_id(cells: Sequence[CellCode] | None, problem: Problem) -> Problem:
    """The problem with its cell's id (where the cell has one)."""
    if not cells or problem.cell is None or not 0 <= problem.cell < len(cells):
        return problem
    found = cells[problem.cell].id
    return dataclasses.replace(problem, cell_id=found) if found is not None else problem


def cell_line(cells: Sequence[CellCode] | None, problem: Problem) -> str:
    """The text of a problem's line within its cell (``""``: no such line)."""
    if not cells or problem.cell is None or not 0 <= problem.cell < len(cells):
        return ""
    lines = cells[problem.cell].source.split("\n")
    return lines[problem.line - 1] if 0 < problem.line <= len(lines) else ""


def compare_cells(
    before: Sequence[Problem], after: Sequence[Problem], old: str | None, new: str | None
) -> tuple[list[Problem], list[Problem]]:
    """:func:`~editguard.analyze.problem.compare` for a notebook whose JSON text went from
    ``old`` to ``new``: the problems compared where they stand in the cells' flat text (see
    the module docstring), returned as the analyzer gave them (by cell)."""
    old_cells = cells_of(old) or []
    new_cells = cells_of(new) or []
    old_flat, new_flat = flat(old_cells), flat(new_cells)
    given: dict[int, Problem] = {}

    def placed(problems: Sequence[Problem], where: Flat) -> list[Problem]:
        out = []
        for p in problems:
            moved = where.line_of(p)
            given[id(moved)] = p
            out.append(moved)
        return out

    flat_before, flat_after = placed(before, old_flat), placed(after, new_flat)
    new_found, fixed = compare(
        flat_before,
        flat_after,
        old_flat.text if old is not None else None,
        new_flat.text if new is not None else None,
    )
    return [given[id(p)] for p in new_found], [given[id(p)] for p in fixed]


def with_sources(lean_text: str, sources: Mapping[int, str]) -> str:
    """A :func:`lean` notebook with these cells' sources (by index) changed: what an edit of
    those cells' sources leaves for the analyzers, made without the edited file's text."""
    data = json.loads(lean_text)
    for index, source in sources.items():
        data["cells"][index]["source"] = source.splitlines(keepends=True)
    return json.dumps(data, ensure_ascii=False)


class CodeChange:
    """A cell edit's code for the analyzers, before and after, each made when asked: the
    notebook without its outputs (:func:`lean`, of ``nb`` when the edit read it already, else
    of ``text``), and the same with the cells' new ``sources``; never the edited JSON."""

    def __init__(
        self, text: str, view: bool, nb: Notebook | None, sources: Mapping[int, str]
    ) -> None:
        self._text, self._view, self._nb, self._sources = text, view, nb, sources
        self._before: str | None = None

    def before(self) -> str:
        """The notebook's code as read."""
        if self._before is None:
            nb = self._nb
            self._before = lean_of(nb) if nb is not None else lean(self._text, view=self._view)
        return self._before

    def after(self) -> str:
        """The notebook's code as the edit leaves it."""
        return with_sources(self.before(), self._sources)
