"""When a file was created (its birth time), where the system records it.

Python gives ``st_birthtime`` on macOS, the BSDs and Windows; on Linux the time is only asked
for through ``statx`` (glibc 2.28 and later), which Python 3.11 does not wrap, so it is called
here through ctypes. Anything else (an older libc, a file system that keeps no birth time)
answers None: a caller says the time is unknown rather than showing another time as it.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from typing import Any

_AT_FDCWD = -100
_AT_SYMLINK_NOFOLLOW = 0x100
_STATX_BTIME = 0x800
_STATX_SIZE = 256  # struct statx, padding included
_MASK_AT = 0  # stx_mask: u32 at the start
_INO_AT = 32  # stx_ino: u64
_BTIME_AT = 80  # stx_btime: struct statx_timestamp {s64 tv_sec; u32 tv_nsec; s32 pad}


@functools.cache
def _statx() -> Any:
    """libc's statx, or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).statx
    except (OSError, AttributeError):
        return None


def birth_time(st: os.stat_result, name: str, dir_fd: int | None = None) -> float | None:
    """Seconds since the epoch at which ``name`` (in the folder ``dir_fd``, or absolute) was
    created, not following a last symbolic link; None where the system does not say.
    ``st`` is the path's status already taken (its ``st_birthtime`` is used where it exists)."""
    known = getattr(st, "st_birthtime", None)
    if known is not None:
        return float(known)
    statx = _statx()
    if statx is None:
        return None
    buf = ctypes.create_string_buffer(_STATX_SIZE)
    folder = _AT_FDCWD if dir_fd is None else dir_fd
    if statx(folder, os.fsencode(name), _AT_SYMLINK_NOFOLLOW, _STATX_BTIME, buf) != 0:
        return None
    mask = int.from_bytes(buf.raw[_MASK_AT : _MASK_AT + 4], sys.byteorder)
    if not mask & _STATX_BTIME:
        return None  # the file system keeps no birth time
    if int.from_bytes(buf.raw[_INO_AT : _INO_AT + 8], sys.byteorder) != st.st_ino:
        return None  # another file took the name since ``st`` was taken
    seconds = int.from_bytes(buf.raw[_BTIME_AT : _BTIME_AT + 8], sys.byteorder, signed=True)
    nanos = int.from_bytes(buf.raw[_BTIME_AT + 8 : _BTIME_AT + 12], sys.byteorder)
    return seconds + nanos / 1e9
