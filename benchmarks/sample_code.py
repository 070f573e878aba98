"""Deterministic code-like text shared by the benchmarks: every line is unique."""

from __future__ import annotations

import random

SEED = 20240601

_WORDS = (
    "alpha",
    "buffer",
    "cache",
    "config",
    "handler",
    "index",
    "offset",
    "parser",
    "payload",
    "request",
    "result",
    "session",
    "token",
    "value",
    "window",
    "record",
)
# Every template holds ``{a}_{n}`` with the line number ``n``: a whole line (from its
# indentation on) therefore occurs exactly once in the file.
_TEMPLATES = (
    "{ind}{a}_{n} = {b}.{c}({d}, {n})",
    "{ind}if {a}_{n} is not None and {b} > {n}:",
    '{ind}return {a}_{n}({b}, key="{c}")',
    "{ind}self.{a}_{n} = [{b} for {b} in {c} if {b}.{d}]",
    "{ind}# {a}_{n}: {b} the {c} before {d}",
    "{ind}def {a}_{n}(self, {b}: int, {c}: str) -> None:",
    "{ind}{a}_{n}.append({b}[{n} % len({c})])",
    '{ind}raise ValueError(f"{a}_{n} {{{b}}} failed for {c}")',
    "{ind}for {b} in range({a}_{n}, {n} + len({c})):",
    '{ind}logger.debug("{a}_{n} %s %s", {b}, {c})',
)


def code_line(n: int, rng: random.Random) -> str:
    """Line number ``n`` (0-based) of a code-like file, without its line break."""
    a, b, c, d = rng.sample(_WORDS, 4)
    ind = " " * (4 * rng.randrange(4))
    return rng.choice(_TEMPLATES).format(ind=ind, a=a, b=b, c=c, d=d, n=n)
