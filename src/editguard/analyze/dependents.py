"""The files of a project that use an edited file: their problems are compared before and after
the edit too, so that an edit that breaks its callers says so.

Each language has its function, of one shape: ``(real, project, roots, limit) -> (files,
notes)``: the files of the project (inside the roots) that import ``real``, nearest first (by
folder distance), at most ``limit``, with a note when there are more or when the search was cut
short. A deleted or moved file's dependents are those that imported it (the path says what they
imported, not the text).

Python: ripgrep (the ``rg`` the ``ripgrep`` wheel brings, as editguard's grep finds it) proposes
the files that contain the imported name as a word, with its rules for ``.gitignore`` and hidden
files; ``node_modules``, caches and ``site-packages`` are left out; then each proposed file's
import statements are read (up to :data:`READ_LIMIT` bytes each, :data:`TOTAL_READ` in all).
Without ripgrep, a walk of the project does the same, more slowly.

TypeScript and JavaScript: a text scan of the project's files, no program run: folders named
``node_modules`` and hidden folders are skipped, symbolic links are not followed, and each file is
read up to :data:`READ_LIMIT` bytes (:data:`MAX_SCANNED` files at most).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from editguard.analyze.process import run_capped
from editguard.fs.ripgrep import find_rg

LIMIT = 20  # dependents checked per job
READ_LIMIT = 1024 * 1024  # bytes read of one proposed file
TOTAL_READ = 16 * 1024 * 1024  # bytes read of proposed files per search
MAX_PROPOSED = 2000  # files ripgrep may propose
SEARCH_TIMEOUT = 5.0
SKIPPED_FOLDERS = ("node_modules", "__pycache__", "site-packages")
PYTHON_EXTENSIONS = (".py", ".pyi")
MAX_SCANNED = 5000  # TypeScript/JavaScript files read per search

TS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_JS_TO_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
# A relative module specifier in import/export ... from, import(...), import "...", require(...).
_TS_SPECIFIER = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(["'])(\.{1,2}/[^"'\n]*|\.{1,2})\1"""
)

_PY_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<src>\.*[\w.]*)[ \t]+import[ \t]+"
    r"(?P<names>\([^)]*\)|[^\n;#\\]*(?:\\\n[^\n;#\\]*)*)"
    r"|import[ \t]+(?P<mods>[^\n;#\\]*(?:\\\n[^\n;#\\]*)*))",
    re.MULTILINE,
)


def python_dependents(
    real: str, project: str, roots: Sequence[str], limit: int = LIMIT
) -> tuple[list[str], list[str]]:
    """The Python files of ``project`` that import the module at ``real`` (``import a.b``,
    ``from a.b import x``, ``from a import b``, ``from .b import x``, ``from . import b``),
    nearest first, at most ``limit``; and notes."""
    targets = module_names(real, project)
    if not targets or not within(project, roots):
        return [], []
    words = {t.rsplit(".", 1)[-1] for t in targets}
    proposed, notes = _propose(project, words, PYTHON_EXTENSIONS)
    proposed = [p for p in proposed if p != real]
    proposed.sort(key=lambda p: (distance(p, real), p))
    found: list[str] = []
    budget = TOTAL_READ
    for path in proposed:
        if budget <= 0:
            notes.append(f"stopped reading after {TOTAL_READ // (1024 * 1024)} MB of files")
            break
        text = _head(path)
        budget -= len(text)
        if _imports_any(text, path, project, targets):
            if len(found) == limit:
                notes.append(
                    f"more than {limit} files import {os.path.basename(real)}; "
                    f"the {limit} nearest were checked"
                )
                break
            found.append(path)
    return found, notes


def module_names(real: str, project: str) -> set[str]:
    """The dotted names a Python file is imported by: from its package (the folders above it
    with an ``__init__.py``), and as a path from the project folder or its ``src`` folder
    (namespace packages)."""
    folder, base = os.path.split(real)
    stem, ext = os.path.splitext(base)
    if ext not in PYTHON_EXTENSIONS or not stem.isidentifier():
        return set()
    parts = [] if stem == "__init__" else [stem]
    names = set()
    here = folder
    while within(here, [project]) and any(
        os.path.exists(os.path.join(here, f"__init__{e}")) for e in PYTHON_EXTENSIONS
    ):
        parts.insert(0, os.path.basename(here))
        here = os.path.dirname(here)
    if parts:
        names.add(".".join(parts))
    src = os.path.join(project, "src")
    for top in [src] if within(real, [src]) else [project]:
        if within(real, [top]):
            rel = os.path.relpath(os.path.join(folder, stem), top).split(os.sep)
            if rel[-1] == "__init__":
                rel = rel[:-1]
            if rel and all(p.isidentifier() for p in rel):
                names.add(".".join(rel))
    return names


