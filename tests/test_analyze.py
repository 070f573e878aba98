"""Problems after an edit (issue 24): what ruff, the analyzer that comes with editguard, finds
in the edited text with the project's own configuration, only what the edit introduced, in
every writing tool's result, through the API, the CLI and the MCP server; the budget, pending
analyses and the ``diagnostics`` tool; and the comparison that tells a new problem from one that
only moved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters
from mcp_types import TextContent

from editguard import Workspace
from editguard.analyze import Analyzer, Findings, Job, Problem
from editguard.analyze.problem import compare, line_map
from editguard.analyze.process import run_capped
from editguard.errors import EditError

from .conftest import cli, examples, run_cli
from .test_mcp import STATE_ENV, HttpServer, authorized

# The analyzer these tests are about (the default set adds basedpyright where it is installed:
# tests/test_analyze_pyright.py).
RUFF = ["ruff"]
RUFF_FLAG = ("--analyzer", "ruff")

BROKEN = "def area(width, height):\n    return width * heigth\n"
FIXED = "def area(width, height):\n    return width * height\n"


def _project(root: Path, config: str = "") -> Path:
    """A small real package: a pyproject.toml (with ``config`` under it) and three modules."""
    (root / "pyproject.toml").write_text('[project]\nname = "shapes"\nversion = "1.0"\n' + config)
    pkg = root / "shapes"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""Shapes."""\n')
    (pkg / "area.py").write_text(
        '"""Areas."""\n\nimport math\n\n\ndef circle(r):\n    return math.pi * r * r\n\n\n'
        "def square(side):\n    return side * side\n"
    )
    (pkg / "broken.py").write_text(BROKEN)
    return root


@pytest.fixture
def project(root: Path) -> Path:
    return _project(root)


def _edit(ws: Workspace, path: str, old: str, new: str, **more: Any) -> dict[str, Any]:
    result = ws.call("edit_file", path=path, edits=[{"old_text": old, "new_text": new}], **more)
    data: dict[str, Any] = result.model_dump(mode="json")
    return data


def test_an_undefined_name_is_one_new_problem_at_its_line(project: Path) -> None:
    ws = Workspace([project], analyzers=RUFF)
    out = _edit(ws, "shapes/area.py", "return side * side", "return side * sidee")
    assert out["written"]
    [problem] = out["problems"]
    assert problem == {
        "path": str(project / "shapes" / "area.py"),
        "line": 11,
        "column": 19,
        "analyzer": "ruff",
        "code": "F821",
        "message": "Undefined name `sidee`",
        "text": "11│    return side * sidee",
    }
    assert out["problems_fixed"] == 0
    assert "written" in out["problems_note"]
    assert "not refused" in out["problems_note"]


def test_a_clean_edit_has_no_problems_and_says_so(project: Path) -> None:
    ws = Workspace([project], analyzers=RUFF)
    out = _edit(ws, "shapes/area.py", "return side * side", "return side**2")
    assert out["problems"] == []
    assert out["problems_fixed"] == 0
    assert "problems_note" not in out
    assert "problems_pending" not in out


def test_an_edit_that_fixes_a_problem_counts_it(project: Path) -> None:
    ws = Workspace([project], analyzers=RUFF)
    out = _edit(ws, "shapes/broken.py", "heigth", "height")
    assert out["problems"] == []
    assert out["problems_fixed"] == 1


def test_problems_already_there_are_not_new_when_lines_move(project: Path) -> None:
    ws = Workspace([project], analyzers=RUFF)
    # Lines above the old problem: it moves down two lines, and is still not new.
    out = _edit(ws, "shapes/broken.py", "def area", "SIDES = 4\n\n\ndef area")
    assert out["problems"] == []
    assert out["problems_fixed"] == 0
    # An edit of the very line the problem is on, which leaves it there, is no new problem.
    out = _edit(ws, "shapes/broken.py", "return width * heigth", "return (width * heigth)")
    assert out["problems"] == []
    assert out["problems_fixed"] == 0


