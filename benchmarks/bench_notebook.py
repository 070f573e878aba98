"""One cell edit of a 5 MB notebook beside the same edit of a 5,000-line module, and the memory
of one cell edit of a 50 MB notebook with large outputs.

The notebooks are made of a real one: the cells of ``05.12-Gaussian-Mixtures.ipynb`` (Python
Data Science Handbook, 54 cells, 15 PNG outputs; ``../shared/conformance/notebooks/``) repeated
with fresh ids (nbformat 4.5) until the file has the size asked, written as Jupyter writes
(indent 1, keys sorted, non-ASCII as is: its markdown has an en dash, so the file is not ASCII).
The module is the same notebook's code cells, as a jupytext percent script (``# %% part K cell
I`` before each cell, magics left out), repeated to 5,000 lines. Both in a temporary folder.

**Time** (section a). The same edit on both, in one run, alternating: one line of the middle
copy of cell 4 (``# Generate some data``) changed, through the Python API
(``Workspace.edit_file``, with ``cell`` on the notebook) and over MCP (``editguard serve`` over
stdio, the ``mcp`` package's client), each with ruff (the notebook's code is checked without its
outputs), history on. Medians of the timed edits, each writing a new text; the ratio notebook /
module (each edit writes a new text: line 1 of the cell becomes ``# Generate some data (K)``).
Beside them, for scale, the floor: reading the notebook's bytes, decoding them and writing
them back atomically with ``fsync`` (a temporary file renamed over it), median. Goal: the cell
edit within a few times (5x) the same edit of the module.

**Memory** (section b). In a fresh process per figure, after a first cell edit of a small
notebook (the imports and nbformat's schema loaded, as in a server that runs): one cell edit of
the 50 MB notebook; tracemalloc's peak of Python allocations during the call, and the growth of
the resident set (Linux: ``VmHWM`` after the call, its peak reset through
``/proc/self/clear_refs`` before it, minus ``VmRSS`` before), each as a multiple of the file's
size. Requirement (DESIGN.md): memory at most three times the file.

Run: ``python benchmarks/bench_notebook.py`` (``--quick``: a 1 MB and a 5 MB notebook, a few
edits; a smoke run, figures not meaningful).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from bench_mcp import editguard_command
from bench_memory import proc_status
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

MB = 1_000_000
SOURCE_NAME = "05.12-Gaussian-Mixtures.ipynb"
SMALL_NAME = "nbformat-test4.5.ipynb"
EDIT_CELL = 4  # within each copy of the notebook's cells: "# Generate some data" opens it
OLD = "# Generate some data"
NEW = "# Generate some data, again"
MEMORY_BOUND = 3.0  # DESIGN.md: memory at most three times the file
TIME_RATIO = 5.0  # a cell edit within a few times the module's


def notebooks_folder() -> Path | None:
    """The conformance notebooks, found as tests/conformance.py finds them."""
    here = Path(__file__).resolve().parent.parent
    candidates = []
    if os.environ.get("EDITGUARD_CONFORMANCE"):
        candidates.append(Path(os.environ["EDITGUARD_CONFORMANCE"]))
    candidates += [parent / "shared" / "conformance" for parent in here.parents]
    candidates.append(Path("/work/shared/conformance"))
    for folder in candidates:
        if (folder / "notebooks" / SOURCE_NAME).is_file():
            return folder / "notebooks"
    return None


def build_notebook(source: Path, path: Path, target: int) -> tuple[int, int]:
    """Write a notebook of about ``target`` bytes (see the module docstring); returns its size
    and the index of the cell to edit (cell 4 of the middle copy)."""
    nb = json.loads(source.read_text(encoding="utf-8"))
    base = nb["cells"]
    per_copy = len(json.dumps(base, indent=1, ensure_ascii=False))
    copies = max(1, -(-target // per_copy))
    cells = []
    for copy in range(copies):
        for i, cell in enumerate(base):
            cells.append({**cell, "id": f"{copy:04x}{i:04x}"})
    nb["cells"] = cells
    nb["nbformat_minor"] = 5
    text = json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8")), (copies // 2) * len(base) + EDIT_CELL


def build_module(source: Path, path: Path, lines: int) -> tuple[int, str]:
    """Write the notebook's code cells as a percent script of about ``lines`` lines; returns
    its line count and the middle copy's header of cell 4 (which makes the edit unique)."""
    nb = json.loads(source.read_text(encoding="utf-8"))
    code = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        body = [
            ln
            for ln in "".join(cell["source"]).split("\n")
            if not ln.lstrip().startswith(("%", "!"))
        ]
        code.append((i, "\n".join(body)))
    per_copy = sum(c.count("\n") + 2 for _, c in code)
    copies = max(1, -(-lines // per_copy))
    parts = [f"# %% part {k} cell {i}\n{c}\n" for k in range(copies) for i, c in code]
    text = "".join(parts)
    path.write_text(text, encoding="utf-8")
    return text.count("\n"), f"# %% part {copies // 2} cell {EDIT_CELL}\n"


# -- (a) time ---------------------------------------------------------------------------------


def step(k: int) -> tuple[str, str]:
    """The ``k``-th edit's old and new text: each edit writes a text not seen before (an
    analyzer's answer for a text it has checked is kept, and would not be timed)."""
    return (OLD if k == 0 else f"{OLD} ({k})"), f"{OLD} ({k + 1})"


def time_api(folder: Path, cell: int, head: str, edits: int) -> tuple[list[float], list[float]]:
    """Seconds of each timed edit (after two untimed), notebook and module alternating."""
    from editguard import Workspace

    ws = Workspace([folder], max_file_bytes=200 * MB, analyzers=["ruff"])
    notebook: list[float] = []
    module: list[float] = []
    try:
        for k in range(edits + 2):
            old, new = step(k)
            start = time.perf_counter()
            out = ws.edit_file("big.ipynb", [{"old_text": old, "new_text": new}], cell=cell)
            took = time.perf_counter() - start
            assert out.written, out
            assert out.cell == cell, out
            if k >= 2:
                notebook.append(took)
            start = time.perf_counter()
            out = ws.edit_file("module.py", [{"old_text": head + old, "new_text": head + new}])
            took = time.perf_counter() - start
            assert out.written, out
            if k >= 2:
                module.append(took)
    finally:
        ws.close()
    return notebook, module


async def time_mcp(folder: Path, cell: int, head: str, edits: int) -> tuple[list[float], ...]:
    """As :func:`time_api`, over MCP (``editguard serve`` over stdio, with ruff)."""
    command = editguard_command()
    state = folder.parent / "mcp-state"
    params = StdioServerParameters(
        command=command[0],
        args=[
            *command[1:],
            "serve",
            str(folder),
            "--history",
            str(state / "history"),
            "--journal",
            str(state / "journal"),
            "--log-level",
            "WARNING",
            "--analyzer",
            "ruff",
            "--max-file-bytes",
            str(200 * MB),
        ],
    )
    notebook: list[float] = []
    module: list[float] = []
    with open(os.devnull, "w") as quiet:
        async with Client(stdio_client(params, errlog=quiet)) as client:
            for k in range(edits + 2):
                old, new = step(k)
                calls: list[tuple[list[float], dict[str, Any]]] = [
                    (
                        notebook,
                        {
                            "path": "big.ipynb",
                            "cell": cell,
                            "edits": [{"old_text": old, "new_text": new}],
                        },
                    ),
                    (
                        module,
                        {
                            "path": "module.py",
                            "edits": [{"old_text": head + old, "new_text": head + new}],
                        },
                    ),
                ]
                for samples, arguments in calls:
                    start = time.perf_counter()
                    result = await client.call_tool("edit_file", arguments)
                    took = time.perf_counter() - start
                    if result.is_error:
                        raise RuntimeError(f"edit_file failed over MCP: {result.content}")
                    if k >= 2:
                        samples.append(took)
    return notebook, module


def read_write_floor(path: Path, repeats: int) -> float:
    """Median seconds to read the file, decode it and write it back atomically with fsync."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        data = path.read_bytes()
        data.decode("utf-8")
        fd, temp = tempfile.mkstemp(dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


# -- (b) memory: the child --------------------------------------------------------------------


def reset_peak() -> bool:
    """Reset this process's VmHWM to its VmRSS (Linux 4.0 and later)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
    except OSError:
        return False
    return True


def child(folder: str, cell: int, mode: str) -> int:
    """One cell edit of ``big.ipynb`` in ``folder``, after one of ``small.ipynb``; prints the
    figures as JSON (``mode``: ``rss`` or ``tracemalloc``)."""
    import gc
    import tracemalloc

    from editguard import Workspace

    size = os.path.getsize(os.path.join(folder, "big.ipynb"))
    ws = Workspace([folder], max_file_bytes=4 * size, analyzers=["ruff"])
    warm = ws.edit_file("small.ipynb", [{"old_text": "hello", "new_text": "hello!"}], cell=3)
    assert warm.written
    gc.collect()
    edits = [{"old_text": OLD, "new_text": NEW}]
    figures: dict[str, int] = {"size": size}
    if mode == "tracemalloc":
        tracemalloc.start()
        base, _ = tracemalloc.get_traced_memory()
        start = time.perf_counter()
        result = ws.edit_file("big.ipynb", edits, cell=cell)
        figures["seconds_traced_us"] = int((time.perf_counter() - start) * 1e6)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        figures["trace_peak"] = peak - base
    else:
        reset = reset_peak()
        before = proc_status()
        start = time.perf_counter()
        result = ws.edit_file("big.ipynb", edits, cell=cell)
        figures["seconds_us"] = int((time.perf_counter() - start) * 1e6)
        after = proc_status()
        if reset and before and after:
            figures["rss_growth"] = after["VmHWM"] - before["VmRSS"]
    assert result.written
    assert result.cell == cell
    print(json.dumps(figures))
    return 0


def run_child(folder: Path, cell: int, mode: str) -> dict[str, int]:
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", str(folder), str(cell), mode],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"child failed ({proc.returncode}):\n{proc.stderr}")
    figures: dict[str, int] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


def memory(source: Path, small: Path, folder: Path, target: int) -> dict[str, float]:
    """The figures of section (b), as multiples of the file's size (and seconds)."""
    folder.mkdir()
    size, cell = build_notebook(source, folder / "big.ipynb", target)
    original = (folder / "big.ipynb").read_bytes()
    out: dict[str, float] = {"size": size}
    for mode in ("tracemalloc", "rss"):
        shutil.copyfile(small, folder / "small.ipynb")
        (folder / "big.ipynb").write_bytes(original)
        figures = run_child(folder, cell, mode)
        if "trace_peak" in figures:
            out["trace"] = figures["trace_peak"] / size
        if "rss_growth" in figures:
            out["rss"] = figures["rss_growth"] / size
        if "seconds_us" in figures:
            out["seconds"] = figures["seconds_us"] / 1e6
    return out


# -- the parent -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small files, a few edits")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is not met")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        folder, cell, mode = args.child
        return child(folder, int(cell), mode)
    notebooks = notebooks_folder()
    print(f"editguard notebook benchmark (python {sys.version.split()[0]}, quick={args.quick})")
    if notebooks is None:
        print("requirement: not measured (no conformance notebooks: set EDITGUARD_CONFORMANCE)")
        return 0
    source, small = notebooks / SOURCE_NAME, notebooks / SMALL_NAME
    notebook_bytes = 1 * MB if args.quick else 5 * MB
    memory_bytes = 5 * MB if args.quick else 50 * MB
    edits = 3 if args.quick else 21
    checks: list[bool] = []
    with tempfile.TemporaryDirectory(prefix="editguard-bench-notebook-") as tmp:
        root = Path(tmp, "root")
        root.mkdir()
        size, cell = build_notebook(source, root / "big.ipynb", notebook_bytes)
        lines, head = build_module(source, root / "module.py", 5000)
        module_size = (root / "module.py").stat().st_size
        print(
            f"(a) big.ipynb: {size:,} bytes, {size // len(source.read_bytes())} copies of "
            f"{SOURCE_NAME}'s cells, edit of cell {cell}; module.py: {lines:,} lines, "
            f"{module_size:,} bytes; {edits} timed edits each, alternating"
        )
        floor = read_write_floor(root / "big.ipynb", edits)
        print(f"    floor: read, decode and write back big.ipynb (fsync): {floor * 1000:.1f} ms")
        rows = []
        api_nb, api_py = time_api(root, cell, head, edits)
        rows.append(("Python API (Workspace.edit_file)", api_nb, api_py))
        mcp_nb, mcp_py = anyio.run(time_mcp, root, cell, head, edits)
        rows.append(("MCP (editguard serve, stdio)", mcp_nb, mcp_py))
        for label, nb_times, py_times in rows:
            a, b = statistics.median(nb_times) * 1000, statistics.median(py_times) * 1000
            ok = a <= TIME_RATIO * b
            checks.append(ok)
            print(
                f"    {label}: notebook {a:.1f} ms, module {b:.1f} ms (medians); notebook / "
                f"module {a / b:.2f}x [goal <= {TIME_RATIO:g}x: {'PASS' if ok else 'FAIL'}]; "
                f"notebook / floor {a / (floor * 1000):.1f}x"
            )
        found = memory(source, small, Path(tmp, "memory"), memory_bytes)
    worst = max(v for k, v in found.items() if k in ("trace", "rss"))
    ok = worst <= MEMORY_BOUND
    checks.append(ok)
    print(
        f"(b) one cell edit of a {found['size'] / MB:.1f} MB notebook: tracemalloc peak "
        f"{found.get('trace', float('nan')):.2f}x the file, resident set growth "
        + (f"{found['rss']:.2f}x" if "rss" in found else "not measured (no /proc)")
        + f", {found.get('seconds', float('nan')):.2f} s"
    )
    print(
        f"requirement: memory <= {MEMORY_BOUND:g}x the file: {'PASS' if ok else 'FAIL'} "
        f"(worst {worst:.2f}x); cell edit <= {TIME_RATIO:g}x the module's edit: "
        + ("PASS" if all(checks[:-1]) else "FAIL")
    )
    return 1 if args.strict and not all(checks) else 0


if __name__ == "__main__":
    sys.exit(main())
