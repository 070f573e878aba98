"""Formatting, opt-in (``format: true``, or a workspace's ``format``): the project's real formatter
(ruff format, black, prettier from the project's node_modules, rustfmt, gofmt) applied to the
lines an edit wrote, before validation and commit; the rest of the file byte for byte; a
formatter that fails leaves the edit unformatted with a note, never failing it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from hypothesis import event, given, settings
from hypothesis import strategies as st

import editguard.analyze.format as format_module
from editguard import Workspace
from editguard.analyze.ruff import ruff_binary
from editguard.core.plan import Plan, Replacement
from editguard.core.written import keep_written, split_lines, then, written_lines
from editguard.mcp_server import EditguardServer

from .conftest import cli, examples

SRC = Path(__file__).resolve().parent.parent / "src" / "editguard"

# A well-formatted module (ruff format with line-length 100 leaves it as it is).
MODULE = '''"""A small module."""

from __future__ import annotations


def add(a: int, b: int) -> int:
    return a + b


def scale(values: list[int], factor: int) -> list[int]:
    return [v * factor for v in values]
'''

INSERTED = (
    "def  mean(values:list[int])->float:\n    total=sum( values )\n    return total/len(values)\n"
)
INSERTED_FORMATTED = [
    "def mean(values: list[int]) -> float:",
    "    total = sum(values)",
    "    return total / len(values)",
]


def _project(root: Path, pyproject: str = "[tool.ruff]\nline-length = 100\n") -> Path:
    (root / "pyproject.toml").write_text(pyproject)
    (root / "mod.py").write_text(MODULE)
    return root / "mod.py"


def call(ws: Workspace, tool: str, **arguments: Any) -> Any:
    """``ws.call``, its result as a tool's own result model (typed ``Any`` here)."""
    return ws.call(tool, **arguments)


def _insert(ws: Workspace, path: str = "mod.py", **more: Any) -> Any:
    """Insert the badly formatted function after add(), with format on."""
    return call(
        ws,
        "edit_file",
        path=path,
        edits=[{"old_text": "    return a + b\n", "new_text": "    return a + b\n\n\n" + INSERTED}],
        **{"format": True, **more},
    )


def _shown(result: Any) -> list[str]:
    """The formatted lines a result shows for its one file, without their numbers."""
    (text,) = result.formatted.values()
    return [line.split("│", 1)[1] for line in text.split("\n")]


# -- the pure part ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "replacements", "lines"),
    [
        ("a\nb\nc\n", [(2, 4, "B\n")], [(1, 1)]),  # one whole line
        ("a\nb\nc\n", [(2, 2, "x\ny\n")], [(1, 2)]),  # two new lines
        ("a\nb\nc\n", [(3, 3, "!")], [(1, 1)]),  # inside a line: that line
        ("a\nb\nc\n", [(2, 4, "")], []),  # a deletion writes no line
        ("a\nb\nc\n", [(0, 2, "A\n"), (2, 4, "B\n")], [(0, 1)]),  # touching: merged
        ("a\nb\nc\n", [(0, 2, "A\n"), (4, 6, "C\n")], [(0, 0), (2, 2)]),
        ("", [(0, 0, "x\ny")], [(0, 1)]),  # a new file
    ],
)
def test_written_lines_are_the_lines_a_replacement_holds(
    old: str, replacements: list[tuple[int, int, str]], lines: list[tuple[int, int]]
) -> None:
    plan = Plan(tuple(Replacement(*r) for r in replacements))
    assert written_lines(old, plan) == lines


def test_a_change_that_touches_an_unwritten_line_is_dropped_whole() -> None:
    text = "x=1\ny=2\nz=3\n"
    formatted = "x = 1\ny = 2\nz = 3\n"
    kept = keep_written(text, formatted, [(1, 1)])
    assert kept.text == "x=1\ny = 2\nz=3\n"
    assert kept.written == [(1, 1)]
    # Two lines joined into one, one of them not written: neither changes.
    kept = keep_written("f(1,\n  2)\n", "f(1, 2)\n", [(0, 0)])
    assert kept.text == "f(1,\n  2)\n"
    assert not kept.plan