@pytest.mark.parametrize("only", [{"dry_run": True}, {"mode": "verify_only"}])
def test_a_call_that_only_checks_reports_the_problems_it_would_bring(
    project: Path, only: dict[str, Any]
) -> None:
    ws = Workspace([project], analyzers=RUFF)
    before = (project / "shapes" / "area.py").read_bytes()
    out = _edit(ws, "shapes/area.py", "math.pi", "maths.pi", **only)
    assert not out["written"]
    assert [p["code"] for p in out["problems"]] == ["F401", "F821"]
    assert out["problems_note"].startswith("Nothing was written")
    assert (project / "shapes" / "area.py").read_bytes() == before


def test_the_projects_own_ruff_configuration_applies(root: Path) -> None:
    # Line length 40 and pycodestyle's E501: what the project asks for, not the default.
    project = _project(root, "[tool.ruff]\nline-length = 40\n[tool.ruff.lint]\nselect = ['E501']\n")
    ws = Workspace([project], analyzers=RUFF)
    out = _edit(
        ws, "shapes/area.py", "return side * side", "return side * side * 1 * 1 * 1 * 1 * 1"
    )
    assert [(p["code"], p["line"]) for p in out["problems"]] == [("E501", 11)]
    # Its excludes apply too: an excluded file is never reported on.
    (project / "ruff.toml").write_text("extend-exclude = ['shapes/broken.py']\n")
    out = _edit(ws, "shapes/broken.py", "width * heigth", "width * heigth * undefined")
    assert out["problems"] == []


def test_without_a_configuration_only_pyflakes_and_syntax_count(root: Path) -> None:
    ws = Workspace([root], analyzers=RUFF)
    (root / "m.py").write_text("import os\n")
    # Unsorted imports and a long line are style, not problems; an unused import is.
    out = _edit(ws, "m.py", "import os\n", "import sys\nimport os\n\nX = '" + "x" * 200 + "'\n")
    assert sorted(p["code"] for p in out["problems"]) == ["F401"]
    assert out["problems_fixed"] == 0


def test_crlf_files_and_created_files_are_checked_at_the_right_lines(root: Path) -> None:
    ws = Workspace([root], analyzers=RUFF)
    (root / "w.py").write_bytes(b"a = 1\r\nb = 2\r\n")
    out = _edit(ws, "w.py", "b = 2", "b = c")
    assert [(p["line"], p["text"]) for p in out["problems"]] == [(2, "2│b = c")]
    made = ws.call("write_file", path="new.py", content="x = y\n").model_dump(mode="json")
    assert made["written"]
    assert [(p["code"], p["line"]) for p in made["problems"]] == [("F821", 1)]


def test_other_files_get_no_problem_fields_and_nothing_runs(root: Path) -> None:
    ws = Workspace([root], analyzers=RUFF)
    (root / "notes.txt").write_text("hello\n")
    out = _edit(ws, "notes.txt", "hello", "bye")
    assert not any(k.startswith("problems") for k in out)


def test_no_analyzer_no_fields(project: Path) -> None:
    ws = Workspace([project], analyzers=[])
    out = _edit(ws, "shapes/area.py", "return side * side", "return side * sidee")
    assert not any(k.startswith("problems") for k in out)


def test_every_writing_tool_reports_problems(project: Path) -> None:
    ws = Workspace([project], analyzers=RUFF)
    lines = ws.call(
        "edit_lines",
        path="shapes/area.py",
        edits=[{"type": "Insert", "line_number": 12, "text": "y = z"}],
    ).model_dump(mode="json")
    assert [p["code"] for p in lines["problems"]] == ["F821"]
    patch = "*** Begin Patch\n*** Update File: shapes/area.py\n@@\n-y = z\n+y = 2\n*** End Patch\n"
    applied = ws.call("apply_patch", patch=patch).model_dump(mode="json")
    assert applied["problems"] == []
    assert applied["problems_fixed"] == 1
    batch = ws.call(
        "batch",
        calls=[
            {"tool": "write_file", "arguments": {"path": "a.py", "content": "print(q)\n"}},
            {"tool": "write_file", "arguments": {"path": "b.py", "content": "print(r)\n"}},
        ],
    ).model_dump(mode="json")
    assert sorted(p["message"] for p in batch["problems"]) == [
        "Undefined name `q`",
        "Undefined name `r`",
    ]
    undone = ws.call("undo").model_dump(mode="json")
    assert undone["problems"] == []
    assert undone["problems_fixed"] == 2


