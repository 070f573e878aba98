"""Start-up and the tool list: how soon editguard answers, cold, and what its tool list costs.

* importing editguard in a new process: ``import editguard`` (names load on first use) and
  ``from editguard import Workspace`` (the whole Python API);
* ``editguard call read_file ...`` as a new process, to its exit (requirement: 0.15 s; the CLI
  must not import the MCP SDK, which alone costs about 0.5 s);
* ``editguard serve`` spawned by the SDK's stdio client, to the answer of its first
  ``tools/list`` (requirement: 0.6 s, within twice the reference filesystem server's 0.3 s);
* the ``tools/list`` result as compact JSON, as the SDK client receives it: total, per tool
  (requirement: 1.5 KB a tool on average, every tool listed), and with ``--tools edit``.

    python benchmarks/bench_startup.py [--quick] [--strict] [--compare SRC]

``--compare SRC`` measures another source tree too (e.g. ``git archive main | tar -x -C
/tmp/main`` then ``--compare /tmp/main/src``), in the same run, for before/after figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

HERE = Path(__file__).resolve().parent.parent / "src"
CALL_LIMIT = 0.15
SERVE_LIMIT = 0.6
TOOL_BYTES = 1500


@dataclass(frozen=True)
class Tree:
    """A source tree of editguard to run, by the folder that holds the package."""

    label: str
    src: Path

    def env(self) -> dict[str, str]:
        keep = ("PATH", "HOME", "EDITGUARD_HISTORY", "EDITGUARD_JOURNAL", "LANG", "TMPDIR")
        env = {k: v for k, v in os.environ.items() if k in keep}
        env["PYTHONPATH"] = str(self.src)
        return env

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "editguard", *args]


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def time_python(tree: Tree, code: str, folder: str) -> float:
    return timed(
        lambda: subprocess.run(
            [sys.executable, "-c", code],
            cwd=folder,
            env=tree.env(),
            check=True,
            capture_output=True,
            timeout=60,
        )
    )


def time_call(tree: Tree, folder: str) -> float:
    return timed(
        lambda: subprocess.run(
            tree.command("call", "read_file", '{"path": "a.py"}'),
            cwd=folder,
            env=tree.env(),
            check=True,
            capture_output=True,
            timeout=60,
        )
    )


def serve_params(tree: Tree, folder: str, *flags: str) -> StdioServerParameters:
    exe = tree.command("serve", folder, "--log-level", "WARNING", *flags)
    return StdioServerParameters(command=exe[0], args=exe[1:], env=tree.env(), cwd=folder)


async def time_serve(tree: Tree, folder: str) -> float:
    start = time.perf_counter()
    async with Client(serve_params(tree, folder)) as client:
        tools = await client.list_tools()
        elapsed = time.perf_counter() - start
    assert tools.tools, "no tools listed"
    return elapsed


async def tool_list(tree: Tree, folder: str, *flags: str) -> dict[str, Any]:
    async with Client(serve_params(tree, folder, *flags)) as client:
        result = await client.list_tools()
    listed: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return listed


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def output(tree: Tree, folder: str, command: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with the tree's code and capture what it prints."""
    return subprocess.run(
        command, cwd=folder, env=tree.env(), check=True, capture_output=True, text=True, timeout=60
    )


def mcp_modules(tree: Tree, folder: str) -> str:
    """The MCP SDK modules that the CLI's call path imports (none is right)."""
    code = (
        "import sys; from editguard.cli import main; "
        "main(['call', 'read_file', '{\"path\": \"a.py\"}']); "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')), "
        "file=sys.stderr)"
    )
    return output(tree, folder, [sys.executable, "-c", code]).stderr.strip()


def serves_subsets(tree: Tree, folder: str) -> bool:
    """Whether the tree's ``serve`` takes ``--tools`` (a tree from before it does not)."""
    return "--tools" in output(tree, folder, tree.command("serve", "--help")).stdout


MEASURES: dict[str, Callable[[Tree, str], float]] = {
    "python": lambda tree, folder: time_python(tree, "pass", folder),
    "import": lambda tree, folder: time_python(tree, "import editguard", folder),
    "api": lambda tree, folder: time_python(tree, "from editguard import Workspace", folder),
    "call": time_call,
    "serve": lambda tree, folder: anyio.run(time_serve, tree, folder),
}


