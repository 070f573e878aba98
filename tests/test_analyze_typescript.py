"""The "typescript" analyzer on a real TypeScript project: tsserver from the project's own
``node_modules/typescript`` (installed from the npm registry once per test session), through the
Python API.

The project: ``src/greet.ts`` exports ``greet(name, punct)``, used by ``src/a.ts`` and
``src/b.ts``; ``src/broken.ts`` has one type error.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters
from mcp_types import TextContent

from editguard import Workspace
from editguard.analyze import typescript
from editguard.analyze.dependents import typescript_dependents
from editguard.analyze.typescript import SERVER_JS, TypeScript, _change
from tests.conftest import cli, examples, run_cli
from tests.test_mcp import STATE_ENV

TYPESCRIPT = "5.9.3"

TSCONFIG = """{
  "compilerOptions": {
    "strict": true, "target": "es2020", "module": "commonjs", "noEmit": true, "types": []
  },
  "include": ["src"]
}
"""
SOURCES = {
    "src/greet.ts": (
        "export function greet(name: string, punct: string): string {\n"
        '  return "Hello, " + name + punct;\n'
        "}\n"
    ),
    "src/a.ts": 'import { greet } from "./greet";\n\nexport const a = greet("a", "!");\n',
    "src/b.ts": 'import { greet } from "./greet.js";\n\nconsole.log(greet("b", "?"));\n',
    "src/broken.ts": 'export const n: number = "one";\n',
}


@pytest.fixture(scope="session")
def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``node_modules`` with TypeScript, installed from the npm registry once per session (once
    for all xdist workers: they share the parent of their base folders, and a file lock)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the TypeScript project cannot be set up")
    shared = tmp_path_factory.getbasetemp().parent / f"editguard-typescript-{TYPESCRIPT}"
    shared.mkdir(exist_ok=True)
    done = shared / "installed"
    with FileLock(str(shared / "lock")):
        if not done.exists():
            (shared / "package.json").write_text('{"private": true}\n')
            env = {
                **os.environ,
                "npm_config_cache": str(shared / "npm-cache"),
                "npm_config_update_notifier": "false",
            }
            ran = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts",
                 "--no-package-lock", f"typescript@{TYPESCRIPT}"],
                cwd=shared, env=env, capture_output=True, text=True, timeout=300, check=False,
            )  # fmt: skip
            assert ran.returncode == 0, ran.stderr[-2000:]
            done.write_text(TYPESCRIPT)
    assert (shared / "node_modules" / "typescript" / "lib" / "tsserver.js").is_file()
    return shared / "node_modules"


def make_project(folder: Path, modules: Path | None, sources: dict[str, str] = SOURCES) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tsconfig.json").write_text(TSCONFIG)
    for name, text in sources.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    if modules is not None:
        (folder / "node_modules").symlink_to(modules, target_is_directory=True)
    return folder


@pytest.fixture(scope="module")
def shared(
    tmp_path_factory: pytest.TempPathFactory, node_modules: Path
) -> Iterator[tuple[Path, Workspace]]:
    """One project and one warm tsserver for the tests of this module that do not stop it."""
    folder = make_project(tmp_path_factory.mktemp("shared") / "proj", node_modules)
    workspace = Workspace(roots=[folder], analyzers=["typescript"], analysis_budget=60.0)
    yield folder, workspace
    workspace.close()


@pytest.fixture
def project(shared: tuple[Path, Workspace]) -> Path:
    """The shared project, its sources as :data:`SOURCES` says (put back on disk, as a change
    made outside editguard, which the analyzer picks up before the next edit)."""
    folder = shared[0]
    for path in (folder / "src").rglob("*"):
        if path.is_file() and str(path.relative_to(folder)) not in SOURCES:
            path.unlink()
    for name, text in SOURCES.items():
        if (folder / name).read_text() != text:
            (folder / name).write_text(text)
    return folder


@pytest.fixture
def ws(project: Path, shared: tuple[Path, Workspace]) -> Workspace:
    return shared[1]


@pytest.fixture
def own(tmp_path: Path, node_modules: Path) -> Iterator[tuple[Path, Workspace]]:
    """A project and workspace of the test's own (for a test that stops its tsserver)."""
    folder = make_project(tmp_path / "proj", node_modules)
    workspace = Workspace(roots=[folder], analyzers=["typescript"], analysis_budget=60.0)
    yield folder, workspace
    workspace.close()


