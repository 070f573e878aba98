"""Random edits of real Python files, valid and broken, to hold the region-compiling Python guard
to the whole-module compile (``tests/test_python_guard.py``, ``benchmarks/bench_guard.py``).

:func:`python_sources` lists real modules that compile: the release pairs of ``tests/corpus/``,
editguard's own source and, for the large runs, the modules of the packages installed next to
it. :func:`random_edit` makes one edit at a random place of a text, as a plan: a breakage
(indentation changed, an unclosed bracket or string, a stray ``return``/``yield``/``await``/
``break``/``nonlocal``/``global``, tabs for spaces, a ``:`` deleted, ``from __future__`` moved
down, a decorator left without its definition ...) or a valid edit (a name or number changed, a
line inserted at its neighbour's indentation, a function added or deleted, a comment).
:func:`compile_whole` is the reference: the compiler on the whole new module, no cache.
"""

from __future__ import annotations

import random
import re
import sysconfig
from collections.abc import Callable, Iterator
from pathlib import Path

from editguard.core.plan import Plan, Replacement

ROOT = Path(__file__).resolve().parent.parent


def compile_whole(text: str) -> tuple[int, int, str] | None:
    """The compiler's verdict on the whole module, formatted as the guard reports it."""
    try:
        compile(text, "<edited>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc.lineno or 1, exc.offset or 1, f"{type(exc).__name__}: {exc.msg}"
    except ValueError as exc:
        return 1, 1, str(exc)
    return None


def python_sources(*, installed: int = 0) -> Iterator[tuple[str, str]]:
    """(name, text) of real Python modules that compile: the corpus, editguard's source, and
    up to ``installed`` modules of the installed packages (the largest first)."""
    paths = sorted((ROOT / "tests" / "corpus").rglob("*.py.*"))
    paths += sorted((ROOT / "src" / "editguard").rglob("*.py"))
    if installed:
        site = Path(sysconfig.get_paths()["purelib"])
        found = [p for p in site.rglob("*.py") if "editguard" not in p.parts]
        found.sort(key=lambda p: (-p.stat().st_size, str(p)))
        paths += found[:installed]
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if compile_whole(text) is None:
            yield str(path.relative_to(path.parents[2])), text


def _line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line, the end before its line break."""
    spans, pos = [], 0
    for line in text.split("\n"):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


_WORD = re.compile(r"\b[A-Za-z_]\w*\b")
_STRAYS = (
    "return",
    "return x",
    "yield x",
    "await x",
    "break",
    "continue",
    "nonlocal x",
    "global x",
    "from __future__ import annotations",
    "from __future__ import barry_as_FLUFL",
    "import *",
    "x = yield",
    "def f(a, a): pass",
    "@decorator",
    "else:",
    "except ValueError:",
    "pass",
    "x = 1",
    "del x",
    "async def g():\n    await x",
    "def g():\n    nonlocal y",
    "class C:\n    return 1",
)
_OPENERS = ("(", "[", "{", '"', "'", '"""', "'''", "\\", 'f"{', ")", "]", "}", ":", ",")


def random_edit(text: str, rng: random.Random) -> tuple[str, Plan]:
    """One random edit of ``text``: (its kind, the plan)."""
    spans = _line_spans(text)
    row = rng.randrange(len(spans))
    start, end = spans[row]
    line = text[start:end]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    kind = rng.choice(sorted(_KINDS))
    return kind, Plan(tuple(_KINDS[kind](text, rng, start, end, line, indent)))


_Make = Callable[[str, random.Random, int, int, str, str], list[Replacement]]


def _indent(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    return [Replacement(start, start, rng.choice((" ", "    ", "\t", "  ")))]


def _dedent(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    cut = rng.randint(1, len(ind)) if ind else 0
    return [Replacement(start, start + cut, "")]


def _tabs(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    return [Replacement(start, start + len(ind), ind.replace("    ", "\t", rng.randint(1, 3)))]


def _opener(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    at = rng.randint(start, end)
    return [Replacement(at, at, rng.choice(_OPENERS))]


def _stray(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    where = rng.choice((ind, "", ind + "    "))
    stray = rng.choice(_STRAYS).replace("\n", "\n" + where)
    return [Replacement(start, start, f"{where}{stray}\n")]


def _colon(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    colon = line.rfind(":")
    if colon < 0:
        return [Replacement(end, end, ":")]
    return [Replacement(start + colon, start + colon + 1, "")]


def _delete_line(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    return [Replacement(start, min(end + 1, len(text)), "")]


def _duplicate_line(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    return [Replacement(start, start, line + "\n")]


def _rename(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    words = list(_WORD.finditer(line))
    if not words:
        return [Replacement(end, end, "  # note")]
    word = rng.choice(words)
    new = rng.choice(("renamed", "x2", "value", "async", "match", "_", "None", "lambda"))
    return [Replacement(start + word.start(), start + word.end(), new)]


def _number(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    return [Replacement(end, end, rng.choice((" + 1", " * 2", "  # 1", ", 3", "()", ".real")))]


def _insert_statement(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    body = rng.choice(("pass", "x = 1", "print(x)", "# comment", "...", "assert x, 'y'"))
    return [Replacement(start, start, f"{ind}{body}\n")]


def _add_function(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    at = start if not ind else len(text)
    new = "def added(a, b=1):\n    return a + b\n\n"
    if at == len(text) and not text.endswith("\n"):
        new = "\n" + new
    return [Replacement(at, at, new)]


def _delete_block(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    # Up to the next line at the same indentation or less: a whole statement, mostly.
    rest = _line_spans(text[end + 1 :]) if end < len(text) else []
    stop = len(text)
    for s, e in rest:
        chunk = text[end + 1 + s : end + 1 + e]
        if chunk.strip() and len(chunk) - len(chunk.lstrip(" \t")) <= len(ind):
            stop = end + 1 + s
            break
    return [Replacement(start, stop, "")]


def _future_down(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    found = text.find("from __future__ import")
    if found < 0 or found > start:
        return [Replacement(start, start, "from __future__ import annotations\n")]
    stop = text.index("\n", found) + 1
    if start < stop:
        return [Replacement(found, stop, "")]
    return [Replacement(found, stop, ""), Replacement(start, start, text[found:stop])]


def _two_places(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    other = rng.randrange(len(text) + 1)
    a, b = sorted((rng.randint(start, end), other))
    if a == b:
        return [Replacement(a, a, "x")]
    return [
        Replacement(a, a, rng.choice(("(", "x", '"'))),
        Replacement(b, b, rng.choice((")", "y", '"'))),
    ]


def _chars(
    text: str, rng: random.Random, start: int, end: int, line: str, ind: str
) -> list[Replacement]:
    at = rng.randint(start, end)
    cut = rng.randint(0, min(3, len(text) - at))
    new = "".join(rng.choice("():[]{}'\"\\#\n =.,ab1\t") for _ in range(rng.randint(0, 3)))
    return [Replacement(at, at + cut, new)]


_KINDS: dict[str, _Make] = {
    "indent": _indent,
    "dedent": _dedent,
    "tabs": _tabs,
    "opener": _opener,
    "stray": _stray,
    "colon": _colon,
    "delete line": _delete_line,
    "duplicate line": _duplicate_line,
    "rename": _rename,
    "number": _number,
    "insert statement": _insert_statement,
    "add function": _add_function,
    "delete block": _delete_block,
    "future down": _future_down,
    "two places": _two_places,
    "chars": _chars,
}


def seeded(name: str, seed: int) -> random.Random:
    """A generator seeded by a file's name and a run's seed (the same on every run)."""
    return random.Random(f"{seed}:{name}")