def test_problems_describe_the_file_as_it_is_on_disk_after_an_outside_change(
    project: Path,
) -> None:
    ws = Workspace([project], analyzers=RUFF)
    target = project / "shapes" / "area.py"
    _edit(ws, "shapes/area.py", "return side * side", "return side * side  # ok")
    # Someone else fixes nothing but adds a problem of their own, outside editguard.
    target.write_text(target.read_text().replace("import math", "import math\nimport json"))
    out = _edit(ws, "shapes/area.py", "# ok", "# fine")
    assert out["problems"] == []  # the outside problem was there before this edit
    current = ws.call("diagnostics", path="shapes/area.py").model_dump(mode="json")
    assert [(p["code"], p["line"]) for p in current["problems"]] == [("F401", 4)]


class Slow(Analyzer):
    """An analyzer that takes its time (a language server starting cold): it reports every
    line that says ``BAD`` once ``release`` is set."""

    name = "slow"
    fast = False

    def __init__(self) -> None:
        self.release = threading.Event()
        self.checked: list[str] = []

    def accepts(self, real: str) -> bool:
        return real.endswith(".txt")

    def _problems(self, real: str, text: str | None) -> list[Problem]:
        return [
            Problem(real, i, 1, self.name, "BAD", "a bad line")
            for i, line in enumerate((text or "").split("\n"), 1)
            if "BAD" in line
        ]

    def compare(self, job: Job) -> Findings:
        self.release.wait(30)
        found = Findings()
        for e in job.edits:
            self.checked.append(e.real)
            found.before[e.real] = self._problems(e.real, e.before)
            found.after[e.real] = self._problems(e.real, e.after)
        return found

    def current(self, project: str, reals: Sequence[str]) -> Findings:
        found = Findings()
        for real in reals:
            with open(real, encoding="utf-8") as f:
                found.after[real] = self._problems(real, f.read())
        return found


class Failing(Slow):
    name = "failing"

    def compare(self, job: Job) -> Findings:
        raise RuntimeError("the analyzer broke")


def test_past_the_budget_problems_are_pending_and_diagnostics_gives_them(root: Path) -> None:
    slow = Slow()
    ws = Workspace([root], analyzers=[slow], analysis_budget=0.05)
    (root / "a.txt").write_text("one\ntwo\n")
    started = time.monotonic()
    out = _edit(ws, "a.txt", "two", "BAD two")
    assert time.monotonic() - started < 5  # the answer did not wait for the analyzer
    assert out["written"]
    assert out["problems"] == []
    assert out["problems_pending"] == ["slow"]
    assert out["problems_note"] == (
        "Still checking: slow; the diagnostics tool gives what they find."
    )
    early = ws.call("diagnostics", path="a.txt").model_dump(mode="json")
    assert early["pending"] == ["slow"]
    slow.release.set()
    ws.context.analysis._pool.submit(time.sleep, 0).result()  # type: ignore[union-attr]
    late = ws.call("diagnostics", path="a.txt").model_dump(mode="json")
    assert [(p["line"], p["text"]) for p in late["introduced"]] == [(2, "2│BAD two")]
    assert late["fixed"] == 0
    assert late["pending"] is None
    assert [p["line"] for p in late["problems"]] == [2]
    # Given once: the next call has nothing more from that edit.
    again = ws.call("diagnostics", path="a.txt").model_dump(mode="json")
    assert again["introduced"] is None
    ws.close()