def edit(ws: Workspace, path: str, old: str, new: str, **more: Any) -> dict[str, Any]:
    result = ws.call("edit_file", path=path, edits=[{"old_text": old, "new_text": new}], **more)
    out: dict[str, Any] = result.model_dump(exclude_none=True)
    return out


def analyzer_of(ws: Workspace) -> TypeScript:
    analysis = ws.context.analysis
    assert analysis is not None
    (ts,) = analysis.analyzers
    assert isinstance(ts, TypeScript)
    return ts


def test_an_undefined_name_is_one_new_problem_at_its_line(ws: Workspace, project: Path) -> None:
    out = edit(ws, "src/a.ts", 'export const a = greet("a", "!");', "export const a = nothere;")
    assert out["written"] is True
    (problem,) = out["problems"]
    assert problem["code"] == "TS2304"
    assert problem["analyzer"] == "typescript"
    assert problem["path"] == str(project / "src/a.ts")
    assert problem["line"] == 3
    assert problem["column"] == 18
    assert problem["text"] == "3│export const a = nothere;"
    assert "it was not refused" in out["problems_note"]


def test_removing_a_parameter_reports_the_call_sites_in_two_other_files(
    ws: Workspace, project: Path
) -> None:
    out = edit(ws, "src/greet.ts", "name: string, punct: string", "name: string")
    edit_out = edit(ws, "src/greet.ts", "name + punct", "name")
    assert {p["code"] for p in out["problems"]} == {"TS2304", "TS2554"}
    calls = sorted(
        (p["path"], p["line"], p["text"]) for p in out["problems"] if p["code"] == "TS2554"
    )
    assert calls == [
        (str(project / "src/a.ts"), 3, '3│export const a = greet("a", "!");'),
        (str(project / "src/b.ts"), 3, '3│console.log(greet("b", "?"));'),
    ]
    # The second edit fixes the undefined name and leaves the callers as they were.
    assert edit_out["problems"] == []
    assert edit_out["problems_fixed"] == 1


def test_a_clean_edit_has_no_problems(ws: Workspace) -> None:
    out = edit(ws, "src/greet.ts", '"Hello, "', '"Hi, "')
    assert out["problems"] == []
    assert out["problems_fixed"] == 0


def test_an_edit_that_fixes_a_problem_counts_it(ws: Workspace) -> None:
    out = edit(ws, "src/broken.ts", '"one"', "1")
    assert out["problems"] == []
    assert out["problems_fixed"] == 1


def test_a_change_made_outside_editguard_is_what_the_problems_describe(
    ws: Workspace, project: Path
) -> None:
    # greet.ts is open in tsserver (it was edited), then changed on disk by someone else.
    assert edit(ws, "src/greet.ts", '"Hello, "', '"Hi, "')["problems"] == []
    greet = project / "src/greet.ts"
    greet.write_text(greet.read_text().replace(", punct: string", "").replace(" + punct", ""))
    out = edit(ws, "src/a.ts", 'export const a = greet("a", "!");', 'export const a = greet("a");')
    # a.ts's call now matches greet as it is on disk: the old call's error is gone, none is new.
    assert out["problems"] == []
    out = edit(ws, "src/a.ts", 'greet("a")', 'greet("a", "?")')
    assert [(p["code"], p["line"]) for p in out["problems"]] == [("TS2554", 3)]


