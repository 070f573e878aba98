"""Peak memory and time of one edit_notebook call (an insert, a move, a delete and a type
change) on a ~50 MB notebook whose size is its image outputs.

The parent writes the notebook (Jupyter's layout: indent 1, sorted keys, non-ASCII as is), then
runs the call in a fresh Python process that has already made one call on a small notebook (it
has loaded what a server has loaded), and reports the growth of its peak resident set
(``VmHWM`` minus ``VmRSS`` before the call, from /proc/self/status) divided by the file's size,
and the call's time. Requirement (DESIGN.md, Speed): memory at most three times the file. The
edit writes a few small replacements (the cells no edit moved stay in place), so the figure is
what reading the notebook costs: its text and its decoded JSON.

With ``--emoji`` one cell holds an emoji: CPython then stores the whole text at 4 bytes a
character, which the reader (not this tool) pays.

Run: ``python benchmarks/bench_notebook_structure.py`` (``--quick`` for ~5 MB).
"""

import argparse
import base64
import json
import os
import random
import subprocess
import sys
import tempfile

MB = 1_000_000

CHILD = r"""
import os, sys, time
import nbformat.validator
from editguard import Workspace

def status(key):
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    return 0

folder, name = sys.argv[1], sys.argv[2]
ws = Workspace([folder], history=False)
edits = [
    {"op": "insert", "source": "x = 1", "after": 10},
    {"op": "move", "cell": 3, "after": -2},
    {"op": "delete", "cell": 12},
    {"op": "replace", "cell": 20, "cell_type": "markdown"},
]
# A first call on a small notebook loads what a server has loaded already (the tool, the
# transaction, the schema), which is no part of the figure.
with open(os.path.join(folder, "warm.ipynb"), "w") as handle:
    handle.write('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
ws.edit_notebook("warm.ipynb", [{"op": "insert", "source": "x"}])
before = status("VmRSS")
start = time.perf_counter()
ws.edit_notebook(name, edits)
took = time.perf_counter() - start
print(status("VmHWM") - before, took)
"""


def generate(path: str, target: int, emoji: bool) -> int:
    """Write a notebook of about ``target`` bytes: code cells each with one PNG output, and a
    markdown cell after each."""
    rng = random.Random(1)
    cells = []
    size = 0
    k = 0
    while size < target:
        png = base64.b64encode(rng.randbytes(180_000)).decode()
        cells.append(
            {
                "cell_type": "code",
                "execution_count": k,
                "id": f"c{k:05d}",
                "metadata": {},
                "outputs": [
                    {
                        "data": {"image/png": png, "text/plain": ["<Figure>"]},
                        "metadata": {},
                        "output_type": "display_data",
                    }
                ],
                "source": [f"plot({k})\n", "plt.show()  # ±"],
            }
        )
        note = "## Part {k} \N{GRINNING FACE}" if emoji and k == 0 else f"## Part {k} é"
        cells.append({"cell_type": "markdown", "id": f"m{k:05d}", "metadata": {}, "source": [note]})
        size += len(png) + 400
        k += 1
    nb = {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "P", "language": "python", "name": "p"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return os.path.getsize(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a ~5 MB notebook")
    parser.add_argument("--emoji", action="store_true", help="one emoji in the notebook")
    args = parser.parse_args()
    target = 5 * MB if args.quick else 50 * MB
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "big.ipynb")
        size = generate(path, target, args.emoji)
        out = subprocess.run(
            [sys.executable, "-c", CHILD, folder, "big.ipynb"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        growth, took = int(out[0]), float(out[1])
    print(
        f"edit_notebook on a {size / MB:.1f} MB notebook: peak memory +{growth / size:.2f}x "
        f"the file (requirement: 3x), {took:.2f} s"
    )


if __name__ == "__main__":
    main()
