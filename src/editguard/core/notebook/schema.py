"""A notebook checked against the official schema (``nbformat``), as found and as an edit
leaves it.

``nbformat.validate`` repairs what it can before it checks (duplicate cell ids get new ones, in
the dict it is given), so a notebook with two cells of one id would pass; editguard checks with
``iter_validate``, which changes nothing, and checks the ids itself.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from typing import Any

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
    if problem is None:
        return
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
    raise InvalidNotebook(
        message,
        path=name,
        data={"where": where, "problem": what, "as_found": found},
        suggestions=[hint],
    )


def _problem(data: dict[str, Any]) -> tuple[str, str] | None:
    """Where the first problem is, and what it is (``None``: valid)."""
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
        path = getattr(error, "absolute_path", None) or getattr(error, "path", None) or ()
        return _where(list(path)), str(getattr(error, "message", error)).splitlines()[0][:300]
    cells = data.get("cells")
    if isinstance(cells, list):
        ids = [c.get("id") for c in cells if isinstance(c, dict) and c.get("id") is not None]
        twice = [i for i, n in Counter(ids).items() if n > 1]
        if twice:
            index = next(
                k for k, c in enumerate(cells) if isinstance(c, dict) and c.get("id") == twice[0]
            )
            return f"cells[{index}].id", f'the id "{twice[0]}" is given to more than one cell'
    return None


def _where(path: list[Any]) -> str:
    """A JSON path as ``cells[3].outputs[0].data``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(the notebook)"
