"""The tool registry: every tool, declared once in its own module (arguments, result,
description, ``run``). The CLI, the MCP server and the Python API all read it."""

from __future__ import annotations

from typing import Any

from editguard.tools import (
    apply_diff,
    apply_patch,
    batch,
    edit_file,
    edit_lines,
    edit_symbol,
    history,
    list_symbols,
    read_file,
    safe_edit,
    undo,
    write_file,
)
from editguard.tools._tool import Tool

TOOLS: tuple[Tool[Any, Any], ...] = (
    read_file.TOOL,
    edit_file.TOOL,
    edit_lines.TOOL,
    safe_edit.TOOL,
    write_file.TOOL,
    list_symbols.TOOL,
    edit_symbol.TOOL,
    apply_patch.TOOL,
    apply_diff.TOOL,
    batch.TOOL,
    history.TOOL,
    undo.TOOL,
)


def tool_named(name: str) -> Tool[Any, Any]:
    """The tool called ``name``.

    Raises:
        KeyError: no such tool.
    """
    for tool in TOOLS:
        if tool.name == name:
            return tool
    raise KeyError(name)


__all__ = ["TOOLS", "Tool", "tool_named"]
