"""Language servers configured by command, the LSP session's failures, and the search for the
files that import an edited Python file.

The servers here are real processes: basedpyright's language server configured by its command
(diagnostics pushed, as most servers do), and, to inject faults a real server does not produce on
demand, a small script that speaks LSP badly (a message too large, no answer at all).
"""

from __future__ import annotations

import gc
import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from editguard import Workspace
from editguard.analyze import LanguageServer, parse_language_server
from editguard.analyze import lsp_client as client_module
from editguard.analyze.base import Edit, Job
from editguard.analyze.dependents import imported_modules, module_names, python_dependents
from editguard.analyze.language_server import resolve_command
from editguard.analyze.pyright import BasedPyright, installed, langserver_command

from .conftest import SRC, run_cli


@pytest.mark.parametrize(
    ("spec", "name", "extensions", "command"),
    [
        ("gopls:.go:gopls", "gopls", (".go",), ("gopls",)),
        ("rust-analyzer:rs:rust-analyzer", "rust-analyzer", (".rs",), ("rust-analyzer",)),
        (
            "clangd:.c,.h,.cpp:clangd --background-index",
            "clangd",
            (".c", ".h", ".cpp"),
            ("clangd", "--background-index"),
        ),
        ("x:.x:/opt/my server/bin/x --stdio", "x", (".x",), ("/opt/my", "server/bin/x", "--stdio")),
        ("x:.x:'/opt/my server/x' --stdio", "x", (".x",), ("/opt/my server/x", "--stdio")),
    ],
)
def test_a_language_server_flag_names_the_server_its_extensions_and_its_command(
    spec: str, name: str, extensions: tuple[str, ...], command: tuple[str, ...]
) -> None:
    server = parse_language_server(spec)
    assert (server.name, server.extensions, server.command) == (name, extensions, command)
    assert server.accepts(f"/p/file{extensions[0]}")
    assert not server.accepts("/p/file.unknown")


@pytest.mark.parametrize("spec", ["gopls", "gopls:.go", "gopls::gopls", ":.go:gopls", "a:.go:"])
def test_a_malformed_language_server_flag_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="NAME:EXT"):
        parse_language_server(spec)


def _executable(path: Path, body: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(0o755)
    return path


def test_a_command_found_inside_the_roots_is_refused_unless_given_by_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    tool = _executable(root / "bin" / "sneaky-ls")
    monkeypatch.setenv("PATH", f"{root / 'bin'}{os.pathsep}{os.environ['PATH']}")
    refused = resolve_command(["sneaky-ls", "--stdio"], [str(root)])
    assert isinstance(refused, str)
    assert "inside the roots" in refused
    assert resolve_command([str(tool), "--stdio"], [str(root)]) == (str(tool), "--stdio")
    assert resolve_command(["no-such-server-here"], [str(root)]) == (
        "no-such-server-here not found on PATH"
    )
    # Through an edit: a note, the edit stands.
    (root / "main.sneaky").write_text("a\n")
    ws = Workspace(roots=[root], analyzers=[LanguageServer("sneaky", ["sneaky-ls"], [".sneaky"])])
    try:
        result = ws.call(
            "edit_file", path="main.sneaky", edits=[{"old_text": "a", "new_text": "b"}]
        ).model_dump(exclude_none=True)
    finally:
        ws.close()
    assert result["written"] is True
    assert result["problems"] == []
    assert "sneaky: sneaky-ls resolves to" in result["problems_note"]


@pytest.mark.skipif(not installed(), reason="basedpyright is not installed")
def test_a_server_configured_by_command_reports_pushed_diagnostics(tmp_path: Path) -> None:
    command = langserver_command()
    assert command is not None
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyrightconfig.json").write_text('{"typeCheckingMode": "standard"}')
    (root / "lib.py").write_text("def f(a: int) -> int:\n    return a\n")
    (root / "main.py").write_text("from lib import f\n\nX = f(1)\n")
    server = LanguageServer("pyls", command, [".py"])
    ws = Workspace(roots=[root], analyzers=[server], analysis_budget=60.0)
    try:
        result = ws.call(
            "edit_file", path="main.py", edits=[{"old_text": "f(1)", "new_text": "f(1, 2)"}]
        ).model_dump(exclude_none=True)
        [problem] = result["problems"]
        assert (problem["analyzer"], problem["line"]) == ("pyls", 3)
        assert problem["code"] == "reportCallIssue"
        fixed = ws.call(
            "edit_file", path="main.py", edits=[{"old_text": "f(1, 2)", "new_text": "f(2)"}]
        ).model_dump(exclude_none=True)
        assert fixed["problems"] == []
        assert fixed["problems_fixed"] == 1
        session = server.session(str(root), [str(root)])
        assert not isinstance(session, str)
        pid = session.pid
        assert pid is not None
    finally:
        ws.close()
    assert session.pid is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


FAKE_SERVER = textwrap.dedent(
    """
    import json, sys, time

    def read():
        length = 0
        while True:
            line = sys.stdin.buffer.readline()
            if not line:
                sys.exit(0)
            if line in (b"\\r\\n", b"\\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(sys.stdin.buffer.read(length))

    def send(message):
        body = json.dumps(message).encode()
        sys.stdout.buffer.write(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
        sys.stdout.buffer.flush()

    mode = sys.argv[1]
    while True:
        message = read()
        if mode == "silent":
            continue
        if message.get("method") == "initialize":
            pull = {"interFileDependencies": True, "workspaceDiagnostics": False}
            capabilities = {"diagnosticProvider": pull} if mode == "hang" else {}
            result = {"capabilities": capabilities}
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif message.get("method") == "initialized" and mode == "huge":
            sys.stdout.buffer.write(b"Content-Length: 999999999\\r\\n\\r\\n")
            sys.stdout.buffer.flush()
            time.sleep(60)
    """
)


def _fake(tmp_path: Path, mode: str) -> tuple[Path, LanguageServer]:
    script = tmp_path / "tools" / "fake_server.py"
    script.parent.mkdir(exist_ok=True)
    script.write_text(FAKE_SERVER)
    root = tmp_path / "proj"
    root.mkdir(exist_ok=True)
    (root / "a.fake").write_text("one\n")
    return root, LanguageServer("fake", [sys.executable, str(script), mode], [".fake"])


def _job(root: Path) -> Job:
    real = str(root / "a.fake")
    return Job(str(root), (Edit(real, "one\n", "one\n"),), True, 0.0, (str(root),))


def test_a_server_sending_a_huge_message_is_cut_off_with_a_note(tmp_path: Path) -> None:
    root, server = _fake(tmp_path, "huge")
    try:
        found = server.compare(_job(root))
    finally:
        server.close()
    assert found.after == {}
    assert any("over 16 MB" in note for note in found.notes), found.notes


def test_a_server_that_never_answers_is_a_note_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_module, "START_TIMEOUT", 0.5)  # the fault: no answer, ever
    root, server = _fake(tmp_path, "silent")
    try:
        found = server.compare(_job(root))
        again = server.compare(_job(root))  # not tried again at once: the same note
    finally:
        server.close()
    assert found.after == {}
    assert any("fake: could not start" in note for note in found.notes), found.notes
    assert again.notes == [n for n in found.notes if "could not start" in n]