def _real_python() -> list[str]:
    return sorted(str(p) for p in SRC.rglob("*.py") if 2_000 < p.stat().st_size < 20_000)


def _untidy(line: str) -> str:
    """The line as a careless writer would type it (what ruff format undoes)."""
    return line.replace(", ", ",").replace(" = ", "=").replace("(", "( ", 1)


@settings(max_examples=examples(40), deadline=None)
@given(data=st.data())
def test_lines_outside_the_written_ones_stay_byte_for_byte(data: st.DataObject) -> None:
    """Real code, made untidy in places inside and outside the written lines, formatted whole
    by ruff: only the written lines change, and the one plan on the old text gives the text."""
    binary = ruff_binary()
    assert binary is not None
    path = data.draw(st.sampled_from(_real_python()))
    before = Path(path).read_text(encoding="utf-8")
    lines = split_lines(before)
    untidy = sorted(set(data.draw(st.lists(st.integers(0, len(lines) - 1), max_size=12))))
    text = "".join(_untidy(line) if i in untidy else line for i, line in enumerate(lines))
    first = data.draw(st.integers(0, len(lines) - 1))
    last = data.draw(st.integers(first, min(len(lines) - 1, first + 15)))
    written = [(first, last)]
    ran = subprocess.run(
        [binary, "format", "--no-cache", "--isolated", "--stdin-filename", "x.py", "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if ran.returncode:  # an untidy line that is no longer Python: nothing to format
        return
    kept = keep_written(text, ran.stdout, written)
    old_lines = split_lines(text)
    new_lines = split_lines(kept.text)
    outside_new = [
        line for n, line in enumerate(new_lines) if not any(a <= n <= b for a, b in kept.written)
    ]
    outside_old = [line for n, line in enumerate(old_lines) if not first <= n <= last]
    assert outside_new == outside_old
    # Each line not written is found where ``moved`` says it now is.
    for n, line in enumerate(old_lines):
        if not first <= n <= last:
            assert new_lines[kept.moved[n]] == line
    assert kept.plan.apply_to_text(text) == kept.text
    # Composed with the plan that made the text from the file, one plan on the file gives it.
    edit = Plan(tuple(Replacement(0, len(before), text) for _ in [0] if before != text))
    assert then(before, edit, kept.plan, kept.text).apply_to_text(before) == kept.text


# -- Python: ruff format, black ----------------------------------------------------------


def test_a_badly_formatted_insertion_is_formatted_and_nothing_else(root: Path) -> None:
    path = _project(root)
    ws = Workspace([root], history=False)
    result = _insert(ws)
    assert result.written
    assert result.format_note is None
    (text,) = result.formatted.values()
    shown = ["", "", *INSERTED_FORMATTED]  # the two blank lines were written too
    assert text.split("\n") == [f"{n:>2}│{line}" for n, line in enumerate(shown, 8)]
    after = path.read_text()
    lines = after.split("\n")
    assert lines[9:12] == INSERTED_FORMATTED
    # Every other line as it was, byte for byte.
    assert after == MODULE.replace(
        "    return a + b\n", "    return a + b\n\n\n" + "\n".join(INSERTED_FORMATTED) + "\n", 1
    )
    assert "total = sum(values)" in result.diff
    # The lines shown are the file's: copied (without their numbers) they match.
    again = call(
        ws,
        "edit_file",
        path="mod.py",
        edits=[{"old_text": "\n".join(_shown(result)[3:]), "new_text": "    return 0.0"}],
        format=True,
    )
    assert again.written
    assert "    return 0.0\n" in path.read_text()


def test_where_each_edit_landed_is_told_in_the_formatted_file(root: Path) -> None:
    path = _project(root)
    ws = Workspace([root], history=False)
    result = call(
        ws,
        "edit_file",
        path="mod.py",
        edits=[
            {"old_text": "    return a + b\n", "new_text": "    return (a\n        +b)\n"},
            {"old_text": "    return [v * factor", "new_text": "    return [v*factor"},
        ],
        format=True,
    )
    lines = path.read_text().split("\n")
    assert lines[6] == "    return a + b"
    (second,) = result.edits_applied[1].lines
    assert lines[second - 1] == "    return [v * factor for v in values]"


def test_without_format_nothing_is_formatted(root: Path) -> None:
    path = _project(root)
    ws = Workspace([root], history=False)
    result = _insert(ws, format=False)
    assert result.formatted is None
    assert result.format_note is None
    assert INSERTED in path.read_text()
    dumped = result.model_dump(mode="json")
    assert "formatted" not in dumped
    assert "format_note" not in dumped


def test_a_workspace_that_formats_formats_every_call_unless_told_not_to(root: Path) -> None:
    path = _project(root)
    ws = Workspace([root], history=False, format=True)
    call(
        ws,
        "edit_file",
        path="mod.py",
        edits=[{"old_text": "a + b", "new_text": "a+b"}],
        format=False,
    )
    assert "return a+b\n" in path.read_text()
    call(ws, "edit_file", path="mod.py", edits=[{"old_text": "a+b", "new_text": "(a+b)"}])
    assert "return a + b\n" in path.read_text()


def test_black_formats_where_the_project_configures_it(root: Path) -> None:
    pytest.importorskip("black")
    # Black keeps single quotes here (its own setting); ruff would make them double.
    path = _project(root, "[tool.black]\nskip-string-normalization = true\n")
    ws = Workspace([root], history=False)
    result = call(
        ws,
        "edit_file",
        path="mod.py",
        edits=[
            {
                "old_text": "    return a + b\n",
                "new_text": "    d={'a':a,'b' :b}\n    return a + b\n",
            }
        ],
        format=True,
    )
    assert result.format_note is None
    assert _shown(result) == ["    d = {'a': a, 'b': b}"]
    assert "    d = {'a': a, 'b': b}\n" in path.read_text()


def test_a_black_module_of_the_project_never_stands_in_for_black(root: Path) -> None:
    pytest.importorskip("black")
    marker = root / "ran"
    path = _project(root, "[tool.black]\nskip-string-normalization = true\n")
    (root / "black.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (root / "black").mkdir()
    (root / "black" / "__main__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    ws = Workspace([root], history=False)
    result = _insert(ws)
    assert not marker.exists()
    assert result.format_note is None
    assert "    total = sum(values)\n" in path.read_text()


def test_a_crlf_file_stays_crlf_and_a_bom_stays(root: Path) -> None:
    _project(root)
    path = root / "mod.py"
    original = b"\xef\xbb\xbf" + MODULE.replace("\n", "\r\n").encode()
    path.write_bytes(original)
    ws = Workspace([root], history=False)
    result = _insert(ws)
    assert result.formatted is not None
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert b"    total = sum(values)\r\n" in data
    expected = MODULE.replace(
        "    return a + b\n", "    return a + b\n\n\n" + "\n".join(INSERTED_FORMATTED) + "\n"
    )
    assert data == b"\xef\xbb\xbf" + expected.replace("\n", "\r\n").encode()


def test_a_formatter_that_writes_crlf_does_not_change_an_lf_file(root: Path) -> None:
    path = _project(root, '[tool.ruff.format]\nline-ending = "cr-lf"\n')
    ws = Workspace([root], history=False)
    result = _insert(ws)
    assert result.formatted is not None
    assert b"\r" not in path.read_bytes()


def test_a_ruff_that_fails_leaves_the_edit_unformatted_with_a_note(root: Path) -> None:
    path = _project(root, '[tool.ruff]\nline-length = "long"\n')
    ws = Workspace([root], history=False)
    result = _insert(ws)
    assert result.written
    assert result.formatted is None
    assert result.format_note is not None
    assert result.format_note.startswith("mod.py left unformatted: ruff format failed")
    assert INSERTED in path.read_text()


def test_a_file_the_projects_ruff_excludes_is_left_as_written(root: Path) -> None:
    path = _project(root, '[tool.ruff]\nextend-exclude = ["mod.py"]\n')
    ws = Workspace([root], history=False)
    result = _insert(ws)
    assert result.formatted is None
    assert result.format_note is None
    assert INSERTED in path.read_text()


def test_a_dry_run_shows_the_formatted_diff_and_writes_nothing(root: Path) -> None:
    path = _project(root)
    ws = Workspace([root], history=False)
    result = _insert(ws, dry_run=True)
    assert not result.written
    assert path.read_text() == MODULE
    assert "+    total = sum(values)\n" in result.diff
    assert "total=sum" not in result.diff
    assert _shown(result) == ["", "", *INSERTED_FORMATTED]


def test_history_undo_takes_the_formatted_edit_back_in_one_step(root: Path) -> None:
    path = _project(root)
    ws = Workspace([root])
    _insert(ws)
    assert "total = sum(values)" in path.read_text()
    call(ws, "undo", path="mod.py")
    assert path.read_text() == MODULE


def test_a_batch_formats_its_calls_unless_a_call_says_otherwise(root: Path) -> None:
    path = _project(root)
    (root / "other.py").write_text("x = 1\n")
    ws = Workspace([root], history=False)
    result = call(
        ws,
        "batch",
        calls=[
            {
                "tool": "edit_file",
                "arguments": {
                    "path": "mod.py",
                    "edits": [{"old_text": "a + b", "new_text": "a+b"}],
                },
            },
            {
                "tool": "edit_file",
                "arguments": {
                    "path": "other.py",
                    "edits": [{"old_text": "x = 1", "new_text": "x=[1,2]"}],
                    "format": False,
                },
            },
        ],
        format=True,
    )
    assert "return a + b\n" in path.read_text()
    assert (root / "other.py").read_text() == "x=[1,2]\n"
    assert list(result.formatted) == [str(path)]


def test_write_file_and_apply_patch_format_too(root: Path) -> None:
    path = _project(root)
    ws = Workspace([root], history=False)
    result = call(ws, "write_file", path="new.py", content="x=[1,\n  2]\n", format=True)
    assert (root / "new.py").read_text() == "x = [1, 2]\n"
    assert _shown(result) == ["x = [1, 2]"]
    patch = (
        "*** Begin Patch\n*** Update File: mod.py\n@@ def add(a: int, b: int) -> int:\n"
        "-    return a + b\n+    return (a+b)\n*** End Patch\n"
    )
    result = call(ws, "apply_patch", patch=patch, format=True)
    assert "    return a + b\n" in path.read_text()
    assert result.formatted == {str(path): "7│    return a + b"}


WRITERS: dict[str, dict[str, Any]] = {
    "edit_lines": {"edits": [{"line_number": 8, "type": "insert", "text": "x=[1,\n  2]"}]},
    "safe_edit": {
        "search_replace": {
            "search": "    return a + b\n",
            "replace": "    return a + b\nx=[1,\n  2]\n",
        }
    },
    "edit_symbol": {"symbol": "add", "insert_after": "x=[1,\n  2]"},
    "apply_diff": {
        "diff": "--- a/mod.py\n+++ b/mod.py\n@@ -7,2 +7,3 @@\n     return a + b\n+x=[1,\n+  2]\n \n"
    },
}


@pytest.mark.parametrize("tool", sorted(WRITERS))
def test_every_writing_tool_formats_what_it_wrote(root: Path, tool: str) -> None:
    path = _project(root)
    ws = Workspace([root], history=False)
    arguments = WRITERS[tool] if tool == "apply_diff" else {"path": "mod.py", **WRITERS[tool]}
    result = call(ws, tool, **arguments, format=True)
    assert result.format_note is None
    assert "x = [1, 2]" in _shown(result)
    after = path.read_text()
    assert "\nx = [1, 2]\n" in after
    # Everything else as it was: the file less the formatted line is the module.
    assert after.replace("x = [1, 2]\n", "", 1).replace("\n\n\n\n", "\n\n\n") in (
        MODULE,
        MODULE.replace("\n\n\ndef scale", "\n\n\n\n\ndef scale"),
    )


def test_a_formatted_text_the_guard_refuses_leaves_the_edit_unformatted(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A formatter that breaks the code (a fault no real formatter here makes on purpose, so
    injected): the syntax guard refuses the formatted text, and the edit lands as sent."""
    path = _project(root)
    real = format_module.format_text

    def breaking(*args: Any, **kwargs: Any) -> format_module.Formatted | None:
        done = real(*args, **kwargs)
        assert done is not None
        assert done.text is not None
        return format_module.Formatted(done.formatter, done.text.replace("total = ", "total = ("))

    monkeypatch.setattr("editguard.transaction.formatting.format_text", breaking)
    ws = Workspace([root], history=False)
    result = _insert(ws)
    assert result.written
    assert result.formatted is None
    assert "left unformatted" in result.format_note
    assert "VALIDATION_FAILED" in result.format_note
    assert INSERTED in path.read_text()


def test_a_bug_in_formatting_never_fails_the_edit(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception inside the formatting step (a bug; injected, none is known): the edit lands
    as sent, with a note."""
    path = _project(root)

    def broken(*_: object) -> None:
        raise RuntimeError

    monkeypatch.setattr("editguard.transaction.formatting.keep_written", broken)
    result = _insert(Workspace([root], history=False))
    assert result.written
    assert result.format_note == "mod.py left unformatted: formatting failed (RuntimeError)"
    assert INSERTED in path.read_text()


@settings(max_examples=examples(30), deadline=None)
@given(data=st.data())
def test_a_formatted_insertion_into_real_code_changes_only_its_lines(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """Real modules, an untidy copy of one of their own lines inserted after it with format
    on: the file is the module with the inserted lines, all else byte for byte."""
    root = tmp_path_factory.mktemp("real")
    source = Path(data.draw(st.sampled_from(_real_python())))
    before = source.read_text(encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (root / "m.py").write_text(before)
    lines = split_lines(before)
    # A copy of a line put right after it (where it is still Python, mostly), made untidy.
    candidates = [
        i
        for i, x in enumerate(lines)
        if x.endswith("\n")
        and _untidy(x) != x
        and not x.strip().startswith("#")
        and not x.rstrip().endswith(("(", "[", "{", ":", "\\"))
    ]
    at = data.draw(st.sampled_from(candidates)) + 1
    inserted = _untidy(lines[at - 1])
    ws = Workspace([root], history=False, analyzers=())
    result = call(
        ws,
        "edit_lines",
        path="m.py",
        edits=[{"line_number": at + 1, "type": "insert", "text": inserted.rstrip("\n")}],
        format=True,
        mode="interactive",
    )
    after = split_lines((root / "m.py").read_text(encoding="utf-8"))
    shown = result.formatted[str(root / "m.py")] if result.formatted else None
    event("formatted" if shown else "not formatted")
    if shown is None:  # nothing to format, or ruff could not (the line alone is no Python)
        assert after == [*lines[:at], inserted, *lines[at:]]
        return
    numbers = [int(row.split("│", 1)[0]) for row in shown.split("\n")]
    kept = [line for n, line in enumerate(after, 1) if n not in numbers]
    assert kept == lines
    assert [after[n - 1].removesuffix("\n") for n in numbers] == [
        row.split("│", 1)[1] for row in shown.split("\n")
    ]


# -- prettier: the project's own, only when enabled ------------------------------------------


def _plant_prettier(root: Path, script: str) -> None:
    bin_dir = root / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    exe = bin_dir / "prettier"
    exe.write_text("#!/bin/sh\n" + script)
    exe.chmod(0o755)


def test_a_project_prettier_runs_only_when_enabled(root: Path) -> None:
    marker = root / "ran"
    _plant_prettier(root, f"touch {marker}\ncat\n")
    (root / "package.json").write_text("{}\n")
    (root / "a.ts").write_text("const a = 1;\n")
    ws = Workspace([root], history=False)
    result = call(
        ws, "edit_file", path="a.ts", edits=[{"old_text": "= 1", "new_text": "=  2"}], format=True
    )
    assert result.written
    assert not marker.exists()
    assert result.format_note is not None
    assert "prettier" in result.format_note
    assert (root / "a.ts").read_text() == "const a =  2;\n"


@pytest.mark.parametrize(
    ("script", "said"),
    [
        ("exit 2\n", "prettier failed"),
        ("exec sleep 30\n", "timed out"),
        ("cat > /dev/null\n", "printed nothing"),
    ],
)
def test_a_prettier_that_fails_or_hangs_leaves_the_edit_unformatted(
    root: Path, script: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(format_module, "TIMEOUT", 1.0)
    _plant_prettier(root, script)
    (root / "package.json").write_text("{}\n")
    (root / "a.ts").write_text("const a = 1;\n")
    ws = Workspace([root], history=False, formatters=["prettier"])
    result = call(
        ws, "edit_file", path="a.ts", edits=[{"old_text": "= 1", "new_text": "=  2"}], format=True
    )
    assert result.written
    assert result.formatted is None
    assert result.format_note is not None
    assert said in result.format_note
    assert "left unformatted" in result.format_note
    assert (root / "a.ts").read_text() == "const a =  2;\n"


def test_an_unknown_formatter_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown formatter"):
        Workspace(["."], history=False, formatters=["indent"])


PRETTIER_CACHE = Path(
    os.environ.get("EDITGUARD_PRETTIER_DIR", Path.home() / ".cache" / "editguard-test-prettier")
)


@pytest.fixture(scope="session")
def prettier() -> Path:
    """A real prettier 3 from npm, installed once into a cache folder (shared by xdist workers
    under a file lock): its node_modules folder."""
    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip("node or npm is missing")
    PRETTIER_CACHE.mkdir(parents=True, exist_ok=True)
    modules = PRETTIER_CACHE / "node_modules"
    with FileLock(str(PRETTIER_CACHE / ".lock")):
        if not (modules / ".bin" / "prettier").exists():
            done = subprocess.run(
                [
                    "npm",
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                    str(PRETTIER_CACHE),
                    "prettier@3",
                ],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            if done.returncode or not (modules / ".bin" / "prettier").exists():
                pytest.skip(f"npm could not install prettier: {done.stderr[-300:]}")
    return modules


TS = """export function add(a: number, b: number): number {
  return a + b;
}

export const   untouched   =   {a:1};
"""


@pytest.mark.slow
@pytest.mark.parametrize("installed", ["bin", "package only"])
def test_the_projects_prettier_formats_a_typescript_insertion_by_range(
    root: Path, prettier: Path, installed: str
) -> None:
    (root / "package.json").write_text('{"name": "x"}\n')
    if installed == "bin":
        (root / "node_modules").symlink_to(prettier)
    else:  # no node_modules/.bin: prettier's own script, run by node
        (root / "node_modules").mkdir()
        (root / "node_modules" / "prettier").symlink_to(prettier / "prettier")
    path = root / "a.ts"
    path.write_text(TS)
    ws = Workspace([root], history=False, formatters=["prettier"])
    result = call(
        ws,
        "edit_file",
        path="a.ts",
        edits=[
            {
                "old_text": "  return a + b;\n}\n",
                "new_text": "  return a + b;\n}\nexport const  b={c:1,d:[1,2]}\n",
            }
        ],
        format=True,
    )
    assert result.format_note is None
    assert _shown(result) == ["export const b = { c: 1, d: [1, 2] };"]
    # The line the edit did not write stays as badly formatted as it was.
    assert path.read_text() == TS.replace(
        "}\n\n", "}\nexport const b = { c: 1, d: [1, 2] };\n\n", 1
    )


# -- rustfmt, gofmt: the whole text, kept to the written lines ------------------------------


RUST = """fn untouched( )  { let x=1; }

fn main() {
    println!("{}", 1);
}
"""


def test_rustfmt_changes_only_the_written_lines(root: Path) -> None:
    if not shutil.which("rustfmt"):
        pytest.skip("rustfmt is not installed")
    path = root / "main.rs"
    path.write_text(RUST)
    ws = Workspace([root], history=False)
    result = call(
        ws,
        "edit_file",
        path="main.rs",
        edits=[
            {
                "old_text": '    println!("{}", 1);\n',
                "new_text": '    let  y=2;\n    println!("{}", y);\n',
            }
        ],
        format=True,
    )
    assert result.format_note is None
    assert _shown(result) == ["    let y = 2;", '    println!("{}", y);']
    assert path.read_text() == RUST.replace(
        '    println!("{}", 1);\n', '    let y = 2;\n    println!("{}", y);\n'
    )


def test_a_projects_rust_toolchain_cannot_name_the_rustfmt_that_runs(root: Path) -> None:
    found = shutil.which("rustfmt")
    if not found or not os.path.realpath(found).endswith("rustup"):
        pytest.skip("rustfmt through rustup's proxy is not installed")
    marker = root / "ran"
    fake = root / "toolchain" / "bin"
    fake.mkdir(parents=True)
    (fake / "rustfmt").write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    (fake / "rustfmt").chmod(0o755)
    (root / "rust-toolchain.toml").write_text(f'[toolchain]\npath = "{root / "toolchain"}"\n')
    path = root / "main.rs"
    path.write_text("fn main() {}\n")
    ws = Workspace([root], history=False)
    result = call(
        ws,
        "edit_file",
        path="main.rs",
        edits=[{"old_text": "{}", "new_text": "{ let x=1; }"}],
        format=True,
    )
    assert not marker.exists()
    assert result.format_note is None
    assert path.read_text() == "fn main() {\n    let x = 1;\n}\n"


def test_gofmt_formats_go(root: Path) -> None:
    if not shutil.which("gofmt"):
        pytest.skip("gofmt is not installed")
    path = root / "main.go"
    path.write_text("package main\n\nfunc main() {\n}\n")
    ws = Workspace([root], history=False)
    call(
        ws,
        "edit_file",
        path="main.go",
        edits=[{"old_text": "func main() {\n", "new_text": "func main() {\n  x:=1\n  _ = x\n"}],
        format=True,
    )
    assert "\tx := 1\n\t_ = x\n" in path.read_text()


def test_a_formatter_inside_the_roots_is_never_run(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = root / "ran"
    bin_dir = root / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "rustfmt"
    exe.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    (root / "main.rs").write_text("fn main() {}\n")
    ws = Workspace([root], history=False)
    result = call(
        ws,
        "edit_file",
        path="main.rs",
        edits=[{"old_text": "{}", "new_text": "{ let x=1; }"}],
        format=True,
    )
    assert not marker.exists()
    assert result.format_note is not None
    assert "inside the roots" in result.format_note


# -- the fronts: CLI, MCP ------------------------------------------------------------------


def test_the_cli_formats_with_format_true(root: Path) -> None:
    path = _project(root)
    code, out = cli(
        root,
        "edit_file",
        {
            "path": "mod.py",
            "edits": [
                {"old_text": "    return a + b\n", "new_text": "    return a + b\n\n\n" + INSERTED}
            ],
            "format": True,
        },
    )
    assert code == 0, out
    assert _shown_json(out) == ["", "", *INSERTED_FORMATTED]
    assert "\n".join(INSERTED_FORMATTED) in path.read_text()


def _shown_json(out: dict[str, Any]) -> list[str]:
    (text,) = out["formatted"].values()
    return [line.split("│", 1)[1] for line in text.split("\n")]


@pytest.mark.anyio
async def test_an_mcp_client_gets_the_formatted_lines(root: Path) -> None:
    from mcp import Client

    path = _project(root)
    server = EditguardServer(Workspace([root], history=False), log_level="WARNING")
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool(
            "edit_file",
            {
                "path": "mod.py",
                "edits": [
                    {
                        "old_text": "    return a + b\n",
                        "new_text": "    return a + b\n\n\n" + INSERTED,
                    }
                ],
                "format": True,
            },
        )
    assert not result.is_error
    assert result.structured_content is not None
    assert _shown_json(result.structured_content) == ["", "", *INSERTED_FORMATTED]
    assert json.loads(result.content[0].text)["formatted"] == result.structured_content["formatted"]  # type: ignore[union-attr]
    assert "\n".join(INSERTED_FORMATTED) in path.read_text()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
