"""The structure of a notebook changed: cells inserted, deleted, moved, their source replaced or
their type changed, as a plan on the notebook's JSON text that leaves every other byte as it was.

:func:`restructure` applies the edits in order to a list of the notebook's cells, each edit on
the list the ones before left: a cell named by index is counted there, a cell named by id is
found wherever the edits before put it. Then the plan is made from where the cells stand at the
end. The notebook's cells that no edit moved stay in place (a cell's text
is never rewritten); a cell deleted goes with its separator; a cell inserted, or moved out of
that run, is written at its place (a moved cell as its own slice of the file, a new one laid out
as the file lays out its cells, :func:`~editguard.core.notebook.write.cell_text`); a cell whose
source or type changed gets replacements of those values only. A plan is thus a few small
replacements, whatever the size of the outputs around them.

A new cell has no outputs (a code cell: ``outputs: []``, ``execution_count: null``) and, where
the format has ids (nbformat 4.5 and later), a new id. A code cell made markdown or raw loses
its outputs and execution count (the schema forbids them there); a cell made code gets them
empty.

The change is also given as an *outline*, a text of the cells as ``# %% [type] id=...``
blocks with their source, before and after, with a plan between them: a diff of it shows cells
inserted, moved and deleted among their neighbours.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from editguard.core.notebook.model import CELL_TYPES, Cell, Notebook, read_notebook
from editguard.core.notebook.write import (
    add_keys,
    cell_separator,
    cell_text,
    cells_list,
    new_cell,
    new_id,
    remove_keys,
    replace_source,
    set_value,
)
from editguard.core.plan import Plan, Replacement
from editguard.errors import CellNotFound, InternalError, InvalidRequest, error_context

CellRef = int | str

# Below this size the new text is read back as a notebook and compared with what the edits
# meant (a second copy of the file, decoded, is too much memory above it).
_READ_BACK_LIMIT = 1_000_000


@dataclasses.dataclass(frozen=True, slots=True)
class InsertCell:
    """A new cell before or after the cell named, or (neither) at the end."""

    cell_type: str = "code"
    source: str = ""
    before: CellRef | None = None
    after: CellRef | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DeleteCell:
    """The cell named, removed."""

    cell: CellRef


@dataclasses.dataclass(frozen=True, slots=True)
class MoveCell:
    """The cell named, put before or after another, or (neither) at the end."""

    cell: CellRef
    before: CellRef | None = None
    after: CellRef | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ReplaceCell:
    """The cell named with a new source, a new type, or both (``None``: kept)."""

    cell: CellRef
    source: str | None = None
    cell_type: str | None = None
    clear_outputs: bool = False  # a code cell's outputs and execution count emptied


CellEdit = InsertCell | DeleteCell | MoveCell | ReplaceCell


@dataclasses.dataclass(frozen=True, slots=True)
class PlacedCell:
    """A cell of the result: where it stands, and whether an edit touched it (inserted,
    moved, its source or type replaced)."""

    index: int
    id: str | None
    cell_type: str
    touched: bool
    # The source it had before the edits (None: a new cell) and has after them.
    before: str | None = None
    after: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class Restructured:
    """What :func:`restructure` made: the plan on the notebook's text, the decoded result
    (for the schema check), the result's cells, and the outline before with its plan."""

    plan: Plan
    data: dict[str, Any]
    cells: tuple[PlacedCell, ...]
    outline: str
    outline_plan: Plan


@dataclasses.dataclass(slots=True)
class _Item:
    """A cell while the edits run: one of the notebook's (``origin``) or a new one."""

    origin: Cell | None
    cell_type: str
    source: str | None  # None: the origin's, untouched
    id: str | None
    touched: bool = False
    moved: bool = False
    cleared: bool = False  # a code cell of the notebook whose outputs the edits empty

    @property
    def text(self) -> str:
        return self.source if self.source is not None else _origin(self).source

    @property
    def retyped(self) -> bool:
        return self.origin is not None and self.cell_type != self.origin.cell_type


def _origin(item: _Item) -> Cell:
    assert item.origin is not None
    return item.origin


