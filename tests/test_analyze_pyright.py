"""basedpyright after an edit, through its real language server, on a real package: click's
sources (copied from site-packages at test time) with a few modules of our own on top that call
each other, as a project with its pyproject.toml.

One server is shared by the tests of a process (a session fixture holds the analyzer; each test's
workspace uses it), and each test works on files of its own, so that the tests pass in any order.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import TextContent

from editguard import Workspace
from editguard.analyze import DEFAULT, KNOWN, SERVED, analyzer_named
from editguard.analyze.pyright import BasedPyright, installed, langserver_command

from .test_mcp import STATE_ENV

pytestmark = pytest.mark.skipif(not installed(), reason="basedpyright is not installed")

SHAPES = '''"""Shapes."""


def area(width: float, height: float) -> float:
    """The area of a rectangle."""
    return width * height
'''

REPORT = '''"""A report that uses shapes."""

from demo.shapes import area


def summary() -> str:
    return f"area: {area(2.0, 3.0)}"
'''

COMMAND = '''"""A command line that uses shapes."""

import click

from .shapes import area


@click.command()
@click.argument("width", type=float)
@click.argument("height", type=float)
def main(width: float, height: float) -> None:
    click.echo(area(width, height))
'''


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real package of a few dozen files: click's sources, and ``demo`` that uses them."""
    root = tmp_path_factory.mktemp("pyright") / "proj"
    src = root / "src"
    shutil.copytree(
        Path(click.__file__).parent, src / "click", ignore=shutil.ignore_patterns("__pycache__")
    )
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    demo = src / "demo"
    demo.mkdir()
    (demo / "__init__.py").write_text("")
    (demo / "shapes.py").write_text(SHAPES)
    (demo / "report.py").write_text(REPORT)
    (demo / "command.py").write_text(COMMAND)
    return root


@pytest.fixture(scope="session")
def pyright() -> Iterator[BasedPyright]:
    """One basedpyright for the tests of this process (its server stays warm between them)."""
    analyzer = BasedPyright()
    yield analyzer
    analyzer.close()


def workspace(project: Path, pyright: BasedPyright, budget: float = 60.0) -> Workspace:
    # A generous budget: these tests are about what is found, not how fast (benchmarks/).
    return Workspace(roots=[project], analyzers=["ruff", pyright], analysis_budget=budget)


def edit(ws: Workspace, path: str, old: str, new: str, **more: Any) -> dict[str, Any]:
    result = ws.call("edit_file", path=path, edits=[{"old_text": old, "new_text": new}], **more)
    out: dict[str, Any] = result.model_dump(exclude_none=True)
    return out


def typed(result: dict[str, Any]) -> list[dict[str, Any]]:
    """basedpyright's problems of a result."""
    return [p for p in result.get("problems", []) if p["analyzer"] == "basedpyright"]


def test_basedpyright_is_known_and_served_by_default_where_installed() -> None:
    assert KNOWN["basedpyright"] == "editguard.analyze.pyright:BasedPyright"
    assert "basedpyright" in SERVED  # editguard serve, kept warm for the server's lifetime
    assert DEFAULT == ("ruff",)  # a Workspace or a one-shot call starts no language server
    made = analyzer_named("basedpyright")
    assert made.accepts("/x/a.py")
    assert made.accepts("/x/a.pyi")
    assert not made.accepts("/x/a.ts")
    assert not made.fast


def test_the_server_comes_with_the_package_not_from_path() -> None:
    command = langserver_command()
    assert command is not None
    site = os.path.dirname(os.path.dirname(os.path.realpath(click.__file__)))
    assert all(part.startswith(site) for part in command[:-1])
    assert command[-1] == "--stdio"


def test_an_undefined_name_is_one_new_problem_at_its_line(
    project: Path, pyright: BasedPyright
) -> None:
    module = project / "src" / "demo" / "undefined.py"
    module.write_text("def total(n: int) -> int:\n    return n\n")
    ws = workspace(project, pyright)
    result = edit(ws, "src/demo/undefined.py", "    return n\n", "    return n + missing_total\n")
    [problem] = typed(result)
    assert problem["line"] == 2
    assert problem["code"] == "reportUndefinedVariable"
    assert "missing_total" in problem["message"]
    assert problem["text"] == "2│    return n + missing_total"
    assert problem["path"] == str(module)
    assert "The edit was written" in result["problems_note"]


