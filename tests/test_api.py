"""The Python API is the tools' API: ``Workspace.call`` runs every tool of the registry by name,
each typed Workspace method takes exactly its tool's arguments and returns its tool's result, and
every type a user meets in a signature is importable from editguard."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import editguard
from editguard import Workspace
from editguard.tools import TOOLS, Tool

# A tool needs no method of its own to be called from Python (Workspace.call); the typed methods
# there are, are the same calls.
TYPED = [t for t in TOOLS if hasattr(Workspace, t.name)]


@pytest.mark.parametrize("tool", TYPED, ids=[t.name for t in TYPED])
def test_each_workspace_method_takes_exactly_its_tools_arguments(tool: Tool[Any, Any]) -> None:
    params = inspect.signature(getattr(Workspace, tool.name)).parameters
    taken = {name: p for name, p in params.items() if name != "self"}
    fields = tool.arguments.model_fields
    assert set(taken) == set(fields)
    for name, field in fields.items():
        default = taken[name].default
        if field.is_required():
            assert default is inspect.Parameter.empty, name
        else:
            assert default == field.default, name


@pytest.mark.parametrize("tool", TYPED, ids=[t.name for t in TYPED])
def test_each_workspace_method_returns_its_tools_result(tool: Tool[Any, Any]) -> None:
    hints = typing.get_type_hints(getattr(Workspace, tool.name))
    assert hints["return"] is tool.result


def _classes(annotation: Any) -> set[type]:
    """The editguard classes an annotation names, and those of the models inside them."""
    out: set[type] = set()
    args = typing.get_args(annotation)
    if args or typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for arg in args:
            out |= _classes(arg)
        return out
    if isinstance(annotation, type) and annotation.__module__.startswith("editguard"):
        out.add(annotation)
        if issubclass(annotation, BaseModel):
            for field in annotation.model_fields.values():
                out |= _classes(field.annotation)
    return out


def test_every_type_in_a_public_signature_is_exported() -> None:
    methods = [Workspace.__init__, *(getattr(Workspace, t.name) for t in TYPED)]
    named: set[type] = set()
    for method in methods:
        for annotation in typing.get_type_hints(method).values():
            named |= _classes(annotation)
    assert named, "the walk found no editguard type at all"
    missing = sorted(c.__name__ for c in named if getattr(editguard, c.__name__, None) is not c)
    assert not missing, f"add these to editguard.__all__: {missing}"
    assert {"Mode", *(c.__name__ for c in named)} <= set(editguard.__all__)


def test_a_malformed_python_call_is_the_same_error_as_over_mcp(tmp_path: Any) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    ws = Workspace([tmp_path])
    with pytest.raises(editguard.InvalidRequest) as by_python:
        ws.edit_file("a.txt", [{"old_text": "x"}])
    tool = next(t for t in TOOLS if t.name == "edit_file")
    with pytest.raises(editguard.InvalidRequest) as by_wire:
        tool.call(ws.context, {"path": "a.txt", "edits": [{"old_text": "x"}]})
    assert by_python.value.to_dict() == by_wire.value.to_dict()
    assert (by_python.value.edit_index, by_python.value.total_edits) == (0, 1)
    assert by_python.value.data["field"] == "edits[0].new_text"


@pytest.mark.parametrize("tool", TOOLS, ids=[t.name for t in TOOLS])
def test_every_tool_runs_through_workspace_call(tool: Tool[Any, Any], tmp_path: Any) -> None:
    # Without arguments a tool either runs (its arguments all have defaults) and returns its
    # result, or refuses exactly as it does over MCP; never a Python error of the front.
    ws = Workspace([tmp_path], history=False)
    refusal: editguard.EditError | None = None
    try:
        result = ws.call(tool.name)
    except editguard.EditError as err:
        refusal = err
    if refusal is None:
        assert isinstance(result, tool.result)
        return
    with pytest.raises(editguard.EditError) as by_wire:
        tool.call(ws.context, {})
    assert refusal.to_dict() == by_wire.value.to_dict()


def test_workspace_call_is_the_typed_method(tmp_path: Any) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    ws = Workspace([tmp_path], history=False)
    assert ws.call("read_file", path="a.txt", start_line=2) == ws.read_file("a.txt", start_line=2)
    edited = ws.call("edit_file", path="a.txt", edits=[{"old_text": "two", "new_text": "2"}])
    assert isinstance(edited, editguard.EditFileResult)
    assert (tmp_path / "a.txt").read_text() == "one\n2\n"


def test_workspace_call_refuses_a_tool_that_is_not_there(tmp_path: Any) -> None:
    ws = Workspace([tmp_path], history=False)
    with pytest.raises(editguard.InvalidRequest) as err:
        ws.call("delete_everything", path=".")
    assert err.value.data["tools"] == [t.name for t in TOOLS]
    assert "there is no tool 'delete_everything'" in err.value.message
    with pytest.raises(editguard.InvalidRequest) as err:
        ws.call("read_file", path="a.txt", no_such_argument=1)
    assert err.value.data["field"] == "no_such_argument"


def test_errors_name_the_file_as_the_caller_sees_it(tmp_path: Any) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "notes.txt").write_text("x\n")
    ws = Workspace([tmp_path])
    with pytest.raises(editguard.InvalidRequest) as err:
        ws.list_symbols("sub/notes.txt")
    assert err.value.path == "sub/notes.txt"
    assert "symbols are not supported for sub/notes.txt" in err.value.message
    assert str(tmp_path) not in err.value.message


def test_the_python_api_also_takes_the_plain_edit_dataclasses(tmp_path: Any) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    ws = Workspace([tmp_path])
    ws.edit_lines("a.txt", [editguard.LineOp("replace_section", 2, "2", end_line=3)])
    ws.edit_file("a.txt", [editguard.SearchReplace("one", "1")])
    assert (tmp_path / "a.txt").read_text() == "1\n2\n"


def test_each_public_name_is_what_the_type_checkers_see() -> None:
    """editguard/__init__.py imports each public name for type checkers only, and finds it at run
    time by looking through modules: the two must agree, name for name and object for object."""
    tree = ast.parse(Path(inspect.getfile(editguard)).read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.dump(n))
    static = {
        alias.name: node.module
        for node in ast.walk(block)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    assert editguard.__all__ == sorted(editguard.__all__)
    assert set(static) == set(editguard.__all__) - {"__version__"}
    for name, module in static.items():
        assert getattr(editguard, name) is getattr(importlib.import_module(module), name), name
    assert set(editguard.__all__) <= set(dir(editguard))
    with pytest.raises(AttributeError):
        editguard.NoSuchName  # noqa: B018


def test_workspace_takes_exactly_the_configuration() -> None:
    """Workspace's keywords are Config's fields, in order, with the same defaults and types: the
    signature is written out for type checkers, the settings are said once, in Config."""
    params = list(inspect.signature(Workspace).parameters.values())
    fields = dataclasses.fields(editguard.Config)
    assert [p.name for p in params] == [f.name for f in fields]
    for param, field in zip(params, fields, strict=True):
        assert param.default == field.default, field.name
        assert param.annotation == field.type, field.name  # as written (postponed annotations)
    # The history's own limits, for a History made without a Workspace.
    history = inspect.signature(editguard.History).parameters
    assert history["max_entries"].default == editguard.Config.history_entries
    assert history["max_bytes"].default == editguard.Config.history_bytes
