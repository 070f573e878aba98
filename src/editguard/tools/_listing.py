"""What ``tools/list`` shows, stored ahead of time: the MCP server and ``editguard tools`` answer
from ``listing.json`` without importing a tool or building a pydantic model (the models are most
of a cold start).

The stored file carries a fingerprint of what it lists, each tool's name, title, description,
argument schema and hints: exactly what reaches the wire, so an edit to a tool's logic leaves it
current, and a changed description or schema makes it stale.
``tests/test_tool_list.py`` fails while it is stale, until it is written again::

    python -m editguard.tools._listing

The stored listing is served as it is: whether it is current cannot be known without importing
the tools, which is what it saves. A file that does not match its own fingerprint (edited by
hand, cut short) is not served; the listing is then made live from the tools, only slower.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from editguard.tools import NAMES, tool_named

STORED = Path(__file__).with_name("listing.json")


def fingerprint(tools: Any) -> str:
    """A hash of a listing: of what ``tools/list`` shows of these tools, and nothing else."""
    text = json.dumps(tools, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def live(names: tuple[str, ...] = NAMES) -> list[dict[str, Any]]:
    """The listing made from the tools themselves."""
    return [tool_named(n).describe() for n in names]


@cache
def _stored() -> dict[str, dict[str, Any]] | None:
    try:
        data = json.loads(STORED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint(data.get("tools", [])):
        return None
    return {t["name"]: t for t in data["tools"]}


def listing(names: tuple[str, ...] = NAMES) -> list[dict[str, Any]]:
    """The tools ``names`` as ``tools/list`` shows them: stored, or made live when the stored
    file is missing, damaged or lacks one of them."""
    stored = _stored()
    if stored is None or not all(n in stored for n in names):
        return live(names)
    return [stored[n] for n in names]


def write() -> Path:
    """Write ``listing.json`` from the tools as they are now."""
    tools = live()
    data = {"fingerprint": fingerprint(tools), "tools": tools}
    STORED.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    _stored.cache_clear()
    return STORED


if __name__ == "__main__":
    print(f"wrote {write()}")  # noqa: T201 - a command