def test_removing_a_parameter_reports_the_call_sites_in_the_files_that_use_it(
    project: Path, pyright: BasedPyright
) -> None:
    ws = workspace(project, pyright)
    old = "def area(width: float, height: float) -> float:"
    new = "def area(width: float) -> float:"
    broken = edit(ws, "src/demo/shapes.py", old, new)
    try:
        found = {
            (Path(p["path"]).name, p["line"], p["text"])
            for p in typed(broken)
            if p["code"] == "reportCallIssue"
        }
        assert found == {
            ("report.py", 7, '7│    return f"area: {area(2.0, 3.0)}"'),
            ("command.py", 12, "12│    click.echo(area(width, height))"),
        }
        # And in the edited file itself: the body still uses the parameter.
        [own] = [p for p in typed(broken) if p["path"].endswith("shapes.py")]
        assert own["code"] == "reportUndefinedVariable"
    finally:
        restored = edit(ws, "src/demo/shapes.py", new, old)
    assert typed(restored) == []
    assert restored["problems_fixed"] >= 2


def test_a_clean_edit_of_a_real_module_reports_no_problem(
    project: Path, pyright: BasedPyright
) -> None:
    ws = workspace(project, pyright)
    target = "src/click/_textwrap.py"  # formatting.py imports it: checked before and after too
    old = "    def indent_only(self, text: str) -> str:"
    assert old in (project / target).read_text()
    result = edit(ws, target, old, f"    # Indents each line.\n{old}")
    try:
        assert result["problems"] == []
        assert result["problems_fixed"] == 0
        assert "problems_pending" not in result
    finally:
        edit(ws, target, f"    # Indents each line.\n{old}", old)


def test_an_edit_that_fixes_a_type_error_counts_one_fixed(
    project: Path, pyright: BasedPyright
) -> None:
    (project / "src" / "demo" / "fixme.py").write_text(
        'def double(n: int) -> int:\n    return 2 * n\n\n\nVALUE = double("two")\n'
    )
    ws = workspace(project, pyright)
    result = edit(ws, "src/demo/fixme.py", 'double("two")', "double(2)")
    assert result["problems"] == []
    assert result["problems_fixed"] == 1


def test_an_open_file_changed_outside_editguard_is_seen_as_on_disk(
    project: Path, pyright: BasedPyright
) -> None:
    lib = project / "src" / "demo" / "outside_lib.py"
    user = project / "src" / "demo" / "outside_user.py"
    lib.write_text("def scale(a: int) -> int:\n    return a\n")
    user.write_text("from demo.outside_lib import scale\n\nFIRST = scale(1)\n")
    ws = workspace(project, pyright)
    # The server opens outside_lib.py with this edit's text ...
    edit(ws, "src/demo/outside_lib.py", "return a\n", "return a * 1\n")
    # ... which then changes on disk, outside editguard: scale now takes two arguments.
    lib.write_text("def scale(a: int, b: int) -> int:\n    return a * b\n")
    result = edit(ws, "src/demo/outside_user.py", "FIRST = scale(1)\n", "FIRST = scale(1, 2)\n")
    # What is on disk now: the call with two arguments is right, and the one it replaced was
    # wrong (fixed); with the old buffer it would be the reverse.
    assert typed(result) == []
    assert result["problems_fixed"] == 1


def test_a_file_never_opened_that_changed_outside_editguard_is_read_again(
    project: Path, pyright: BasedPyright
) -> None:
    lib = project / "src" / "demo" / "unopened_lib.py"
    user = project / "src" / "demo" / "unopened_user.py"
    lib.write_text("def shift(a: int) -> int:\n    return a\n")
    user.write_text("from demo.unopened_lib import shift\n\nFIRST = shift(1)\n")
    ws = workspace(project, pyright)
    edit(ws, "src/demo/unopened_user.py", "FIRST = shift(1)\n", "FIRST = shift(2)\n")
    lib.write_text("def shift(a: int, b: int) -> int:\n    return a + b\n")
    result = edit(ws, "src/demo/unopened_user.py", "FIRST = shift(2)\n", "FIRST = shift(2, 3)\n")
    # As on disk now: the call fixed; the old text of unopened_lib.py would make it wrong.
    assert typed(result) == []
    assert result["problems_fixed"] == 1