def test_a_pending_result_for_a_file_changed_since_is_dropped(root: Path) -> None:
    slow = Slow()
    ws = Workspace([root], analyzers=[slow], analysis_budget=0.05)
    (root / "a.txt").write_text("one\n")
    assert _edit(ws, "a.txt", "one", "BAD one")["problems_pending"] == ["slow"]
    (root / "a.txt").write_text("one again\n")  # changed outside before the answer came
    slow.release.set()
    late = ws.call("diagnostics", path="a.txt").model_dump(mode="json")
    assert late["introduced"] is None
    assert "changed since" in late["note"]
    assert late["problems"] == []  # what is on disk now has no bad line
    ws.close()


def test_a_broken_analyzer_is_a_note_and_the_edit_stands(root: Path) -> None:
    failing = Failing()
    ws = Workspace([root], analyzers=[failing])
    (root / "a.txt").write_text("one\n")
    out = _edit(ws, "a.txt", "one", "BAD")
    assert out["written"]
    assert (root / "a.txt").read_text() == "BAD\n"
    assert out["problems"] == []
    assert "failing: failed (RuntimeError: the analyzer broke)" in out["problems_note"]


def test_diagnostics_of_a_folder_and_of_every_root(project: Path) -> None:
    ws = Workspace([project], analyzers=RUFF)
    out = ws.call("diagnostics").model_dump(mode="json")
    assert [(Path(p["path"]).name, p["code"]) for p in out["problems"]] == [("broken.py", "F821")]
    sub = ws.call("diagnostics", path="shapes").model_dump(mode="json")
    assert sub["problems"] == out["problems"]
    none = Workspace([project], analyzers=[]).call("diagnostics").model_dump(mode="json")
    assert none["problems"] == []
    assert none["note"] == "no analyzer is configured"


def test_diagnostics_refuses_what_is_outside_the_roots_or_missing(project: Path) -> None:
    ws = Workspace([project / "shapes"], analyzers=RUFF)
    for path, code in (("../pyproject.toml", "OUTSIDE_ROOT"), ("gone.py", "FILE_NOT_FOUND")):
        with pytest.raises(EditError) as caught:
            ws.call("diagnostics", path=path)
        assert caught.value.code == code


def test_run_capped_times_out_caps_output_and_never_raises(tmp_path: Path) -> None:
    slept = run_capped(
        [sys.executable, "-c", "import time; time.sleep(30)"], cwd=str(tmp_path), timeout=0.5
    )
    assert slept.failed == "timed out after 0.5 s"
    loud = run_capped(
        [sys.executable, "-c", "import sys; sys.stdout.write('x' * 100000)"],
        cwd=str(tmp_path),
        cap=1000,
    )
    assert loud.failed == "printed more than 1,000 bytes"
    missing = run_capped([str(tmp_path / "no-such-program")], cwd=str(tmp_path))
    assert missing.failed is not None
    assert missing.failed.startswith("could not run")
    # A program that never reads its input does not block on a large one.
    deaf = run_capped(
        [sys.executable, "-c", "print('ok')"], cwd=str(tmp_path), stdin=b"x" * 5_000_000
    )
    assert deaf.stdout.strip() == b"ok"