def imported_modules(text: str, package: str) -> set[str]:
    """The modules a Python text's import statements load (``package``: the dotted package
    the file is in, to resolve relative imports): for ``from a import b`` both ``a`` and
    ``a.b`` (``b`` may be a module)."""
    out: set[str] = set()
    for m in _PY_IMPORT.finditer(text):
        if m.group("mods") is not None:
            for item in _items(m.group("mods")):
                out.add(item)
            continue
        src = m.group("src")
        level = len(src) - len(src.lstrip("."))
        rest = src[level:]
        if level:
            parts = package.split(".") if package else []
            if level - 1 > len(parts):
                continue
            head = parts[: len(parts) - (level - 1)]
            base = ".".join([*head, rest] if rest else head)
        else:
            base = rest
        if not base:
            continue
        out.add(base)
        for name in _items(m.group("names")):
            if name != "*":
                out.add(f"{base}.{name}")
    return out


def typescript_dependents(
    real: str, project: str, roots: Sequence[str], limit: int = LIMIT
) -> tuple[list[str], list[str]]:
    """The TypeScript/JavaScript files of ``project`` (inside the roots) that import the file
    at ``real`` by a relative specifier (``./mod``, ``../dir/mod``, with or without an
    extension, a folder's ``index``, a ``.js`` specifier naming a ``.ts`` file; ``import``,
    ``export ... from``, ``import()``, ``require()``), nearest first, at most ``limit``; and
    notes."""
    if not within(project, roots):
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
    found.sort(key=lambda p: (distance(p, real), p))
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


def _items(group: str) -> Iterable[str]:
    body = group.replace("\\\n", " ").strip().strip("()")
    for part in body.split(","):
        words = part.split()
        if words:
            yield words[0]


def _imports_any(text: str, path: str, project: str, targets: set[str]) -> bool:
    names = module_names(path, project)
    package = ""
    if names:
        name = max(names, key=len)
        is_package = os.path.basename(path).startswith("__init__.")
        package = name if is_package else name.rpartition(".")[0]
    for module in imported_modules(text, package):
        for target in targets:
            if module == target or module.startswith(target + "."):
                return True
    return False


def _propose(
    project: str, words: set[str], extensions: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Files of the project with one of ``words`` as a word: ripgrep's list, else a walk's."""
    rg = find_rg()
    if rg is None:
        return _walk_propose(project, words, extensions), []
    command = [rg, "--files-with-matches", "--null", "--no-config", "--no-messages"]
    command += ["--no-require-git", "--word-regexp", "--fixed-strings", "--case-sensitive"]
    command += [f"--glob=*{e}" for e in extensions]
    command += [f"--glob=!{d}/" for d in SKIPPED_FOLDERS]
    for word in sorted(words):
        command += ["--regexp", word]
    ran = run_capped([*command, "--", project], cwd=project, timeout=SEARCH_TIMEOUT, cap=1 << 20)
    notes = []
    if ran.failed:
        notes.append(f"the search for files that import it stopped ({ran.failed})")
    paths = [p for p in ran.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
    if len(paths) > MAX_PROPOSED:
        paths = paths[:MAX_PROPOSED]
    return [os.path.join(project, p) if not os.path.isabs(p) else p for p in paths], notes


def _walk_propose(project: str, words: set[str], extensions: Sequence[str]) -> list[str]:
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(words)) + r")\b")
    out: list[str] = []
    read = 0
    for folder, dirs, files in os.walk(project):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS]
        for name in files:
            if not name.endswith(tuple(extensions)):
                continue
            path = os.path.join(folder, name)
            text = _head(path)
            read += len(text)
            if pattern.search(text):
                out.append(path)
            if len(out) >= MAX_PROPOSED or read > TOTAL_READ:
                return out
    return out


def _head(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(READ_LIMIT).decode("utf-8", "replace")
    except OSError:
        return ""


def within(path: str, roots: Sequence[str]) -> bool:
    """Whether ``path`` is one of ``roots`` or lies under one."""
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def distance(a: str, b: str) -> int:
    """How many folders apart two files are."""
    x = os.path.dirname(a).split(os.sep)
    y = os.path.dirname(b).split(os.sep)
    common = 0
    while common < min(len(x), len(y)) and x[common] == y[common]:
        common += 1
    return len(x) + len(y) - 2 * common
