"""A Jupyter notebook read from its JSON text, with where each part of it stands in that text.

Editing a notebook must leave every byte it does not change as it was: the key order, the
indentation, the escaping and the final newline of the writer that made it (Jupyter, or any
other). So the notebook is not loaded and dumped again: :func:`read_notebook` scans the text once
(the C scanner of :mod:`json` decodes each value) and records, for each cell, the span of the
cell's object and of each of its values. An edit is then a replacement of a few spans (see
:mod:`~editguard.core.notebook.write`), and the rest of the text is untouched.

Spans are offsets in the normalized text of the file (:class:`~editguard.core.document.Document`
``text``), the coordinates of a :class:`~editguard.core.plan.Plan`; for a large file read as a
UTF-8 view (one character a byte, ``view=True``), offsets in the view, and every value is decoded
from the UTF-8 it holds.

Memory: a notebook's outputs (and attachments) are most of its bytes, images in base64. The scan
does not keep them decoded: a large output list is decoded again from its span when asked for
(:attr:`Cell.data`, :attr:`Cell.outputs`), so a notebook read costs its text and its sources,
not its text twice over.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from editguard.core.document import from_view
from editguard.errors import InvalidNotebook

_SPACES = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
# The C scanners of json (typeshed does not list them): a value at an index, no whitespace
# skipped, and a string's rest after its opening quote.
_SCAN = cast("Callable[[str, int], tuple[Any, int]]", getattr(_DECODER, "scan_once"))  # noqa: B009
scanstring = cast("Callable[[str, int], tuple[str, int]]", getattr(json.decoder, "scanstring"))  # noqa: B009

CELL_TYPES = ("code", "markdown", "raw")

# A cell's values that are not kept decoded when their JSON is longer than LAZY_CHARS: they
# are decoded again from the text when asked for (see the module docstring).
LAZY_KEYS = frozenset({"outputs", "attachments"})
LAZY_CHARS = 2048


@dataclass(frozen=True, slots=True)
class Field:
    """One key of a JSON object: where its key starts, where its value starts and ends."""

    key: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell: its position, its decoded JSON, and the spans of its object and values.

    ``known``: the values kept decoded (all but large outputs and attachments, see the module
    docstring); ``text`` and ``view``: the notebook's text the others are decoded from."""

    index: int
    start: int  # the "{" of the cell's object
    end: int  # after its "}"
    fields: dict[str, Field]
    known: dict[str, Any]
    text: str = ""
    view: bool = False

    @property
    def data(self) -> dict[str, Any]:
        """The cell's decoded JSON (a large output list decoded again at each call)."""
        if len(self.known) == len(self.fields):
            return self.known
        return {k: self.known[k] if k in self.known else self.value(k) for k in self.fields}

    def value(self, key: str) -> Any:
        """The decoded value of one of the cell's keys.

        Raises:
            KeyError: the cell has no such key.
        """
        if key in self.known:
            return self.known[key]
        field = self.fields[key]
        return decode_span(self.text, field.start, field.end, self.view)

    @property
    def id(self) -> str | None:
        """The cell's id (nbformat 4.5 and later), if it has one."""
        value = self.known.get("id")
        return value if isinstance(value, str) else None

    @property
    def cell_type(self) -> str:
        """``code``, ``markdown`` or ``raw`` (or what the file says, for one that is invalid)."""
        return str(self.known.get("cell_type", ""))

    @property
    def source(self) -> str:
        """The cell's source as one text (a list of lines joined, or the string)."""
        return source_text(self.value("source") if "source" in self.fields else "")

    @property
    def outputs(self) -> list[Any]:
        """The outputs of a code cell (none for another)."""
        value = self.value("outputs") if "outputs" in self.fields else None
        return value if isinstance(value, list) else []

    def label(self) -> str:
        """How messages name the cell: ``cell 3 (id "a1b2")``."""
        return f'cell {self.index} (id "{self.id}")' if self.id else f"cell {self.index}"


