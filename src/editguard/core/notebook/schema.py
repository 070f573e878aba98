"""A notebook checked against the official schema (``nbformat``), as found and as an edit
leaves it.

``nbformat.validate`` repairs what it can before it checks (duplicate cell ids get new ones, in
the dict it is given), so a notebook with two cells of one id would pass; editguard checks with
``iter_validate``, which changes nothing, and checks the ids itself.

A notebook as read (:func:`check_read`) is checked a few cells at a time: its top level, then
its cells in groups of a few megabytes, each group decoded only while it is checked, so that a
large notebook's outputs are never all decoded at once. nbformat's schema checks each cell by
itself (its ``cells`` are an array of ``#/definitions/cell``; nothing relates two cells but the
ids, checked here over all of them), so the verdict is the whole notebook's. A cell edit
(``changed``) of a notebook found valid checks the top level, the changed cells and the ids.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from editguard.core.notebook.model import Notebook
from editguard.errors import InvalidNotebook

# The pattern nbformat 4.5's schema gives a cell id (checked by the schema too; here for the
# ids editguard makes and for a clear message).
CELL_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


def check_notebook(data: dict[str, Any], name: str, *, found: bool) -> None:
    """Refuse a notebook that the nbformat schema of its version does not accept, or whose
    cells share an id. ``found``: the notebook as it is on disk (else: as an edit would leave
    it).

    Raises:
        InvalidNotebook: saying what is wrong and where (``cells[3].source``).
    """
    problem = _problem(data)
    if problem is not None:
        raise _refusal(name, problem, found)


# The JSON characters of cells checked at once by check_read.
GROUP_CHARS = 4_000_000


def check_read(
    nb: Notebook,
    name: str,
    *,
    found: bool,
    changed: Mapping[int, dict[str, Any]] | None = None,
    group_chars: int = GROUP_CHARS,
) -> None:
    """:func:`check_notebook` for a notebook as read, a group of cells at a time (see the module
    docstring). ``changed``: {index: a cell's new object}, for the notebook as it would be with
    those cells instead, where the notebook as read is known to be valid (:func:`check_read`
    passed): then only its top level, those cells and the ids are checked. ``group_chars``:
    the JSON characters of the cells decoded and checked at once.

    Raises:
        InvalidNotebook: as :func:`check_notebook`.
    """
    top = nb.top_data()
    problem = _schema_problem(top)
    if problem is None:
        cells = nb.cells
        if changed is None:
            groups: Iterator[tuple[int, list[dict[str, Any]]]] = _groups(nb, group_chars)
        else:
            groups = ((i, [data]) for i, data in sorted(changed.items()))
        for first, group in groups:
            problem = _schema_problem({**top, "cells": group}, first)
            if problem is not None:
                break
        else:
            ids = [
                changed[c.index].get("id") if changed and c.index in changed else c.id
                for c in cells
            ]
            problem = _duplicate_ids(ids)
    if problem is not None:
        raise _refusal(name, problem, found)


def _groups(nb: Notebook, limit: int) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """The notebook's cells decoded a group at a time, each with its first cell's index."""
    group: list[dict[str, Any]] = []
    first, size = 0, 0
    for cell in nb.cells:
        group.append(cell.data)
        size += cell.end - cell.start
        if size >= limit:
            yield first, group
            group, first, size = [], cell.index + 1, 0
    if group:
        yield first, group


def _refusal(name: str, problem: tuple[str, str], found: bool) -> InvalidNotebook:
    where, what = problem
    if found:
        message = (
            f"{name} is not a valid notebook as it is ({where}: {what}); it is not edited "
            "until it is repaired"
        )
        hint = "Repair it first (e.g. open and save it in Jupyter, or write_file it whole)."
    else:
        message = (
            f"the edit would leave {name} an invalid notebook ({where}: {what}); nothing was "
            "written"
        )
        hint = "Change the edit so that the notebook stays valid (nbformat's schema)."
    return InvalidNotebook(
        message,
        path=name,
        data={"where": where, "problem": what, "as_found": found},
        suggestions=[hint],
    )


def _problem(data: dict[str, Any]) -> tuple[str, str] | None:
    """Where the first problem is, and what it is (``None``: valid)."""
    problem = _schema_problem(data)
    if problem is not None:
        return problem
    cells = data.get("cells")
    if isinstance(cells, list):
        return _duplicate_ids([c.get("id") if isinstance(c, dict) else None for c in cells])
    return None


def _schema_problem(data: dict[str, Any], first: int = 0) -> tuple[str, str] | None:
    """The first problem nbformat's schema finds (``first``: the index in the notebook of the
    first cell of ``data``'s cells, for where it is)."""
    from nbformat import validator  # noqa: PLC0415 - loads with the first notebook

    major, minor = data.get("nbformat"), data.get("nbformat_minor")
    if not isinstance(major, int) or not isinstance(minor, int) or isinstance(major, bool):
        return "nbformat", "the notebook does not say its format version"
    if major != 4:
        return "nbformat", f"format {major} is not supported (only nbformat 4)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            errors = validator.iter_validate(  # type: ignore[no-untyped-call]
                data, version=major, version_minor=minor
            )
            error = next(iter(errors), None)
        except Exception as exc:  # noqa: BLE001 - a schema the validator cannot load
            return "nbformat", f"cannot be checked ({type(exc).__name__}: {exc})"
    if error is not None:
        path = list(getattr(error, "absolute_path", None) or getattr(error, "path", None) or ())
        if first and len(path) > 1 and path[0] == "cells" and isinstance(path[1], int):
            path[1] += first
        return _where(path), str(getattr(error, "message", error)).splitlines()[0][:300]
    return None


def _duplicate_ids(ids: list[Any]) -> tuple[str, str] | None:
    """Where an id given to two cells first stands (``ids``: each cell's, ``None`` for none)."""
    twice = [i for i, n in Counter(i for i in ids if i is not None).items() if n > 1]
    if twice:
        index = ids.index(twice[0])
        return f"cells[{index}].id", f'the id "{twice[0]}" is given to more than one cell'
    return None


def _where(path: list[Any]) -> str:
    """A JSON path as ``cells[3].outputs[0].data``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(the notebook)"
