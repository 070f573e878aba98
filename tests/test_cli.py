"""The command line, run as a real subprocess: same tools, same JSON, exit codes 0, 1 and 2."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from editguard.tools import TOOLS


def run(*args: str, cwd: Path, stdin: str | None = None) -> tuple[int, Any, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    try:
        out = json.loads(proc.stdout) if proc.stdout.strip() else None
    except json.JSONDecodeError:
        out = proc.stdout
    return proc.returncode, out, proc.stderr


def test_call_edits_a_file_and_prints_the_json_result(root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    code, out, err = run(
        "call",
        "edit_file",
        '{"path": "a.py", "edits": [{"old_text": "1", "new_text": "2"}]}',
        cwd=root,
    )
    assert (code, err) == (0, "")
    assert out["total_replacements"] == 1
    assert out["diff"].endswith("-x = 1\n+x = 2\n")
    assert (root / "a.py").read_text() == "x = 2\n"


def test_flags_may_come_between_the_tool_and_its_json(root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    code, out, err = run("call", "read_file", "--json", '{"path": "a.py"}', cwd=root)
    assert (code, err) == (0, "")
    assert out["content"] == "1│x = 1"
    code, _, err = run("call", "read_file", "--bogus", cwd=root)
    assert code == 2
    assert "unrecognized arguments: --bogus" in err


def test_a_tool_error_exits_1_and_still_prints_the_json_error(root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    code, out, _ = run(
        "call",
        "edit_file",
        '{"path": "a.py", "edits": [{"old_text": "y", "new_text": "2"}]}',
        cwd=root,
    )
    assert code == 1
    assert out["error"]["code"] == "NO_MATCH"
    assert out["error"]["edit_index"] == 0


def test_malformed_arguments_are_a_tool_error_naming_the_field(root: Path) -> None:
    code, out, _ = run(
        "call", "edit_file", '{"path": "a.py", "edits": [{"old_text": 3}]}', cwd=root
    )
    assert code == 1
    assert out["error"]["code"] == "INVALID_REQUEST"
    assert out["error"]["field"] == "edits[0].old_text"
    fields = {p["field"] for p in out["error"]["problems"]}
    assert fields == {"edits[0].old_text", "edits[0].new_text"}


@pytest.mark.parametrize(
    "args",
    [
        ("call", "no_such_tool", "{}"),
        ("call", "read_file"),
        ("call", "read_file", "{}", "--args-file", "x.json"),
        ("call", "read_file", "--args-file", "missing.json"),
        ("frobnicate",),
        (),
    ],
)
def test_usage_errors_exit_2(root: Path, args: tuple[str, ...]) -> None:
    code, _out, err = run(*args, cwd=root)
    assert code == 2
    assert err


def test_arguments_from_stdin_and_from_a_file(root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    code, out, _ = run("call", "read_file", "-", cwd=root, stdin='{"path": "a.txt"}')
    assert (code, out["content"]) == (0, "1│hello")
    (root / "args.json").write_text('{"path": "a.txt", "content": "bye\\n"}')
    code, out, _ = run("call", "write_file", "--args-file", "args.json", cwd=root)
    assert code == 0
    assert (root / "a.txt").read_text() == "bye\n"
    code, out, _ = run("call", "read_file", "--args-file", "-", cwd=root, stdin='{"path": "a.txt"}')
    assert out["content"] == "1│bye"


def test_root_sets_the_sandbox(root: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("x\n")
    code, out, _ = run("call", "read_file", '{"path": "../outside.txt"}', cwd=root)
    assert (code, out["error"]["code"]) == (1, "OUTSIDE_ROOT")
    code, out, _ = run(
        "call", "--root", str(tmp_path), "read_file", '{"path": "outside.txt"}', cwd=root
    )
    assert (code, out["content"]) == (0, "1│x")
    code, _, err = run(
        "call", "--root", str(tmp_path / "nope"), "read_file", '{"path": "x"}', cwd=root
    )
    assert code == 2
    assert "not a directory" in err


def test_tools_lists_every_tool_with_its_schema(root: Path) -> None:
    code, out, _ = run("tools", cwd=root)
    assert code == 0
    assert [t["name"] for t in out] == [t.name for t in TOOLS]
    for listed, tool in zip(out, TOOLS, strict=True):
        assert listed["inputSchema"] == tool.input_schema()
        assert "outputSchema" not in listed  # results are described in the description
        assert listed["description"] == tool.description
        # MCP's default for an absent hint is "not read-only".
        assert listed["annotations"].get("readOnlyHint", False) is tool.read_only


def test_every_argument_has_a_description_for_the_model() -> None:
    def walk(schema: dict[str, Any], defs: dict[str, Any]) -> list[str]:
        missing = []
        for name, prop in schema.get("properties", {}).items():
            if "description" not in prop:
                missing.append(name)
            ref = prop.get("items", {}).get("$ref", "")
            if ref:
                missing += walk(defs[ref.rsplit("/", 1)[1]], defs)
        return missing

    for tool in TOOLS:
        schema = tool.input_schema()
        assert walk(schema, schema.get("$defs", {})) == [], tool.name


def in_a_terminal(root: Path, *args: str) -> tuple[int, str]:
    """Run ``editguard ARGS`` in ``root`` with stdout on a pseudo-terminal: exit code, screen."""
    leader, follower = pty.openpty()
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", *args],
        cwd=root,
        stdout=follower,
        stderr=subprocess.PIPE,
        timeout=60,
        check=False,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.returncode, b"".join(chunks).decode()


def test_a_terminal_gets_a_coloured_diff(root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    code, screen = in_a_terminal(
        root, "call", "edit_file", '{"path": "a.py", "edits": [{"old_text": "1", "new_text": "2"}]}'
    )
    assert code == 0
    assert "\x1b[31m-x = 1\x1b[0m" in screen
    assert "\x1b[32m+x = 2\x1b[0m" in screen


SYMBOLS = (
    "class Parser:\n    def parse(self, text):\n        return text\n\n\n"
    "def mul(a, b):\n    return a * b\n"
)


def test_list_symbols_in_a_terminal_is_a_table(root: Path) -> None:
    (root / "app.py").write_text(SYMBOLS)
    code, screen = in_a_terminal(root, "call", "list_symbols", '{"path": "app.py"}')
    assert code == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", screen).replace("\r\n", "\n")
    assert plain.splitlines()[:4] == [
        "lines  kind      name path",
        "  1-3  class     Parser",
        "  2-3  method      Parser/parse",
        "  6-7  function  mul",
    ]
    assert plain.splitlines()[4].startswith("-- ")
    assert "{" not in screen


def test_list_symbols_with_json_in_a_terminal_stays_json(root: Path) -> None:
    (root / "app.py").write_text(SYMBOLS)
    code, screen = in_a_terminal(root, "call", "--json", "list_symbols", '{"path": "app.py"}')
    assert code == 0
    listed = json.loads(screen)["symbols"]
    assert [(s["name_path"], s["kind"], s["start_line"]) for s in listed] == [
        ("Parser", "class", 1),
        ("Parser/parse", "method", 2),
        ("mul", "function", 6),
    ]


def test_version_flag(root: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", "--version"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.stdout.startswith("editguard ")


def test_call_never_imports_the_mcp_sdk(root: Path) -> None:
    (root / "a.txt").write_text("x\n")
    code = (
        "import sys\n"
        "from editguard.cli import main\n"
        "main(['call', '--json', 'read_file', '{\"path\": \"a.txt\"}'])\n"
        "print('MCP LOADED' if any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules)"
        " else 'MCP NOT LOADED')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.rstrip().endswith("MCP NOT LOADED")


def test_the_line_and_safe_edit_tools_run_from_the_command_line(root: Path) -> None:
    (root / "a.py").write_text("x = 1\ny = 2\n")
    code, out, _ = run(
        "call",
        "edit_lines",
        '{"path": "a.py", "editsJson": "[{\\"LineNumber\\": 2, \\"Type\\": \\"Delete\\"}]"}',
        cwd=root,
    )
    assert (code, out["edits_applied"][0]["lines"]) == (0, [2])
    code, out, _ = run(
        "call",
        "safe_edit",
        '{"path": "a.py", "search_replace": {"search": "x = 1", "replace": "x = (1"}}',
        cwd=root,
    )
    assert (code, out["error"]["code"]) == (1, "VALIDATION_FAILED")
    code, out, _ = run("call", "--linter", "nonesuch", "read_file", '{"path": "a.py"}', cwd=root)
    assert code == 2
    assert (root / "a.py").read_text() == "x = 1\n"


@pytest.mark.parametrize("command", ["call", "tools"])
def test_a_reader_that_stops_early_ends_the_output_quietly(root: Path, command: str) -> None:
    (root / "big.txt").write_text("".join(f"{n:>5} {'x' * 90}\n" for n in range(3000)))
    args = ["tools"]
    if command == "call":
        args = ["call", "read_file", '{"path": "big.txt", "end_line": 3000}', "--json"]
    # Like `editguard ... | head -c 100`: the reader takes a little and closes the pipe.
    proc = subprocess.Popen(
        [sys.executable, "-m", "editguard", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    with proc.stdout, proc.stderr:
        assert proc.stdout.read(100)
        proc.stdout.close()
        errors = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert errors == ""


@pytest.mark.parametrize(
    "raw",
    [
        "{not json",
        "[1, 2]",
        '{"path": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"path": "a.txt", "start_line": ' + "7" * 5000 + "}",
    ],
    ids=["not JSON", "not an object", "nested 100,000 deep", "a 5,000-digit integer"],
)
def test_arguments_that_cannot_be_read_are_an_invalid_request(root: Path, raw: str) -> None:
    (root / "args.json").write_text(raw)
    code, out, err = run("call", "read_file", "--args-file", "args.json", cwd=root)
    assert (code, out["error"]["code"]) == (1, "INVALID_REQUEST")
    assert "Traceback" not in err


def test_arguments_that_are_not_utf8_are_an_invalid_request(root: Path) -> None:
    (root / "args.json").write_bytes(b'{"path": "caf\xe9.txt"}')
    code, out, err = run("call", "read_file", "--args-file", "args.json", cwd=root)
    assert (code, out["error"]["code"]) == (1, "INVALID_REQUEST")
    assert "UTF-8" in out["error"]["message"]
    assert "Traceback" not in err


def test_a_file_name_that_is_no_utf8_is_printed_as_escapes(root: Path) -> None:
    name = os.fsdecode(b"caf\xe9.txt")  # a lone surrogate in Python
    (root / name).write_text("x\n")
    code, out, err = run("call", "read_file", json.dumps({"path": name}), cwd=root)
    assert (code, err) == (0, "")
    assert out["path"].endswith(name)  # JSON's \udce9 escape reads back as the surrogate
    missing = os.fsdecode(b"\xff.txt")
    code, out, err = run("call", "read_file", json.dumps({"path": missing}), cwd=root)
    assert (code, out["error"]["code"], err) == (1, "FILE_NOT_FOUND", "")
    assert out["error"]["path"] == missing


def test_a_bug_is_an_internal_error_in_json_not_a_traceback(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from editguard.cli import main
    from editguard.tools import read_file

    def explode(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("injected")  # a bug cannot be produced otherwise

    monkeypatch.setattr(read_file, "read_text_or_raw", explode)
    monkeypatch.chdir(root)
    assert main(["call", "read_file", '{"path": "a.txt"}', "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["error"]["code"] == "INTERNAL_ERROR"
    assert "ZeroDivisionError: injected" in out["error"]["message"]


def test_the_size_limits_can_be_set_on_the_command_line(root: Path) -> None:
    (root / "a.txt").write_text("x\n")
    args = '{"path": "a.txt", "edits": [{"old_text": "x", "new_text": "' + "y" * 50 + '"}]}'
    code, out, _ = run("call", "edit_file", args, "--max-argument-bytes", "20", cwd=root)
    assert (code, out["error"]["code"], out["error"]["limit"]) == (1, "INVALID_REQUEST", 20)
    code, out, _ = run("call", "edit_file", args, "--max-file-bytes", "10", cwd=root)
    assert (code, out["error"]["code"]) == (1, "FILE_TOO_LARGE")
    code, _, err = run("call", "read_file", '{"path": "a.txt"}', "--max-file-bytes", "0", cwd=root)
    assert code == 2
    assert "--max-file-bytes" in err


def test_an_args_file_larger_than_a_request_may_be_is_refused_unread(root: Path) -> None:
    (root / "big.json").write_text('{"path": "a.txt", "pad": "' + "x" * 5000 + '"}')
    code, out, err = run(
        "call", "read_file", "--args-file", "big.json", "--max-request-bytes", "100", cwd=root
    )
    assert (code, out["error"]["code"], err) == (1, "INVALID_REQUEST", "")


def test_file_not_found_names_the_nearest_path_in_json(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "utils.py").write_text("x = 1\n")
    code, out, err = run("call", "read_file", '{"path": "src/util.py"}', cwd=root)
    assert (code, err) == (1, "")
    assert (out["error"]["code"], out["error"]["similar_paths"]) == (
        "FILE_NOT_FOUND",
        ["src/utils.py"],
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["call", "read_file", '{"path": "a.txt"}', "--json"],
        ["call", "no_such_tool", "{}"],
        ["call", "read_file", "{not json", "--json"],
        ["tools"],
    ],
)
def test_the_collector_is_back_on_after_a_command(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    # Start-up turns garbage collection off while it imports; every way out turns it back on.
    import gc

    from editguard.cli import main

    monkeypatch.chdir(root)
    try:
        main(argv)
        assert gc.isenabled()
    finally:
        gc.enable()
    capsys.readouterr()