def children_cpu() -> float:
    """CPU seconds (user and system) of the child processes ended so far: what a start-up
    costs, nearly unchanged by other work on a busy machine (wall time is not)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(trees: list[Tree], folder: str, runs: int) -> list[dict[str, Any]]:
    """Every measure of every tree; the trees take turns run by run, so that a change in the
    machine's load falls on all of them alike."""
    for tree in trees:
        # Once untimed, so that every tree is measured with its bytecode already compiled.
        time_python(tree, "import editguard.cli, editguard.workspace, editguard.mcp_server", folder)
        time_call(tree, folder)
    results: list[dict[str, Any]] = [
        {key: [] for name in MEASURES for key in (name, f"{name} cpu")} for _ in trees
    ]
    for _ in range(runs):
        for tree, out in zip(trees, results, strict=True):
            for name, run in MEASURES.items():
                before = children_cpu()
                out[name].append(run(tree, folder))
                out[f"{name} cpu"].append(children_cpu() - before)
    for tree, out in zip(trees, results, strict=True):
        listed = anyio.run(tool_list, tree, folder)
        out["tools"] = len(listed["tools"])
        out["bytes"] = size(listed)
        out["per_tool"] = {t["name"]: size(t) for t in listed["tools"]}
        out["edit"] = None
        if serves_subsets(tree, folder):
            edit = anyio.run(tool_list, tree, folder, "--tools", "edit")
            out["edit"] = (len(edit["tools"]), size(edit))
        out["mcp"] = mcp_modules(tree, folder)
    return results


def main(argv: list[str] | None = None) -> int:
    """Print the medians of cold start-ups and the size of the tool list."""
    parser = argparse.ArgumentParser(description="editguard start-up times and tool list size")
    parser.add_argument("--quick", action="store_true", help="two runs each (a smoke run)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a requirement fails")
    parser.add_argument("--compare", metavar="SRC", help="another tree's src folder, measured too")
    args = parser.parse_args(argv)
    runs = 2 if args.quick else 7
    trees = [Tree("this tree", HERE)]
    if args.compare:
        trees.append(Tree(f"compare ({args.compare})", Path(args.compare).resolve()))
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "a.py").write_text("x = 1\n")
        results = list(zip(trees, measure(trees, folder, runs), strict=True))
    print(
        f"python -m editguard; median (and max) of {runs} cold runs each; cpu: median CPU "
        "time of the process (user + system; serve: until it exits)"
    )
    for tree, r in results:
        print(f"\n{tree.label}: {tree.src}")
        print(f"{'measure (wall time)':<50} {'median':>9} {'max':>9} {'cpu':>8}  requirement")
        rows: list[tuple[str, str, float | None]] = [
            ("python -c pass (the interpreter alone)", "python", None),
            ("import editguard (new process)", "import", None),
            ("from editguard import Workspace (new process)", "api", None),
            ("editguard call read_file (process start to exit)", "call", CALL_LIMIT),
            ("editguard serve: spawn to first tools/list", "serve", SERVE_LIMIT),
        ]
        for label, key, limit in rows:
            values, cpu = r[key], statistics.median(r[f"{key} cpu"])
            median = statistics.median(values)
            verdict = ""
            if limit is not None:
                ok = median <= limit
                failed |= not ok and tree is trees[0]
                verdict = f"<= {limit} s  {'ok' if ok else 'FAIL'}"
            print(f"{label:<50} {median:>8.3f}s {max(values):>8.3f}s {cpu:>7.3f}s  {verdict}")
        per = r["bytes"] / r["tools"]
        ok = per <= TOOL_BYTES
        failed |= not ok and tree is trees[0]
        print(
            f"{'tools/list, compact JSON':<50} {r['bytes']:>8,}B  {r['tools']} tools, "
            f"{per:,.0f} B a tool (<= {TOOL_BYTES:,}: {'ok' if ok else 'FAIL'})"
        )
        if r["edit"] is not None:
            print(f"{'tools/list with --tools edit':<50} {r['edit'][1]:>8,}B  {r['edit'][0]} tools")
        print("  per tool: " + ", ".join(f"{n} {b:,}" for n, b in r["per_tool"].items()))
        print(f"  MCP SDK modules imported by the CLI's call path: {r['mcp']}")
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    raise SystemExit(main())
