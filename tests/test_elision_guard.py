"""The elision guard: no writing tool writes an elision marker (``# ... existing code ...``) over
real code. Each tool's refusal (ELIDED_CONTENT, nothing written), its opt-out
(``allow_markers``), and what is no elision: a marker the file already had, a new file, a
marker inserted where nothing is lost, Python's ``...`` and JavaScript's ``...rest``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent

from editguard import EditError, Workspace
from editguard.compat import filesystem
from editguard.core.document import to_view
from editguard.core.elided import check_plan
from editguard.core.plan import Plan, Replacement
from editguard.mcp_server import EditguardServer
from editguard.tools import tool_named

from .conftest import Snapshot, cli, set_old_mtime

SOURCE = """\
import os


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        data = f.read()
    return data.strip()


def save(path, data):
    with open(path, "w") as f:
        f.write(data)
"""
# load() as a model writes it when it means "the rest stays": lines 5-8 would be lost.
LAZY_LOAD = """\
def load(path):
    # ... existing code ...
    return data.strip().lower()
"""
OLD_LOAD = SOURCE[SOURCE.index("def load") : SOURCE.index("\n\n\ndef save") + 1]
MARKER = "# ... existing code ..."


@pytest.fixture
def ws(root: Path) -> Workspace:
    (root / "store.py").write_text(SOURCE)
    set_old_mtime(root / "store.py")
    return Workspace([root])


def patch_update(old: str, new: str) -> str:
    lines = [f"-{line}" for line in old.splitlines()] + [f"+{line}" for line in new.splitlines()]
    return "*** Begin Patch\n*** Update File: store.py\n" + "\n".join(lines) + "\n*** End Patch\n"


def unified(old: str, new: str, start: int) -> str:
    olds, news = old.splitlines(), new.splitlines()
    body = [f"-{line}" for line in olds] + [f"+{line}" for line in news]
    head = f"@@ -{start},{len(olds)} +{start},{len(news)} @@"
    return "--- a/store.py\n+++ b/store.py\n" + head + "\n" + "\n".join(body) + "\n"


# Each writing tool, with arguments that write the marker over load()'s body (lines 5-8).
LAZY_CALLS: dict[str, dict[str, Any]] = {
    "edit_file": {"path": "store.py", "edits": [{"old_text": OLD_LOAD, "new_text": LAZY_LOAD}]},
    "edit_lines": {
        "path": "store.py",
        "edits": [{"type": "ReplaceSection", "line": 5, "end_line": 8, "text": f"    {MARKER}"}],
    },
    "safe_edit": {
        "path": "store.py",
        "line_edits": [{"start_line": 4, "end_line": 9, "new_content": LAZY_LOAD.rstrip("\n")}],
    },
    "write_file": {"path": "store.py", "content": SOURCE.replace(OLD_LOAD, LAZY_LOAD)},
    "edit_symbol": {"path": "store.py", "symbol": "load", "new_body": LAZY_LOAD},
    "apply_patch": {"patch": patch_update(OLD_LOAD, LAZY_LOAD)},
    "apply_diff": {"diff": unified(OLD_LOAD, LAZY_LOAD, 4)},
}
CHUNKS = {
    "path": "store.py",
    "symbol": "load",
    "chunks": [
        {
            "context_before": "def load(path):",
            "old_lines": [
                "    if not os.path.exists(path):",
                "        return None",
                "    with open(path) as f:",
                "        data = f.read()",
            ],
            "new_lines": [f"    {MARKER}"],
        }
    ],
}
LAZY_CALLS["edit_symbol chunks"] = CHUNKS


def tool_of(label: str) -> str:
    return label.split(maxsplit=1)[0]


def refused(ws: Workspace, tool: str, arguments: dict[str, Any]) -> EditError:
    with pytest.raises(EditError) as info:
        tool_named(tool).call(ws.context, arguments)
    return info.value


@pytest.mark.parametrize("label", sorted(LAZY_CALLS))
def test_a_marker_over_real_code_is_refused_and_nothing_is_written(
    ws: Workspace, root: Path, label: str
) -> None:
    before = Snapshot.of(root / "store.py")
    error = refused(ws, tool_of(label), LAZY_CALLS[label])
    assert error.code == "ELIDED_CONTENT"
    assert error.data["line"] == 5  # as read_file numbers the new file's lines
    assert error.data["marker"] == MARKER
    assert error.data["replaced_lines"] >= 4
    assert error.data["replaced_from"] == 5
    text = error.text()
    assert "line 5 of store.py" in text
    assert "(5│    if not os.path.exists(path):" in text
    assert "edit_snippet" in text
    assert "allow_markers" in text
    assert Snapshot.of(root / "store.py") == before


@pytest.mark.parametrize("label", sorted(LAZY_CALLS))
def test_the_same_call_with_allow_markers_writes(ws: Workspace, root: Path, label: str) -> None:
    tool_named(tool_of(label)).call(ws.context, {**LAZY_CALLS[label], "allow_markers": True})
    text = (root / "store.py").read_text()
    assert f"    {MARKER}\n" in text
    assert "data = f.read()" not in text


def test_the_refusal_names_the_function_for_edit_snippet(ws: Workspace) -> None:
    error = refused(ws, "edit_symbol", LAZY_CALLS["edit_symbol"])
    assert error.data["symbol"] == "load"
    assert "symbol: 'load'" in error.suggestions[0]
    whole = refused(ws, "write_file", LAZY_CALLS["write_file"])
    assert "symbol" not in whole.data  # a whole file is no one function


def test_the_line_is_counted_in_the_new_file_below_earlier_edits(ws: Workspace) -> None:
    error = refused(
        ws,
        "edit_file",
        {
            "path": "store.py",
            "edits": [
                {"old_text": "import os\n", "new_text": "import os\nimport sys\nimport re\n"},
                {"old_text": OLD_LOAD, "new_text": LAZY_LOAD},
            ],
        },
    )
    assert (error.code, error.data["line"], error.data["replaced_from"]) == ("ELIDED_CONTENT", 7, 5)


def test_a_marker_the_file_already_had_is_no_elision(root: Path) -> None:
    (root / "notes.py").write_text("def f():\n    # ... existing code ...\n    return 1\n")
    ws = Workspace([root])
    ws.edit_file(
        "notes.py",
        [
            {
                "old_text": "    # ... existing code ...\n    return 1\n",
                "new_text": "    # ... existing code ...\n    return 2\n",
            }
        ],
    )
    ws.write_file("notes.py", "def f():\n    # ... existing code ...\n    return 3\n")
    assert (root / "notes.py").read_text().endswith("return 3\n")


def test_a_new_file_with_a_marker_is_no_elision(ws: Workspace, root: Path) -> None:
    ws.write_file("new.py", f"def f():\n    {MARKER}\n    return 1\n")
    ws.apply_patch("*** Begin Patch\n*** Add File: added.js\n+// ...\n+f();\n*** End Patch\n")
    assert MARKER in (root / "new.py").read_text()
    assert (root / "added.js").read_text() == "// ...\nf();\n"


def test_a_marker_inserted_where_nothing_is_lost_is_no_elision(ws: Workspace, root: Path) -> None:
    ws.edit_lines("store.py", [{"type": "Insert", "line": 12, "text": "# ... more helpers"}])
    ws.edit_file(
        "store.py",
        [{"old_text": "import os\n", "new_text": "import os\n# ... other imports ...\n"}],
    )
    text = (root / "store.py").read_text()
    assert "# ... more helpers\ndef save" in text
    assert "import os\n# ... other imports ...\n" in text


def test_python_ellipsis_and_javascript_rest_are_not_markers(ws: Workspace, root: Path) -> None:
    ws.edit_file(
        "store.py",
        [{"old_text": OLD_LOAD, "new_text": "def load(path):\n    ...\n"}],
    )
    assert "def load(path):\n    ...\n" in (root / "store.py").read_text()
    (root / "app.js").write_text("function f(a, b) {\n  return g(a, b);\n}\n")
    ws.write_file("app.js", "function f(...rest) {\n  return g(...rest);\n}\n")
    assert "g(...rest)" in (root / "app.js").read_text()


@pytest.mark.parametrize(
    ("name", "marker"),
    [
        ("app.js", "// ... rest of the function unchanged"),
        ("page.html", "<!-- ... -->"),
        ("main.c", "/* ... */"),
        ("query.sql", "-- …"),
    ],
)
def test_a_marker_in_the_files_own_comment_syntax_is_refused(
    root: Path, name: str, marker: str
) -> None:
    (root / name).write_text("one\ntwo\nthree\nfour\n")
    ws = Workspace([root])
    with pytest.raises(EditError) as info:
        ws.edit_file(name, [{"old_text": "two\nthree\n", "new_text": f"  {marker}\n"}])
    assert (info.value.code, info.value.data["line"], info.value.data["replaced_lines"]) == (
        "ELIDED_CONTENT",
        2,
        2,
    )


def test_one_calls_marker_refuses_the_whole_batch(ws: Workspace, root: Path) -> None:
    (root / "other.py").write_text("x = 1\n")
    before, other = Snapshot.of(root / "store.py"), Snapshot.of(root / "other.py")
    calls = [
        {"tool": "write_file", "arguments": {"path": "other.py", "content": "x = 2\n"}},
        {"tool": "edit_file", "arguments": LAZY_CALLS["edit_file"]},
    ]
    with pytest.raises(EditError) as info:
        ws.batch(calls)
    assert (info.value.code, info.value.data["call"]) == ("ELIDED_CONTENT", 1)
    assert Snapshot.of(root / "store.py") == before
    assert (root / "other.py").read_bytes() == other.data


def test_batch_allow_markers_holds_for_its_calls_unless_a_call_says_otherwise(
    ws: Workspace, root: Path
) -> None:
    lazy = {"tool": "edit_file", "arguments": LAZY_CALLS["edit_file"]}
    strict = {**LAZY_CALLS["edit_file"], "allow_markers": False}
    with pytest.raises(EditError) as info:
        ws.batch([{"tool": "edit_file", "arguments": strict}], allow_markers=True)
    assert info.value.code == "ELIDED_CONTENT"
    ws.batch([lazy], allow_markers=True)
    assert MARKER in (root / "store.py").read_text()


def test_a_call_of_a_batch_may_allow_markers_alone(ws: Workspace, root: Path) -> None:
    allowed = {**LAZY_CALLS["edit_file"], "allow_markers": True}
    ws.batch([{"tool": "edit_file", "arguments": allowed}])
    assert MARKER in (root / "store.py").read_text()


def test_compat_edit_and_write_are_guarded(ws: Workspace, root: Path) -> None:
    before = Snapshot.of(root / "store.py")
    edits = [{"oldText": OLD_LOAD, "newText": LAZY_LOAD}]
    for name, arguments in (
        ("edit_file", {"path": "store.py", "edits": edits}),
        ("write_file", {"path": "store.py", "content": SOURCE.replace(OLD_LOAD, LAZY_LOAD)}),
    ):
        with pytest.raises(EditError) as info:
            filesystem.tool_named(name).call(ws.context, arguments)
        assert (info.value.code, info.value.data["line"]) == ("ELIDED_CONTENT", 5)
    assert Snapshot.of(root / "store.py") == before


@pytest.mark.anyio
async def test_over_mcp_the_refusal_is_an_error_result_with_its_data(
    ws: Workspace, root: Path
) -> None:
    before = Snapshot.of(root / "store.py")
    for compat in (None, "filesystem"):
        server = EditguardServer(ws, log_level="WARNING", compat=compat)
        async with Client(server, raise_exceptions=True) as client:
            arguments = (
                LAZY_CALLS["write_file"]
                if compat is None
                else {"path": "store.py", "edits": [{"oldText": OLD_LOAD, "newText": LAZY_LOAD}]}
            )
            result = await client.call_tool(
                "write_file" if compat is None else "edit_file", arguments
            )
        assert result.is_error
        assert "ELIDED_CONTENT" in _text(result)
    assert Snapshot.of(root / "store.py") == before


def _text(result: CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


def test_through_the_cli_the_refusal_exits_1_and_allow_markers_writes(root: Path) -> None:
    (root / "store.py").write_text(SOURCE)
    set_old_mtime(root / "store.py")
    before = Snapshot.of(root / "store.py")
    code, out = cli(root, "edit_file", LAZY_CALLS["edit_file"])
    assert (code, out["error"]["code"], out["error"]["line"]) == (1, "ELIDED_CONTENT", 5)
    assert Snapshot.of(root / "store.py") == before
    code, out = cli(root, "edit_file", {**LAZY_CALLS["edit_file"], "allow_markers": True})
    assert (code, out["written"]) == (0, True)
    assert json.dumps(MARKER)[1:-1] in (root / "store.py").read_text()


def test_the_guard_costs_nothing_without_an_ellipsis() -> None:
    # A plan without "..." or "…" never reads the text: a text that would fail any reading
    # (a plan far past its end) passes.
    check_plan("", Plan((Replacement(10, 20, "x = 1\n"),)), "a.py", "a.py")
    with pytest.raises(EditError):
        check_plan("a\nb\nc\n", Plan((Replacement(2, 4, "# ...\n"),)), "a.py", "a.py")


def test_a_marker_with_a_unicode_ellipsis_is_found_in_a_view_of_a_large_file() -> None:
    text = to_view("name = 'café'\nb = 2\nc = 3\n")
    start = text.index("b = 2")
    plan = Plan((Replacement(start, start + len("b = 2\n"), to_view("# … unchanged\n")),))
    check_plan(text, plan, "a.py", "a.py")  # read as text, the view's bytes are no marker
    with pytest.raises(EditError) as info:
        check_plan(text, plan, "a.py", "a.py", view=True)
    assert (info.value.data["line"], info.value.data["marker"]) == (2, "# … unchanged")
