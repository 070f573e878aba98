"""``diagnostics``: the problems the analyzers find in a file, a folder or the roots as they are
on disk now, and what earlier edits' pending analyses (``problems_pending``) have found since."""

from __future__ import annotations

import os
import stat

from pydantic import BaseModel, Field

from editguard.errors import NotAFile
from editguard.tools._common import Args, ProblemModel, problem_models
from editguard.tools._tool import Tool
from editguard.transaction.context import Context
from editguard.transaction.read import text_reader


class DiagnosticsArgs(Args):
    """Arguments of diagnostics."""

    path: str | None = Field(None, description="A file or folder; default: every root.")


class DiagnosticsResult(BaseModel):
    """Result of diagnostics."""

    problems: list[ProblemModel] = Field(description="As the files are on disk now.")
    omitted: int | None = Field(None, description="Problems found but not listed.")
    introduced: list[ProblemModel] | None = Field(
        None, description="Problems earlier edits introduced, found since they answered."
    )
    fixed: int | None = Field(None, description="Problems those edits removed.")
    pending: list[str] | None = Field(None, description="Analyzers still working: ask again.")
    note: str | None = None


def run(ctx: Context, args: DiagnosticsArgs) -> DiagnosticsResult:
    """Ask every analyzer about the path as it is now, and collect finished pending analyses.

    Raises:
        EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_FILE (neither a file nor a folder).
    """
    analysis = ctx.analysis
    roots = ctx.sandbox.roots
    reals: list[str] = []
    folders: list[str] = list(roots)
    if args.path is not None:
        where = ctx.sandbox.resolve(args.path)
        try:
            st = os.stat(where.real)
        except OSError:
            from editguard.fs.oserror import not_found  # noqa: PLC0415 - on failure only

            raise not_found(where.display) from None
        if stat.S_ISDIR(st.st_mode):
            folders = [where.real]
        elif stat.S_ISREG(st.st_mode):
            reals, folders = [where.real], []
        else:
            raise NotAFile(f"{where.display} is neither a file nor a folder", path=where.display)
    if analysis is None:
        return DiagnosticsResult(problems=[], note="no analyzer is configured")
    current, introduced = analysis.diagnostics(reals, roots, text_reader(ctx), folders=folders)
    pending = list(dict.fromkeys([*current.pending, *introduced.pending]))
    notes = list(dict.fromkeys([*current.notes, *introduced.notes]))
    if not current.analysed and not reals:
        notes.append("no analyzer checks these files")
    elif not current.analysed:
        notes.append(f"no analyzer checks {args.path}; the analyzers: {', '.join(analysis.names)}")
    return DiagnosticsResult(
        problems=problem_models(current),
        omitted=current.omitted or None,
        introduced=problem_models(introduced) if introduced.analysed else None,
        fixed=introduced.fixed if introduced.analysed else None,
        pending=pending or None,
        note=" ".join(notes) or None,
    )


TOOL = Tool(
    name="diagnostics",
    title="Problems in files",
    description=(
        "List the problems the analyzers (ruff, type checkers, language servers) find in a "
        "file, a folder or all roots as they are on disk now. Returns problems (path, line, "
        "column, analyzer, code, message, text: the line as read_file shows it); "
        "introduced/fixed: what earlier edits' problems_pending analyses found since; "
        "pending: analyzers still working."
    ),
    arguments=DiagnosticsArgs,
    result=DiagnosticsResult,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)
