"""The benchmark scripts still run (a smoke run with --quick). Their figures are not judged here:
speed and memory are read from the scripts' output, never asserted in tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


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
        "bench_journal.py",
        "bench_history.py",
        "bench_mcp.py",
        "bench_walk.py",
        "bench_grep.py",
    ],
)
def test_the_benchmark_runs_and_prints_its_summary(script: str) -> None:
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