@dataclass(frozen=True, slots=True)
class Style:
    """How the writer of the file lays out its JSON, so that what an edit adds looks the same.

    ``indent``: one level of indentation (``None``: everything on one line); ``ascii``:
    characters beyond ASCII are written as ``\\uXXXX`` escapes; ``separator``: between the
    items of a list written on one line; ``cell_keys``: the order of the keys of a cell,
    as the file has them (sorted, when its cells are sorted or it has none).
    """

    indent: str | None
    ascii: bool
    separator: str
    sorted_keys: bool
    cell_keys: tuple[str, ...]
    colon: str = ": "  # between a key and its value (``":"`` minified)


@dataclass(frozen=True, slots=True)
class Notebook:
    """A notebook as read (see the module docstring)."""

    text: str
    top: dict[str, Field]  # the top-level keys
    metadata: dict[str, Any]
    nbformat: int
    nbformat_minor: int
    cells: tuple[Cell, ...]
    cells_start: int  # the "[" of the cells list
    cells_end: int  # after its "]"
    style: Style
    view: bool = False  # text is a UTF-8 view (one character a byte)

    @property
    def language(self) -> str:
        """The kernel's language, lowercase (``python`` when the notebook does not say)."""
        for where in (self.metadata.get("kernelspec"), self.metadata.get("language_info")):
            if isinstance(where, dict):
                name = where.get("language") or where.get("name")
                if isinstance(name, str) and name:
                    return name.lower()
        return "python"

    @property
    def has_ids(self) -> bool:
        """Whether the format gives every cell an id (nbformat 4.5 and later)."""
        return (self.nbformat, self.nbformat_minor) >= (4, 5)

    def data(self) -> dict[str, Any]:
        """The whole notebook decoded (the cells' kept values shared, not copied; their large
        outputs decoded again)."""
        out = self.top_data()
        if "cells" in out:
            out["cells"] = [c.data for c in self.cells]
        return out

    def top_data(self) -> dict[str, Any]:
        """The notebook's top level decoded, with an empty cells list."""
        out: dict[str, Any] = {}
        for key, field in self.top.items():
            if key == "cells":
                out[key] = []
            elif key == "metadata" and self.text.startswith("{", field.start):
                out[key] = self.metadata
            else:
                out[key] = decode_span(self.text, field.start, field.end, self.view)
        return out


def source_text(source: Any) -> str:
    """A cell's ``source`` as one text: nbformat allows a list of lines or one string."""
    if isinstance(source, list):
        return "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def is_notebook(name: str) -> bool:
    """Whether a file called ``name`` is a Jupyter notebook (by its extension)."""
    return name.lower().endswith(".ipynb")


def decode_span(text: str, start: int, end: int, view: bool = False) -> Any:
    """The JSON value that stands at ``text[start:end]`` (in a view: decoded from its UTF-8)."""
    if view:
        return json.loads(from_view(text[start:end]))
    return _SCAN(text, start)[0]


def read_notebook(text: str, name: str = "", *, view: bool = False, found: bool = True) -> Notebook:
    """Scan a notebook's JSON text (see the module docstring); ``view``: the text is a UTF-8
    view of the file (:attr:`~editguard.core.document.Document.utf8_view`); ``found``: the text
    is the file's as it is on disk (else: as an edit would leave it, which the refusal says).

    Only the shape editing needs is checked here (a JSON object with a list of cell objects,
    each one a JSON object); the schema is checked by
    :func:`~editguard.core.notebook.schema.check_notebook`.

    Raises:
        InvalidNotebook: the text is not JSON, or not a notebook's shape.
    """
    scanner = _Scanner(text, name, view, found)
    return scanner.notebook()


