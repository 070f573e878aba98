"""What several tools share: the argument base, the mode, and the validation and outcome fields
of every writing tool's result."""

from __future__ import annotations

import contextlib
import json
import types
import typing
from typing import TYPE_CHECKING, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from editguard.core.document import EolStyle
from editguard.transaction.build import Mode, Outcome

if TYPE_CHECKING:
    from editguard.analyze import Verdict
    from editguard.transaction import Formatting
    from editguard.validate import Report

LineEnding = EolStyle  # one Literal for the core and the wire

MODE_HELP = (
    "If it adds syntax errors: strict refuses, interactive writes and warns, verify_only reports."
)

VERSION_HELP = "version from read_file or your last edit; changed since: STALE_VERSION."

DRY_RUN_HELP = "Return the diff, write nothing."

EXACT_HELP = "Match exactly: no near-miss tolerance."

PATH_HELP = "Relative to the root, or absolute."

FORMAT_HELP = "Format the lines written with the project's formatter (default: server's)."

ALLOW_MARKERS_HELP = "Allow '// ...' comments over code."


class Args(BaseModel):
    """The base of every tool's arguments: unknown fields are refused, types are strict (``true``
    is no line number, ``"1"`` no count, ``"yes"`` no boolean), and a list or object sent as a
    JSON string (as several MCP clients do) is parsed first."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)

    @model_validator(mode="before")
    @classmethod
    def _json_strings(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fields = _json_keys(cls)
        if not fields:
            return data
        out = dict(data)
        for keys in fields:
            for key in keys:
                value = out.get(key)
                if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
                    # Not JSON (or nested too deeply): validation then names the field.
                    with contextlib.suppress(ValueError, RecursionError):
                        out[key] = json.loads(value)
                elif isinstance(value, tuple):  # a Python caller's sequence; strict wants a list
                    out[key] = list(value)
        return out


# Per argument model: the names (with aliases) of each field a JSON string may stand for. Worked
# out once per model, not per validation: a list of 1,000 edits validates 1,000 models.
_JSON_KEYS: dict[type[BaseModel], list[list[str]]] = {}


def _json_keys(model: type[BaseModel]) -> list[list[str]]:
    keys = _JSON_KEYS.get(model)
    if keys is None:
        keys = [
            [name, *_aliases(field.validation_alias)]
            for name, field in model.model_fields.items()
            if not _takes_str(field.annotation) and _takes_json(field.annotation)
        ]
        _JSON_KEYS[model] = keys
    return keys


def _aliases(alias: Any) -> list[str]:
    choices = getattr(alias, "choices", None)
    if choices is not None:
        return [c for c in choices if isinstance(c, str)]
    return [alias] if isinstance(alias, str) else []


def _takes_json(annotation: Any) -> bool:
    """Whether a field of this type holds a list or an object (what a JSON string may stand
    for); a number or a boolean sent as a string is refused as it is, not parsed."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    origin = typing.get_origin(annotation)
    if origin in (list, dict):
        return True
    if origin in (Union, types.UnionType):
        return any(_takes_json(a) for a in typing.get_args(annotation))
    return False


def _takes_str(annotation: Any) -> bool:
    """Whether a field of this type may hold a string."""
    if annotation is str:
        return True
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return any(isinstance(a, str) for a in typing.get_args(annotation))
    if origin in (Union, types.UnionType):
        return any(_takes_str(a) for a in typing.get_args(annotation))
    return False


class FindingModel(BaseModel):
    """A problem the edit would introduce."""

    source: str = Field(description="syntax (tree-sitter), python, json, toml, yaml, or a linter")
    line: int
    column: int
    message: str
    line_text: str = Field(description="The new file's text of that line.")
    blocking: bool = Field(description="Whether it refuses the edit in strict mode.")
    code: str | None = None


class Validation(BaseModel):
    """What validation of the new text found (only problems the edit introduced)."""

    passed: bool = Field(description="No blocking finding.")
    findings: list[FindingModel]
    notes: list[str] = Field(description="Checks that were skipped, and why.")

    @classmethod
    def of(cls, report: Report) -> Validation:
        """The wire form of a validation report."""
        return cls(
            passed=not report.blocking,
            findings=[
                FindingModel.model_validate(f, from_attributes=True) for f in report.findings
            ],
            notes=list(report.notes),
        )


