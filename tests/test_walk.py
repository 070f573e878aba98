"""The walker (fs/walk.py) and the tools that list folders: list_directory, directory_tree and
find_files, on real trees on disk, through the Python API, the CLI and the MCP server."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent

from editguard import Workspace
from editguard.core.ignore import compile_rules, is_ignored
from editguard.errors import EditError
from editguard.fs.sandbox import Sandbox
from editguard.fs.walk import Entry, VisitLimit, walk
from editguard.mcp_server import EditguardServer
from editguard.tools import _walking

from .conftest import cli
from .test_cli import in_a_terminal


def make(root: Path, files: dict[str, str]) -> None:
    """Write ``files`` (path: text) under ``root``; a path ending in '/' is an empty folder."""
    for name, text in files.items():
        path = root / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def walked(root: Path, start: str = ".", **options: Any) -> list[str]:
    sandbox = Sandbox([root])
    return [e.display for e in walk(sandbox, sandbox.resolve(start), **options)]


# -- the ignore rules (pure) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "path", "is_dir", "ignored"),
    [
        (["*.log"], "a/b/x.log", False, True),
        (["*.log", "!keep.log"], "a/keep.log", False, False),
        (["build/"], "build", True, True),
        (["build/"], "build", False, False),  # a folder pattern leaves a file of that name
        (["/top"], "top", False, True),
        (["/top"], "a/top", False, False),  # anchored at the file's folder
        (["!", "*.tmp"], "x.tmp", False, True),  # a line git refuses is dropped, not fatal
        (["# comment", ""], "# comment", False, False),
    ],
)
def test_ignore_rules_follow_git(lines: list[str], path: str, is_dir: bool, ignored: bool) -> None:
    rules = compile_rules("", lines)
    assert is_ignored([rules] if rules else [], path, is_dir) is ignored


def test_the_quick_filter_never_changes_a_verdict() -> None:
    lines = [
        "*.pyc",
        "build/",
        "!keep.log",
        "/top",
        "a/**/b",
        "*.log",
        "doc/*.md",
        "x[ab]?",
        "\\#h",
    ]
    rules = compile_rules("", lines)
    assert rules is not None
    assert rules.quick is not None  # else this test tests nothing
    plain = dataclasses.replace(rules, quick=None)
    positive = compile_rules("", [line for line in lines if not line.startswith("!")])
    assert positive is not None
    assert not positive.negates
    plain_positive = dataclasses.replace(positive, quick=None)
    paths = [
        "a.pyc",
        "d/build",
        "build",
        "keep.log",
        "top",
        "s/top",
        "a/x/b",
        "doc/r.md",
        "doc/s/r.md",
        "xab",
        "xa",
        "#h",
        "x.log",
        "src/m.py",
        "a/b",
    ]
    for path in paths:
        for is_dir in (False, True):
            expected = is_ignored([plain], path, is_dir)
            assert is_ignored([rules], path, is_dir) is expected, (path, is_dir)
            expected = is_ignored([plain_positive], path, is_dir)
            assert is_ignored([positive], path, is_dir) is expected, (path, is_dir)


def test_a_deeper_ignore_file_overrides_a_shallower_one() -> None:
    top = compile_rules("", ["*.log"])
    inner = compile_rules("sub", ["!*.log"])
    assert top is not None
    assert inner is not None
    assert is_ignored([top, inner], "x.log", False)
    assert not is_ignored([top, inner], "sub/x.log", False)
    assert is_ignored([top, inner], "subway/x.log", False)  # not under sub/


# -- the walker ----------------------------------------------------------------------------


def test_nested_gitignores_and_negation(root: Path) -> None:
    make(
        root,
        {
            ".gitignore": "*.log\nbuild/\n",
            "a.log": "",
            "a.py": "",
            "build/out.js": "",
            "src/.gitignore": "!keep.log\n*.tmp\n",
            "src/keep.log": "",
            "src/drop.log": "",
            "src/x.tmp": "",
            "src/m.py": "",
            "other/x.tmp": "",  # src's rules stop at src
        },
    )
    assert walked(root) == ["a.py", "other", "other/x.tmp", "src", "src/keep.log", "src/m.py"]
    everything = walked(root, include_ignored=True)
    assert {"a.log", "build/out.js", "src/drop.log", "src/x.tmp"} <= set(everything)


def test_the_rules_of_the_parents_apply_to_a_subfolder_walked_alone(root: Path) -> None:
    make(root, {".gitignore": "*.log\n", "src/a.log": "", "src/a.py": ""})
    assert walked(root, "src") == ["src/a.py"]


def test_a_folder_named_on_purpose_is_listed_even_if_ignored(root: Path) -> None:
    make(root, {".gitignore": "node_modules/\n", "node_modules/pkg/index.js": ""})
    assert walked(root) == []
    assert walked(root, "node_modules") == ["node_modules/pkg", "node_modules/pkg/index.js"]


def test_git_info_exclude_applies_and_a_nested_repository_starts_afresh(root: Path) -> None:
    make(
        root,
        {
            ".git/info/exclude": "secret.txt\n",
            ".gitignore": "*.gen\n",
            "secret.txt": "",
            "a.gen": "",
            "a.py": "",
            "vendor/lib/.git/HEAD": "",
            "vendor/lib/b.gen": "",  # the outer repository's rules stop at the inner one
        },
    )
    assert walked(root) == ["a.py", "vendor", "vendor/lib", "vendor/lib/b.gen"]


def test_hidden_names_are_skipped_unless_asked_and_git_always(root: Path) -> None:
    make(root, {".env": "", ".github/ci.yml": "", ".git/config": "", "a.py": ""})
    assert walked(root) == ["a.py"]
    assert walked(root, include_hidden=True) == [".env", ".github", ".github/ci.yml", "a.py"]


def test_exclude_takes_gitignore_globs_relative_to_the_start(root: Path) -> None:
    make(root, {"src/a.py": "", "src/a_test.py": "", "src/gen/b.py": "", "src/src/c.py": ""})
    assert walked(root, "src", exclude=["*_test.py", "/src", "gen/"]) == ["src/a.py"]
    # exclude holds with include_ignored too
    assert "src/gen" not in walked(root, "src", exclude=["gen"], include_ignored=True)


def test_a_symlink_out_of_the_root_is_listed_and_never_followed(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    make(outside, {"secret.txt": "", "deep/more.txt": ""})
    make(root, {"a.py": ""})
    (root / "out").symlink_to(outside)
    (root / "file_link").symlink_to(outside / "secret.txt")
    sandbox = Sandbox([root])
    entries = list(walk(sandbox, sandbox.resolve("."), include_ignored=True))
    assert [(e.display, e.kind) for e in entries] == [
        ("a.py", "file"),
        ("file_link", "symlink"),
        ("out", "symlink"),
    ]
    assert all(e.path.startswith(str(root)) for e in entries)


def test_a_symlink_loop_ends(root: Path) -> None:
    make(root, {"a/b.txt": ""})
    (root / "a" / "loop").symlink_to(root / "a")
    (root / "self").symlink_to(root / "self")
    assert walked(root) == ["a", "a/b.txt", "a/loop", "self"]


def test_a_folder_removed_during_the_walk_is_skipped(root: Path) -> None:
    make(root, {"a/one.txt": "", "b/two.txt": "", "c.txt": ""})
    sandbox = Sandbox([root])
    steps = walk(sandbox, sandbox.resolve("."))
    seen = [next(steps).display]  # "a": yielded just before it is entered
    assert seen == ["a"]
    shutil.rmtree(root / "a")
    seen += [e.display for e in steps]
    assert seen == ["a", "b", "b/two.txt", "c.txt"]


def test_a_folder_swapped_for_a_link_during_the_walk_is_not_entered(
    root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    make(outside, {"secret.txt": ""})
    make(root, {"a/one.txt": "", "b.txt": ""})
    sandbox = Sandbox([root])
    steps = walk(sandbox, sandbox.resolve("."))
    assert next(steps).display == "a"
    shutil.rmtree(root / "a")
    (root / "a").symlink_to(outside)  # same name, now a link out of the root
    assert [e.display for e in steps] == ["b.txt"]


def test_a_parent_swapped_for_a_link_does_not_lead_the_walk_outside(
    root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    make(outside, {"c/secret.txt": ""})
    make(root, {"p/c/mine.txt": ""})
    sandbox = Sandbox([root])
    steps = walk(sandbox, sandbox.resolve("."))
    assert [next(steps).display, next(steps).display] == ["p", "p/c"]
    # Before p/c is entered, p becomes a link to a folder that also holds a c: opening
    # root/p/c by name would now reach outside/c, which is not the folder p listed.
    (root / "p").rename(tmp_path / "p_moved")
    (root / "p").symlink_to(outside)
    assert [e.display for e in steps] == []


def test_entries_carry_kind_size_mtime_and_depth(root: Path) -> None:
    make(root, {"d/f.txt": "hello"})
    os.mkfifo(root / "pipe")
    sandbox = Sandbox([root])
    entries = {e.display: e for e in walk(sandbox, sandbox.resolve("."))}
    f = entries["d/f.txt"]
    assert (f.kind, f.size, f.depth, f.path) == ("file", 5, 2, str(root / "d" / "f.txt"))
    assert f.mtime_ns == (root / "d" / "f.txt").stat().st_mtime_ns
    assert (entries["d"].kind, entries["d"].size, entries["d"].depth) == ("dir", None, 1)
    assert entries["pipe"].kind == "other"


def test_order_is_by_name_depth_first_and_max_depth_stops(root: Path) -> None:
    make(root, {"b/z.txt": "", "b/a/x.txt": "", "a.txt": "", "c/": ""})
    assert walked(root) == ["a.txt", "b", "b/a", "b/a/x.txt", "b/z.txt", "c"]
    assert walked(root, max_depth=1) == ["a.txt", "b", "c"]


def test_the_visit_limit_keeps_what_was_listed_then_says_so(root: Path) -> None:
    make(root, {f"f{i:02}.txt": "" for i in range(10)} | {"d/x.txt": ""})
    sandbox = Sandbox([root])
    got: list[Entry] = []
    with pytest.raises(VisitLimit) as info:
        got.extend(walk(sandbox, sandbox.resolve("."), max_visits=5))
    assert info.value.visited == 5
    # The five the folder listed first (in the file system's order), sorted; no folder entered.
    shown = [e.display for e in got]
    assert len(shown) == 5
    assert shown == sorted(shown)
    assert "d/x.txt" not in shown
    assert len(list(walk(sandbox, sandbox.resolve("."), max_visits=12))) == 12  # all fit


def test_no_folder_is_entered_once_the_visits_are_spent(root: Path) -> None:
    make(root, {f"d{d}/f{f}": "" for d in range(3) for f in range(3)})
    sandbox = Sandbox([root])
    got: list[str] = []
    with pytest.raises(VisitLimit):
        got.extend(e.display for e in walk(sandbox, sandbox.resolve("."), max_visits=5))
    # d0, d1, d2 (3 visits), then two of d0's three files; d1 and d2 are listed, not entered.
    assert [g for g in got if "/" not in g] == ["d0", "d1", "d2"]
    assert len([g for g in got if g.startswith("d0/")]) == 2
    assert not [g for g in got if g.startswith(("d1/", "d2/"))]


def test_the_start_must_be_a_folder_inside_the_roots(root: Path, tmp_path: Path) -> None:
    make(root, {"a.py": ""})
    sandbox = Sandbox([root])
    for path, code in [("a.py", "NOT_A_DIRECTORY"), ("a.py/x", "NOT_A_DIRECTORY")]:
        with pytest.raises(EditError) as info:
            list(walk(sandbox, sandbox.resolve(path)))
        assert info.value.code == code
    with pytest.raises(EditError) as info:
        list(walk(sandbox, sandbox.resolve("missing")))
    assert info.value.code == "FILE_NOT_FOUND"
    with pytest.raises(EditError) as info:
        sandbox.resolve(str(tmp_path))
    assert info.value.code == "OUTSIDE_ROOT"


# -- the tools, through the Python API -----------------------------------------------------


@pytest.fixture
def tree(root: Path) -> Path:
    make(
        root,
        {
            ".gitignore": "dist/\n",
            ".env": "KEY=1\n",
            "dist/app.js": "",
            "README.md": "# hi\n",
            "src/app.py": "x = 1\n" * 100,
            "src/util.py": "",
            "src/sub/deep.py": "",
            "tests/test_app.py": "",
        },
    )
    for age, name in enumerate(["src/util.py", "README.md", "src/sub/deep.py", "src/app.py"]):
        os.utime(root / name, ns=(10**18 + age * 10**9, 10**18 + age * 10**9))
    return root


def test_list_directory_shows_types_sizes_and_counts(tree: Path, ws: Workspace) -> None:
    result = ws.list_directory(".", sizes=True)
    assert result.entries.splitlines() == [
        "[FILE] README.md  5 B",
        "[DIR] src",
        "[DIR] tests",
        "(3 .gitignored or hidden not shown: include_ignored shows them)",
    ]
    assert (result.dirs, result.files, result.total_bytes, result.more) == (2, 1, 5, 0)
    assert result.skipped == 3  # .env, .gitignore, dist
    names = ws.list_directory(".", include_ignored=True).entries.splitlines()
    assert names == [
        "[FILE] .env",
        "[FILE] .gitignore",
        "[FILE] README.md",
        "[DIR] dist",
        "[DIR] src",
        "[DIR] tests",
    ]


def test_list_directory_sorts_by_size_and_mtime(tree: Path, ws: Workspace) -> None:
    by_size = ws.list_directory("src", sort="size", sizes=True).entries.splitlines()
    assert by_size == ["[FILE] app.py  600 B", "[FILE] util.py  0 B", "[DIR] sub"]
    by_time = ws.list_directory("src", sort="mtime").entries.splitlines()
    assert by_time == ["[DIR] sub", "[FILE] app.py", "[FILE] util.py"]  # sub: changed now


def test_list_directory_caps_at_1000_with_an_n_more_line(root: Path, ws: Workspace) -> None:
    make(root, {f"f{i:04}": "" for i in range(1003)})
    result = ws.list_directory(".")
    lines = result.entries.splitlines()
    assert len(lines) == 1001
    assert lines[999] == "[FILE] f0999"
    assert lines[-1].startswith("… 3 more")
    assert (result.files, result.more) == (1003, 3)


def test_list_directory_of_a_file_is_not_a_directory(tree: Path, ws: Workspace) -> None:
    with pytest.raises(EditError) as info:
        ws.list_directory("README.md")
    assert info.value.code == "NOT_A_DIRECTORY"


def test_directory_tree_is_indented_text(tree: Path, ws: Workspace) -> None:
    (tree / "link").symlink_to(tree / "src")
    result = ws.directory_tree(".")
    assert result.tree.splitlines() == [
        "README.md",
        "link@",
        "src/",
        "  app.py",
        "  sub/",
        "    deep.py",
        "  util.py",
        "tests/",
        "  test_app.py",
        "(3 .gitignored or hidden not shown: include_ignored shows them)",
    ]
    assert (result.dirs, result.files, result.more, result.skipped) == (3, 5, 0, 3)
    shallow = ws.directory_tree("src", depth=1, exclude=["util.py"]).tree
    assert shallow.splitlines() == ["app.py", "sub/"]


def test_directory_tree_keeps_whole_levels_and_counts_what_it_cuts(
    root: Path, ws: Workspace
) -> None:
    files = {f"a/f{i:03}": "" for i in range(600)} | {f"b/g{i:03}": "" for i in range(600)}
    make(root, files | {"c.txt": ""})
    result = ws.directory_tree(".")
    lines = result.tree.splitlines()
    # Level 1 (a/, b/, c.txt) whole; 997 of level 2 in walk order: all of a, 397 of b.
    assert lines[:2] == ["a/", "  f000"]
    assert lines[601:603] == ["b/", "  g000"]
    assert lines[-2:] == ["  … 203 more (lower depth, exclude, or a subfolder)", "c.txt"]
    assert result.more == 203
    assert len(lines) == 1000 + 1


def test_directory_tree_counts_a_cut_folder_after_its_name(root: Path, ws: Workspace) -> None:
    make(root, {f"a/s{i:04}/x": "" for i in range(1001)})
    result = ws.directory_tree(".")
    lines = result.tree.splitlines()
    # a/ (1) fits; its 1,001 folders do not all: 999 shown, each with its one file counted
    # after its name; the last two folders and their files are counted under a/.
    assert lines[:3] == ["a/", "  s0000/  … 1 more", "  s0001/  … 1 more"]
    assert lines[-2:] == ["  s0998/  … 1 more", "  … 4 more (lower depth, exclude, or a subfolder)"]
    assert len(lines) == 1 + 999 + 1
    assert result.more == 999 + 4


def test_directory_tree_depth_is_bounded(tree: Path, ws: Workspace) -> None:
    with pytest.raises(EditError) as info:
        ws.directory_tree(".", depth=11)
    assert (info.value.code, info.value.data["field"]) == ("INVALID_REQUEST", "depth")


def test_find_files_newest_first_or_by_name(tree: Path, ws: Workspace) -> None:
    result = ws.find_files("*.py")
    assert result.files.splitlines() == [
        "tests/test_app.py",  # written now, the newest
        "src/app.py",
        "src/sub/deep.py",
        "src/util.py",
    ]
    by_name = ws.find_files("src/**/*.py", sort="name").files.splitlines()
    assert by_name == ["src/app.py", "src/sub/deep.py", "src/util.py"]
    assert ws.find_files("*.py", path="src", exclude=["sub/"]).found == 2
    assert ws.find_files("/*.py", path="src").files.splitlines() == ["src/app.py", "src/util.py"]


def test_find_files_skips_ignored_and_hidden_unless_asked(tree: Path, ws: Workspace) -> None:
    assert ws.find_files("*.js").found == 0
    assert ws.find_files("*.js", include_ignored=True).files == "dist/app.js"
    assert ws.find_files(".env", include_ignored=True).files == ".env"


def test_find_files_caps_with_an_n_more_line(root: Path, ws: Workspace) -> None:
    make(root, {f"d/f{i}.txt": "" for i in range(7)})
    result = ws.find_files("*.txt", max_results=5, sort="name")
    lines = result.files.splitlines()
    assert lines[:5] == [f"d/f{i}.txt" for i in range(5)]
    assert lines[5].startswith("… 2 more")
    assert (result.found, result.more) == (7, 2)


def test_find_files_refuses_a_pattern_that_matches_nothing(ws: Workspace) -> None:
    for pattern in ("!x", "# c"):
        with pytest.raises(EditError) as info:
            ws.find_files(pattern)
        assert (info.value.code, info.value.data["field"]) == ("INVALID_REQUEST", "pattern")


def test_the_visit_limit_is_reported_by_each_tool(
    root: Path, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(root, {f"f{i}.txt": "" for i in range(20)})
    monkeypatch.setattr(_walking, "visit_limit", 10)
    listed = ws.list_directory(".")
    assert listed.partial
    assert listed.files == 10
    assert listed.entries.splitlines()[-1].startswith("… stopped after looking at 10 entries")
    assert ws.directory_tree(".").partial
    found = ws.find_files("*.txt")
    assert found.partial
    assert found.found == 10


def test_a_second_root_shows_absolute_paths(root: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    make(other, {"x.py": ""})
    ws = Workspace([root, other], history=False)
    assert ws.find_files("*.py", path=str(other)).files == str(other / "x.py")


def test_a_name_with_a_newline_stays_on_one_line(root: Path, ws: Workspace) -> None:
    make(root, {"a\nb.txt": ""})
    assert ws.find_files("*.txt").files == "a\\nb.txt"
    assert ws.directory_tree(".").tree == "a\\nb.txt"


def test_an_ignore_file_that_is_a_link_out_of_the_root_is_not_read(
    root: Path, tmp_path: Path
) -> None:
    (tmp_path / "rules").write_text("*.py\n")
    make(root, {"a.py": "", "sub/b.py": ""})
    (root / ".gitignore").symlink_to(tmp_path / "rules")
    os.mkfifo(root / "sub" / ".gitignore")  # read, it would block
    assert walked(root) == ["a.py", "sub", "sub/b.py"]


def test_the_tools_never_leave_the_roots(root: Path, tmp_path: Path, ws: Workspace) -> None:
    make(tmp_path / "outside", {"secret.py": ""})
    (root / "out").symlink_to(tmp_path / "outside")
    assert ws.find_files("*.py", include_ignored=True).found == 0
    assert ws.directory_tree(".", include_ignored=True).tree == "out@"
    for call in (
        lambda: ws.list_directory("out"),
        lambda: ws.directory_tree("../outside"),
        lambda: ws.find_files("*", path=str(tmp_path)),
    ):
        with pytest.raises(EditError) as info:
            call()
        assert info.value.code == "OUTSIDE_ROOT"


# -- through the CLI and MCP ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "field", "expected"),
    [
        ("list_directory", {"path": "src"}, "entries", "[FILE] app.py\n[DIR] sub\n[FILE] util.py"),
        ("directory_tree", {"path": "src", "depth": 1}, "tree", "app.py\nsub/\nutil.py"),
        ("find_files", {"pattern": "deep.*"}, "files", "src/sub/deep.py"),
    ],
)
def test_each_tool_through_the_cli(
    tree: Path, tool: str, arguments: dict[str, Any], field: str, expected: str
) -> None:
    code, out = cli(tree, tool, arguments)
    assert (code, out[field]) == (0, expected)


def test_the_cli_answers_not_a_directory_with_exit_1(tree: Path) -> None:
    code, out = cli(tree, "directory_tree", {"path": "README.md"})
    assert (code, out["error"]["code"]) == (1, "NOT_A_DIRECTORY")


def test_a_terminal_gets_the_listing_as_text(tree: Path) -> None:
    code, screen = in_a_terminal(tree, "call", "directory_tree", '{"path": "src"}')
    assert code == 0
    assert screen.startswith("app.py\r\nsub/\r\n  deep.py\r\nutil.py\r\n")
    assert '"files": 3' in screen


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "arguments", "field", "expected"),
    [
        ("list_directory", {"path": "src", "sizes": True}, "entries", "[FILE] app.py  600 B"),
        ("directory_tree", {"path": ".", "depth": 1}, "tree", "README.md\nsrc/\ntests/"),
        ("find_files", {"pattern": "*.py", "max_results": 1}, "files", "tests/test_app.py"),
    ],
)
async def test_each_tool_through_mcp(
    tree: Path, tool: str, arguments: dict[str, Any], field: str, expected: str
) -> None:
    server = EditguardServer(Workspace([tree], history=False), log_level="WARNING")
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool(tool, arguments)
        assert not result.is_error, _text(result)
        assert result.structured_content is not None
        assert result.structured_content[field].splitlines()[0] == expected.splitlines()[0]
        assert result.structured_content[field].startswith(expected)
        missing = await client.call_tool(tool, {**arguments, "path": "README.md"})
        assert missing.is_error
        assert _text(missing).startswith("NOT_A_DIRECTORY")