class _Scanner:
    def __init__(self, text: str, name: str, view: bool = False, found: bool = True) -> None:
        self.text = text
        self.name = name
        self.view = view
        self.found = found
        self.top_values: dict[str, Any] = {}
        self.found_cells: tuple[Cell, ...] | None = None

    def fail(self, what: str, pos: int) -> InvalidNotebook:
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        name = self.name or "the file"
        if self.found:
            message = f"{name} is not a notebook that can be edited: {what}"
            hint = "Repair the notebook's JSON (e.g. in Jupyter), then edit it again."
        else:
            message = f"the edit would leave {name} no notebook's JSON: {what}"
            hint = (
                "Change the edit so that the JSON stays valid, or edit the cell's source with "
                "`cell` (edit_file), which writes the JSON itself."
            )
        where = f"line {line}, column {column}" + ("" if self.found else " of the result")
        return InvalidNotebook(
            f"{message} ({where})" + ("" if self.found else "; nothing was written"),
            path=self.name or None,
            data={"line": line, "column": column, "as_found": self.found},
            suggestions=[hint],
        )

    def skip(self, pos: int) -> int:
        found = _SPACES.match(self.text, pos)
        return found.end() if found is not None else pos

    def value(self, pos: int) -> tuple[Any, int]:
        try:
            return _SCAN(self.text, pos)
        except StopIteration:
            raise self.fail("a JSON value was expected", pos) from None
        except json.JSONDecodeError as exc:
            raise self.fail(f"invalid JSON ({exc.msg})", exc.pos) from None
        except RecursionError:
            raise self.fail("invalid JSON (nested too deeply)", pos) from None
        except ValueError as exc:
            raise self.fail(f"invalid JSON ({exc})", pos) from None

    def real(self, value: Any, start: int, end: int) -> Any:
        """A value the scan decoded, as the file means it: in a view, a value holding more
        than ASCII decoded again from its UTF-8."""
        if self.view and not isinstance(value, int | float | bool | type(None)):
            span = self.text[start:end]
            if not span.isascii():
                return json.loads(from_view(span))
        return value

    def fields(
        self, pos: int, values: dict[str, Any], lazy: bool = False
    ) -> tuple[dict[str, Field], int]:
        """The keys of the object that starts at ``pos`` (its ``{``), and its end; each value,
        decoded, goes into ``values`` (the top level's cells into :attr:`found_cells`; with
        ``lazy``, a cell's large outputs nowhere: see the module docstring)."""
        text = self.text
        out: dict[str, Field] = {}
        pos = self.skip(pos + 1)
        if text.startswith("}", pos):
            return out, pos + 1
        while True:
            if not text.startswith('"', pos):
                raise self.fail("a key was expected", pos)
            key_at = pos
            try:
                key, pos = scanstring(text, pos + 1)
            except json.JSONDecodeError as exc:
                raise self.fail(f"invalid JSON ({exc.msg})", pos) from None
            pos = self.skip(pos)
            if not text.startswith(":", pos):
                raise self.fail("':' was expected", pos)
            start = self.skip(pos + 1)
            if key in out:
                raise self.fail(f'the key "{key}" appears twice', key_at)
            if values is self.top_values and key == "cells":
                self.found_cells, end = self.cells(start)
            else:
                value, end = self.value(start)
                if not (lazy and key in LAZY_KEYS and end - start > LAZY_CHARS):
                    values[key] = self.real(value, start, end)
                del value
            out[key] = Field(key_at, start, end)
            pos = self.skip(end)
            if text.startswith(",", pos):
                pos = self.skip(pos + 1)
                continue
            if text.startswith("}", pos):
                return out, pos + 1
            raise self.fail("',' or '}' was expected", pos)

    def notebook(self) -> Notebook:
        text = self.text
        pos = self.skip(0)
        if not text.startswith("{", pos):
            raise self.fail("a JSON object was expected", pos)
        values = self.top_values
        top, end = self.fields(pos, values)
        if self.skip(end) != len(text):
            raise self.fail("text after the notebook's JSON object", self.skip(end))
        cells = self.found_cells
        if cells is None:
            raise self.fail('no "cells" list', pos)
        cells_field = top["cells"]
        found = values.get("metadata")
        metadata: dict[str, Any] = found if isinstance(found, dict) else {}
        major = _int(values.get("nbformat"))
        minor = _int(values.get("nbformat_minor"))
        return Notebook(
            view=self.view,
            text=text,
            top=top,
            metadata=metadata,
            nbformat=major,
            nbformat_minor=minor,
            cells=cells,
            cells_start=cells_field.start,
            cells_end=cells_field.end,
            style=self.style(top, cells),
        )

    def cells(self, pos: int) -> tuple[tuple[Cell, ...], int]:
        """The cells of the list that starts at ``pos`` (its ``[``), and its end."""
        text = self.text
        if not text.startswith("[", pos):
            raise self.fail('"cells" is not a list', pos)
        out: list[Cell] = []
        pos = self.skip(pos + 1)
        if text.startswith("]", pos):
            return (), pos + 1
        while True:
            if not text.startswith("{", pos):
                raise self.fail(f"cell {len(out)} is not a JSON object", pos)
            data: dict[str, Any] = {}
            fields, end = self.fields(pos, data, lazy=True)
            out.append(Cell(len(out), pos, end, fields, data, text, self.view))
            pos = self.skip(end)
            if text.startswith(",", pos):
                pos = self.skip(pos + 1)
                continue
            if text.startswith("]", pos):
                return tuple(out), pos + 1
            raise self.fail("',' or ']' was expected", pos)

    def style(self, top: dict[str, Field], cells: tuple[Cell, ...]) -> Style:
        text = self.text
        first = min((f.key for f in top.values()), default=0)
        line_start = text.rfind("\n", 0, first) + 1
        # The whitespace before the first key on its line (none, for json.dumps' indent=0);
        # no indentation where the key shares its line with the "{" (everything on one line).
        lead = text[line_start:first]
        indent: str | None = lead if line_start > 0 and not lead.strip(" \t") else None
        # Jupyter writes characters beyond ASCII as they are; a file that escapes them
        # (and has none written as they are) was written with ensure_ascii.
        ascii_ = text.isascii() and _escapes_beyond_ascii(text)
        separator = ", " if indent is not None else _separator(text, top)
        keys = [tuple(c.fields) for c in cells]
        sorted_keys = all(list(k) == sorted(k) for k in keys) and list(top) == sorted(top)
        order: tuple[str, ...] = ()
        if keys and not sorted_keys:
            order = max(keys, key=len)
        return Style(indent, ascii_, separator, sorted_keys, order, _colon(text, top))


