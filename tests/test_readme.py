"""The docs are tested: README commands run as written, every tool and command is documented,
the documented API is the public one, and CI runs the README's test command."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import editguard
from editguard.cli import build_parser
from editguard.tools import TOOLS

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.DOTALL)


def test_ci_runs_the_readme_test_command_verbatim_and_then_the_slow_tests() -> None:
    """.ci/run runs the README's test command as written (the fast part: every test but those
    marked slow), then the slow part, so that CI runs every test; both in a random order
    (pytest-randomly, from the test extra: it prints its seed to rerun an order)."""
    quick_start = blocks("sh")[:2]
    assert len(quick_start) == 2
    test_command = quick_start[1].strip()
    assert "pytest" in test_command
    assert "mypy" in test_command
    assert "ruff check" in test_command
    assert '-m "not slow"' in test_command
    lines = (REPO / ".ci" / "run").read_text().splitlines()
    assert test_command in lines
    after = lines[lines.index(test_command) + 1 :]
    (slow,) = [line for line in after if line.startswith("pytest ")]
    assert '-m "slow or hypothesis"' in slow  # every slow test, every property test
    assert "--hypothesis-profile=thorough" in slow  # ... with all its examples
    assert "pytest-randomly" in (REPO / "pyproject.toml").read_text()
    assert "-p no:randomly" not in test_command + slow


def test_the_tool_examples_run_as_written(tmp_path: Path) -> None:
    commands = [
        line
        for block in blocks("sh")[2:]
        for line in block.splitlines()
        if line.startswith("editguard call ")
    ]
    assert {shlex.split(c)[2] for c in commands} == {t.name for t in TOOLS}
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    for command in commands:
        argv = shlex.split(command)
        proc = subprocess.run(
            [sys.executable, "-m", "editguard", *argv[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=env,
        )
        assert proc.returncode == 0, (command, proc.stdout, proc.stderr)
        assert "error" not in json.loads(proc.stdout)
    assert (tmp_path / "demo/app.py").read_text() == (
        "def sub(a, b):\n    return a - b\n\ndef mul(a, b):\n    product = a * b\n"
        "    return product\n"
    )


def test_the_python_example_runs(tmp_path: Path, capsys: object) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo/app.py").write_text("def sub(a, b):\n    return a - b\n")
    (code,) = blocks("python")
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert (tmp_path / "demo/app.py").read_text() == "def sub(a, b):\n    return b - a\n"


def test_every_tool_and_error_code_is_documented() -> None:
    for tool in TOOLS:
        assert f"### {tool.name}" in README
        row = next(line for line in README.splitlines() if line.startswith(f"| `{tool.name}` |"))
        example = json.loads(row.rsplit("| `", 1)[1].rstrip("` |"))
        tool.parse(example)  # the table's example is a valid call
    for error in editguard.EditError.__subclasses__():
        assert f"`{error.code}`" in README, error.code


def test_every_cli_command_is_documented() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in sub.choices:  # type: ignore[union-attr]
        assert f"`editguard {name}" in README
    for flag in (
        "--args-file",
        "--root",
        "--json",
        "--version",
        "--max-file-bytes",
        "--max-argument-bytes",
        "--max-request-bytes",
        "--tools",
    ):
        assert flag in README


def test_the_documented_api_is_the_public_api() -> None:
    section = README.split("The public names, all importable from `editguard`:")[1]
    section = section.split("\n\n")[0]
    documented = set(re.findall(r"`(\w+)`", section)) - {"editguard"}
    assert documented == set(editguard.__all__)
    assert editguard.__all__ == sorted(editguard.__all__)
    for name in editguard.__all__:
        assert hasattr(editguard, name)


def test_every_client_configuration_is_valid_and_serves_editguard() -> None:
    configs = [
        json.loads(block)
        for block in blocks("json")
        if '"servers"' in block or '"mcpServers"' in block
    ]
    # Claude Desktop / Cursor: uvx, pipx (installed), venv; VS Code: uvx, venv, HTTP; the
    # drop-in for the reference filesystem server.
    assert len(configs) == 7
    for config in configs:
        servers = config.get("mcpServers") or config["servers"]
        entry = servers.get("editguard") or servers["filesystem"]
        if "filesystem" in servers:
            assert entry["args"][:3] == ["serve", "--compat", "filesystem"]
        if entry.get("type") == "http":
            assert entry["url"].endswith("/mcp")
        else:
            assert "serve" in entry["args"]
        if entry.get("command") == "uvx":  # starts from uv's cache, as "uvx" above explains
            assert entry["args"][:2] == ["--offline", "--with-editable"]
    (claude_code,) = blocks("text")
    assert all("editguard" in line for line in claude_code.splitlines())
    for line in claude_code.splitlines():
        if " uvx " in line:
            assert " uvx --offline --with-editable " in line


def test_every_property_test_states_its_count_through_examples() -> None:
    """The README's command runs a fifth of each property test's examples and .ci/run all of
    them (tests/conftest.py): a count written as a bare number would run in full in both."""
    bare = [
        f"{path.name}:{number}"
        for path in sorted((REPO / "tests").glob("test_*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"max_examples=\d", line)
    ]
    assert bare == []