def restructure(nb: Notebook, edits: Sequence[CellEdit], name: str = "") -> Restructured:
    """Apply ``edits`` in order to the cells of ``nb`` (see the module docstring).

    Raises:
        CellNotFound: an edit names a cell the notebook (as the edits before left it) does not
            have; ``edit_index`` says which edit.
        InvalidRequest: an edit that is not well formed (an unknown cell type, both ``before``
            and ``after``).
    """
    items = [_Item(c, c.cell_type, None, c.id) for c in nb.cells]
    taken = {c.id for c in nb.cells if c.id}
    for i, edit in enumerate(edits):
        with error_context(edit_index=i, total_edits=len(edits)):
            _apply(nb, items, edit, taken)
    plan, outline, outline_plan = _plans(nb, items)
    data = nb.top_data()  # (its cells are the items': none decoded twice)
    data["cells"] = [_data(item) for item in items]
    if plan and len(nb.text) <= _READ_BACK_LIMIT:
        _read_back(nb, plan, data, name)
    cells = tuple(
        PlacedCell(
            k,
            item.id,
            item.cell_type,
            item.touched,
            None if item.origin is None else item.origin.source,
            item.text if item.touched else "",
        )
        for k, item in enumerate(items)
    )
    return Restructured(plan, data, cells, outline, outline_plan)


def _apply(nb: Notebook, items: list[_Item], edit: CellEdit, taken: set[str]) -> None:
    """One edit on the list of cells."""
    if isinstance(edit, InsertCell):
        _check_type(edit.cell_type)
        at = _place(items, edit.before, edit.after)
        cell_id = new_id(taken) if nb.has_ids else None
        if cell_id is not None:
            taken.add(cell_id)
        items.insert(at, _Item(None, edit.cell_type, edit.source, cell_id, touched=True))
    elif isinstance(edit, DeleteCell):
        items.pop(_find(items, edit.cell))
    elif isinstance(edit, MoveCell):
        k = _find(items, edit.cell)
        target = items[k]
        anchor = _anchor(items, edit.before, edit.after)
        if anchor is None:
            items.pop(k)
            items.append(target)
        elif items[anchor] is not target:
            neighbour = items[anchor]
            items.pop(k)
            at = items.index(neighbour)
            items.insert(at if edit.before is not None else at + 1, target)
        target.touched = target.moved = True
    else:
        k = _find(items, edit.cell)
        item = items[k]
        if edit.cell_type is not None:
            _check_type(edit.cell_type)
            item.cell_type = edit.cell_type
        if edit.source is not None and edit.source != item.text:
            item.source = edit.source
        if item.origin is not None and item.source == item.origin.source:
            item.source = None  # the same text: the file's bytes stay
        if edit.clear_outputs:
            item.cleared = True
        item.touched = True


def _check_type(cell_type: str) -> None:
    if cell_type not in CELL_TYPES:
        raise InvalidRequest(
            f"unknown cell type {cell_type!r}; use code, markdown or raw",
            data={"field": "cell_type"},
        )


def _anchor(items: list[_Item], before: CellRef | None, after: CellRef | None) -> int | None:
    """The index of the cell ``before`` or ``after`` names (``None``: neither is given)."""
    if before is not None and after is not None:
        raise InvalidRequest("give `before` or `after`, not both", data={"field": "before"})
    ref = before if before is not None else after
    return None if ref is None else _find(items, ref)


def _place(items: list[_Item], before: CellRef | None, after: CellRef | None) -> int:
    """Where a new cell goes in ``items``."""
    anchor = _anchor(items, before, after)
    if anchor is None:
        return len(items)
    return anchor if before is not None else anchor + 1