def test_a_dry_run_leaves_the_server_with_the_text_on_disk(
    project: Path, pyright: BasedPyright
) -> None:
    (project / "src" / "demo" / "dry_lib.py").write_text("def h(a: int) -> int:\n    return a\n")
    (project / "src" / "demo" / "dry_user.py").write_text("from demo.dry_lib import h\n")
    ws = workspace(project, pyright)
    dry = edit(ws, "src/demo/dry_lib.py", "def h(a: int)", "def h()", dry_run=True)
    assert [p["code"] for p in typed(dry)] == ["reportUndefinedVariable"]  # `a` is gone
    assert "Nothing was written" in dry["problems_note"]
    # Were the dry run's text still the server's, h(1) would be a wrong call.
    result = edit(ws, "src/demo/dry_user.py", "import h\n", "import h\n\nX = h(1)\n")
    assert typed(result) == []


def test_past_the_budget_the_problems_are_pending_then_given_by_diagnostics(
    project: Path, pyright: BasedPyright
) -> None:
    module = project / "src" / "demo" / "pending.py"
    module.write_text("def one() -> int:\n    return 1\n")
    ws = workspace(project, pyright, budget=0.0)
    result = edit(ws, "src/demo/pending.py", "return 1\n", "return unknown_one\n")
    assert "basedpyright" in result["problems_pending"]
    assert typed(result) == []
    # The job goes on past the answer; the diagnostics tool (given time to wait) gives what it
    # found, beside the file's problems as on disk now.
    analysis = ws.context.analysis
    assert analysis is not None
    analysis.budget = 60.0
    later = ws.call("diagnostics", path="src/demo/pending.py").model_dump(exclude_none=True)
    assert "pending" not in later
    [introduced] = [p for p in later["introduced"] if p["analyzer"] == "basedpyright"]
    assert (introduced["code"], introduced["line"]) == ("reportUndefinedVariable", 2)
    assert introduced["text"] == "2│    return unknown_one"
    [now] = [p for p in later["problems"] if p["analyzer"] == "basedpyright"]
    assert now == introduced


def test_current_lists_a_files_problems_as_on_disk(project: Path, pyright: BasedPyright) -> None:
    module = project / "src" / "demo" / "current.py"
    module.write_text("X: int = 'text'\n")
    found = pyright.current(str(project), [str(module)])
    [problem] = found.after[str(module)]
    assert problem.code == "reportAssignmentType"
    assert problem.line == 1