def test_a_dry_run_reports_and_leaves_tsserver_at_the_disk_text(
    ws: Workspace, project: Path
) -> None:
    greet = project / "src/greet.ts"
    before = greet.read_text()
    out = edit(ws, "src/greet.ts", "name: string, punct: string", "name: string", dry_run=True)
    assert out["written"] is False
    assert greet.read_text() == before
    assert sorted(p["code"] for p in out["problems"]) == ["TS2304", "TS2554", "TS2554"]
    assert "Nothing was written" in out["problems_note"]
    # tsserver was told the disk text again: asked without any re-sync, it sees no problem.
    ts = analyzer_of(ws)
    (served,) = ts._served.values()
    assert served.texts[str(greet)] == before
    with served.lock:
        assert served.problems(str(greet), 20.0) == []
        assert served.problems(str(project / "src/a.ts"), 20.0) == []


def test_moving_a_module_reports_the_imports_it_breaks(ws: Workspace, project: Path) -> None:
    out = ws.call("move_file", source="src/greet.ts", destination="src/hello.ts").model_dump()
    found = sorted((p["path"], p["line"], p["code"]) for p in out["problems"])
    assert found == [
        (str(project / "src/a.ts"), 1, "TS2307"),  # Cannot find module './greet'
        (str(project / "src/b.ts"), 1, "TS2307"),
    ]
    out = ws.call("move_file", source="src/hello.ts", destination="src/greet.ts").model_dump()
    assert out["problems"] == []
    # (Not counted as fixed: tsserver reads the created file on disk, before as after.)
    assert ws.call("diagnostics", path="src/a.ts").model_dump()["problems"] == []


def test_past_the_budget_the_problems_are_pending_then_given_by_diagnostics(
    own: tuple[Path, Workspace],
) -> None:
    project = own[0]
    with Workspace(roots=[project], analyzers=["typescript"], analysis_budget=0.0) as ws:
        out = edit(ws, "src/a.ts", 'greet("a", "!")', "nothere")
        assert out["problems_pending"] == ["typescript"]
        assert out["problems"] == []
        analysis = ws.context.analysis
        assert analysis is not None
        analysis.budget = 60.0

        def read(real: str) -> str | None:
            return Path(real).read_text()

        current, introduced = analysis.diagnostics([str(project / "src/a.ts")], ws.roots, read)
        assert [(s.problem.code, s.problem.line) for s in introduced.problems] == [("TS2304", 3)]
        assert [(s.problem.code, s.problem.line) for s in current.problems] == [("TS2304", 3)]


def test_diagnostics_lists_the_problems_on_disk_now(ws: Workspace, project: Path) -> None:
    def listed(**path: str) -> list[tuple[str, int, str]]:
        out = ws.call("diagnostics", **path).model_dump()
        return [(p["path"], p["line"], p["code"]) for p in out["problems"]]

    broken = (str(project / "src/broken.ts"), 1, "TS2322")
    assert listed() == [broken]
    assert listed(path="src") == [broken]
    assert listed(path="src/broken.ts") == [broken]
    assert listed(path="src/a.ts") == []
    (project / "src/a.ts").write_text("export const a: string = 1;\n")  # outside editguard
    assert listed(path="src/a.ts") == [(str(project / "src/a.ts"), 1, "TS2322")]
    assert listed(path="src") == [(str(project / "src/a.ts"), 1, "TS2322"), broken]


def test_non_ascii_text_and_columns_stay_in_step_with_tsserver(
    ws: Workspace, project: Path
) -> None:
    out = edit(ws, "src/a.ts", "export const a", 'const s = "é😀"; export const a')
    assert out["problems"] == []
    out = edit(ws, "src/a.ts", '"é😀";', '"é😀"; nothere;')
    ((line, column),) = [(p["line"], p["column"]) for p in out["problems"]]
    assert (line, column) == (3, 17)  # characters; tsserver counts 18 UTF-16 units
    out = edit(ws, "src/a.ts", "nothere;", "")
    assert out["problems"] == []
    assert out["problems_fixed"] == 1


