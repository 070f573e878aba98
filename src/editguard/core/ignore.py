""".gitignore rules, as git applies them: the deepest file that has a say about a path decides,
and inside one file the last matching line does (``!`` re-includes). Pure: lines in, answers out;
reading the files is the walker's job (fs/walk.py).

Paths here are ``/``-separated and relative to one reference folder (a root of the sandbox); each
rule file knows the folder it sits in, relative to that same reference.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore import GitIgnorePatternError


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """The compiled rules of one ignore file.

    Attributes:
        base: the folder the rules are relative to ('' for the reference folder itself).
        spec: the compiled patterns.
    """

    base: str
    spec: GitIgnoreSpec


def compile_rules(base: str, lines: Iterable[str]) -> IgnoreFile | None:
    """The rules of an ignore file whose lines are ``lines``, relative to ``base``; None when it
    holds no pattern. A line git would refuse (a lone ``!``) is dropped, as git ignores it,
    instead of failing the whole file."""
    kept = [line for line in lines if line.strip() and not line.startswith("#")]
    if not kept:
        return None
    try:
        spec = GitIgnoreSpec.from_lines(kept)
    except GitIgnorePatternError:
        valid = []
        for line in kept:
            try:
                GitIgnoreSpec.from_lines([line])
            except GitIgnorePatternError:
                continue
            valid.append(line)
        spec = GitIgnoreSpec.from_lines(valid)
    return IgnoreFile(base, spec) if len(spec) else None


def is_ignored(rules: Sequence[IgnoreFile], path: str, is_dir: bool) -> bool:
    """Whether ``path`` is ignored by ``rules`` (shallowest first, as found walking down).

    A folder is matched with a trailing ``/`` so that ``build/`` patterns apply to folders only.
    The rules of a folder's parents are not asked about what lies inside an ignored folder: the
    walker never enters one, as git never re-includes a file whose folder is excluded.
    """
    for rule in reversed(rules):
        if rule.base:
            if not path.startswith(rule.base + "/"):
                continue
            relative = path[len(rule.base) + 1 :]
        else:
            relative = path
        verdict = rule.spec.check_file(relative + "/" if is_dir else relative).include
        if verdict is not None:
            return verdict
    return False
