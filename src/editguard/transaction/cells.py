"""Edits of a notebook's cells: a tool's pure step, run on one cell's source as on a file.

A tool that edits text (edit_file, edit_lines, edit_symbol, ...) builds its change from a
:class:`~editguard.core.document.Document`. On a notebook, :func:`in_cell` gives it the source of
the cell the call names as that Document, then turns the change it made into a change of the
notebook's JSON: one replacement of the cell's ``source`` (written as Jupyter writes it, the rest
of the file byte for byte), the notebook checked against nbformat's schema as found and as left.
The cell's text is the change's :class:`~editguard.transaction.build.Subject`: the result's diff
is the cell's, the syntax guard checks it as a module of the kernel's language, the elision guard
its lines.

Without ``cell``, :func:`in_some_cell` runs the step on every cell and lands it where it fits,
if that is exactly one cell; else it refuses, naming the cells.

The step sees a cell's source as a file named after the cell and its language
(:func:`source_name`: ``nb.ipynb#cell3.py`` for a code cell of a Python kernel, ``.md`` for a
markdown cell), so that what goes by a file's kind (symbols, the comment syntax of elision
markers) goes by the cell's; its errors name the notebook.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from editguard.core.delta import common_ends
from editguard.core.document import Document, text_document, text_of, to_view
from editguard.core.notebook.model import Cell, Notebook, is_notebook, read_notebook
from editguard.core.notebook.schema import check_notebook, check_read
from editguard.core.notebook.write import replace_source, set_value
from editguard.core.plan import Plan, Replacement, applied
from editguard.errors import (
    AmbiguousMatch,
    CellNotFound,
    EditError,
    Frame,
    InvalidRequest,
    NoMatch,
    SymbolNotFound,
)
from editguard.transaction.build import C, Change, Subject
from editguard.transaction.notebooks_seen import found_valid

CellRef = int | str

# The extension a code cell is checked as, by the kernel's language (where the notebook's
# metadata gives no file_extension).
_EXTENSIONS = {
    "python": ".py",
    "javascript": ".js",
    "typescript": ".ts",
    "r": ".r",
    "julia": ".jl",
    "rust": ".rs",
    "go": ".go",
    "bash": ".sh",
    "ruby": ".rb",
    "java": ".java",
    "c++": ".cpp",
    "c": ".c",
}

# IPython's line magics and shell escapes (``%timeit f()``, ``!ls``, ``files = !ls``) and help
# (``f?``): not Python, so the syntax guard reads a placeholder of the same length instead.
_MAGIC = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?P<name>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=\s*)?"
    r"(?:[%!].*|\S.*\?\??)$"
)
# Cell magics whose body is still Python; any other (``%%bash``, ``%%file``, ``%%html``) makes
# the cell another language, which is not checked.
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "skip"}
# The refusals of a cell that holds what an edit names (its text more times than asked, or
# partly applied; its symbol twice, or with chunks that do not fit): without `cell`, such a cell
# is a candidate as much as one where the edit fits, as two such places in one file would be.
_FOUND_THERE = {"WRONG_COUNT", "AMBIGUOUS_MATCH", "AMBIGUOUS_SYMBOL", "CHUNK_MISMATCH"}
# How many cells a refusal names in its message (its data lists up to 50).
_SHOWN = 10
# A cell index sent as a string: as JSON writes an integer (no sign but "-", no leading zero).
_INDEX = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")


@dataclasses.dataclass(frozen=True, slots=True)
class CellCall:
    """How a call that edits text addresses a notebook: the cell it names (``None``: none),
    whether it may go without one (a search/replace lands in the one cell it fits) and
    whether an edited code cell loses its outputs."""

    ref: CellRef | None = None
    anywhere: bool = False
    clear_outputs: bool = False
    # The notebook is edited as the plain text of its JSON, unchecked (``--compat
    # filesystem``'s tools, as the reference server edits it).
    text: bool = False
    # Without ``ref``: only the code cells of the kernel's language are tried (a symbol is
    # looked for where there are symbols).
    code_only: bool = False


# A call that edits a notebook's JSON as plain text (see CellCall.text).
AS_TEXT = CellCall(text=True)


def notebook_build(
    build: Callable[[Document], C], real: str, call: CellCall | None
) -> Callable[[Document], Change]:
    """The build a call runs on the file ``real``: its own where the file is no notebook; on a
    notebook, by cell (``call``) or, from a tool that edits the file's text as a whole (a
    patch, write_file), its own with the result checked as a notebook."""
    if call is not None and call.ref is not None and not is_notebook(real) and not call.text:
        raise InvalidRequest(
            f"`cell` names a cell of a notebook (.ipynb), and {real.rsplit('/', 1)[-1]} is no "
            "notebook",
            data={"field": "cell"},
            suggestions=["Send the call again without `cell`."],
        )
    if not is_notebook(real) or (call is not None and call.text):
        return build
    if call is None:
        return whole(build)
    if call.ref is not None:
        return in_cell(build, call.ref, real, clear_outputs=call.clear_outputs)
    if call.anywhere:
        return in_some_cell(build, real, clear_outputs=call.clear_outputs, code_only=call.code_only)
    raise InvalidRequest(
        "the file is a notebook: name the cell to edit with `cell` (its index or id, as "
        "read_file shows them)",
        data={"field": "cell"},
        suggestions=["Read the notebook with read_file, then send the call again with `cell`."],
    )


def whole(build: Callable[[Document], C]) -> Callable[[Document], Change]:
    """``build`` on a notebook's whole text (a patch of its JSON, new content), its result
    checked as a notebook: JSON of a notebook's shape, valid by nbformat's schema. A notebook
    that was invalid as found is refused as found unless the result repairs it."""

    def build_whole(doc: Document) -> Change:
        change = build(doc)
        if not change.plan.changes(doc.text):
            return change
        new = change.plan.apply_to_text(doc.text)
        if not new.strip() and not doc.text.strip():
            return change  # an empty file made (or kept) empty: no notebook yet
        try:
            after = read_notebook(new, doc.name, found=False)
            check_notebook(after.data(), doc.name, found=False)
        except EditError:
            if doc.text.strip():
                read_valid(doc)  # refused as found, if it was invalid already
            raise
        return change

    return build_whole


def find_cell(nb: Notebook, ref: CellRef) -> Cell:
    """The cell ``ref`` names: an index (0-based, negative from the end) or an id (a string
    that writes an index as JSON would, ``"3"`` or ``"-1"``, is that index only if no cell has it
    as its id; ``"03"``, ``" 3"`` or other digits than ASCII's name no index: never a guess).

    Raises:
        CellNotFound: no such cell, listing the cells there are.
    """
    cells = nb.cells
    if isinstance(ref, str):
        for cell in cells:
            if cell.id == ref:
                return cell
        if _INDEX.fullmatch(ref):
            ref = int(ref)
    if isinstance(ref, int) and not isinstance(ref, bool) and -len(cells) <= ref < len(cells):
        return cells[ref]
    shown = repr(ref) if len(str(ref)) <= 80 else repr(str(ref)[:80]) + "..."
    raise CellNotFound(
        f"the notebook has no cell {shown}: it has {len(cells)} cell(s), "
        + (f"indexes 0-{len(cells) - 1}" if cells else "none")
        + (", ids " + ", ".join(f'"{c.id}"' for c in cells[:20] if c.id) if nb.has_ids else ""),
        data={"cells": [_outline(c) for c in cells[:50]]},
        suggestions=["Name a cell by its index or id as read_file shows them."],
    )


def _outline(cell: Cell) -> dict[str, Any]:
    first = cell.source.split("\n", 1)[0]
    out: dict[str, Any] = {"index": cell.index, "type": cell.cell_type}
    if cell.id:
        out["id"] = cell.id
    out["first_line"] = first[:80]
    return out


def read_valid(doc: Document) -> Notebook:
    """The notebook in ``doc``, refused unless it is valid as found.

    Raises:
        InvalidNotebook: not JSON, not a notebook's shape, or not valid by its schema.
    """
    nb = read_notebook(doc.text, doc.name, view=doc.utf8_view)
    if not found_valid():  # (checked as found by an earlier edit: notebooks_seen)
        check_read(nb, doc.name, found=True)
    return nb


def checked_name(nb: Notebook, cell: Cell, real: str) -> str | None:
    """The name the syntax guard checks a cell's source as (``None``: not checked): a code
    cell as a file of the kernel's language."""
    return checked_as(nb, cell.cell_type, cell.index, real)


def checked_as(nb: Notebook, cell_type: str, index: int, real: str) -> str | None:
    """:func:`checked_name` of a cell of type ``cell_type`` at ``index``."""
    if cell_type != "code":
        return None
    ext = _extension(nb)
    if ext is None:
        return None
    return f"{real}#cell{index}{ext}"


def source_name(nb: Notebook, cell: Cell, display: str) -> str:
    """The name a tool sees a cell's source under (see the module docstring): a code cell of
    the kernel's language (not one a cell magic such as ``%%bash`` makes another) as a file of
    that language, a markdown cell as ``.md``, any other without a kind."""
    base = f"{display}#cell{cell.index}"
    if cell.cell_type == "markdown":
        return base + ".md"
    ext = _extension(nb)
    return base + ext if ext is not None and in_language(nb, cell) else base


def in_language(nb: Notebook, cell: Cell) -> bool:
    """Whether ``cell`` is code of the kernel's language (a code cell that no cell magic such
    as ``%%bash`` makes another language)."""
    if cell.cell_type != "code":
        return False
    return _extension(nb) != ".py" or masked(cell.source, True) is not None


def _extension(nb: Notebook) -> str | None:
    """The extension of a file of the kernel's language (``.py``), if known."""
    info = nb.metadata.get("language_info")
    ext = info.get("file_extension") if isinstance(info, dict) else None
    if not isinstance(ext, str) or not ext.startswith("."):
        ext = _EXTENSIONS.get(nb.language)
    return ext


def masked(source: str, python: bool) -> str | None:
    """``source`` as the syntax guard reads it: in a Python cell, each magic, shell escape or
    help line replaced by a placeholder of the same length; ``None``: a cell magic makes it
    another language."""
    if not python:
        return source
    lines = source.split("\n")
    if lines and lines[0].startswith("%%"):
        magic = lines[0][2:].split(None, 1)
        if not magic or magic[0] not in _PYTHON_CELL_MAGICS:
            return None
        lines[0] = _placeholder(lines[0], "", None)
        start = 1
    else:
        start = 0
    for i in range(start, len(lines)):
        found = _MAGIC.match(lines[i])
        if found and lines[i].strip() and not lines[i].lstrip().startswith("#"):
            rest = lines[i][found.end("indent") :]
            if rest.startswith(("%", "!")) or found.group("name") or rest.rstrip().endswith("?"):
                lines[i] = _placeholder(lines[i], found.group("indent"), found.group("name"))
    return "\n".join(lines)


def _placeholder(line: str, indent: str, name: str | None) -> str:
    body = f"{name}=0" if name else "pass"  # never longer than the line it stands for
    out = indent + body
    return out + " " * (len(line) - len(out)) if len(out) <= len(line) else out


def cell_subject(
    nb: Notebook,
    cell: Cell,
    real: str,
    display: str,
    plan: Plan,
    check: Callable[[str], Any] | None = None,
    source: Document | None = None,
) -> Subject:
    """The subject of a change of ``cell``'s source by ``plan`` (on ``source``, the source as
    a Document, by default made of the cell's text), with the tool's own ``check`` of the new
    source."""
    before = dataclasses.replace(
        source or text_document(cell.source), name=f"{display}#cell {cell.index}"
    )
    name = checked_name(nb, cell, real)
    checked_as = None
    if name is not None and name.endswith(".py"):
        old, new = masked(before.text, True), masked(plan.apply_to_text(before.text), True)
        if old is None or new is None:
            name = None
        elif old != before.text or new != plan.apply_to_text(before.text):
            checked_as = (old, new, _span_plan(old, new))
    if check is not None and checked_as is not None:
        # The tool's check was made on the source as it is (magics and all), not on the
        # text the syntax guard reads.
        own, after = check, plan.apply_to_text(before.text)

        def check_source(_masked: str) -> Any:
            return own(after)

        check = check_source
    label = f"{display}#cell {cell.index}" + (f" (id {cell.id})" if cell.id else "")
    return Subject(label, name, before, plan, checked_as, check, cell.index, cell.id, notebook=nb)


def source_subject(
    nb: Notebook,
    index: int,
    cell_id: str | None,
    before: str,
    after: str,
    real: str,
    display: str,
) -> Subject:
    """A code cell at ``index`` (of the notebook as an edit leaves it) whose source goes from
    ``before`` to ``after`` (``""``: a new cell), as a subject the guards check and the diff
    does not show."""
    label = f"{display}#cell {index}" + (f" (id {cell_id})" if cell_id else "")
    doc = Document(before, name=label)
    plan = _span_plan(before, after)
    name = checked_as(nb, "code", index, real)
    checked = None
    if name is not None and name.endswith(".py"):
        old, new = masked(before, True), masked(after, True)
        if old is None or new is None:
            name = None
        elif old != before or new != after:
            checked = (old, new, _span_plan(old, new))
    return Subject(label, name, doc, plan, checked, None, index, cell_id, shown=False)


def _span_plan(old: str, new: str) -> Plan:
    """A plan of one replacement that turns ``old`` into ``new`` (their differing middle)."""
    head, tail = common_ends(old, new)
    if head + tail == len(old) == len(new):
        return Plan()
    return Plan((Replacement(head, len(old) - tail, new[head : len(new) - tail]),))


def in_cell(
    build: Callable[[Document], C],
    cell: CellRef,
    real: str,
    *,
    clear_outputs: bool = False,
) -> Callable[[Document], Change]:
    """``build`` (a tool's pure step) run on the source of the notebook cell ``cell``, as a
    change of the notebook (see the module docstring). ``clear_outputs``: a code cell whose
    source changes loses its outputs and execution count (as if never run); else they stay, as
    Jupyter keeps them until the cell runs again."""

    def build_notebook(doc: Document) -> Change:
        nb = read_valid(doc)
        target = find_cell(nb, cell)
        return _cell_change(nb, target, build, doc, real, clear_outputs)

    return build_notebook


def in_some_cell(
    build: Callable[[Document], C],
    real: str,
    *,
    clear_outputs: bool = False,
    code_only: bool = False,
) -> Callable[[Document], Change]:
    """``build`` run on every cell's source (``code_only``: every code cell of the kernel's
    language); the change lands in the one cell where it fits, if its text is in no other
    cell. Refused where it fits in none (NO_MATCH, the closest cell's error inside;
    SYMBOL_NOT_FOUND where no cell has the symbol), and where its text is in several cells:
    where it fits, or where it is found more times than asked (AMBIGUOUS_MATCH, naming them):
    never a guess between two places, even when only one of them would take the edit as sent.

    Empty cells are not tried. A cell where the step finds nothing to do and says so without
    refusing (safe_edit's pattern not found in interactive mode) is no fit; where no cell is,
    the notebook is left as it is, with the step's warnings."""

    def build_notebook(doc: Document) -> Change:
        nb = read_valid(doc)
        fits: list[Cell] = []
        found: list[Cell] = []  # the cells that hold the edit's text: where it fits, or crowds
        idle: list[Change] = []
        refusals: list[tuple[Cell, EditError]] = []
        for cell in nb.cells:
            if (code_only and not in_language(nb, cell)) or not cell.source.strip():
                continue  # (an empty cell holds nothing to find: a new text must name it)
            # Each try is checked against the schema only once it is the one that lands: a
            # whole notebook's check for every cell that fits would cost cells x fits.
            try:
                change = _cell_change(nb, cell, build, doc, real, clear_outputs, checked=False)
            except EditError as exc:
                refusals.append((cell, exc))
                if exc.code in _FOUND_THERE:
                    found.append(cell)
                continue
            if change.plan or any(e.already_applied or e.lines for e in change.applied):
                fits.append(cell)
                found.append(cell)
            else:
                idle.append(change)
        if not found and idle:
            return dataclasses.replace(idle[0], plan=Plan(), subjects=())
        if len(found) == 1 and len(fits) == 1:
            cell = fits[0]
            change = _cell_change(nb, cell, build, doc, real, clear_outputs)
            note = f"no cell named: the edit fits {cell.label()} only, and landed there"
            return dataclasses.replace(change, warnings=(*change.warnings, note))
        if len(found) > 1:
            more = len(found) - _SHOWN
            raise AmbiguousMatch(
                f"no cell named, and the edit's text is in {len(found)} cells: "
                + ", ".join(c.label() for c in found[:_SHOWN])
                + (f" and {more} more" if more > 0 else "")
                + "; name the one to edit with `cell`",
                data={"cells": [_outline(c) for c in found[:50]], "count": len(found)},
                suggestions=["Send the same call with `cell` set to the index or id meant."],
            )
        raise _nowhere(nb, refusals)

    return build_notebook


def _nowhere(nb: Notebook, refusals: list[tuple[Cell, EditError]]) -> EditError:
    """The refusal of an edit that fits no cell: where one cell refused it for another reason
    than a missing match (two places in it, say), that cell's error; else NO_MATCH showing
    the most similar lines of all cells, each with its cell."""
    other = [(c, e) for c, e in refusals if e.code not in ("NO_MATCH", "SYMBOL_NOT_FOUND")]
    if len(other) == 1:
        return other[0][1]
    if not other and refusals and all(e.code == "SYMBOL_NOT_FOUND" for _, e in refusals):
        return _no_symbol(refusals)
    near: list[tuple[float, Cell, dict[str, Any]]] = []
    for cell, exc in refusals:
        regions = exc.data.get("similar_content") or ()
        near.extend(
            (float(r.get("similarity", 0)), cell, r) for r in regions if isinstance(r, dict)
        )
    near.sort(key=lambda t: -t[0])
    shown = "".join(
        f"\n{cell.label()}, line {r.get('start_line')}, {round(sim * 100)}% similar:\n"
        + "\n".join(
            f"{n}│{line}"
            for n, line in enumerate(str(r.get("content", "")).split("\n"), r.get("start_line", 1))
        )
        for sim, cell, r in near[:3]
    )
    detail = "; ".join(f"{c.label()}: {e.code}" for c, e in other[:10])
    search = next((e.data["search_text"] for _, e in refusals if "search_text" in e.data), None)
    return NoMatch(
        f"no cell named, and the edit fits no cell of the notebook ({len(nb.cells)} cells)"
        + (f"; {detail}" if detail else "")
        + (f"\n\nMost similar lines (copy from these exactly):{shown}" if shown else ""),
        data={
            **({"search_text": search} if search is not None else {}),
            "similar_content": [
                {"cell": cell.index, **({"cell_id": cell.id} if cell.id else {}), **r}
                for _, cell, r in near[:3]
            ],
        },
        suggestions=[
            "Copy old_text from the cell meant (read_file shows each cell's lines), and name "
            "the cell with `cell`."
        ],
    )


def _no_symbol(refusals: list[tuple[Cell, EditError]]) -> EditError:
    """SYMBOL_NOT_FOUND in every cell tried: the closest names of each, with their cells."""
    first = refusals[0][1]
    wanted = first.data.get("symbol")
    candidates = [
        {"cell": cell.index, **({"cell_id": cell.id} if cell.id else {}), **c}
        for cell, exc in refusals
        for c in exc.data.get("candidates", ())[:3]
        if isinstance(c, dict)
    ][:15]
    shown = "\n".join(
        f"  {c.get('name_path')} in cell {c['cell']} ({c.get('kind')}, lines "
        f"{c.get('start_line')}-{c.get('end_line')})"
        for c in candidates
    )
    return SymbolNotFound(
        f"no cell named, and no code cell of the notebook ({len(refusals)} tried) defines "
        f"{wanted if wanted is not None else 'that symbol'}"
        + (f"; the closest names are:\n{shown}" if shown else ""),
        data={**({"symbol": wanted} if wanted is not None else {}), "candidates": candidates},
        suggestions=["Use list_symbols on the notebook to see every cell's name paths."],
    )


def _cell_change(
    nb: Notebook,
    cell: Cell,
    build: Callable[[Document], C],
    doc: Document,
    real: str,
    clear_outputs: bool,
    *,
    checked: bool = True,
) -> Change:
    """The notebook change that ``build`` makes to ``cell``'s source (``checked``: the
    notebook it leaves checked against the schema)."""
    if "source" not in cell.fields:
        raise CellNotFound(f"{cell.label()} has no source to edit")
    # The source's line breaks normalized, each one's ending kept (a cell written on Windows
    # holds "\r\n" in its strings): the edit keeps them as an edit of a file does.
    source = text_document(cell.source, name=source_name(nb, cell, doc.name))
    frame = Frame("cell", cell.index, len(nb.cells), name=cell.id)
    try:
        inner = build(source)
    except EditError as exc:
        _named_as_notebook(exc, source.name, doc.name)
        exc.add(frame)
        raise

    def remake(plan: Plan, checked: bool = True) -> tuple[Plan, Subject]:
        new_source = text_of(applied(source, plan))
        try:
            notebook_plan = _source_plan(
                nb, cell, new_source, doc.name, clear_outputs, checked=checked
            )
        except EditError as exc:
            exc.add(frame)
            raise
        subject = cell_subject(nb, cell, real, doc.name, plan, inner.check, source)
        return notebook_plan, dataclasses.replace(subject, remake=remake)

    notebook_plan, subject = remake(inner.plan, checked)
    return dataclasses.replace(inner, plan=notebook_plan, subjects=(subject,), check=None)


def _source_plan(
    nb: Notebook,
    cell: Cell,
    new_source: str,
    name: str,
    clear_outputs: bool,
    *,
    checked: bool = True,
) -> Plan:
    """The plan of the notebook's JSON that gives ``cell`` the source ``new_source`` (and,
    with ``clear_outputs``, a code cell no outputs), checked by nbformat's schema (unless not
    ``checked``).

    Raises:
        InvalidNotebook: the notebook would not be valid.
    """
    changed = new_source != cell.source
    reps = []
    if changed:
        reps.append(replace_source(nb, cell, new_source))
        if clear_outputs and cell.cell_type == "code":
            reps += _cleared(nb, cell)
    if nb.view:  # (the file read as a UTF-8 view: what is written, in the view's terms)
        reps = [dataclasses.replace(r, text=to_view(r.text)) for r in reps]
    if checked:
        data = dict(cell.data)
        data["source"] = new_source.splitlines(keepends=True)
        if clear_outputs and cell.cell_type == "code" and changed:
            data["outputs"], data["execution_count"] = [], None
        # The notebook as read passed read_valid: its other cells stay valid (see check_read).
        check_read(nb, name, found=False, changed={cell.index: data})
    return Plan(tuple(sorted(reps, key=lambda r: r.start)))


def _named_as_notebook(exc: EditError, source: str, notebook: str) -> None:
    """An error that names the cell's source as a file (:func:`source_name`) names the
    notebook instead: that is the file the caller knows."""
    exc.where = tuple(
        dataclasses.replace(f, name=notebook) if f.kind == "file" and f.name == source else f
        for f in exc.where
    )


def _cleared(nb: Notebook, cell: Cell) -> list[Replacement]:
    """Replacements that empty a code cell's outputs and execution count."""
    out = []
    if "outputs" in cell.fields and cell.outputs:
        out.append(set_value(nb, cell, "outputs", []))
    if "execution_count" in cell.fields and cell.data.get("execution_count") is not None:
        out.append(set_value(nb, cell, "execution_count", None))
    return out
