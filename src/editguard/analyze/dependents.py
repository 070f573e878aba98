"""The files of a project that use an edited file: their problems are compared before and after
the edit too, so that an edit that breaks its callers says so.

Each language has its function, of one shape: ``(real, project, roots, limit) -> (files,
notes)``: the files of the project (inside the roots) that import ``real``, nearest first (by
folder distance), at most ``limit``, with a note when there are more or when the search was cut
short.

A text scan, no program run: folders named ``node_modules`` and hidden folders are skipped,
symbolic links are not followed, and each file is read up to :data:`READ_LIMIT` bytes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

LIMIT = 20  # dependents checked per job
READ_LIMIT = 1024 * 1024  # bytes read of one file
MAX_SCANNED = 5000  # files read per search
SKIPPED_FOLDERS = ("node_modules", "__pycache__", "site-packages")

TS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_JS_TO_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
# A relative module specifier in import/export ... from, import(...), import "...", require(...).
_TS_SPECIFIER = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(["'])(\.{1,2}/[^"'\n]*|\.{1,2})\1"""
)


def typescript_dependents(
    real: str, project: str, roots: Sequence[str], limit: int = LIMIT
) -> tuple[list[str], list[str]]:
    """The TypeScript/JavaScript files of ``project`` (inside the roots) that import the file
    at ``real`` by a relative specifier (``./mod``, ``../dir/mod``, with or without an
    extension, a folder's ``index``, a ``.js`` specifier naming a ``.ts`` file; ``import``,
    ``export ... from``, ``import()``, ``require()``), nearest first, at most ``limit``; and
    notes."""
    if not _inside(project, roots):
        return [], []
    target = os.path.realpath(real)
    found: list[str] = []
    notes: list[str] = []
    scanned = 0
    for folder, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_FOLDERS and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(TS_EXTENSIONS) or name.endswith(".d.ts"):
                continue
            path = os.path.join(folder, name)
            if os.path.islink(path) or os.path.realpath(path) == target:
                continue
            scanned += 1
            if scanned > MAX_SCANNED:
                notes.append(f"stopped after reading {MAX_SCANNED} files")
                break
            if _ts_imports(_head(path), path, target):
                found.append(path)
        if scanned > MAX_SCANNED:
            break
    found.sort(key=lambda p: (_distance(p, real), p))
    if len(found) > limit:
        notes.append(
            f"{len(found)} files import {os.path.basename(real)}; the {limit} nearest were checked"
        )
    return found[:limit], notes


def _ts_imports(text: str, path: str, target: str) -> bool:
    here = os.path.dirname(path)
    for match in _TS_SPECIFIER.finditer(text):
        base = os.path.normpath(os.path.join(here, match.group(2)))
        # Not only files that exist: the target may be one a dry run would create.
        if any(os.path.realpath(c) == target for c in _ts_candidates(base)):
            return True
    return False


def _ts_candidates(base: str) -> list[str]:
    """The files a relative specifier may name, as TypeScript's resolution tries them."""
    out = [base]
    stem, ext = os.path.splitext(base)
    out += [stem + e for e in _JS_TO_TS.get(ext, ())]
    out += [base + e for e in TS_EXTENSIONS]
    out += [os.path.join(base, "index" + e) for e in TS_EXTENSIONS]
    return out


def _head(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(READ_LIMIT).decode("utf-8", "replace")
    except OSError:
        return ""


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _distance(a: str, b: str) -> int:
    """How many folders apart two files are."""
    x = os.path.dirname(a).split(os.sep)
    y = os.path.dirname(b).split(os.sep)
    common = 0
    while common < min(len(x), len(y)) and x[common] == y[common]:
        common += 1
    return len(x) + len(y) - 2 * common