def _find(items: list[_Item], ref: CellRef) -> int:
    """The position of the cell ``ref`` names among ``items``: by id, else by index (0-based,
    negative from the end; a string of digits is an index only if no cell has it as its id).

    Raises:
        CellNotFound: no such cell, listing the cells there are.
    """
    if isinstance(ref, str):
        for k, item in enumerate(items):
            if item.id == ref:
                return k
        text = ref.strip()
        if text.lstrip("-").isdigit():
            ref = int(text)
    if isinstance(ref, int) and not isinstance(ref, bool) and -len(items) <= ref < len(items):
        return ref % len(items)
    ids = [f'"{item.id}"' for item in items[:20] if item.id]
    raise CellNotFound(
        f"the notebook has no cell {ref!r}: after the edits before this one it has "
        f"{len(items)} cell(s)"
        + (f", indexes 0-{len(items) - 1}" if items else "")
        + (", ids " + ", ".join(ids) if ids else ""),
        data={
            "cell": ref,
            "cells": [
                {"index": k, **({"id": item.id} if item.id else {}), "type": item.cell_type}
                for k, item in enumerate(items[:50])
            ],
        },
        suggestions=[
            "Name a cell by its index (counted after the edits before this one) or its id, as "
            "read_file shows them."
        ],
    )


def _data(item: _Item) -> dict[str, Any]:
    """The decoded cell the item stands for."""
    if item.origin is None:
        data: dict[str, Any] = {
            "cell_type": item.cell_type,
            "metadata": {},
            "source": _lines(item.text),
        }
        if item.id is not None:
            data["id"] = item.id
        if item.cell_type == "code":
            data["execution_count"], data["outputs"] = None, []
        return data
    data = dict(item.origin.data)
    data["cell_type"] = item.cell_type
    if item.source is not None:
        data["source"] = _lines(item.source)
    if item.retyped:
        if item.cell_type == "code":
            data.setdefault("execution_count", None)
            data.setdefault("outputs", [])
        else:
            data.pop("execution_count", None)
            data.pop("outputs", None)
    elif _clears(item):
        data["execution_count"], data["outputs"] = None, []
    return data


def _clears(item: _Item) -> bool:
    """Whether the edits empty the outputs of a code cell of the notebook that stays code (a
    cell made code gets them empty anyway; one made markdown or raw loses them)."""
    return (
        item.cleared and item.origin is not None and not item.retyped and (item.cell_type == "code")
    )


def _lines(source: str) -> list[str]:
    return source.splitlines(keepends=True)


def _kept_in_place(items: list[_Item]) -> set[int]:
    """The indexes of the notebook's cells that stay where they are in the text: every cell no
    edit moved (moves aside, the edits keep the order of the cells), and a moved cell that
    stands between those around it in their order. So a diff shows the cell that was moved
    as the one that moved, and no cell is written again that need not be."""
    following: list[int | None] = [None] * len(items)  # the next unmoved cell's index
    upcoming: int | None = None
    for k in range(len(items) - 1, -1, -1):
        following[k] = upcoming
        origin = items[k].origin
        if origin is not None and not items[k].moved:
            upcoming = origin.index
    kept: set[int] = set()
    last = -1
    for k, item in enumerate(items):
        if item.origin is None:
            continue
        index = item.origin.index
        bound = following[k]
        if not item.moved or (last < index and (bound is None or index < bound)):
            kept.add(index)
            last = index
    return kept


def _fields(nb: Notebook, item: _Item) -> list[Replacement]:
    """The replacements inside an original cell's object that its source and type need."""
    cell = _origin(item)
    out = []
    if item.source is not None:
        out.append(replace_source(nb, cell, item.source))
    if item.retyped:
        out.append(set_value(nb, cell, "cell_type", item.cell_type))
        if item.cell_type == "code":
            out += add_keys(nb, cell, {"execution_count": None, "outputs": []})
        else:
            out += remove_keys(nb, cell, ("execution_count", "outputs"))
    elif _clears(item):
        if "outputs" in cell.fields and cell.outputs:
            out.append(set_value(nb, cell, "outputs", []))
        if "execution_count" in cell.fields and cell.value("execution_count") is not None:
            out.append(set_value(nb, cell, "execution_count", None))
    return sorted(out, key=lambda r: r.start)


def _cell_json(nb: Notebook, item: _Item) -> str:
    """The text of a cell written away from its place: a new cell laid out as the file lays
    out its cells, a moved one as its slice of the file (with its own replacements)."""
    if item.origin is None:
        return cell_text(nb, new_cell(nb, item.cell_type, item.text, item.id))
    origin = item.origin
    reps = _fields(nb, item)
    if not reps:
        return nb.text[origin.start : origin.end]
    parts = []
    pos = origin.start
    for r in reps:
        parts += [nb.text[pos : r.start], r.text]
        pos = r.end
    parts.append(nb.text[pos : origin.end])
    return "".join(parts)


