"""Elision markers: the comment lines with which a model says "the code here stays as it is"
(``# ... existing code ...``, ``// ... rest of the function unchanged``, ``/* ... */``,
``<!-- ... -->``). Pure: texts in, answers out.

A line is a marker when it is nothing but one comment, in a comment syntax of the file's
language, whose text is an ellipsis (``...`` or ``…``) with, at most, words that talk about code
staying (existing, rest, unchanged, code, function, ...). Anything else is code or a real
comment: a bare ``...`` (Python's Ellipsis, a JavaScript spread) is no comment, and a comment
such as ``# ... then wait for the lock`` says more than "elided" (``wait``, ``lock`` are not
words of the list), so neither is a marker. Being strict costs a refusal at worst; taking a
real comment for a marker could delete code.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

# A comment syntax: what opens it and what closes it on the same line ("" for a line comment).
Style = tuple[str, str]

HASH: Style = ("#", "")
SLASHES: Style = ("//", "")
BLOCK: Style = ("/*", "*/")
HTML: Style = ("<!--", "-->")
DASHES: Style = ("--", "")
SEMICOLON: Style = (";", "")
JSX: Style = ("{/*", "*/}")

_C_LIKE = (SLASHES, BLOCK)
_BY_EXTENSION: dict[str, tuple[Style, ...]] = {}
for _exts, _styles in (
    ((".py", ".pyi", ".pyw", ".rb", ".sh", ".bash", ".zsh", ".yaml", ".yml", ".toml"), (HASH,)),
    ((".pl", ".pm", ".r", ".R", ".ex", ".exs", ".nim", ".ps1", ".cfg", ".conf"), (HASH,)),
    ((".mk", ".cmake", ".dockerfile", ".tf", ".hcl"), (HASH, SLASHES, BLOCK)),
    ((".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"), _C_LIKE),
    ((".jsx", ".tsx"), (*_C_LIKE, JSX)),
    ((".go", ".rs", ".java", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"), _C_LIKE),
    ((".cs", ".swift", ".kt", ".kts", ".scala", ".dart", ".groovy", ".gradle", ".zig"), _C_LIKE),
    ((".php",), (*_C_LIKE, HASH)),
    ((".css", ".scss", ".less"), (BLOCK, SLASHES)),
    ((".html", ".htm", ".xml", ".svg", ".md", ".markdown"), (HTML,)),
    ((".vue", ".svelte"), (HTML, *_C_LIKE)),
    ((".sql", ".lua", ".hs", ".elm", ".ada"), (DASHES, BLOCK)),
    ((".lisp", ".clj", ".cljs", ".el", ".scm", ".ini", ".asm", ".s"), (SEMICOLON,)),
):
    for _ext in _exts:
        _BY_EXTENSION[_ext.lower()] = _styles

# A file whose kind is not known: any of the usual syntaxes.
ANY: tuple[Style, ...] = (HASH, SLASHES, BLOCK, HTML, DASHES, SEMICOLON)

# What a marker may say besides its ellipsis: words about code that stays, and small words.
_WORD_LIST = """
    existing rest remaining unchanged same previous other original old prior current
    code file function functions class classes method methods imports import lines line body
    implementation implementations content contents definitions definition fields field
    properties property members member logic statements handlers tests cases config
    keys key entries items values options settings section sections rules styles props
    params parameters arguments attributes elements tags steps routes exports declarations
    types variables constants helpers
    of the as is are was here before above below after keep kept stays stay remain remains
    omitted skipped elided truncated unmodified untouched and or for brevity this that these
    etc more others similar no changes change
"""
WORDS = frozenset(_WORD_LIST.split())
_ELLIPSIS = re.compile(r"\.{3,}|…")
_WORD = re.compile(r"[A-Za-z]+")
_EXTRA = re.compile(r"[\s\.\…,:;()\[\]{}'\"`*_=/<>-]*")


def styles_for(name: str) -> tuple[Style, ...]:
    """The comment syntaxes of the file called ``name``, by its extension (all usual ones for
    a kind of file not known)."""
    dot = name.rfind(".")
    slash = max(name.rfind("/"), name.rfind("\\"))
    ext = name[dot:].lower() if dot > slash else ""
    base = name[slash + 1 :].lower()
    if base in ("makefile", "dockerfile", "gnumakefile"):
        return (HASH,)
    return _BY_EXTENSION.get(ext, ANY)


def _comment_text(line: str, styles: tuple[Style, ...]) -> str | None:
    """The text of ``line`` when the line is nothing but one comment of these syntaxes."""
    s = line.strip()
    # Longest openers first: "{/*" before "/*", "<!--" before "--".
    for opener, closer in sorted(styles, key=lambda st: -len(st[0])):
        if not s.startswith(opener):
            continue
        body = s[len(opener) :]
        if closer:
            if not body.endswith(closer):
                continue
            body = body[: -len(closer)]
            if opener in body or closer in body:
                return None  # two comments on one line, or code between them
        return body.strip()
    return None


def is_marker(line: str, styles: tuple[Style, ...]) -> bool:
    """Whether ``line`` is an elision marker in one of these comment syntaxes."""
    text = _comment_text(line, styles)
    if text is None or not _ELLIPSIS.search(text):
        return False
    rest = _ELLIPSIS.sub(" ", text)
    words = [w.lower() for w in _WORD.findall(rest)]
    if any(w not in WORDS for w in words):
        return False
    # Nothing but those words, spaces and punctuation (no digits, no code).
    return _EXTRA.sub("", _WORD.sub("", rest)) == ""


@dataclass(frozen=True, slots=True)
class Elision:
    """A marker line in a new text that was not in the old one."""

    line: int  # 1-based, in the new text
    text: str  # the line as written


def marker_lines(text: str, name: str) -> list[int]:
    """The 1-based numbers of the lines of ``text`` that are markers, for a file ``name``."""
    styles = styles_for(name)
    return [n for n, line in enumerate(text.split("\n"), 1) if is_marker(line, styles)]


def elisions(old: str, new: str, name: str) -> list[Elision]:
    """The marker lines of ``new`` that ``old`` does not account for: each marker line of
    ``old`` (compared without its indentation) excuses one such line of ``new``, so a comment
    the file already has is no elision."""
    styles = styles_for(name)
    if not _ELLIPSIS.search(new):
        return []
    had = Counter(line.strip() for line in old.split("\n") if is_marker(line, styles))
    out = []
    for n, line in enumerate(new.split("\n"), 1):
        if not is_marker(line, styles):
            continue
        key = line.strip()
        if had[key] > 0:
            had[key] -= 1
            continue
        out.append(Elision(n, line))
    return out