def test_the_cli_reports_problems_and_takes_the_analyzer_flags(project: Path) -> None:
    args = {
        "path": "shapes/area.py",
        "edits": [{"old_text": "side * side", "new_text": "side * s"}],
    }
    code, out = cli(project, "edit_file", {**args, "dry_run": True})
    assert code == 0
    assert [p["code"] for p in out["problems"]] == ["F821"]
    code, out = run_cli(project, "call", "--analyzer", "none", "edit_file", json.dumps(args))
    assert code == 0
    assert out["written"]
    assert "problems" not in out
    usage = subprocess.run(
        [sys.executable, "-m", "editguard", "call", "--analyzer", "nope", "edit_file", "{}"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src")},
    )
    assert usage.returncode == 2
    assert "unknown analyzer 'nope'" in usage.stderr
    code, out = cli(project, "diagnostics", {"path": "shapes/broken.py"})
    assert code == 0
    assert [p["code"] for p in out["problems"]] == ["F821"]


async def _mcp_case(client: Client, root: Path) -> None:
    names = {t.name for t in (await client.list_tools()).tools}
    assert "diagnostics" in names
    edit = {"path": "shapes/area.py", "edits": [{"old_text": "r * r", "new_text": "r * radius"}]}
    result = await client.call_tool("edit_file", edit)
    text = "".join(b.text for b in result.content if isinstance(b, TextContent))
    assert not result.is_error, text
    data = json.loads(text)
    assert [(p["code"], p["line"]) for p in data["problems"]] == [("F821", 7)]
    assert (root / "shapes" / "area.py").read_text().count("r * radius") == 1
    result = await client.call_tool("diagnostics", {"path": "shapes/area.py"})
    text = "".join(b.text for b in result.content if isinstance(b, TextContent))
    assert [p["message"] for p in json.loads(text)["problems"]] == ["Undefined name `radius`"]


@pytest.mark.anyio
async def test_problems_over_mcp_stdio_and_http(project: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(project), "--log-level", "WARNING", *RUFF_FLAG],
        env=STATE_ENV,
    )
    async with Client(params) as client:
        await _mcp_case(client, project)
    (project / "shapes" / "area.py").write_text(
        (project / "shapes" / "area.py").read_text().replace("r * radius", "r * r")
    )
    from mcp.client.streamable_http import streamable_http_client

    server = HttpServer(project, token="t0ken", flags=RUFF_FLAG)
    try:
        async with (
            authorized("t0ken") as http,
            Client(streamable_http_client(server.url, http_client=http)) as client,
        ):
            await _mcp_case(client, project)
    finally:
        server.stop()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# The comparison, on its own.

P = Problem


def test_line_map_keeps_the_lines_around_a_change() -> None:
    where = line_map("a\nb\nc\nd", "a\nX\nY\nc\nd")
    assert [where.moved(n) for n in (1, 2, 3, 4)] == [1, None, 4, 5]
    assert [where.changed(n) for n in (1, 2, 3, 4)] == [False, True, True, False]


def test_compare_pairs_by_message_and_line_text_not_line_number() -> None:
    old = "x = a\ny = 1\n"
    new = "z = 0\nx = a\ny = b\n"
    before = [P("f", 1, 5, "ruff", "F821", "Undefined name `a`")]
    after = [
        P("f", 2, 5, "ruff", "F821", "Undefined name `a`"),
        P("f", 3, 5, "ruff", "F821", "Undefined name `b`"),
    ]
    new_found, fixed = compare(before, after, old, new)
    assert [p.message for p in new_found] == ["Undefined name `b`"]
    assert fixed == []
    # The same message twice: one is new, the one that was there is not.
    after2 = [*after[:1], P("f", 1, 1, "ruff", "F821", "Undefined name `a`")]
    new_found, fixed = compare(before, after2, old, "x = a\nx = a\ny = 1\n")
    # The old one stays on its line (the line the change kept); the copy below it is new.
    assert [(p.line, p.message) for p in new_found] == [(2, "Undefined name `a`")]
    assert len(new_found) == 1
    assert fixed == []


@settings(max_examples=examples(200), deadline=None)
@given(
    lines=st.lists(st.sampled_from(["a", "b", "c", "x = 1", "bad", ""]), min_size=1, max_size=30),
    at=st.integers(min_value=0, max_value=30),
    inserted=st.lists(st.sampled_from(["a", "new", "x = 2", ""]), max_size=5),
)
def test_lines_inserted_elsewhere_never_make_an_old_problem_new(
    lines: list[str], at: int, inserted: list[str]
) -> None:
    # Every line that says "bad" has a problem; an insertion of lines without "bad" moves them
    # but adds none and removes none.
    at = min(at, len(lines))
    old = "\n".join(lines)
    new_lines = lines[:at] + inserted + lines[at:]
    new = "\n".join(new_lines)

    def found(text_lines: list[str]) -> list[Problem]:
        return [P("f", i, 1, "t", "B", "bad") for i, s in enumerate(text_lines, 1) if s == "bad"]

    new_found, fixed = compare(found(lines), found(new_lines), old, new)
    assert new_found == []
    assert fixed == []


