"""``editguard serve --compat filesystem`` beside the MCP reference filesystem server: the same
calls, over stdio, on two copies of one tree, and what each call did compared.

Each call's outcome is reduced to the facts a prompt relies on (the text read, the entries
listed, the bytes a write left, whether it failed), not the wording. Where the two servers
differ, the difference is listed in DIFFERENCES with its reason (README.md, "Drop-in for the
reference filesystem server", says the same): a new difference fails the test, and so does a
listed one that went away. The reference server is installed with npm into a cache folder the
first time; the test is skipped where node, npm or the package cannot be had, except in CI
(``CI`` set), where that fails it.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import ImageContent, TextContent

PACKAGE = "@modelcontextprotocol/server-filesystem@2026.8.31"
CACHE = Path(os.environ.get("EDITGUARD_REFERENCE_DIR", Path.home() / ".cache" / "editguard-bench"))
EXE = CACHE / "node_modules" / ".bin" / "mcp-server-filesystem"

# Calls whose facts differ: (call label, aspect) -> the first cell of README's row that lists
# the difference and says why. The labels are the calls below; an aspect is one fact of the call
# (its answer, its form, or "changes": what it did to the tree).
WHITESPACE = "edit_file with an `oldText` whose whitespace differs from the file"
DIFFERENCES = {
    ("tail 2", "answer"): "read_text_file with `tail: N` on a file ending in a newline",
    ("edit twice-found", "answer"): "edit_file with an `oldText` found twice",
    ("edit twice-found", "changes"): "edit_file with an `oldText` found twice",
    ("edit crlf", "changes"): "edit_file on a CRLF file",
    ("tree", "hidden or ignored"): "directory_tree",
    ("tree", "form"): "directory_tree",
    ("tree below", "form"): "directory_tree",
    ("tree excluding a glob", "hidden or ignored"): "directory_tree",
    ("tree excluding a glob", "form"): "directory_tree",
    ("tree excluding a path", "hidden or ignored"): "directory_tree",
    ("tree excluding a path", "form"): "directory_tree",
    ("search log", "answer"): "search_files",
    ("search a folder's name", "answer"): "search_files with a pattern that names a folder",
    ("sizes by size", "order"): "list_directory_with_sizes with `sortBy: size`",
    ("info file", "times"): "get_file_info",
    ("info folder", "times"): "get_file_info",
    ("info file", "more fields"): "get_file_info",
    ("info folder", "more fields"): "get_file_info",
    ("move a folder", "answer"): "move_file of a folder",
    ("move a folder", "changes"): "move_file of a folder",
    ("edit with other indentation", "answer"): WHITESPACE,
    ("edit with other indentation", "changes"): WHITESPACE,
    ("edit with trailing spaces", "answer"): WHITESPACE,
    ("edit with trailing spaces", "changes"): WHITESPACE,
    ("write over crlf", "changes"): "write_file over an existing file",
}

PNG = (
    b"\x89PNG\r\n\x1a\n"
    + b"\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"
    + b"\x00\x00\x00\x0cIDAT"
    + zlib.compress(b"\x00\xff\x00\x00")[:12].ljust(12, b"\x00")
    + b"\x00\x00\x00\x00\x00\x00\x00\x00IEND\xaeB`\x82"
)


def _missing(why: str) -> None:
    """The reference server cannot run here: skip, except in CI (``CI`` set, as GitHub Actions
    and most CI services set it), where a comparison that never runs would hide every
    difference."""
    if os.environ.get("CI", "").lower() in ("", "0", "false"):
        pytest.skip(why)
    pytest.fail(f"{why} (CI is set: the comparison must run)")


def _reference() -> list[str]:
    if not shutil.which("node"):
        _missing("node is missing: the reference server cannot run")
    if not EXE.exists():
        if not shutil.which("npm"):
            _missing("npm is missing: the reference server cannot be installed")
        CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(CACHE), PACKAGE],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode or not EXE.exists():
            _missing(f"npm could not install {PACKAGE}: {done.stderr[-500:]}")
    return [str(EXE)]


NOTEBOOK = (
    b'{\n "cells": [\n  {\n   "cell_type": "code",\n   "execution_count": 1,\n'
    b'   "metadata": {},\n   "outputs": [],\n   "source": [\n    "print(\\"hi\\")"\n   ]\n'
    b'  }\n ],\n "metadata": {},\n "nbformat": 4,\n "nbformat_minor": 4\n}\n'
)


def _tree(folder: Path) -> None:
    folder.mkdir()
    (folder / "lf.txt").write_bytes(b"one\ntwo\nthree\nfour\n")
    (folder / "crlf.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    (folder / "twice.txt").write_bytes(b"x = 1\nx = 1\n")
    (folder / "sub").mkdir()
    (folder / "sub" / "a.py").write_bytes(b"print(1)\n")
    (folder / "ignored.log").write_bytes(b"ignored\n")
    (folder / ".gitignore").write_bytes(b"*.log\n")
    (folder / ".hidden").write_bytes(b"h\n")
    (folder / "dot.png").write_bytes(PNG)
    (folder / "noeol.txt").write_bytes(b"a\nb")
    (folder / "top.py").write_bytes(b"x = 1\n")
    (folder / "sub" / "deep").mkdir()
    (folder / "sub" / "deep" / "b.py").write_bytes(b"y = 2\n")
    (folder / "sub" / "ten.txt").write_bytes(b"".join(b"%d\n" % i for i in range(1, 11)))
    (folder / "fence.md").write_bytes(b"```\ncode\n```\n")
    (folder / "indent.py").write_bytes(b"def f():\n    return 1\n")
    (folder / "spaces.py").write_bytes(b"def g():\n    pass\n")
    # Sizes in KB (114,086 B is 111.41 KB) and a half to round (1,152 B is 1.125 KB).
    (folder / "big.bin").write_bytes(b"\0" * 114_086)
    (folder / "half.bin").write_bytes(b"\0" * 1152)
    # A notebook is plain text to both (editguard's cells only with --compat-notebooks).
    (folder / "nb.ipynb").write_bytes(NOTEBOOK)


def _edit(path: str, *pairs: tuple[str, str], dry_run: bool = False) -> dict[str, Any]:
    edits = [{"oldText": old, "newText": new} for old, new in pairs]
    return {"path": path, "edits": edits, **({"dryRun": True} if dry_run else {})}


def _calls(root: Path) -> list[tuple[str, str, dict[str, Any]]]:
    r = str(root)
    return [
        ("allowed", "list_allowed_directories", {}),
        ("read lf", "read_text_file", {"path": f"{r}/lf.txt"}),
        ("read crlf", "read_text_file", {"path": f"{r}/crlf.txt"}),
        ("read relative", "read_text_file", {"path": "sub/ten.txt"}),
        ("head 2", "read_text_file", {"path": f"{r}/lf.txt", "head": 2}),
        ("tail 2", "read_text_file", {"path": f"{r}/lf.txt", "tail": 2}),
        ("head past the end", "read_text_file", {"path": f"{r}/lf.txt", "head": 100}),
        ("tail past the end", "read_text_file", {"path": f"{r}/lf.txt", "tail": 100}),
        ("head no newline", "read_text_file", {"path": f"{r}/noeol.txt", "head": 1}),
        ("tail no newline", "read_text_file", {"path": f"{r}/noeol.txt", "tail": 1}),
        ("head and tail", "read_text_file", {"path": f"{r}/lf.txt", "head": 1, "tail": 1}),
        ("read missing", "read_text_file", {"path": f"{r}/missing.txt"}),
        ("read a folder", "read_text_file", {"path": f"{r}/sub"}),
        ("read deprecated", "read_file", {"path": f"{r}/noeol.txt"}),
        (
            "read many",
            "read_multiple_files",
            {"paths": [f"{r}/lf.txt", f"{r}/missing.txt", f"{r}/sub", "noeol.txt"]},
        ),
        ("image", "read_media_file", {"path": f"{r}/dot.png"}),
        ("write new", "write_file", {"path": f"{r}/new.txt", "content": "made\n"}),
        ("write again", "write_file", {"path": f"{r}/new.txt", "content": "made again\n"}),
        ("write into a missing folder", "write_file", {"path": f"{r}/nodir/x.txt", "content": "x"}),
        ("write onto a folder", "write_file", {"path": f"{r}/sub", "content": "x"}),
        ("edit lf", "edit_file", _edit(f"{r}/lf.txt", ("two\n", "2\n"))),
        ("edit dry run", "edit_file", _edit(f"{r}/lf.txt", ("three", "3"), dry_run=True)),
        ("edit far apart", "edit_file", _edit(f"{r}/sub/ten.txt", ("1\n", "one\n"), ("9", "nine"))),
        ("edit append", "edit_file", _edit(f"{r}/sub/ten.txt", ("10\n", "10\n11\n"))),
        ("edit delete", "edit_file", _edit(f"{r}/sub/ten.txt", ("5\n", ""))),
        ("edit no newline", "edit_file", _edit(f"{r}/noeol.txt", ("b", "B"))),
        ("edit to the same", "edit_file", _edit(f"{r}/noeol.txt", ("a", "a"))),
        ("edit backticks", "edit_file", _edit(f"{r}/fence.md", ("code", "more"))),
        ("edit not found", "edit_file", _edit(f"{r}/lf.txt", ("absent", "x"))),
        ("mkdir", "create_directory", {"path": f"{r}/made/deeper"}),
        ("mkdir again", "create_directory", {"path": f"{r}/made/deeper"}),
        ("mkdir on a file", "create_directory", {"path": f"{r}/lf.txt"}),
        ("list", "list_directory", {"path": r}),
        ("list a file", "list_directory", {"path": f"{r}/lf.txt"}),
        ("sizes", "list_directory_with_sizes", {"path": r}),
        ("sizes by size", "list_directory_with_sizes", {"path": r, "sortBy": "size"}),
        ("tree", "directory_tree", {"path": r}),
        ("tree below", "directory_tree", {"path": f"{r}/sub", "excludePatterns": ["deep"]}),
        ("tree excluding a glob", "directory_tree", {"path": r, "excludePatterns": ["*.py"]}),
        ("tree excluding a path", "directory_tree", {"path": r, "excludePatterns": ["sub/deep"]}),
        ("move", "move_file", {"source": f"{r}/new.txt", "destination": f"{r}/made/new.txt"}),
        ("move onto a file", "move_file", {"source": f"{r}/lf.txt", "destination": f"{r}/dot.png"}),
        ("move a missing file", "move_file", {"source": f"{r}/gone.txt", "destination": f"{r}/g"}),
        (
            "move into a missing folder",
            "move_file",
            {"source": f"{r}/top.py", "destination": f"{r}/nodir/top.py"},
        ),
        ("move outside", "move_file", {"source": f"{r}/top.py", "destination": "/tmp/top.py"}),
        ("search py", "search_files", {"path": r, "pattern": "**/*.py"}),
        ("search this folder", "search_files", {"path": r, "pattern": "*.py"}),
        ("search below", "search_files", {"path": f"{r}/sub", "pattern": "*.py"}),
        (
            "search excluding",
            "search_files",
            {"path": r, "pattern": "**/*.py", "excludePatterns": ["**/deep/**"]},
        ),
        (
            "search excluding a name",
            "search_files",
            {"path": r, "pattern": "**/*.py", "excludePatterns": ["deep"]},
        ),
        (
            "search excluding a glob",
            "search_files",
            {"path": r, "pattern": "**/*.py", "excludePatterns": ["*.py"]},
        ),
        ("search nothing", "search_files", {"path": r, "pattern": "**/*.rs"}),
        ("search log", "search_files", {"path": r, "pattern": "**/*.log"}),
        ("search a folder's name", "search_files", {"path": r, "pattern": "sub"}),
        ("info file", "get_file_info", {"path": f"{r}/lf.txt"}),
        ("info folder", "get_file_info", {"path": f"{r}/sub"}),
        ("info missing", "get_file_info", {"path": f"{r}/missing"}),
        ("outside", "read_text_file", {"path": "/etc/hostname"}),
        ("read a notebook", "read_text_file", {"path": f"{r}/nb.ipynb"}),
        (
            "edit a notebook's json",
            "edit_file",
            _edit(f"{r}/nb.ipynb", ('"print(\\"hi\\")"', '"print(\\"bye\\")"')),
        ),
        ("edit a notebook's source", "edit_file", _edit(f"{r}/nb.ipynb", ('print("bye")', "x"))),
        ("write a notebook", "write_file", {"path": f"{r}/nb2.ipynb", "content": "not json\n"}),
        # Last: the writes that differ (a later listing would show their sizes).
        ("move a folder", "move_file", {"source": f"{r}/made", "destination": f"{r}/made2"}),
        ("edit twice-found", "edit_file", _edit(f"{r}/twice.txt", ("x = 1", "x = 2"))),
        ("edit crlf", "edit_file", _edit(f"{r}/crlf.txt", ("beta", "BETA"))),
        (
            "edit with other indentation",
            "edit_file",
            _edit(f"{r}/indent.py", ("def f():\n  return 1", "def f():\n  return 2")),
        ),
        (
            "edit with trailing spaces",
            "edit_file",
            _edit(f"{r}/spaces.py", ("def g():  \n    pass", "def g():\n    return")),
        ),
        ("write over crlf", "write_file", {"path": f"{r}/crlf.txt", "content": "x\ny\n"}),
        ("write crlf", "write_file", {"path": f"{r}/crlf2.txt", "content": "x\r\ny\r\n"}),
    ]


# get_file_info's fields in the reference server, in its order.
INFO_FIELDS = ("size", "created", "modified", "accessed", "isDirectory", "isFile", "permissions")
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
JS_TIME = re.compile(r"\w{3} \w{3} \d\d \d{4} \d\d:\d\d:\d\d GMT[+-]\d{4} \(.+\)")


def _facts(tool: str, root: Path, result: Any) -> dict[str, Any]:
    """What a call did, in terms both servers can be compared by: each aspect of its answer."""
    if result.is_error:
        return {"answer": "error"}
    images = [b for b in result.content if isinstance(b, ImageContent)]
    text = "".join(b.text for b in result.content if isinstance(b, TextContent))
    text = text.replace(str(root), "<root>").replace("\r\n", "\n")
    if tool == "read_media_file":
        return {"answer": [(i.mime_type, base64.b64decode(i.data)) for i in images]}
    if tool in ("read_text_file", "read_file"):
        return {"answer": text.rstrip("\n").split("\n")}
    if tool == "read_multiple_files":
        # Each file under its path (with its text), or its path and "Error - ...".
        parts = [part.split("\n", 1) for part in text.split("\n---\n")]
        return {
            "answer": [
                (head.split(":", 1)[0], "Error -" in head, rest[0] if rest else None)
                for head, *rest in parts
            ]
        }
    if tool in ("edit_file", "write_file", "create_directory", "move_file"):
        return {"answer": text}
    if tool in ("list_directory", "list_allowed_directories"):
        return {"answer": sorted(line.strip() for line in text.splitlines() if line.strip())}
    if tool == "list_directory_with_sizes":
        rows = text.split("\n\n")[0].splitlines()
        return {"answer": sorted(rows), "order": rows, "totals": text.split("\n\n")[1:]}
    if tool == "directory_tree":
        # The names of the tree that the answer shows (JSON or an indented tree), the hidden
        # and .gitignored ones apart.
        shown = set(re.findall(r"[\w.-]+", text))
        names = sorted(p.name for p in root.rglob("*") if p.name in shown)
        return {
            "answer": [n for n in names if not _hidden_or_ignored(n)],
            "hidden or ignored": [n for n in names if _hidden_or_ignored(n)],
            "form": "JSON" if text.startswith("[") else "text",
        }
    if tool == "search_files":
        return {"answer": sorted(text.splitlines())}
    if tool == "get_file_info":
        fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
        times = ("created", "modified", "accessed")
        return {
            "fields": [
                (key, "time" if key in times else fields.get(key))
                for key in INFO_FIELDS
                if key in fields
            ],
            # Each time's form; a birth time the system does not keep is neither form.
            "times": sorted({_time_form(fields.get(k, "missing")) for k in times}),
            "more fields": sorted(set(fields) - set(INFO_FIELDS)),
        }
    return {"answer": text}


def _hidden_or_ignored(name: str) -> bool:
    return name.startswith(".") or name.endswith(".log")  # _tree's .gitignore: *.log


def _time_form(value: str) -> str:
    return "ISO" if ISO_TIME.fullmatch(value) else "JS" if JS_TIME.fullmatch(value) else value


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


def _changes(before: dict[str, bytes | None], after: dict[str, bytes | None]) -> dict[str, Any]:
    """What one call did to the tree: each path it made, changed or removed."""
    paths = set(before) | set(after)
    return {p: after.get(p, "gone") for p in sorted(paths) if before.get(p, "?") != after.get(p)}


async def _run(command: list[str], root: Path) -> list[tuple[str, dict[str, Any]]]:
    env = {k: v for k, v in os.environ.items() if k.startswith("EDITGUARD_") or k == "PYTHONPATH"}
    params = StdioServerParameters(command=command[0], args=[*command[1:], str(root)], env=env)
    out = []
    async with Client(params) as client:
        for label, tool, arguments in _calls(root):
            before = _snapshot(root)
            result = await client.call_tool(tool, arguments)
            facts = _facts(tool, root, result)
            facts["changes"] = _changes(before, _snapshot(root))
            out.append((label, facts))
    return out


def test_the_same_calls_do_the_same_on_both_servers_but_the_listed_differences(
    tmp_path: Path,
) -> None:
    reference = _reference()
    ours = [sys.executable, "-m", "editguard", "serve", "--compat", "filesystem"]
    _tree(tmp_path / "a")
    _tree(tmp_path / "b")
    theirs = anyio.run(_run, reference, (tmp_path / "a").resolve())
    mine = anyio.run(_run, ours, (tmp_path / "b").resolve())
    assert len(theirs) == len(mine) == len(_calls(tmp_path))
    differ = {}
    for (label, their_facts), (_, my_facts) in zip(theirs, mine, strict=True):
        for aspect in sorted(set(their_facts) | set(my_facts)):
            their, my = their_facts.get(aspect), my_facts.get(aspect)
            if their != my:
                differ[label, aspect] = (their, my)
    for (label, aspect), (their, my) in differ.items():
        print(f"{label} ({aspect}): reference {their!r}, editguard {my!r}")
    assert set(differ) <= set(DIFFERENCES), {
        k: v for k, v in differ.items() if k not in DIFFERENCES
    }
    assert set(DIFFERENCES) <= set(differ), f"no longer different: {set(DIFFERENCES) - set(differ)}"


def test_every_listed_difference_has_its_row_in_the_readme_table() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Drop-in for the reference filesystem server", 1)[1]
    table = section.split("\n## ", 1)[0]
    calls = {line.split(" | ")[0].removeprefix("| ") for line in table.splitlines()}
    assert set(DIFFERENCES.values()) <= calls, set(DIFFERENCES.values()) - calls
