"""The sandbox: every accepted path lies inside a root, after symlinks; nothing else passes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from editguard.errors import EditError
from editguard.fs.sandbox import Sandbox

from .conftest import examples


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """root/ with a file, a sub-folder, links inside and out; secret.txt beside root."""
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("a")
    (tmp_path / "secret.txt").write_text("secret")
    (root / "inside-link").symlink_to(root / "a.txt")
    (root / "escape-link").symlink_to(tmp_path / "secret.txt")
    (root / "escape-dir").symlink_to(tmp_path)
    (root / "loop").symlink_to(root / "loop")
    return root


@pytest.mark.parametrize(
    "path",
    [
        "../secret.txt",
        "sub/../../secret.txt",
        "escape-link",
        "escape-dir/secret.txt",
        "a.txt\x00.py",
        "/etc/passwd",
        "..",
        "loop/../escape-link",
        "loop/../../secret.txt",
    ],
)
def test_paths_that_leave_the_root_are_refused(tree: Path, path: str) -> None:
    with pytest.raises(EditError) as err:
        Sandbox([tree]).resolve(path)
    assert err.value.code == "OUTSIDE_ROOT"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a.txt", "a.txt"),
        ("./sub/../a.txt", "a.txt"),
        ("inside-link", "a.txt"),
        ("sub/new/file.txt", "sub/new/file.txt"),
        (".", "."),
    ],
)
def test_paths_inside_resolve_to_their_real_target(tree: Path, path: str, expected: str) -> None:
    resolved = Sandbox([tree]).resolve(path)
    assert resolved.display == expected
    assert resolved.real == os.path.realpath(tree / expected)


def test_an_absolute_path_inside_any_root_is_accepted(tree: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    sandbox = Sandbox([tree, other])
    assert sandbox.resolve(str(other / "x.txt")).root == str(other)
    assert sandbox.resolve("a.txt").root == str(tree)  # relative paths start at the first root


def test_a_sibling_whose_name_extends_the_root_is_outside(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root-evil").mkdir()
    with pytest.raises(EditError):
        Sandbox([tmp_path / "root"]).resolve(str(tmp_path / "root-evil" / "x"))


def test_roots_must_be_folders(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a directory"):
        Sandbox([tmp_path / "missing"])
    with pytest.raises(ValueError, match="at least one"):
        Sandbox([])


def test_an_empty_path_is_an_invalid_request(tree: Path) -> None:
    with pytest.raises(EditError) as err:
        Sandbox([tree]).resolve("")
    assert err.value.code == "INVALID_REQUEST"


segments = st.sampled_from(
    ["..", ".", "sub", "a.txt", "inside-link", "escape-link", "escape-dir", "loop", "new", "//"]
)


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(segments, min_size=1, max_size=6), st.booleans())
def test_every_accepted_path_lies_inside_a_root(
    tree: Path, parts: list[str], absolute: bool
) -> None:
    path = "/".join(parts)
    if absolute:
        path = str(tree) + "/" + path
    try:
        resolved = Sandbox([tree]).resolve(path)
    except EditError as err:
        refused = err.code
    else:
        real = os.path.realpath(resolved.real)
        assert real == str(tree) or real.startswith(str(tree) + os.sep)
        return
    assert refused == "OUTSIDE_ROOT"