def outcome_fields(out: Outcome[Any], mode: Mode) -> dict[str, Any]:
    """The fields every writing tool's result takes from the transaction's outcome (a
    notebook's: the cell it edited)."""
    fields = {
        "path": out.where.real,
        "version": out.version,
        "previous_version": out.previous_version,
        "written": out.written,
        "mode": mode,
        "validation": Validation.of(out.report),
    }
    subjects = out.change.subjects
    if len(subjects) == 1 and subjects[0].cell is not None:
        fields["cell"], fields["cell_id"] = subjects[0].cell, subjects[0].cell_id
    return fields


CELL_HELP = "A notebook's cell (index from 0, or id): edit its source as a file."
CLEAR_OUTPUTS_HELP = "Notebook: clear the outputs of the code cell edited."


class InCell(BaseModel):
    """A base for what may lie in a notebook's cell: its ``cell`` and ``cell_id`` fields
    (declared by the subclass, where they go in its JSON) are left out where they are None,
    as they are for a file that is not a notebook."""

    @model_serializer(mode="wrap")
    def _lean(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if isinstance(out, dict):
            for key in ("cell", "cell_id"):
                if out.get(key) is None:
                    out.pop(key, None)
        return out


class ProblemModel(InCell):
    """A problem an analyzer found (after an edit: one the edit introduced)."""

    path: str
    line: int
    column: int
    analyzer: str = Field(description="ruff, basedpyright, typescript, or a language server")
    code: str | None = Field(description="The analyzer's rule or error code.")
    message: str
    text: str = Field(description="The line, as read_file shows it (N│text).")
    cell: int | None = Field(None, description="Notebook: the cell (index); line is within it.")
    cell_id: str | None = None


_PROBLEM_FIELDS = (
    "problems",
    "problems_fixed",
    "problems_pending",
    "problems_omitted",
    "problems_note",
    "formatted",
    "format_note",
    "cell",
    "cell_id",
)


class Checked(BaseModel):
    """The base of every writing tool's result: what the analyzers found after the edit, and
    what formatting did (each field left out where no analyzer checked the files, or nothing
    was formatted)."""

    problems: list[ProblemModel] | None = Field(
        None,
        description="Problems the edit introduced (in this file and the files that use it); "
        "the edit stands: these are for you to look at, not a refusal.",
    )
    problems_fixed: int | None = Field(None, description="How many problems the edit removed.")
    problems_pending: list[str] | None = Field(
        None, description="Analyzers still working: call diagnostics for their findings."
    )
    problems_omitted: int | None = Field(None, description="Problems found but not listed.")
    problems_note: str | None = None
    formatted: dict[str, str] | None = Field(
        None,
        description="{path: the written lines as formatted, numbered as read_file shows them}.",
    )
    format_note: str | None = Field(None, description="Why a file was left unformatted.")
    cell: int | None = Field(None, description="A notebook's cell the edit changed (its index).")
    cell_id: str | None = None

    @model_serializer(mode="wrap")
    def _lean(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if isinstance(out, dict):
            for key in _PROBLEM_FIELDS:
                if out.get(key) is None:
                    out.pop(key, None)
        return out


def problem_models(verdict: Verdict) -> list[ProblemModel]:
    """The wire form of a verdict's problems."""
    return [
        ProblemModel(
            path=s.problem.path,
            line=s.problem.line,
            column=s.problem.column,
            analyzer=s.problem.analyzer,
            code=s.problem.code or None,
            message=s.problem.message,
            text=s.text,
            cell=s.problem.cell,
            cell_id=s.problem.cell_id,
        )
        for s in verdict.problems
    ]


def problem_fields(verdict: Verdict, *, written: bool) -> dict[str, Any]:
    """The problem fields of a writing tool's result, from what the analyzers said."""
    if not verdict.analysed:
        return {}
    notes = list(dict.fromkeys(verdict.notes))
    if verdict.problems:
        notes.insert(
            0,
            "The edit was written; these problems came with it: look at them, it was not refused."
            if written
            else "Nothing was written; written, the edit would bring these problems.",
        )
    if verdict.pending:
        notes.append(
            f"Still checking: {', '.join(verdict.pending)}; the diagnostics tool gives what "
            "they find."
        )
    return {
        "problems": problem_models(verdict),
        "problems_fixed": verdict.fixed,
        "problems_pending": verdict.pending or None,
        "problems_omitted": verdict.omitted or None,
        "problems_note": " ".join(notes) or None,
    }


def format_fields(done: Formatting) -> dict[str, Any]:
    """The formatting fields of a writing tool's result (none where nothing was formatted
    and nothing was left unformatted)."""
    out: dict[str, Any] = {}
    if done.shown:
        out["formatted"] = dict(done.shown)
    if done.notes:
        out["format_note"] = " ".join(dict.fromkeys(done.notes))
    return out
