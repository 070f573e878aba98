"""Writing into a notebook's JSON text the way its writer would, and nothing else.

Every function here returns a :class:`~editguard.core.plan.Replacement` (or its text) for a span
that :func:`~editguard.core.notebook.model.read_notebook` found: a cell's source, a new cell, a
cell removed. The spans around it stay as they are, byte for byte.

A source is written as Jupyter writes it: a list of lines, each but the last ending with its
line break (``str.splitlines(keepends=True)``, as nbformat's ``split_lines``), one item a line,
indented one level deeper than the key, with the file's escaping.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable
from typing import Any

from editguard.core.notebook.model import Cell, Notebook, Style
from editguard.core.plan import Replacement

# The keys of a new cell in the order nbformat writes them (sorted) and the order a file that
# does not sort its keys gets, when none of its cells shows one.
_DEFAULT_ORDER = ("cell_type", "execution_count", "id", "metadata", "outputs", "source")


def dumps(value: Any, style: Style) -> str:
    """One JSON value, on one line, escaped as the file escapes."""
    return json.dumps(value, ensure_ascii=style.ascii, separators=(style.separator, style.colon))


def line_indent(text: str, pos: int) -> str:
    """The whitespace that starts the line holding ``pos``."""
    start = text.rfind("\n", 0, pos) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def source_lines(source: str) -> list[str]:
    """A source as the list of lines Jupyter writes (see the module docstring)."""
    return source.splitlines(keepends=True)


def source_value(nb: Notebook, source: str, key_at: int) -> str:
    """The JSON of a source, laid out as in ``nb`` for a key that starts at ``key_at``."""
    lines = source_lines(source)
    style = nb.style
    if not lines:
        return "[]"
    items = [dumps(line, style) for line in lines]
    if style.indent is None:
        return "[" + style.separator.join(items) + "]"
    outer = line_indent(nb.text, key_at)
    inner = outer + style.indent
    return "[\n" + ",\n".join(inner + item for item in items) + "\n" + outer + "]"


def replace_source(nb: Notebook, cell: Cell, source: str) -> Replacement:
    """Replace a cell's source (one that has a ``source`` key, as every valid cell does)."""
    field = cell.fields["source"]
    return Replacement(field.start, field.end, source_value(nb, source, field.key))


def set_value(nb: Notebook, cell: Cell, key: str, value: Any) -> Replacement:
    """Replace the value of a cell's existing key by ``value`` (a short value: a type, an
    execution count, an empty list)."""
    field = cell.fields[key]
    return Replacement(field.start, field.end, _value(nb, value, field.key))


def _value(nb: Notebook, value: Any, key_at: int) -> str:
    """A value written at a key that starts at ``key_at``: a list or object laid out as the
    file lays them out (an empty one as ``[]`` or ``{}``)."""
    if nb.style.indent is None or not isinstance(value, list | dict) or not value:
        return dumps(value, nb.style)
    text = json.dumps(value, indent=nb.style.indent, ensure_ascii=nb.style.ascii)
    outer = line_indent(nb.text, key_at)
    return text.replace("\n", "\n" + outer)


def new_id(taken: Iterable[str]) -> str:
    """A fresh cell id, as Jupyter makes them (8 hex digits), not among ``taken``."""
    used = set(taken)
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in used:
            return candidate


def new_cell(nb: Notebook, cell_type: str, source: str, cell_id: str | None) -> dict[str, Any]:
    """A new cell's object, keys in the order the file's cells have them: a code cell with no
    outputs and no execution count; an id where the format has ids."""
    values: dict[str, Any] = {
        "cell_type": cell_type,
        "metadata": {},
        "source": source_lines(source),
    }
    if cell_id is not None:
        values["id"] = cell_id
    if cell_type == "code":
        values["execution_count"] = None
        values["outputs"] = []
    return ordered(values, nb.style)


def ordered(values: dict[str, Any], style: Style) -> dict[str, Any]:
    """``values`` with its keys in the order the file's cells have them."""
    rank = _rank(style, list(values))
    return dict(sorted(values.items(), key=lambda kv: rank(kv[0])))


