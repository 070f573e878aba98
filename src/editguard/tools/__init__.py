"""The tool registry: every tool, declared once in its own module (arguments, result,
description, ``run``). The CLI, the MCP server and the Python API all read it.

A tool's module is imported when the tool is first asked for, not before: ``editguard call
read_file`` loads read_file's models only, and the MCP server answers ``tools/list`` from the
stored listing (:mod:`editguard.tools._listing`) without importing any tool.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from editguard.tools._tool import Tool

    TOOLS: tuple[Tool[Any, Any], ...]

# In the order tools/list shows them; each lives in editguard/tools/<name>.py as ``TOOL``.
NAMES: tuple[str, ...] = (
    "read_file",
    "list_directory",
    "directory_tree",
    "find_files",
    "file_info",
    "grep",
    "edit_file",
    "edit_lines",
    "safe_edit",
    "write_file",
    "move_file",
    "create_directory",
    "list_symbols",
    "edit_symbol",
    "edit_snippet",
    "edit_notebook",
    "apply_patch",
    "apply_diff",
    "batch",
    "history",
    "undo",
    "diagnostics",
)

# Named sets for `editguard serve --tools`. `edit`: for hosts that read and write files with
# their own tools (Claude Code, Cursor, VS Code, Codex) and want editguard's exact edits,
# patches, symbols and undo; `minimal`: read, edit and write, for hosts with no file tools.
SETS: dict[str, tuple[str, ...]] = {
    "all": NAMES,
    "edit": (
        "edit_file",
        "edit_lines",
        "list_symbols",
        "edit_symbol",
        "edit_snippet",
        "edit_notebook",
        "apply_patch",
        "batch",
        "history",
        "undo",
        "diagnostics",
    ),
    "minimal": ("read_file", "edit_file", "write_file"),
}


def tool_named(name: str) -> Tool[Any, Any]:
    """The tool called ``name`` (its module is imported on first use).

    Raises:
        KeyError: no such tool.
    """
    if name not in NAMES:
        raise KeyError(name)
    tool: Tool[Any, Any] = importlib.import_module(f"editguard.tools.{name}").TOOL
    return tool


def select(spec: str) -> tuple[str, ...]:
    """The tool names a ``--tools`` value stands for: comma-separated tool names and set names
    (``edit,read_file``), in registry order.

    Raises:
        ValueError: a name that is neither a tool nor a set, or nothing at all.
    """
    chosen: set[str] = set()
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        if part in SETS:
            chosen.update(SETS[part])
        elif part in NAMES:
            chosen.add(part)
        else:
            raise ValueError(
                f"no tool or set named {part!r}; the sets are {', '.join(SETS)} and the tools "
                f"are {', '.join(NAMES)}"
            )
    if not chosen:
        raise ValueError("no tool given: name tools or sets, comma-separated")
    return tuple(n for n in NAMES if n in chosen)


def __getattr__(name: str) -> Any:
    if name == "TOOLS":  # every tool, which imports every tool's module
        return tuple(tool_named(n) for n in NAMES)
    if name == "Tool":
        from editguard.tools._tool import Tool  # noqa: PLC0415 - pydantic loads on first use

        return Tool
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["NAMES", "SETS", "TOOLS", "Tool", "select", "tool_named"]
