"""Where the conformance data of other projects lives: ``../shared/conformance/`` beside the
project (read in place at test time, never copied in). A clone elsewhere finds it through
``$EDITGUARD_CONFORMANCE``, or through the folder the project's own checkout has beside it."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def conformance(name: str) -> Path | None:
    """The folder of one conformance set (e.g. ``codex-apply-patch``), or ``None``."""
    candidates = []
    if os.environ.get("EDITGUARD_CONFORMANCE"):
        candidates.append(Path(os.environ["EDITGUARD_CONFORMANCE"]))
    candidates += [parent / "shared" / "conformance" for parent in REPO.parents]
    candidates.append(Path("/work/shared/conformance"))  # this team's machines
    for folder in candidates:
        if (folder / name).is_dir():
            return folder / name
    return None
