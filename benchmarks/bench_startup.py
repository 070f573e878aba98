"""Start-up: how soon editguard answers, cold, as a command and as an MCP server.

* ``editguard call read_file ...`` as a new process, to its exit (requirement: well under 0.5 s;
  the CLI must not import the MCP SDK, which alone costs about 0.75 s).
* ``editguard serve`` spawned by the SDK's stdio client, to the answer of its first
  ``tools/list`` (requirement: within 1.5 s).

    python benchmarks/bench_startup.py [--quick]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters


def command() -> list[str]:
    """The installed ``editguard`` script beside this Python, else ``python -m editguard``."""
    script = shutil.which("editguard", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "editguard"]


def time_call(folder: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [*command(), "call", "read_file", '{"path": "a.py"}'],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=60,
    )
    return time.perf_counter() - start


async def time_serve(folder: str) -> float:
    exe = command()
    params = StdioServerParameters(
        command=exe[0], args=[*exe[1:], "serve", folder, "--log-level", "WARNING"]
    )
    start = time.perf_counter()
    async with Client(params) as client:
        tools = await client.list_tools()
        elapsed = time.perf_counter() - start
    assert tools.tools, "no tools listed"
    return elapsed


def main(argv: list[str] | None = None) -> int:
    """Print the medians of cold start-ups."""
    parser = argparse.ArgumentParser(description="editguard start-up times")
    parser.add_argument("--quick", action="store_true", help="two runs each (a smoke run)")
    args = parser.parse_args(argv)
    runs = 2 if args.quick else 7
    imports = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; import editguard.cli, editguard.tools; "
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "a.py").write_text("x = 1\n")
        calls = [time_call(folder) for _ in range(runs)]
        serves = [anyio.run(time_serve, folder) for _ in range(runs)]
    print(f"command: {' '.join(command())}; median of {runs} cold runs each")
    print(f"{'measure':<48} {'median':>9} {'max':>9}  requirement")
    print(
        f"{'editguard call read_file (process start to exit)':<48} "
        f"{statistics.median(calls):>8.3f}s {max(calls):>8.3f}s  < 0.5 s"
    )
    print(
        f"{'editguard serve: spawn to first tools/list':<48} "
        f"{statistics.median(serves):>8.3f}s {max(serves):>8.3f}s  < 1.5 s"
    )
    print(f"MCP SDK modules imported by the CLI's call path: {imports}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