def test_a_killed_tsserver_gives_a_note_and_starts_again(own: tuple[Path, Workspace]) -> None:
    ws = own[1]
    assert edit(ws, "src/greet.ts", '"Hello, "', '"Hi, "')["problems"] == []
    (served,) = analyzer_of(ws)._served.values()
    pid = served.server.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    served.server._proc.wait()  # type: ignore[union-attr]
    out = edit(ws, "src/a.ts", 'greet("a", "!")', "nothere")
    assert "typescript: tsserver ended" in out["problems_note"]
    assert "started again" in out["problems_note"]
    assert [p["code"] for p in out["problems"]] == ["TS2304"]
    (again,) = analyzer_of(ws)._served.values()
    assert again.server.pid != pid
    assert again.server.alive


def test_a_tsserver_that_dies_during_a_job_is_started_again_for_it(
    own: tuple[Path, Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = own[1]
    assert edit(ws, "src/greet.ts", '"Hello, "', '"Hi, "')["problems"] == []
    asked = typescript._Served.problems
    killed: list[int] = []

    def dies_once(self: typescript._Served, real: str, timeout: float) -> list[Any]:
        # The fault: the process is killed in the middle of the job, once.
        if not killed and self.server.pid is not None:
            killed.append(self.server.pid)
            os.kill(self.server.pid, signal.SIGKILL)
            self.server._proc.wait()  # type: ignore[union-attr]
        return asked(self, real, timeout)

    monkeypatch.setattr(typescript._Served, "problems", dies_once)
    out = edit(ws, "src/greet.ts", "name: string, punct: string", "name: string")
    assert "typescript: tsserver ended" in out["problems_note"]
    assert "started again" in out["problems_note"]
    assert sorted(p["code"] for p in out["problems"]) == ["TS2304", "TS2554", "TS2554"]
    (again,) = analyzer_of(ws)._served.values()
    assert again.server.pid not in killed


@pytest.mark.slow
def test_a_hung_tsserver_gives_a_note_and_starts_again(
    own: tuple[Path, Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = own[1]
    assert edit(ws, "src/greet.ts", '"Hello, "', '"Hi, "')["problems"] == []
    (served,) = analyzer_of(ws)._served.values()
    assert served.server.pid is not None
    monkeypatch.setattr(typescript, "REQUEST_TIMEOUT", 1.0)
    os.kill(served.server.pid, signal.SIGSTOP)  # the fault: it stops answering
    out = edit(ws, "src/a.ts", 'greet("a", "!")', "nothere")
    assert "did not answer" in out["problems_note"]
    assert out["problems"] == []
    assert not served.server.alive
    out = edit(ws, "src/a.ts", "nothere", "nothere2")
    assert [p["code"] for p in out["problems"]] == ["TS2304"]


def test_a_javascript_project_with_a_jsconfig_is_checked_too(
    tmp_path: Path, node_modules: Path
) -> None:
    sources = {
        "lib/greet.mjs": "/** @param {string} name */\nexport function greet(name) {\n"
        '  return "Hi " + name;\n}\n',
        "lib/use.js": 'const { greet } = require("./greet.mjs");\nmodule.exports = greet("x");\n',
    }
    project = make_project(tmp_path / "js", node_modules, sources)
    (project / "tsconfig.json").unlink()
    (project / "jsconfig.json").write_text(
        '{"compilerOptions": {"checkJs": true, "module": "nodenext", "types": []}}\n'
    )
    with Workspace(roots=[project], analyzers=["typescript"], analysis_budget=60.0) as ws:
        out = edit(ws, "lib/greet.mjs", '"Hi " + name', '"Hi " + nam')
        assert [(p["line"], p["code"]) for p in out["problems"]] == [(3, "TS2552")]
        out = edit(
            ws, "lib/greet.mjs", "export function greet(name)", "export function hello(name)"
        )
        found = [(p["path"], p["line"], p["code"]) for p in out["problems"]]
        assert found == [(str(project / "lib/use.js"), 1, "TS2305")]  # no exported member


def test_a_project_without_its_own_typescript_gets_no_problems_and_runs_nothing(
    tmp_path: Path,
) -> None:
    project = make_project(tmp_path / "plain", None)
    with Workspace(roots=[project], analyzers=["typescript"], analysis_budget=60.0) as ws:
        out = edit(ws, "src/a.ts", 'greet("a", "!")', "nothere")
        assert out["written"] is True
        assert "problems" not in out
        assert "problems_note" not in out
        assert analyzer_of(ws)._served == {}


def test_a_planted_tsserver_is_not_run_unless_the_analyzer_is_on(tmp_path: Path) -> None:
    project = make_project(tmp_path / "planted", None)
    marker = tmp_path / "ran"
    fake = project / SERVER_JS
    fake.parent.mkdir(parents=True)
    fake.write_text(f'require("fs").writeFileSync({str(marker)!r}, "ran");\n')
    (fake.parent / "typescript.js").write_text(
        f'require("fs").writeFileSync({str(marker)!r}, "ran");\n'
        "module.exports = { server: { ProjectService: class { requestEnablePlugin() {} } } };\n"
    )
    with Workspace(roots=[project]) as ws:  # the default analyzers
        out = edit(ws, "src/a.ts", 'greet("a", "!")', "nothere")
        assert out["written"] is True
        assert "problems" not in out
    assert not marker.exists()
    # The same project with the analyzer on does run it (so the check above can fail).
    with Workspace(roots=[project], analyzers=["typescript"], analysis_budget=60.0) as ws:
        edit(ws, "src/a.ts", "nothere", "nothere2")
    assert marker.read_text() == "ran"


def test_a_tsconfig_plugin_is_never_loaded(tmp_path: Path, node_modules: Path) -> None:
    project = make_project(tmp_path / "plugged", None)
    config = TSCONFIG.replace('"types": []', '"types": [], "plugins": [{"name": "evil"}]')
    (project / "tsconfig.json").write_text(config)
    modules = project / "node_modules"
    # A copy (hard links) of TypeScript inside the project: tsserver looks for plugins in the
    # node_modules that holds it.
    shutil.copytree(node_modules / "typescript", modules / "typescript", copy_function=_link)
    marker = tmp_path / "plugin-ran"
    evil = modules / "evil"
    evil.mkdir()
    (evil / "package.json").write_text('{"name": "evil", "main": "index.js"}\n')
    (evil / "index.js").write_text(
        f'require("fs").writeFileSync({str(marker)!r}, "ran");\n'
        "module.exports = () => ({ create: (info) => info.languageService });\n"
    )
    with Workspace(roots=[project], analyzers=["typescript"], analysis_budget=60.0) as ws:
        out = edit(ws, "src/a.ts", 'greet("a", "!")', "nothere")
        assert [p["code"] for p in out["problems"]] == ["TS2304"]
    assert not marker.exists()


def _link(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def processes_in(folder: Path) -> list[int]:
    """The processes working in ``folder`` (a tsserver runs in its project folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "cwd") == str(folder):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def no_process_left_in(folder: Path) -> bool:
    end = time.monotonic() + 20
    while processes_in(folder) and time.monotonic() < end:
        time.sleep(0.1)
    return not processes_in(folder)


needs_proc = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc")


@needs_proc
def test_the_cli_runs_typescript_when_asked_and_leaves_no_process(
    own: tuple[Path, Workspace],
) -> None:
    project = own[0]
    args = {
        "path": "src/greet.ts",
        "edits": [{"old_text": "name: string, punct: string", "new_text": "name: string"}],
    }
    code, out = cli(project, "edit_file", args)  # ruff alone: no TypeScript problem
    assert code == 0
    assert "problems" not in out
    edits = [{"old_text": "name + punct", "new_text": "name"}]
    code, out = run_cli(
        project, "call", "--analyzer", "typescript", "edit_file",
        json.dumps({"path": "src/greet.ts", "edits": edits, "dry_run": True}),
    )  # fmt: skip
    assert code == 0
    assert out["problems"] == []
    assert out["problems_fixed"] == 1
    assert no_process_left_in(project)


@needs_proc
@pytest.mark.anyio
async def test_problems_over_mcp_and_no_tsserver_outlives_the_server(
    own: tuple[Path, Workspace],
) -> None:
    project = own[0]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(project), "--analyzer", "typescript",
              "--analysis-budget", "60", "--log-level", "WARNING"],
        env=STATE_ENV,
    )  # fmt: skip
    async with Client(params) as client:
        edit = {
            "path": "src/greet.ts",
            "edits": [{"old_text": "name: string, punct: string", "new_text": "name: string"}],
        }
        result = await client.call_tool("edit_file", edit)
        text = "".join(b.text for b in result.content if isinstance(b, TextContent))
        assert not result.is_error, text
        found = sorted((p["path"], p["code"]) for p in json.loads(text)["problems"])
        assert found == [
            (str(project / "src/a.ts"), "TS2554"),
            (str(project / "src/b.ts"), "TS2554"),
            (str(project / "src/greet.ts"), "TS2304"),
        ]
        result = await client.call_tool("diagnostics", {"path": "src/b.ts"})
        text = "".join(b.text for b in result.content if isinstance(b, TextContent))
        assert [p["code"] for p in json.loads(text)["problems"]] == ["TS2554"]
        assert processes_in(project)  # the warm tsserver
    assert no_process_left_in(project)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_files_that_import_a_file_are_found_by_a_text_scan(tmp_path: Path) -> None:
    files = {
        "src/lib/mod.ts": "export const x = 1;\n",
        "src/a.ts": 'import { x } from "./lib/mod";\n',
        "src/b.ts": 'export { x } from "./lib/mod.js";\n',
        "src/c.js": 'const { x } = require("./lib/mod");\n',
        "src/lib/d.ts": 'import("./mod").then(() => 0);\n',
        "src/e.ts": 'import { x } from "./lib/modx";\n',
        "src/f.ts": 'import { y } from "./other";\n',
        "node_modules/pkg/g.ts": 'import { x } from "../../src/lib/mod";\n',
        ".hidden/h.ts": 'import { x } from "../src/lib/mod";\n',
        "src/idx/user.ts": 'import { z } from "../pkg";\n',
        "src/pkg/index.ts": "export const z = 2;\n",
    }
    make_project(tmp_path / "scan", None, files)
    root = str(tmp_path / "scan")
    real = os.path.join(root, "src/lib/mod.ts")
    found, notes = typescript_dependents(real, root, [root])
    names = [os.path.relpath(f, root) for f in found]
    assert names == ["src/lib/d.ts", "src/a.ts", "src/b.ts", "src/c.js"]
    assert notes == []
    found, notes = typescript_dependents(real, root, [root], limit=2)
    assert [os.path.relpath(f, root) for f in found] == ["src/lib/d.ts", "src/a.ts"]
    assert notes == ["4 files import mod.ts; the 2 nearest were checked"]
    index = os.path.join(root, "src/pkg/index.ts")
    assert typescript_dependents(index, root, [root])[0] == [os.path.join(root, "src/idx/user.ts")]
    assert typescript_dependents(real, root, [str(tmp_path / "elsewhere")]) == ([], [])


TEXT = st.text(alphabet="ab\r\n\u00e9\U0001f600\udc80", max_size=40)


@settings(max_examples=examples(300))
@given(old=TEXT, new=TEXT, cut=st.integers(0, 40), keep=st.integers(0, 40))
def test_a_change_sent_to_tsserver_turns_the_old_text_into_the_new(
    old: str, new: str, cut: int, keep: int
) -> None:
    for after in (new, old[:cut] + new[:3] + old[keep:]):
        change = _change(old, after)
        units = old.encode("utf-16-le", "surrogatepass")
        start, length = change["span"]["start"] * 2, change["span"]["length"] * 2
        made = units[:start] + change["newText"].encode("utf-16-le", "surrogatepass")
        made += units[start + length :]
        assert made.decode("utf-16-le", "surrogatepass") == after
        assert len(change["newText"]) <= len(after)
