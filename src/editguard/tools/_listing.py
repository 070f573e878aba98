"""What ``tools/list`` shows, stored ahead of time: the MCP server and ``editguard tools`` answer
from ``listing.json`` without importing a tool or building a pydantic model (the models are most
of a cold start).

The stored file carries a fingerprint of the sources the listing is made from. When they changed
since it was written, the listing is made live from the tools (correct, only slower), and a test
fails until the file is written again::

    python -m editguard.tools._listing
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from editguard.tools import NAMES, tool_named

STORED = Path(__file__).with_name("listing.json")
# The listing is made from the tool modules (descriptions, argument models) and the Literal
# types they take from the transaction (Mode, in build.py).
_SOURCES = (Path(__file__).parent, Path(__file__).parent.parent / "transaction" / "build.py")


def fingerprint() -> str:
    """A hash of every source the listing is made from."""
    digest = hashlib.sha256()
    files = [*sorted(_SOURCES[0].glob("*.py")), _SOURCES[1]]
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def live(names: tuple[str, ...] = NAMES) -> list[dict[str, Any]]:
    """The listing made from the tools themselves."""
    return [tool_named(n).describe() for n in names]


@cache
def _stored() -> dict[str, dict[str, Any]] | None:
    try:
        data = json.loads(STORED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint():
        return None
    return {t["name"]: t for t in data["tools"]}


def listing(names: tuple[str, ...] = NAMES) -> list[dict[str, Any]]:
    """The tools ``names`` as ``tools/list`` shows them: stored, or made live when the stored
    file is missing or stale."""
    stored = _stored()
    if stored is None or not all(n in stored for n in names):
        return live(names)
    return [stored[n] for n in names]


def write() -> Path:
    """Write ``listing.json`` from the tools as they are now."""
    data = {"fingerprint": fingerprint(), "tools": live()}
    STORED.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    _stored.cache_clear()
    return STORED


if __name__ == "__main__":
    print(f"wrote {write()}")  # noqa: T201 - a command
