"""Running an analyzer's or formatter's program: in a folder inside the roots, with a timeout,
a cap on what it may print, and nothing of editguard's own state in its environment."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from dataclasses import dataclass

# What an analyzer may print per run (a linter's JSON for a huge file stays well under this).
OUTPUT_CAP = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Ran:
    """A finished run: exit code and output; ``failed`` says why there is none to read."""

    code: int | None
    stdout: bytes
    stderr: bytes
    failed: str | None = None


def run_capped(
    command: list[str],
    *,
    cwd: str,
    stdin: bytes = b"",
    timeout: float = 10.0,
    cap: int = OUTPUT_CAP,
    env: dict[str, str] | None = None,
) -> Ran:
    """Run ``command`` in ``cwd`` with ``stdin``; kill it past ``timeout`` seconds or when it
    prints more than ``cap`` bytes. Never raises for the program's failures: ``failed`` says
    what happened (not installed, timed out, printed too much)."""
    try:
        proc = subprocess.Popen(  # noqa: S603 - a program the user configured (see README)
            command,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env if env is not None else os.environ.copy(),
            start_new_session=True,
        )
    except OSError as exc:
        return Ran(None, b"", b"", f"could not run {command[0]} ({exc.strerror or exc})")
    out: list[bytes] = []
    err: list[bytes] = []
    over = threading.Event()

    def drain(stream: object, into: list[bytes]) -> None:
        size = 0
        read = stream.read  # type: ignore[attr-defined]
        while chunk := read(65536):
            size += len(chunk)
            if size > cap:
                over.set()
                proc.kill()
                return
            into.append(chunk)

    def feed() -> None:
        # In a thread too: a program that does not read its input must not block the timeout.
        assert proc.stdin is not None
        try:
            proc.stdin.write(stdin)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                proc.stdin.close()

    readers = [
        threading.Thread(target=drain, args=(proc.stdout, out), daemon=True),
        threading.Thread(target=drain, args=(proc.stderr, err), daemon=True),
        threading.Thread(target=feed, daemon=True),
    ]
    for r in readers:
        r.start()
    deadline = time.monotonic() + timeout
    try:
        _until_output_ends(proc, readers[:2], deadline)
        code = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return Ran(None, b"", b"", f"timed out after {timeout:g} s")
    finally:
        for r in readers:
            r.join(timeout=1.0)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    if over.is_set():
        return Ran(None, b"", b"", f"printed more than {cap:,} bytes")
    return Ran(code, b"".join(out), b"".join(err))


def _until_output_ends(
    proc: subprocess.Popen[bytes], readers: list[threading.Thread], deadline: float
) -> None:
    """Wait for the end of the program's output (a join returns as soon as it comes, where
    ``wait(timeout)`` polls in steps of up to 50 ms, most of a fast formatter's or linter's
    time), until the deadline, or a second after the program exited (a child of it that holds
    the output open is not waited for)."""
    exited = None
    for reader in readers:
        while reader.is_alive():
            now = time.monotonic()
            if now >= deadline or (exited is not None and now - exited > 1.0):
                return
            reader.join(min(deadline - now, 0.1))
            if exited is None and proc.poll() is not None:
                exited = time.monotonic()
