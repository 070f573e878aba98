"""``edit_notebook``: a notebook's structure changed (cells inserted, deleted, moved, a cell's
whole source or its type replaced), several edits in order, all or none; every other byte of
the file as it was (:mod:`editguard.core.notebook.structure`).

The result's diff is of the notebook's *outline* (each cell a ``# %% [type] id=...`` line and
its source), not of its JSON and not cell by cell: a cell inserted, moved or deleted shows there
among its neighbours, where a diff per cell would show a move as nothing and could not say
where a new cell went.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    WithJsonSchema,
    model_serializer,
)

from editguard.core.document import Document
from editguard.core.notebook.model import Notebook, is_notebook
from editguard.core.notebook.schema import check_notebook
from editguard.core.notebook.structure import (
    CellEdit,
    DeleteCell,
    InsertCell,
    MoveCell,
    PlacedCell,
    ReplaceCell,
    restructure,
)
from editguard.errors import InvalidRequest, TooManyEdits, error_context
from editguard.tools._common import (
    DRY_RUN_HELP,
    MODE_HELP,
    PATH_HELP,
    VERSION_HELP,
    Args,
    Checked,
    Validation,
)
from editguard.tools._tool import Tool
from editguard.transaction import Transaction
from editguard.transaction.build import Change, Mode, Subject
from editguard.transaction.cells import AS_TEXT, read_valid, source_subject

CellType = Literal["code", "markdown", "raw"]
# One schema for an index or an id, said once per field in the fewest bytes.
Ref = Annotated[int | str, WithJsonSchema({"type": ["integer", "string"]})]


class InsertCellOp(Args):
    """A new cell."""

    op: Literal["insert"]
    cell_type: CellType = "code"
    source: str = ""
    before: Ref | None = None
    after: Ref | None = None


class DeleteCellOp(Args):
    """A cell removed."""

    op: Literal["delete"]
    cell: Ref


class MoveCellOp(Args):
    """A cell moved."""

    op: Literal["move"]
    cell: Ref
    before: Ref | None = None
    after: Ref | None = None


class ReplaceCellOp(Args):
    """A cell's source or type replaced."""

    op: Literal["replace"]
    cell: Ref
    source: str | None = None
    cell_type: CellType | None = None
    clear_outputs: bool = False


NotebookEdit = Annotated[
    InsertCellOp | DeleteCellOp | MoveCellOp | ReplaceCellOp, Field(discriminator="op")
]


class EditNotebookArgs(Args):
    """Arguments of edit_notebook."""

    path: str = Field(description=PATH_HELP)
    edits: list[NotebookEdit] = Field(
        description=(
            "In order, each on the notebook the ones before left; a cell (cell, before, after) "
            "is an id or an index from 0, counted then. insert: cell_type (default code), "
            "source, before/after a cell (neither: at the end); delete: cell; move: cell, "
            "before/after (neither: to the end); replace: cell, source and/or cell_type, "
            "clear_outputs (a code cell's outputs and execution count; else they stay)."
        ),
    )
    dry_run: bool = Field(False, description=DRY_RUN_HELP)
    expected_version: str | None = Field(None, description=VERSION_HELP)
    mode: Mode = Field("strict", description=MODE_HELP)


