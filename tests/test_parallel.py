"""The suite runs in parallel (pytest-xdist): each worker keeps its own state folders."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from . import conftest


def configured(monkeypatch: pytest.MonkeyPatch, worker: str | None, base: Path) -> dict[str, str]:
    """The state variables pytest_configure leaves, in a worker named ``worker``."""
    for variable, name in conftest.STATE_FOLDERS.items():
        monkeypatch.setenv(variable, str(base / name))
    if worker is None:
        monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    else:
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
    config: Any = None  # pytest_configure does not read its config
    conftest.pytest_configure(config)
    return {v: os.environ[v] for v in conftest.STATE_FOLDERS}


def test_each_worker_gets_its_own_journal_and_history(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    one = configured(monkeypatch, "gw0", tmp_path)
    two = configured(monkeypatch, "gw1", tmp_path)
    for variable, name in conftest.STATE_FOLDERS.items():
        assert one[variable] == str(tmp_path / name / "gw0")
        assert two[variable] == str(tmp_path / name / "gw1")
        assert Path(one[variable]).is_dir()
        assert Path(two[variable]).is_dir()


def test_a_run_without_workers_keeps_the_folders_it_was_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert configured(monkeypatch, None, tmp_path) == {
        variable: str(tmp_path / name) for variable, name in conftest.STATE_FOLDERS.items()
    }
