"""The listing tools within bounds (issue 22): globs that cannot take the matcher hostage,
a time budget on every walk, and what .gitignore or a leading dot left out, counted."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pathspec import GitIgnoreSpec

from editguard import Workspace
from editguard.core.ignore import compile_rules, is_ignored
from editguard.errors import EditError
from editguard.tools import _walking

from .conftest import cli, examples

HOSTILE = [
    "*a" * 30 + "b",  # each '*' retried at every split: seconds on a name of 40 'a'
    "a/**/" * 20 + "b",  # each '**' retried at every folder
    "**/" * 20 + "*a*a*a*a*a*a*a*a*b",
    "*" * 90 + "b",
]


@pytest.fixture
def adversarial(root: Path) -> Path:
    """Names and folders on which a backtracking matcher tries every split."""
    for n in range(5):
        (root / ("a" * (200 + n))).write_text("")
    deep = root.joinpath(*["a"] * 40)
    deep.mkdir(parents=True)
    (deep / "a").write_text("")
    return root


@pytest.mark.parametrize("pattern", HOSTILE)
def test_a_hostile_glob_answers_through_the_cli(adversarial: Path, pattern: str) -> None:
    code, out = cli(adversarial, "find_files", {"pattern": pattern})
    assert (code, out["found"], out["partial"]) == (0, 0, False)
    code, out = cli(adversarial, "directory_tree", {"path": ".", "exclude": [pattern]})
    assert (code, out["partial"]) == (0, False)


def test_a_hostile_gitignore_line_does_not_hold_up_a_listing(adversarial: Path) -> None:
    # A model can write a .gitignore as easily as send a pattern.
    (adversarial / ".gitignore").write_text("\n".join(HOSTILE) + "\n")
    code, out = cli(adversarial, "find_files", {"pattern": "a"})
    assert (code, out["found"], out["partial"]) == (0, 1, False)  # the deepest 'a' file only
    code, out = cli(adversarial, "list_directory", {"path": "."})
    assert (code, out["files"], out["dirs"]) == (0, 5, 1)


@pytest.mark.parametrize(
    ("pattern", "limit"),
    [("*" * 500, _walking.GLOB_WILDCARDS), ("x" * 1001, _walking.GLOB_CHARS)],
)
def test_a_glob_over_the_bounds_is_refused_naming_the_limit(
    ws: Workspace, pattern: str, limit: int
) -> None:
    with pytest.raises(EditError) as info:
        ws.find_files(pattern)
    assert (info.value.code, info.value.data["field"]) == ("INVALID_REQUEST", "pattern")
    assert info.value.data["limit"] == limit
    for call in (
        lambda: ws.find_files("*.py", exclude=[pattern]),
        lambda: ws.directory_tree(".", exclude=[pattern]),
    ):
        with pytest.raises(EditError) as info:
            call()
        assert (info.value.code, info.value.data["field"]) == ("INVALID_REQUEST", "exclude")


def test_a_pattern_of_5000_stars_through_the_cli_is_refused(root: Path) -> None:
    code, out = cli(root, "find_files", {"pattern": "*" * 5000})
    assert (code, out["error"]["code"]) == (1, "INVALID_REQUEST")


# -- the matcher means what pathspec means, and what git means by [!a] ---------------------

_TOKENS = ["a", "b", "*", "**", "?", "/", "[ab]", "[]a]", "\\*", "!", " ", "\\"]
_NAMES = ["a", "b", "ab", "ba", "aab", "bab", "*", "]"]


@settings(max_examples=examples(400), deadline=None)
@given(
    st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=8).map("".join),
    st.lists(st.sampled_from(_NAMES), min_size=1, max_size=4).map("/".join),
    st.booleans(),
)
def test_the_linear_matcher_decides_as_pathspec_does(line: str, path: str, is_dir: bool) -> None:
    if not line.strip() or line.startswith("#"):
        return
    try:
        reference = GitIgnoreSpec.from_lines([line])
    except ValueError:
        return
    expected = bool(reference.check_file(path + "/" if is_dir else path).include)
    rules = compile_rules("", [line])
    assert (is_ignored([rules], path, is_dir) if rules else False) == expected


def test_a_negated_bracket_never_matches_a_slash_as_in_git() -> None:
    rules = compile_rules("", ["[!a][^b]*"])
    assert rules is not None
    assert not is_ignored([rules], "b/x/a", False)  # pathspec matched 'b/' as two characters
    assert is_ignored([rules], "x/ca", False)


# -- the time budget -----------------------------------------------------------------------


@pytest.fixture
def no_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_walking, "time_limit", 0.0)


@pytest.mark.usefixtures("no_time")
def test_every_listing_tool_stops_at_its_time_budget_and_says_so(root: Path, ws: Workspace) -> None:
    for n in range(20):
        (root / f"d{n}").mkdir()
        (root / f"d{n}" / "f.py").write_text("")
    found = ws.find_files("*.py")
    assert (found.partial, found.files.splitlines()[-1].startswith("… stopped after 0 s")) == (
        True,
        True,
    )
    tree = ws.directory_tree(".")
    assert (tree.partial, tree.tree.splitlines()[-1].startswith("… stopped after 0 s")) == (
        True,
        True,
    )
    listed = ws.list_directory(".")
    assert (listed.partial, "… stopped after 0 s" in listed.entries) == (True, True)


# -- what the rules left out, counted ------------------------------------------------------


@pytest.fixture
def ignoring(root: Path) -> Path:
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "run.log").write_text("x\n")
    (root / ".env").write_text("KEY=1\n")
    (root / "build").mkdir()
    (root / "build" / "out.js").write_text("")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("")
    return root


def test_find_files_counts_the_ignored_matches_it_left_out(ignoring: Path, ws: Workspace) -> None:
    result = ws.find_files("*.log")
    assert (result.found, result.skipped) == (0, 1)
    assert "include_ignored" in result.files
    assert ws.find_files("*.log", include_ignored=True).found == 1
    hidden = ws.find_files(".env")
    assert (hidden.found, hidden.skipped) == (0, 1)
    # Nothing found, nothing matching left out: the folders not searched are named.
    inside = ws.find_files("*.js")
    assert (inside.found, inside.skipped) == (0, 0)
    assert "1 .gitignored or hidden folder not searched" in inside.files
    # A search that finds what it looks for says nothing of folders it did not need.
    assert ws.find_files("*.py").files == "src/app.py"


def test_directory_tree_counts_what_it_left_out(ignoring: Path, ws: Workspace) -> None:
    result = ws.directory_tree(".")
    assert result.skipped == 4  # .gitignore, .env, run.log, build/
    assert result.tree.splitlines()[-1].startswith("(4 .gitignored or hidden not shown")
    everything = ws.directory_tree(".", include_ignored=True)
    assert (everything.skipped, "run.log" in everything.tree) == (0, True)


def test_the_cli_tells_find_files_left_a_log_out(ignoring: Path) -> None:
    code, out = cli(ignoring, "find_files", {"pattern": "*.log"})
    assert (code, out["found"], out["skipped"]) == (0, 0, 1)