class CellBrief(BaseModel):
    """A cell of the notebook after the call."""

    index: int
    id: str | None = None
    cell_type: str

    @model_serializer(mode="wrap")
    def _lean(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if isinstance(out, dict) and out.get("id") is None:
            out.pop("id", None)
        return out


class EditNotebookResult(Checked):
    """Result of edit_notebook."""

    path: str = Field(description="The file's real path (a symlink's target).")
    diff: str = Field(description="Unified diff of the notebook's outline: '# %% [type]' blocks.")
    cells: list[CellBrief] = Field(
        description="The cells the edits inserted, moved or replaced, where they stand now."
    )
    version: str = Field(description="Version of the file after this call; pass it to the next.")
    previous_version: str
    dry_run: bool
    written: bool = Field(description="Whether the file was written.")
    validation: Validation


def core_edit(edit: InsertCellOp | DeleteCellOp | MoveCellOp | ReplaceCellOp) -> CellEdit:
    """The core's edit for one edit of the request.

    Raises:
        InvalidRequest: both ``before`` and ``after``; a replace that replaces nothing.
    """
    if isinstance(edit, DeleteCellOp):
        return DeleteCell(edit.cell)
    if isinstance(edit, ReplaceCellOp):
        if edit.source is None and edit.cell_type is None and not edit.clear_outputs:
            raise InvalidRequest(
                "replace needs `source`, `cell_type`, `clear_outputs` or several",
                data={"field": "source"},
            )
        return ReplaceCell(edit.cell, edit.source, edit.cell_type, edit.clear_outputs)
    if edit.before is not None and edit.after is not None:
        raise InvalidRequest("give `before` or `after`, not both", data={"field": "before"})
    if isinstance(edit, InsertCellOp):
        return InsertCell(edit.cell_type, edit.source, edit.before, edit.after)
    return MoveCell(edit.cell, edit.before, edit.after)


def run(txn: Transaction, args: EditNotebookArgs) -> EditNotebookResult:
    """Apply the structural edits to the notebook and write it through the transaction.

    Raises:
        EditError: CELL_NOT_FOUND (``edit_index`` says which edit), INVALID_NOTEBOOK (as found,
            or as the edits would leave it), INVALID_REQUEST, TOO_MANY_EDITS, STALE_VERSION
            and the file errors of read_file, plus WRITE_FAILED.
    """
    if not args.edits:
        raise InvalidRequest("edits is empty: send at least one edit", data={"field": "edits"})
    if len(args.edits) > txn.ctx.max_edits:
        raise TooManyEdits(
            f"{len(args.edits)} edits in one call; the limit is {txn.ctx.max_edits}",
            data={"edits": len(args.edits), "limit": txn.ctx.max_edits},
            suggestions=["Split the edits over several calls."],
        )
    edits = []
    for i, edit in enumerate(args.edits):
        with error_context(edit_index=i, total_edits=len(args.edits)):
            try:
                edits.append(core_edit(edit))
            except InvalidRequest as exc:
                exc.data["field"] = f"edits[{i}].{exc.data['field']}"
                raise
    placed: list[CellBrief] = []

    def build(doc: Document) -> Change:
        if not is_notebook(doc.name):
            raise InvalidRequest(
                "edit_notebook edits Jupyter notebooks (.ipynb) only",
                data={"field": "path"},
                suggestions=["Use edit_file or write_file for other files."],
            )
        nb = read_valid(doc)
        done = restructure(nb, edits, doc.name)
        if done.plan:
            check_notebook(done.data, doc.name, found=False)
        placed[:] = [
            CellBrief(index=c.index, id=c.id, cell_type=c.cell_type)
            for c in done.cells
            if c.touched
        ]
        outline = Document(done.outline, name=f"{doc.name} (cells)")
        subject = Subject(f"{doc.name} (cells)", None, outline, done.outline_plan)
        return Change(done.plan, subjects=(subject, *_guarded(nb, done.cells, real, doc.name)))

    real = txn.ctx.sandbox.resolve(args.path).real
    out = txn.run_edit(
        args.path, build, mode=args.mode, expected_version=args.expected_version, cell=AS_TEXT
    )
    assert out.previous_version is not None  # the file is never created
    return EditNotebookResult(
        path=out.where.real,
        diff=out.diff(),
        cells=placed,
        version=out.version,
        previous_version=out.previous_version,
        dry_run=args.dry_run,
        written=out.written,
        validation=Validation.of(out.report),
    )


def _guarded(nb: Notebook, cells: tuple[PlacedCell, ...], real: str, display: str) -> list[Subject]:
    """The code cells whose source the edits wrote (inserted, replaced, made code), each a
    subject the syntax guard checks as a module of the kernel's language and the diff does not
    show (the outline shows them)."""
    out = []
    for cell in cells:
        if not cell.touched or cell.cell_type != "code":
            continue
        before = "" if cell.before is None else cell.before
        if before == cell.after and cell.before is not None:
            continue  # moved, or retyped to code with its source: nothing written in it
        out.append(source_subject(nb, cell.index, cell.id, before, cell.after, real, display))
    return out


TOOL = Tool(
    name="edit_notebook",
    title="Insert, delete, move or replace notebook cells",
    description=(
        "Change a Jupyter notebook's cells: insert, delete, move, or replace a cell's source "
        "or type; edits in order, all or none. New cells get an id (nbformat 4.5+) and no "
        "outputs. Other bytes stay as they were; the result must pass nbformat's schema, and "
        "code cells written pass the syntax guard (mode). "
        "Lines inside a cell: edit_file with `cell`. Returns a diff of the cells as "
        "'# %% [type] id=...' blocks, the touched cells (index, id, cell_type) and the version."
    ),
    arguments=EditNotebookArgs,
    result=EditNotebookResult,
    run=run,
)