def _block(item: _Item) -> str:
    """A cell in the outline: a header line and its source."""
    source = item.text
    head = f"# %% [{item.cell_type}]" + (f" id={item.id}" if item.id else "")
    if _clears(item):
        head += " (outputs cleared)"
    return head + "\n" + source + ("\n" if source and not source.endswith("\n") else "")


def _plans(nb: Notebook, items: list[_Item]) -> tuple[Plan, str, Plan]:
    """The plan on the notebook's text, the outline before, and the plan on it."""
    cells = nb.cells
    text = nb.text
    blocks = [_block(_Item(c, c.cell_type, None, c.id)) for c in cells]
    starts = [0]
    for block in blocks:
        starts.append(starts[-1] + len(block))
    outline = "".join(blocks)
    kept = _kept_in_place(items)
    reps: list[Replacement] = []
    lines: list[Replacement] = []  # on the outline
    sep = text[cells[0].end : cells[1].start] if len(cells) > 1 else cell_separator(nb)
    if not kept:
        if items or cells:
            reps.append(
                Replacement(
                    nb.cells_start, nb.cells_end, cells_list(nb, [_cell_json(nb, i) for i in items])
                )
            )
            lines.append(Replacement(0, len(outline), "".join(_block(i) for i in items)))
        return _plan(reps, text), outline, _plan(lines, outline)
    # Walk the result: the cells kept in place, and between them (a gap) the ones written
    # there; the notebook's cells between two kept ones are gone from there.
    previous = -1  # index of the last kept cell
    pending: list[_Item] = []
    for item in [*items, None]:
        if item is not None and (item.origin is None or item.origin.index not in kept):
            pending.append(item)
            continue
        here = len(cells) if item is None else _origin(item).index
        texts = [_cell_json(nb, p) for p in pending]
        new_blocks = "".join(_block(p) for p in pending)
        removed = here - previous - 1 > 0
        if previous < 0 and here < len(cells):  # before the first kept cell
            if removed or texts:
                written = "".join(t + sep for t in texts)
                reps.append(Replacement(cells[0].start, cells[here].start, written))
        elif here == len(cells):  # after the last kept cell
            last = cells[previous]
            if removed or texts:
                between = text[last.end : cells[previous + 1].start] if removed else sep
                end = cells[-1].end if removed else last.end
                reps.append(Replacement(last.end, end, "".join(between + t for t in texts)))
        else:
            a, b = cells[previous], cells[here]
            between = text[a.end : cells[previous + 1].start]
            if removed:
                reps.append(
                    Replacement(a.end, b.start, between + "".join(t + between for t in texts))
                )
            elif texts:
                reps.append(Replacement(a.end, a.end, "".join(between + t for t in texts)))
        if removed or pending:
            lines.append(Replacement(starts[previous + 1], starts[here], new_blocks))
        if item is not None:
            reps += _fields(nb, item)
            if item.source is not None or item.retyped or _clears(item):
                k = _origin(item).index
                lines.append(Replacement(starts[k], starts[k + 1], _block(item)))
            previous = here
        pending = []
    return _plan(reps, text), outline, _plan(lines, outline)


def _plan(reps: list[Replacement], text: str) -> Plan:
    """The replacements that change something, sorted."""
    return Plan(
        tuple(sorted((r for r in reps if text[r.start : r.end] != r.text), key=lambda r: r.start))
    )


def _read_back(nb: Notebook, plan: Plan, data: dict[str, Any], name: str) -> None:
    """Check that the new text reads as the notebook the edits meant (a bug would otherwise
    be written).

    Raises:
        InternalError: it does not.
    """
    try:
        after = read_notebook(plan.apply_to_text(nb.text), name)
    except Exception as exc:  # noqa: BLE001 - any failure here is a bug
        raise InternalError(f"the edited notebook does not read back ({exc})") from None
    if after.data() != data:
        raise InternalError("the edited notebook does not read back as the edits meant")