def cell_text(nb: Notebook, cell: dict[str, Any]) -> str:
    """A cell's object as the file would write it in its cells list (indented at the depth of
    a cell, the first line without its indentation)."""
    style = nb.style
    if style.indent is None:
        return dumps(cell, style)
    depth = style.indent * 2  # the top object's keys are one level in, the cells two
    parts = []
    for key, value in cell.items():
        if key == "source" and isinstance(value, list) and value:
            items = ",\n".join(depth + style.indent * 2 + dumps(v, style) for v in value)
            shown = "[\n" + items + "\n" + depth + style.indent + "]"
        elif isinstance(value, list | dict) and value:
            shown = json.dumps(value, indent=style.indent, ensure_ascii=style.ascii)
            shown = shown.replace("\n", "\n" + depth + style.indent)
        else:
            shown = dumps(value, style)
        parts.append(depth + style.indent + dumps(key, style) + style.colon + shown)
    return "{\n" + ",\n".join(parts) + "\n" + depth + "}"


def cell_separator(nb: Notebook) -> str:
    """What stands between two cells of the list: a comma, and the line break and indentation
    of a cell where the file indents."""
    if nb.style.indent is None:
        return nb.style.separator
    return ",\n" + nb.style.indent * 2


def cells_list(nb: Notebook, cells: list[str]) -> str:
    """The whole cells list, from its ``[`` to its ``]``, of the cells' texts in order (each as
    found in the file, or made by :func:`cell_text`)."""
    if not cells:
        return "[]"
    if nb.style.indent is None:
        return "[" + nb.style.separator.join(cells) + "]"
    indent = nb.style.indent
    return "[\n" + indent * 2 + cell_separator(nb).join(cells) + "\n" + indent + "]"


def remove_keys(nb: Notebook, cell: Cell, keys: Iterable[str]) -> list[Replacement]:
    """Replacements that take ``keys`` (those the cell has) out of a cell's object, each with
    the comma and the line break that went with it, so that the keys left read as the file
    wrote them."""
    gone = set(keys) & set(cell.fields)
    if not gone:
        return []
    fields = sorted(cell.fields.items(), key=lambda kv: kv[1].key)
    out = []
    i = 0
    while i < len(fields):
        if fields[i][0] not in gone:
            i += 1
            continue
        j = i
        while j + 1 < len(fields) and fields[j + 1][0] in gone:
            j += 1
        if j + 1 < len(fields):  # up to the next key kept
            out.append(Replacement(fields[i][1].key, fields[j + 1][1].key, ""))
        elif i > 0:  # the last keys: from the end of the value before them
            out.append(Replacement(fields[i - 1][1].end, fields[j][1].end, ""))
        else:  # every key: an empty object
            out.append(Replacement(fields[i][1].key, fields[j][1].end, ""))
        i = j + 1
    return out


def add_keys(nb: Notebook, cell: Cell, values: dict[str, Any]) -> list[Replacement]:
    """Replacements that add the keys of ``values`` (short values) that a cell's object lacks,
    each where the file's order of keys puts it, laid out as the keys around it."""
    new = {k: v for k, v in values.items() if k not in cell.fields}
    if not new:
        return []
    rank = _rank(nb.style, [*cell.fields, *new])
    fields = sorted(cell.fields.items(), key=lambda kv: kv[1].key)
    at: dict[int, list[str]] = {}  # the position of the existing key each new one goes before
    after: list[str] = []  # those that go after the last key
    for key in sorted(new, key=rank):
        following = next((f for k, f in fields if rank(k) > rank(key)), None)
        if following is None:
            after.append(key)
        else:
            at.setdefault(following.key, []).append(key)
    style = nb.style
    out = []
    for pos, keys in at.items():
        gap = style.separator if style.indent is None else ",\n" + line_indent(nb.text, pos)
        text = "".join(_key_value(nb, k, new[k]) + gap for k in keys)
        out.append(Replacement(pos, pos, text))
    if after:
        if fields:
            last = fields[-1][1]
            gap = (
                style.separator if style.indent is None else ",\n" + line_indent(nb.text, last.key)
            )
            text = "".join(gap + _key_value(nb, k, new[k]) for k in after)
            out.append(Replacement(last.end, last.end, text))
        else:
            raise ValueError("a cell without keys")  # read_valid refuses such a notebook
    return sorted(out, key=lambda r: r.start)


def _key_value(nb: Notebook, key: str, value: Any) -> str:
    return dumps(key, nb.style) + nb.style.colon + dumps(value, nb.style)


def _rank(style: Style, keys: list[str]) -> Callable[[str], tuple[int, str]]:
    """The rank of a key in the order the file gives a cell's keys (see :func:`ordered`)."""
    if style.sorted_keys or not style.cell_keys:
        order = sorted(keys) if style.sorted_keys else list(_DEFAULT_ORDER)
    else:
        order = list(style.cell_keys)
    where = {k: i for i, k in enumerate(order)}
    return lambda key: (where.get(key, len(where)), key)
