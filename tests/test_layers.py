"""Layering: every module of editguard imports editguard modules only from its own layer or a lower
one, the packages import each other without cycles, and importing a low layer loads none above it.

The layer rule is checked statically, on every ``import`` and ``from ... import`` of every module
(inside functions and under ``TYPE_CHECKING`` too). A module that matches no entry of the table
fails the test: a new module has to be placed in a layer on purpose.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "editguard"
TOP = "editguard"

# Lowest first. A module belongs to the longest entry it equals or lies under; the top package
# entry "editguard" stands for editguard/__init__.py alone.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("editguard.errors",),
    ("editguard.core",),
    ("editguard.fs", "editguard.languages"),
    ("editguard.symbols",),
    ("editguard.validate",),
    ("editguard.analyze",),  # problems after an edit: analyzers, kept warm
    ("editguard.prewarm",),
    ("editguard.history",),
    ("editguard.config",),  # a workspace's settings, typed by the layers below
    ("editguard.transaction",),
    ("editguard.tools",),
    ("editguard.compat",),  # other servers' tool sets, over the tools
    ("editguard.workspace",),
    (
        TOP,
        "editguard.cli",
        "editguard.mcp_server",
        "editguard._http",
        "editguard.terminal",
        "editguard.__main__",
    ),
)

# Upward imports that exist today, as (importer's entry, imported entry): reason. Like
# import-linter's ignore_imports. An entry that no longer matches any import fails the test as
# well, so that this table only shrinks.
KNOWN_UPWARD: dict[tuple[str, str], str] = {}


def _entry(module: str) -> str | None:
    """The table entry ``module`` belongs to, if any."""
    found = [
        entry
        for layer in LAYERS
        for entry in layer
        if module == entry or (entry != TOP and module.startswith(entry + "."))
    ]
    return max(found, key=len) if found else None


def _layer(entry: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if entry in layer)


def _modules() -> dict[str, Path]:
    """Every module of src/editguard by dotted name (a package by its own name)."""
    out: dict[str, Path] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = [TOP, *path.relative_to(SRC).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """(imported editguard module, line) for every import statement of ``module``.

    ``from P import x`` imports the module ``P.x`` when there is one (that is what Python loads),
    else the package ``P``: ``from editguard import Workspace`` depends on the top package.
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield (submodule if submodule in MODULES else base), node.lineno


def _edges() -> Iterator[tuple[str, str, str, int]]:
    """(importer, imported, importer's file, line) for every import of one editguard module by
    another."""
    for module, path in MODULES.items():
        for target, line in _imports(module, path):
            if target == TOP or target.startswith(TOP + "."):
                yield module, target, str(path.relative_to(SRC.parent.parent)), line


def test_every_module_has_a_place_in_the_layer_table() -> None:
    unplaced = [module for module in MODULES if _entry(module) is None]
    assert not unplaced, (
        f"{', '.join(unplaced)}: not in any layer. Add each to LAYERS in tests/test_layers.py, "
        "in the lowest layer whose modules it may import."
    )


def test_modules_import_only_from_their_own_layer_or_lower_ones() -> None:
    violations: dict[str, None] = {}  # in file order, once per line (not once per name)
    used_exceptions = set()
    for module, target, where, line in _edges():
        source, imported = _entry(module), _entry(target)
        if source is None or imported is None:
            continue  # reported by the test above (a missing target module fails at import)
        if _layer(imported) <= _layer(source):
            continue
        if (source, imported) in KNOWN_UPWARD:
            used_exceptions.add((source, imported))
            continue
        message = (
            f"{where}:{line}: {module} (layer {_layer(source)}) imports {target} "
            f"(layer {_layer(imported)})"
        )
        violations[message] = None
    assert not violations, "imports from a higher layer:\n" + "\n".join(violations)
    stale = set(KNOWN_UPWARD) - used_exceptions
    assert not stale, f"KNOWN_UPWARD lists imports that are gone; remove them: {sorted(stale)}"


# The transaction's modules, one step each, lowest first ("" is the package's __init__, the
# Transaction): a module imports only the steps before it, so a writing call's path through
# them only goes down.
TRANSACTION_STEPS = (
    "context",
    "formatting",
    "build",
    "notebooks_seen",
    "cells",
    "read",
    "folders",
    "staged",
    "record",
    "settle",
    "commit",
    "",
    "files",
    "move",
)


