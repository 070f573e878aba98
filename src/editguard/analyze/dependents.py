"""The files of a project that use an edited file (they import it): an edit that changes a
signature or removes a name breaks them, so the analyzers check them too.

A text scan, no program run: folders named ``node_modules`` and hidden folders are skipped,
symbolic links are not followed, large files are not read, and the answer is capped (nearest
files first) with the number of all found.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

# The files scanned and the bytes read of each, at most.
MAX_SCANNED = 5000
MAX_READ = 1024 * 1024

TS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_JS_TO_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
# A relative module specifier in import/export ... from, import(...), import "...", require(...).
_SPECIFIER = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(["'])(\.{1,2}/[^"'\n]*|\.{1,2})\1"""
)


def typescript_dependents(
    real: str, project: str, roots: Sequence[str], limit: int = 20
) -> tuple[list[str], int]:
    """The TypeScript/JavaScript files under ``project`` (inside ``roots``) that import the
    file at ``real`` by a relative specifier (``./mod``, ``../dir/mod``, with or without an
    extension, a folder's ``index``, a ``.js`` specifier naming a ``.ts`` file).

    Returns:
        (the nearest ``limit`` of them, nearest first; how many there are in all).
    """
    if not any(inside(project, root) for root in roots):
        return [], 0
    target = os.path.realpath(real)
    found: list[str] = []
    scanned = 0
    for folder, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if d != "node_modules" and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(TS_EXTENSIONS) or name.endswith(".d.ts"):
                continue
            path = os.path.join(folder, name)
            if os.path.realpath(path) == target or os.path.islink(path):
                continue
            scanned += 1
            if scanned > MAX_SCANNED:
                break
            if _imports(path, target):
                found.append(path)
        if scanned > MAX_SCANNED:
            break
    found.sort(key=lambda p: (path_distance(p, real), p))
    return found[:limit], len(found)


def _imports(path: str, target: str) -> bool:
    try:
        with open(path, "rb") as f:
            text = f.read(MAX_READ).decode("utf-8", "replace")
    except OSError:
        return False
    here = os.path.dirname(path)
    for match in _SPECIFIER.finditer(text):
        base = os.path.normpath(os.path.join(here, match.group(2)))
        if any(os.path.realpath(c) == target for c in _candidates(base) if os.path.isfile(c)):
            return True
    return False


def _candidates(base: str) -> list[str]:
    """The files a relative specifier may name, as TypeScript's resolution tries them."""
    out = [base]
    stem, ext = os.path.splitext(base)
    out += [stem + e for e in _JS_TO_TS.get(ext, ())]
    out += [base + e for e in TS_EXTENSIONS]
    out += [os.path.join(base, "index" + e) for e in TS_EXTENSIONS]
    return out


def path_distance(path: str, real: str) -> int:
    """How many folders apart two files are (0: in the same folder)."""
    a = os.path.dirname(path).split(os.sep)
    b = os.path.dirname(real).split(os.sep)
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return len(a) + len(b) - 2 * common


def inside(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies under it."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
