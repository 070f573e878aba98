"""What a model pays for before its first call: the tool list, measured through the official SDK's
client over stdio, as a host sees it; its stored copy; and the subsets ``serve --tools`` offers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_types import TextContent

from editguard.tools import NAMES, SETS, TOOLS, _listing, select
from editguard.tools._listing import STORED, fingerprint, listing, live

pytestmark = pytest.mark.anyio

BUDGET = 1500  # bytes of compact JSON a tool costs in tools/list, on average (DESIGN.md)

STATE_ENV = {k: v for k, v in os.environ.items() if k in ("EDITGUARD_HISTORY", "EDITGUARD_JOURNAL")}
# And this checkout's code, not an installed copy's (in a git worktree they differ).
STATE_ENV["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent / "src")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def serve(root: Path, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "editguard", "serve", str(root), "--log-level", "WARNING", *flags],
        env=STATE_ENV,
    )


async def listed(root: Path, *flags: str) -> dict[str, Any]:
    """The ``tools/list`` result as the server sent it (aliases, no unset fields)."""
    async with Client(serve(root, *flags)) as client:
        result = await client.list_tools()
    dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def compact_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


async def test_the_tool_list_fits_the_budget_with_every_tool(root: Path) -> None:
    result = await listed(root)
    assert [t["name"] for t in result["tools"]] == list(NAMES)
    size = compact_size(result)
    assert size <= BUDGET * len(NAMES), (
        f"tools/list is {size:,} bytes, {size / len(NAMES):,.0f} a tool; the budget is "
        f"{BUDGET:,} a tool on average"
    )


async def test_every_listed_tool_says_what_it_takes_and_what_comes_back(root: Path) -> None:
    for tool in (await listed(root))["tools"]:
        assert tool["description"], tool["name"]
        assert (
            "Returns" in tool["description"]
            or "returns" in tool["description"]
            or (
                tool["name"] in ("edit_symbol", "history", "list_symbols")  # they say it otherwise
            )
        ), tool["name"]
        schema = tool["inputSchema"]
        assert schema["type"] == "object"
        assert all("description" in p for p in schema["properties"].values()), tool["name"]


def _walk(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [d for n in node for d in _walk(n)]
    if not isinstance(node, dict):
        return []
    return [node, *(d for v in node.values() for d in _walk(v))]


def test_schemas_say_each_thing_once() -> None:
    for tool in TOOLS:
        schema = tool.input_schema()
        nodes = _walk(schema)
        # No title a property's name already gives, no model docstring, no "null" alternative
        # (an optional field is simply not required), no default that only restates "absent".
        assert not [n for n in nodes if isinstance(n.get("title"), str)], tool.name
        assert {"type": "null"} not in [o for n in nodes for o in n.get("anyOf", [])], tool.name
        assert not [n for n in nodes if "default" in n and n["default"] is None], tool.name
        assert "description" not in schema, tool.name  # the model's docstring
        # A nested model is written in place when used once; $defs only holds shared ones.
        refs = json.dumps(schema).count('"$ref"')
        assert len(schema.get("$defs", {})) <= refs // 2, tool.name


def test_the_stored_listing_is_the_tools_own() -> None:
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    assert stored["fingerprint"] == fingerprint(live()), (
        "a tool's description or schema changed since listing.json was written: run "
        "`python -m editguard.tools._listing` and commit the file"
    )
    assert stored["tools"] == live()
    assert listing() == live()
    assert listing(("undo", "read_file")) == live(("undo", "read_file"))


def test_a_stored_listing_that_does_not_match_its_fingerprint_is_not_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    stored["tools"][0]["description"] = "edited by hand"
    damaged = tmp_path / "listing.json"
    damaged.write_text(json.dumps(stored), encoding="utf-8")
    monkeypatch.setattr(_listing, "STORED", damaged)
    _listing._stored.cache_clear()
    try:
        assert _listing._stored() is None
        assert listing(("read_file",)) == live(("read_file",))
    finally:
        _listing._stored.cache_clear()


SOURCE = Path(__file__).resolve().parent.parent / "src"
# An edit to file_info's logic, to its description, and to its argument schema.
EDITS = {
    "logic": (
        'return when.isoformat(timespec="seconds").replace("+00:00", "Z")',
        "# a comment, and other code\n    return when.strftime('%Y-%m-%dT%H:%M:%SZ')",
    ),
    "description": ("Describe a path without reading it out.", "Describe a path."),
    "schema": ("path: str = Field(description=PATH_HELP)", 'path: str = Field(description="A.")'),
}


@pytest.mark.parametrize(
    ("edit", "current"), [("logic", True), ("description", False), ("schema", False)]
)
def test_only_what_reaches_the_wire_makes_the_stored_listing_stale(
    tmp_path: Path, edit: str, current: bool
) -> None:
    """The fingerprint is of the listing itself: a change to how a tool works leaves listing.json
    current (no rewrite, no stale-file failure); a change to what a model reads does not."""
    shutil.copytree(SOURCE / "editguard", tmp_path / "editguard")
    module = tmp_path / "editguard" / "tools" / "file_info.py"
    before, after = EDITS[edit]
    text = module.read_text(encoding="utf-8")
    assert text.count(before) == 1
    module.write_text(text.replace(before, after), encoding="utf-8")
    check = (
        "import json; from editguard.tools._listing import STORED, fingerprint, live; "
        "print(json.loads(STORED.read_text())['fingerprint'] == fingerprint(live()))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", check],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert proc.stdout.strip() == str(current)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("all", NAMES),
        ("edit", SETS["edit"]),
        ("minimal", ("read_file", "edit_file", "write_file")),
        ("undo, read_file", ("read_file", "undo")),
        ("edit,read_file", ("read_file", *SETS["edit"])),
    ],
)
def test_tools_names_and_sets_select_tools_in_registry_order(
    spec: str, expected: tuple[str, ...]
) -> None:
    assert select(spec) == expected


@pytest.mark.parametrize("spec", ["", " , ", "read", "edit,nope"])
def test_a_tools_value_naming_nothing_known_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="tool"):
        select(spec)


async def test_serve_tools_lists_and_runs_only_the_chosen_tools(root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    async with Client(serve(root, "--tools", "edit")) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == list(SETS["edit"])
        assert "read_file" not in names
        # The instructions do not send the model to a tool it does not have.
        assert client.instructions is not None
        assert "read_file" not in client.instructions
        edited = await client.call_tool(
            "edit_file", {"path": "a.py", "edits": [{"old_text": "1", "new_text": "2"}]}
        )
        assert not edited.is_error
        refused = await client.call_tool("write_file", {"path": "a.py", "content": "y\n"})
        assert refused.is_error
        block = refused.content[0]
        assert isinstance(block, TextContent)
        assert block.text.startswith("INVALID_REQUEST: no tool named 'write_file'")
    assert (root / "a.py").read_text() == "x = 2\n"
    minimal = await listed(root, "--tools", "minimal")
    assert [t["name"] for t in minimal["tools"]] == ["read_file", "edit_file", "write_file"]


def test_serve_with_an_unknown_tool_is_a_usage_error(root: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", "serve", "--tools", "read_file,rm_rf"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=root,
    )
    assert proc.returncode == 2
    assert "rm_rf" in proc.stderr
    assert "minimal" in proc.stderr  # names the sets, so the next try can succeed


async def test_a_result_is_compact_json_said_once(root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    async with Client(serve(root)) as client:
        result = await client.call_tool(
            "edit_file", {"path": "a.py", "edits": [{"old_text": "1", "new_text": "2"}]}
        )
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    # The structured content, for hosts that read it instead, is the same object as the text.
    assert json.loads(block.text) == result.structured_content
    assert block.text == json.dumps(
        result.structured_content, ensure_ascii=False, separators=(",", ":")
    )
    assert block.text.count("+x = 2") == 1  # the diff, once