def test_a_terminal_shows_problems_as_a_compiler_prints_them(project: Path) -> None:
    import io

    from editguard.terminal import print_human

    ws = Workspace([project], analyzers=RUFF)
    out = _edit(ws, "shapes/area.py", "return side * side", "return side * sidee")
    shown = io.StringIO()
    print_human(shown, out)
    text = shown.getvalue()
    where = f"{project / 'shapes' / 'area.py'}:11:19: ruff F821 Undefined name `sidee`"
    assert where in text
    assert "\n    11│    return side * sidee\n" in text
    assert '"problems"' not in text  # not again in the summary line


def test_a_move_is_a_text_gone_from_one_path_and_come_to_another(root: Path) -> None:
    seen = Slow()
    seen.release.set()
    jobs: list[list[tuple[str, str | None, str | None]]] = []
    compare_before = seen.compare

    def recording(job: Job) -> Findings:
        jobs.append([(Path(e.real).name, e.before, e.after) for e in job.edits])
        return compare_before(job)

    seen.compare = recording  # type: ignore[method-assign]
    ws = Workspace([root], analyzers=[seen])
    (root / "a.txt").write_text("alpha\n")
    (root / "b.txt").write_text("beta\n")
    ws.call("move_file", source="a.txt", destination="c.txt")
    assert jobs[-1] == [("a.txt", "alpha\n", None), ("c.txt", None, "alpha\n")]
    # Two files that swap names (a diff that renames each to the other): each path ends with
    # the other's text.
    ws.call(
        "apply_diff",
        diff="diff --git a/b.txt b/c.txt\nsimilarity index 100%\nrename from b.txt\n"
        "rename to c.txt\ndiff --git a/c.txt b/b.txt\nsimilarity index 100%\n"
        "rename from c.txt\nrename to b.txt\n",
    )
    assert sorted(jobs[-1]) == [("b.txt", "beta\n", "alpha\n"), ("c.txt", "alpha\n", "beta\n")]


def test_the_cli_takes_format_and_formatter(root: Path) -> None:
    (root / "m.py").write_text("x = 1\n")
    args: dict[str, Any] = {
        "path": "m.py",
        "edits": [{"old_text": "x = 1", "new_text": "x = {'a':1}"}],
    }
    code, out = run_cli(root, "call", "--format", "edit_file", json.dumps(args))
    assert code == 0
    assert out["formatted"] == {str(root / "m.py"): '1│x = {"a": 1}'}
    assert (root / "m.py").read_text() == 'x = {"a": 1}\n'
    # With only prettier allowed, ruff may not format: the edit lands as sent, with a note.
    args = {"path": "m.py", "edits": [{"old_text": "1}", "new_text": "2 }"}], "format": True}
    code, out = run_cli(root, "call", "--formatter", "none,prettier", "edit_file", json.dumps(args))
    assert code == 0
    assert (root / "m.py").read_text() == 'x = {"a": 2 }\n'
    assert out["format_note"] == "m.py left unformatted: no Python formatter is enabled"


def test_a_broken_ruff_configuration_is_a_note_and_the_edit_stands(project: Path) -> None:
    (project / "ruff.toml").write_text("line-length = 'not a number'\n")
    ws = Workspace([project], analyzers=RUFF)
    out = _edit(ws, "shapes/area.py", "return side * side", "return side * sidee")
    assert out["written"]
    assert "sidee" in (project / "shapes" / "area.py").read_text()
    assert out["problems"] == []
    assert out["problems_note"].startswith("ruff: ruff failed; Failed to parse ")
    assert "ruff.toml; TOML parse error at line 1" in out["problems_note"]