def test_a_crashed_server_is_a_note_then_starts_again(project: Path) -> None:
    analyzer = BasedPyright()
    try:
        ws = workspace(project, analyzer)
        module = project / "src" / "demo" / "crash.py"
        module.write_text("def f() -> int:\n    return 1\n")
        edit(ws, "src/demo/crash.py", "return 1\n", "return 2\n")
        session = analyzer.session(str(project), [str(project)])
        assert not isinstance(session, str)
        pid = session.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        result = edit(ws, "src/demo/crash.py", "return 2\n", "return nothing_here\n")
        assert "basedpyright: the language server stopped" in result["problems_note"]
        assert "restarted" in result["problems_note"]
        assert [p["code"] for p in typed(result)] == ["reportUndefinedVariable"]
        assert session.pid not in (None, pid)
    finally:
        analyzer.close()
    assert session.pid is None


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.slow
@pytest.mark.anyio
async def test_call_sites_over_mcp_stdio_with_the_analyzer_flag(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    demo = root / "src" / "demo"
    demo.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    files = {"__init__.py": "", "shapes.py": SHAPES, "report.py": REPORT, "command.py": COMMAND}
    for name, text in files.items():
        (demo / name).write_text(text)
    args = ["-m", "editguard", "serve", str(root), "--log-level", "WARNING"]
    args += ["--analyzer", "basedpyright", "--analysis-budget", "60"]
    params = StdioServerParameters(command=sys.executable, args=args, env=STATE_ENV)
    edit = {
        "path": "src/demo/shapes.py",
        "edits": [{"old_text": "width: float, height: float", "new_text": "width: float"}],
    }
    async with Client(params) as client:
        result = await client.call_tool("edit_file", edit)
        text = "".join(b.text for b in result.content if isinstance(b, TextContent))
        assert not result.is_error, text
        problems = json.loads(text)["problems"]
        calls = {
            (Path(p["path"]).name, p["line"]) for p in problems if p["code"] == "reportCallIssue"
        }
        assert calls == {("report.py", 7), ("command.py", 12)}
        assert {p["analyzer"] for p in problems} == {"basedpyright"}


def test_moving_a_module_away_reports_the_imports_it_breaks(
    project: Path, pyright: BasedPyright
) -> None:
    demo = project / "src" / "demo"
    (demo / "mover.py").write_text("def go() -> int:\n    return 1\n")
    (demo / "mover_user.py").write_text("from demo.mover import go\n\nX = go()\n")
    ws = workspace(project, pyright)
    moved = ws.call("move_file", source="src/demo/mover.py", destination="src/demo/moved.py")
    out = moved.model_dump(exclude_none=True)
    [problem] = typed(out)
    assert problem["code"] == "reportMissingImports"
    assert problem["text"] == "1│from demo.mover import go"
    back = ws.call("move_file", source="src/demo/moved.py", destination="src/demo/mover.py")
    assert typed(back.model_dump(exclude_none=True)) == []


def test_current_without_files_lists_the_open_ones_and_says_so(
    project: Path, pyright: BasedPyright
) -> None:
    module = project / "src" / "demo" / "listed.py"
    module.write_text("Y: str = 1\n")
    pyright.current(str(project), [str(module)])  # opens it
    found = pyright.current(str(project), [])
    assert [p.code for p in found.after[str(module)]] == ["reportAssignmentType"]
    assert found.notes[-1].startswith("basedpyright: the problems of the ")
    assert found.notes[-1].endswith("not of the whole project (name files to check them)")
    elsewhere = BasedPyright()  # nothing running: nothing started to answer
    assert elsewhere.current(str(project), []).after == {}
    session = elsewhere.session(str(project), [])
    assert not isinstance(session, str)
    assert session.pid is None


@pytest.mark.parametrize("config", ["", '[tool.basedpyright]\nvenvPath = "."\nvenv = ".venv"\n'])
def test_the_projects_own_python_is_never_run(tmp_path: Path, config: str) -> None:
    root = tmp_path / "proj"
    marker = tmp_path / "ran"
    for name in ("python", "python3"):  # a virtual environment's interpreter, planted
        _script(root / ".venv" / "bin" / name, f'#!/bin/sh\ntouch "{marker}"\nexec python3 "$@"\n')
    (root / ".venv" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "pyproject.toml").write_text(config or '[project]\nname = "x"\nversion = "0"\n')
    (root / "main.py").write_text("import os\n\nX = os.sep\n")
    analyzer = BasedPyright()
    try:
        ws = workspace(root, analyzer)
        result = edit(ws, "main.py", "os.sep", "os.sepp")
    finally:
        analyzer.close()
    # Checked (the project's own rule set, if it has one, may add warnings) ...
    assert "reportAttributeAccessIssue" in [p["code"] for p in typed(result)]
    assert not marker.exists()  # ... without running the project's interpreter


def _script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(0o755)


def test_closing_while_a_job_runs_leaves_no_server(project: Path) -> None:
    analyzer = BasedPyright()
    module = project / "src" / "demo" / "closing.py"
    module.write_text("def f() -> int:\n    return 1\n")
    ws = workspace(project, analyzer, budget=0.0)
    result = edit(ws, "src/demo/closing.py", "return 1\n", "return 2\n")
    assert "basedpyright" in result["problems_pending"]
    session = analyzer.session(str(project), [])
    assert not isinstance(session, str)
    ws.close()  # the job goes on meanwhile, and must not start the server again
    after = session.current([str(module)])  # its turn comes once the job has ended
    assert after.notes == ["basedpyright: closed"]
    assert session.pid is None