def _separator(text: str, top: dict[str, Field]) -> str:
    """What a file laid out on one line puts between two items: what stands between two of
    its top-level values (``", "`` by json.dumps' default, ``","`` minified); text inside the
    strings, which may hold either, is never looked at."""
    fields = sorted(top.values(), key=lambda f: f.key)
    for before, after in itertools.pairwise(fields):
        between = text[before.end : after.key]
        if between.startswith(",") and not between[1:].strip():
            return between
    return ", "


def _colon(text: str, top: dict[str, Field]) -> str:
    """What the file puts between a key and its value: what stands between its first key's
    closing quote and its value (``": "`` by json.dumps' default, ``":"`` minified)."""
    first = min(top.values(), key=lambda f: f.key)
    end = scanstring(text, first.key + 1)[1]
    between = text[end : first.start]
    return between if between.strip() == ":" else ": "


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _escapes_beyond_ascii(text: str) -> bool:
    """Whether ``text`` holds a ``\\uXXXX`` escape of a character beyond ASCII (a file written
    with ``ensure_ascii``), not an escaped backslash followed by ``u``."""
    at = text.find("\\u")
    while at >= 0:
        digits = text[at + 2 : at + 6]
        back = at
        while back > 0 and text[back - 1] == "\\":
            back -= 1
        backslashes = at - back  # before this one
        if backslashes % 2 == 0 and _HEX.fullmatch(digits) and int(digits, 16) >= 0x80:
            return True
        at = text.find("\\u", at + 2)
    return False


_HEX = re.compile(r"[0-9a-fA-F]{4}")
