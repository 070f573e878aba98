"""The benchmark scripts still run (a smoke run with --quick). Their figures are not judged here:
speed and memory are read from the scripts' output, never asserted in tests."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
# What a benchmark needs beyond the test extra: the `bench` extra (pyproject.toml).
BENCH_EXTRA = {"bench_tokens.py": "mistral_common"}


# Slow: each script is a process that times real work (2 to 50 s each on a loaded 2-core
# machine); they prove the scripts run, not editguard's behaviour.
@pytest.mark.slow
@pytest.mark.parametrize(
    "script",
    [
        "bench_edits.py",
        "bench_memory.py",
        "bench_errors.py",
        "bench_startup.py",
        "bench_validate.py",
        "bench_guard.py",
        "bench_symbols.py",
        "bench_tokens.py",
        "bench_real_code.py",
        "bench_ladder.py",
        "bench_snippet.py",
        "bench_journal.py",
        "bench_history.py",
        "bench_history_calls.py",
        "bench_mcp.py",
        "bench_walk.py",
        "bench_grep.py",
        "bench_analyze.py",
        "bench_format.py",
        "bench_notebook.py",
        "bench_notebook_structure.py",
    ],
)
def test_the_benchmark_runs_and_prints_its_summary(script: str) -> None:
    needs = BENCH_EXTRA.get(script)
    if needs and importlib.util.find_spec(needs) is None:
        pytest.skip(f"{script} needs {needs} from the bench extra: pip install -e '.[bench]'")
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    # bench_edits also exits 1 when editguard's output differs from the naive loop's.
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "requirement" in proc.stdout


def test_a_benchmark_without_its_extra_says_how_to_install_it() -> None:
    # The bench extra may be installed here: hide mistral_common from the script's imports, as
    # a venv with only the test extra has it.
    hide = (
        "import runpy, sys; sys.modules['mistral_common'] = None; "
        "sys.argv = ['bench_tokens.py', '--quick']; "
        f"runpy.run_path({str(BENCHMARKS / 'bench_tokens.py')!r}, run_name='__main__')"
    )
    proc = subprocess.run(
        [sys.executable, "-c", hide], capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "pip install -e '.[bench]'" in proc.stderr
    assert "Traceback" not in proc.stderr
