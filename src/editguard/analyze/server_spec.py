"""How to run and speak to one language server: a plain description, imported without the LSP
client (whose protocol types take about 0.3 s to load), so that naming an analyzer costs
nothing until its server starts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """How to run and speak to one language server.

    ``languages``: file extension -> LSP language id (the files it checks). ``settings``: what
    ``workspace/configuration`` answers, by section (dotted paths into it). ``pull``: whether to
    pull diagnostics (``None``: where the server advertises it). ``watched``: file names, besides
    the extensions, whose changes the server is told of (its configuration files).
    ``severities``: the LSP severities kept (1 error, 2 warning, 3 information, 4 hint).
    """

    name: str
    command: tuple[str, ...]
    languages: Mapping[str, str]
    settings: Mapping[str, Any] = field(default_factory=dict)
    initialization_options: Any = None
    pull: bool | None = None
    watched: tuple[str, ...] = ()
    severities: frozenset[int] = frozenset({1, 2})