def test_a_server_that_stops_answering_is_killed_and_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_module, "REQUEST_TIMEOUT", 0.5)  # the fault: no diagnostics
    root, server = _fake(tmp_path, "hang")
    try:
        first = server.compare(_job(root))
        session = server.session(str(root), [str(root)])
        assert not isinstance(session, str)
        assert session.pid is None  # killed, not left hanging
        second = server.compare(_job(root))  # a new one, which hangs too
    finally:
        server.close()
    for found in (first, second):
        assert found.before == found.after == {}
        assert found.notes == [
            "fake: it did not answer within 0.5 s; it is started again on next use"
        ]


@pytest.mark.skipif(not installed(), reason="basedpyright is not installed")
def test_no_server_outlives_a_workspace_dropped_or_a_process_that_exits(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.py").write_text("X = 1\n")
    script = textwrap.dedent(
        f"""
        from editguard import Workspace
        from editguard.analyze.pyright import BasedPyright
        server = BasedPyright()
        ws = Workspace(roots=[{str(root)!r}], analyzers=[server], analysis_budget=60)
        ws.call("edit_file", path="main.py", edits=[{{"old_text": "1", "new_text": "2"}}])
        print(server.session({str(root)!r}, []).pid)
        """
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    gone_at_exit = int(ran.stdout)
    server = BasedPyright()
    ws = Workspace(roots=[root], analyzers=[server], analysis_budget=60)
    ws.call("edit_file", path="main.py", edits=[{"old_text": "2", "new_text": "3"}])
    session = server.session(str(root), [])
    assert not isinstance(session, str)
    gone_with_workspace = session.pid
    assert gone_with_workspace is not None
    del ws, server, session
    gc.collect()
    for pid in (gone_at_exit, gone_with_workspace):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


# --- the files that import an edited Python file ---------------------------------------------


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_module_is_known_by_its_package_path_and_its_path_from_the_project(
    tmp_path: Path,
) -> None:
    _tree(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/sub/__init__.py": "", "tools/run.py": ""})
    project = str(tmp_path)
    assert module_names(str(tmp_path / "src/pkg/sub/mod.py"), project) == {"pkg.sub.mod"}
    assert module_names(str(tmp_path / "src/pkg/sub/__init__.py"), project) == {"pkg.sub"}
    assert module_names(str(tmp_path / "tools/run.py"), project) == {"run", "tools.run"}
    assert module_names(str(tmp_path / "notes.txt"), project) == set()


@pytest.mark.parametrize(
    ("text", "package", "expected"),
    [
        ("import a.b\n", "", {"a.b"}),
        ("import a.b as c, d\n", "", {"a.b", "d"}),
        ("from a.b import x\n", "", {"a.b", "a.b.x"}),
        ("from a import (\n    b,\n    c as d,\n)\n", "", {"a", "a.b", "a.c"}),
        ("from . import mod\n", "pkg.sub", {"pkg.sub", "pkg.sub.mod"}),
        ("from .mod import f\n", "pkg.sub", {"pkg.sub.mod", "pkg.sub.mod.f"}),
        ("from ..other import g\n", "pkg.sub", {"pkg.other", "pkg.other.g"}),
        ("if TYPE_CHECKING:\n    from a import b\n", "", {"a", "a.b"}),
        ("from a import \\\n    b\n", "", {"a", "a.b"}),
        ("from a import *\n", "", {"a"}),
        ("x = 'import nothing'\n", "", set()),
    ],
)
def test_import_statements_name_the_modules_they_load(
    text: str, package: str, expected: set[str]
) -> None:
    assert imported_modules(text, package) == expected


@pytest.mark.parametrize("ripgrep", [True, False])
def test_the_files_that_import_a_module_are_found_nearest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ripgrep: bool
) -> None:
    if not ripgrep:  # editguard's setting for "no rg": the walk does the search
        monkeypatch.setenv("EDITGUARD_RG", str(tmp_path / "no-rg"))
    _tree(
        tmp_path,
        {
            "src/pkg/__init__.py": "",
            "src/pkg/shapes.py": "def area(w, h): ...\n",
            "src/pkg/near.py": "from .shapes import area\n",
            "src/pkg/also.py": "from . import shapes\n",
            "src/pkg/deep/__init__.py": "",
            "src/pkg/deep/far.py": "import pkg.shapes\n",
            "tests/test_shapes.py": "from pkg.shapes import area\n",
            "src/pkg/mentions.py": "# shapes are nice\nimport os\n",
            "node_modules/x/y.py": "from pkg.shapes import area\n",
            ".venv/lib/z.py": "from pkg.shapes import area\n",
            "build/.hidden/w.py": "from pkg.shapes import area\n",
        },
    )
    real = str(tmp_path / "src/pkg/shapes.py")
    found, notes = python_dependents(real, str(tmp_path), [str(tmp_path)], limit=20)
    names = [os.path.relpath(f, tmp_path) for f in found]
    assert sorted(names[:2]) == ["src/pkg/also.py", "src/pkg/near.py"]
    assert sorted(names[2:]) == ["src/pkg/deep/far.py", "tests/test_shapes.py"]
    assert notes == []
    capped, notes = python_dependents(real, str(tmp_path), [str(tmp_path)], limit=2)
    assert sorted(capped) == sorted(found[:2])
    assert notes == ["more than 2 files import shapes.py; the 2 nearest were checked"]
    # A deleted module: its path says who imported it.
    os.remove(real)
    gone, _ = python_dependents(real, str(tmp_path), [str(tmp_path)], limit=20)
    assert sorted(gone) == sorted(found)


@pytest.mark.skipif(not installed(), reason="basedpyright is not installed")
def test_the_command_line_takes_a_language_server_flag(tmp_path: Path) -> None:
    command = langserver_command()
    assert command is not None
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyrightconfig.json").write_text('{"typeCheckingMode": "standard"}')
    (root / "main.py").write_text("def f(a: int) -> int:\n    return a\n")
    flag = f"pyls:.py:{shlex.join(command)}"
    edit = {"path": "main.py", "edits": [{"old_text": "return a", "new_text": "return b"}]}
    code, out = run_cli(root, "call", "--language-server", flag, "edit_file", json.dumps(edit))
    assert code == 0, out
    assert {(p["analyzer"], p["line"]) for p in out["problems"]} == {("pyls", 2), ("ruff", 2)}
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "editguard",
            "call",
            "--language-server",
            "gopls",
            "read_file",
            "{}",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert bad.returncode == 2
    assert "NAME:EXT[,EXT]:COMMAND" in bad.stderr


@pytest.mark.skipif(not installed(), reason="basedpyright is not installed")
def test_warming_starts_a_server_only_where_it_has_files_to_check(tmp_path: Path) -> None:
    empty = tmp_path / "docs"
    empty.mkdir()
    (empty / "index.md").write_text("# Docs\n")
    python = tmp_path / "code"
    python.mkdir()
    (python / "main.py").write_text("X = 1\n")
    server = BasedPyright()
    try:
        server.warm(str(empty))
        server.warm(str(python))
        sessions = {p: server.session(p, []) for p in (str(empty), str(python))}
        pids = {p: s.pid for p, s in sessions.items() if not isinstance(s, str)}
    finally:
        server.close()
    assert pids[str(empty)] is None
    assert pids[str(python)] is not None
