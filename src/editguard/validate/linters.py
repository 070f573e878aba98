"""Optional external linters (ruff, mypy, pylint, eslint ...), run on temporary copies.

A linter runs only when it is enabled in the configuration and installed. It never sees the real
file: the old and the new text are written to a temporary folder under the file's own name, the
linter runs on each with a timeout, and only the findings the edit introduced (present after,
absent before, compared by code and message, not by line) are reported. They are warnings unless
the linter is configured to block.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from editguard.validate.report import Finding

DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True, slots=True)
class Linter:
    """How to run one linter and read its output.

    ``command`` holds ``{file}`` where the file's path goes; ``pattern`` is a regular expression
    with the named groups ``line``, ``message`` and optionally ``column`` and ``code``, matched
    against each output line.
    """

    name: str
    command: tuple[str, ...]
    extensions: tuple[str, ...]
    pattern: str
    blocking: bool = False
    timeout: float = DEFAULT_TIMEOUT

    def applies_to(self, name: str) -> bool:
        """Whether this linter checks files called ``name``."""
        return name.lower().endswith(self.extensions)

    def installed(self) -> bool:
        """Whether its program can be found."""
        return shutil.which(self.command[0]) is not None


_PY = (".py", ".pyi")
_JS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx")
KNOWN: dict[str, Linter] = {
    "ruff": Linter(
        "ruff",
        ("ruff", "check", "--no-cache", "--output-format=concise", "{file}"),
        _PY,
        r"^.*?:(?P<line>\d+):(?P<column>\d+): (?P<code>[A-Z]+\d+) (?P<message>.*)$",
    ),
    "mypy": Linter(
        "mypy",
        (
            "mypy",
            "--no-error-summary",
            "--show-column-numbers",
            "--no-incremental",
            "--show-error-codes",
            "{file}",
        ),
        _PY,
        r"^.*?:(?P<line>\d+):(?P<column>\d+): error: (?P<message>.*?)(?:  \[(?P<code>[\w-]+)\])?$",
    ),
    "pylint": Linter(
        "pylint",
        ("pylint", "--output-format=parseable", "--score=n", "{file}"),
        _PY,
        r"^.*?:(?P<line>\d+): \[(?P<code>\w+)[^\]]*\] (?P<message>.*)$",
    ),
    "eslint": Linter(
        "eslint",
        ("eslint", "--format", "unix", "{file}"),
        _JS,
        r"^.*?:(?P<line>\d+):(?P<column>\d+): (?P<message>.*?)(?: \[(?P<code>[^\]]+)\])?$",
    ),
}


def linter_named(name: str, *, blocking: bool = False) -> Linter:
    """A known linter by name, blocking or not.

    Raises:
        ValueError: no linter of that name is known.
    """
    try:
        return replace(KNOWN[name], blocking=blocking)
    except KeyError:
        raise ValueError(f"unknown linter {name!r}; known: {', '.join(sorted(KNOWN))}") from None


def lint_findings(
    linters: tuple[Linter, ...], name: str, old: str, new: str
) -> tuple[list[Finding], list[str]]:
    """Findings the edit introduced, and notes on linters that were skipped or failed."""
    findings: list[Finding] = []
    notes: list[str] = []
    wanted = [linter for linter in linters if linter.applies_to(name)]
    if not wanted:
        return findings, notes
    lines = new.split("\n")
    with tempfile.TemporaryDirectory(prefix="editguard-lint-") as folder:
        for linter in wanted:
            if not linter.installed():
                notes.append(f"{linter.name}: not installed, skipped")
                continue
            try:
                before = _run(linter, folder, "before", name, old)
                after = _run(linter, folder, "after", name, new)
            except subprocess.TimeoutExpired:
                notes.append(f"{linter.name}: timed out after {linter.timeout:g} s, skipped")
                continue
            except OSError as exc:
                notes.append(f"{linter.name}: could not run ({exc.strerror or exc}), skipped")
                continue
            seen = Counter((f.code, f.message) for f in before)
            for finding in after:
                key = (finding.code, finding.message)
                if seen[key]:
                    seen[key] -= 1
                    continue
                text = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
                findings.append(replace(finding, line_text=text, blocking=linter.blocking))
    return findings, notes


def _run(linter: Linter, folder: str, side: str, name: str, text: str) -> list[Finding]:
    place = Path(folder, side)
    place.mkdir(exist_ok=True)
    target = place / os.path.basename(name)
    target.write_text(text, encoding="utf-8", newline="")
    argv = [part.replace("{file}", str(target)) for part in linter.command]
    proc = subprocess.run(  # noqa: S603 - a configured linter on our own temporary copy
        argv,
        cwd=place,
        stdin=subprocess.DEVNULL,  # never the server's protocol stream
        capture_output=True,
        text=True,
        timeout=linter.timeout,
        check=False,
    )
    pattern = re.compile(linter.pattern)
    out: list[Finding] = []
    for line in (proc.stdout + "\n" + proc.stderr).splitlines():
        found = pattern.match(line.strip())
        if not found:
            continue
        groups = found.groupdict()
        out.append(
            Finding(
                linter.name,
                int(groups["line"]),
                int(groups.get("column") or 1),
                groups["message"].strip(),
                "",
                code=groups.get("code"),
            )
        )
    return out