def test_the_transaction_modules_import_only_the_steps_below_them() -> None:
    order = {
        ".".join(filter(None, ("editguard.transaction", step))): rank
        for rank, step in enumerate(TRANSACTION_STEPS)
    }
    ours = {
        m for m in MODULES if m == "editguard.transaction" or m.startswith("editguard.transaction.")
    }
    assert set(order) == ours, "place each module of editguard/transaction in TRANSACTION_STEPS"
    upward = [
        f"{where}:{line}: {module} imports {target}"
        for module, target, where, line in _edges()
        if module in order and target in order and order[target] >= order[module]
    ]
    assert not upward, "\n".join(upward)


def test_the_packages_import_each_other_without_cycles() -> None:
    # Entries of one layer may import each other, so the layer rule alone allows a cycle there.
    graph: dict[str, set[str]] = {}
    for module, target, _where, _line in _edges():
        source, imported = _entry(module), _entry(target)
        if source is not None and imported is not None and source != imported:
            graph.setdefault(source, set()).add(imported)

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        for following in sorted(graph.get(node, ())):
            found = cycle_from(following, [*path, node])
            if found:
                return found
        return None

    for start in sorted(graph):
        cycle = cycle_from(start, [])
        assert cycle is None, "import cycle: " + " -> ".join(cycle)


# Loads one module with an empty stand-in for the editguard package, so that
# editguard/__init__.py (which imports the whole library) does not run: what gets loaded is what
# the module itself needs. Prints every loaded module.
_LOAD_ALONE = """
import importlib, sys, types
package = types.ModuleType("editguard")
package.__path__ = [sys.argv[1]]
sys.modules["editguard"] = package
importlib.import_module(sys.argv[2])
print("\\n".join(sorted(sys.modules)))
"""


def _loaded(*args: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", *args], capture_output=True, text=True, timeout=60, check=True
    )
    return proc.stdout.split()


def _under(modules: list[str], *prefixes: str) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)]


@pytest.mark.parametrize(
    ("module", "allowed"),
    [
        ("editguard.core.plan", ("editguard.core", "editguard.errors")),
        ("editguard.languages", ("editguard.core", "editguard.errors", "editguard.languages")),
    ],
)
def test_a_low_layer_loads_nothing_from_above_it(module: str, allowed: tuple[str, ...]) -> None:
    loaded = _loaded(_LOAD_ALONE, str(SRC), module)
    assert module in loaded
    ours = [m for m in _under(loaded, TOP) if m != TOP]
    assert ours == _under(ours, *allowed)
    assert not _under(ours, "editguard.validate", "editguard.symbols", "editguard.transaction")
    # No model layer, no MCP SDK, no parser: tree-sitter loads on the first parse.
    assert not _under(loaded, "pydantic", "mcp", "tree_sitter")


def test_importing_editguard_loads_nothing_before_a_name_is_used() -> None:
    loaded = _loaded("import sys, editguard; print('\\n'.join(sorted(sys.modules)))")
    assert not _under(loaded, "editguard.workspace", "editguard.tools", "pydantic", "mcp")
    loaded = _loaded(
        "import sys; from editguard import Workspace; print('\\n'.join(sorted(sys.modules)))"
    )
    assert "editguard.workspace" in loaded
    assert not _under(loaded, "mcp", "tree_sitter", "editguard.mcp_server", "editguard.cli")


_CALL = """
import sys
from editguard.cli import main
main(["call", sys.argv[1], sys.argv[2]])
print("\\n".join(sorted(sys.modules)), file=sys.stderr)
"""


def _loaded_by_call(folder: Path, tool: str, arguments: str) -> list[str]:
    """The modules loaded by ``editguard call TOOL ARGUMENTS`` in ``folder``."""
    proc = subprocess.run(
        [sys.executable, "-c", _CALL, tool, arguments],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=folder,
    )
    return proc.stderr.split()


def test_a_call_loads_its_own_tool_and_nothing_it_does_not_need(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    loaded = _loaded_by_call(tmp_path, "read_file", '{"path": "a.py"}')
    assert "editguard.tools.read_file" in loaded
    tools = [m for m in _under(loaded, "editguard.tools") if m.rpartition(".")[2][0] != "_"]
    assert tools == ["editguard.tools", "editguard.tools.read_file"]
    # No other tool's models, no validator or parser, no symbols, no MCP SDK.
    assert not _under(
        loaded,
        "editguard.workspace",
        "editguard.validate",
        "editguard.symbols",
        "editguard.prewarm",
        "tree_sitter",
        "mcp",
    )
    edit = '{"path": "a.py", "edits": [{"old_text": "1", "new_text": "2"}]}'
    loaded = _loaded_by_call(tmp_path, "edit_file", edit)
    assert "editguard.validate" in loaded  # an edit is checked: the test above can fail
    assert not _under(loaded, "editguard.tools.read_file", "editguard.tools.apply_patch", "mcp")
