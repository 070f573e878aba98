"""Byte deltas: what a change did to a file's bytes, kept so that it can be taken back.

A change is recorded as the spans it replaced, in the coordinates of the bytes it wrote: "the
``length`` bytes at ``start`` used to be ``old``". Taking it back splices ``old`` in again. What
this costs grows with the change, not with the file: a one-line edit of a 100 MB file keeps
one line.

Pure: bytes in, bytes out.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

S = TypeVar("S", bytes, str)

# Stored blobs: a one-byte kind, then zlib data.
WHOLE, LAYERS = b"W", b"L"
_HEAD = struct.Struct("<QQQ")  # start, length, size of old
_COUNT = struct.Struct("<Q")
# zlib level: 1 is several times faster than the default and loses little on source code.
_LEVEL = 1


class CorruptDelta(ValueError):
    """A stored delta that cannot be read, or that does not fit the bytes it is applied to."""


@dataclass(frozen=True, slots=True)
class Splice:
    """In the bytes after a change, the ``length`` bytes at ``start`` replaced ``old``."""

    start: int
    length: int
    old: bytes


Layer = tuple[Splice, ...]


def take_back(data: bytes, layer: Sequence[Splice]) -> bytes:
    """The bytes before the change that ``layer`` records, from ``data``, the bytes after it.

    Raises:
        CorruptDelta: the splices are out of order or reach past the end of ``data``.
    """
    parts: list[bytes] = []
    pos = 0
    for s in layer:
        if s.start < pos or s.length < 0 or s.start + s.length > len(data):
            raise CorruptDelta(f"a splice at {s.start} does not fit {len(data)} bytes")
        parts.append(data[pos : s.start])
        parts.append(s.old)
        pos = s.start + s.length
    parts.append(data[pos:])
    return b"".join(parts)


def take_back_all(data: bytes, layers: Sequence[Sequence[Splice]]) -> bytes:
    """:func:`take_back` for several changes made one after the other (``layers`` oldest
    first): the last is taken back first."""
    for layer in reversed(layers):
        data = take_back(data, layer)
    return data


def between(old: bytes, new: bytes) -> Layer:
    """The one splice that turns ``old`` into ``new``: everything between their common start
    and their common end (empty when they are equal)."""
    if old == new:
        return ()
    head, tail = common_ends(old, new)
    return (Splice(head, len(new) - head - tail, old[head : len(old) - tail]),)


def common_ends(a: S, b: S) -> tuple[int, int]:
    """How long a start and an end (not overlapping) ``a`` and ``b`` share."""
    limit = min(len(a), len(b))
    head = _common_prefix(a, b, limit)
    return head, _common_suffix(a, b, limit - head)


def _common_prefix(a: S, b: S, limit: int) -> int:
    """How many bytes ``a`` and ``b`` share at their start (at most ``limit``)."""
    return _common(lambda i, j: a[i:j] == b[i:j], limit)


def _common_suffix(a: S, b: S, limit: int) -> int:
    """How many bytes ``a`` and ``b`` share at their end (at most ``limit``)."""
    la, lb = len(a), len(b)
    return _common(lambda i, j: a[la - j : la - i] == b[lb - j : lb - i], limit)


def _common(same: Callable[[int, int], bool], limit: int) -> int:
    """The largest ``n <= limit`` with ``same(0, n)``, where ``same(i, j)`` compares the bytes
    ``i..j`` from one end: growing steps while they agree, then halving (each comparison is a
    slice compare at C speed, and most changes are local)."""
    lo, step = 0, 4096
    while lo < limit:
        hi = min(limit, lo + step)
        if same(lo, hi):
            lo, step = hi, step * 2
            continue
        hi -= 1  # same(lo, hi + 1) is false: the answer is in lo..hi
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if same(lo, mid):
                lo = mid
            else:
                hi = mid - 1
        break
    return lo


def pack_whole(data: bytes) -> bytes:
    """A stored copy of a whole file."""
    return WHOLE + zlib.compress(data, _LEVEL)


def pack_layers(layers: Iterable[Sequence[Splice]]) -> bytes:
    """Stored deltas of changes made one after the other (oldest first)."""
    out = bytearray()
    layers = list(layers)
    out += _COUNT.pack(len(layers))
    for layer in layers:
        out += _COUNT.pack(len(layer))
        for s in layer:
            out += _HEAD.pack(s.start, s.length, len(s.old))
            out += s.old
    return LAYERS + zlib.compress(bytes(out), _LEVEL)


def unpack(blob: bytes, limit: int) -> bytes | list[Layer]:
    """What :func:`pack_whole` or :func:`pack_layers` stored: the whole bytes, or the layers.
    ``limit`` caps what it may grow to (a blob is trusted only so far).

    Raises:
        CorruptDelta: not a blob these functions wrote, or larger than ``limit``.
    """
    if blob[:1] not in (WHOLE, LAYERS):
        raise CorruptDelta("unknown kind of stored change")
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(blob[1:], limit + 1)
    except zlib.error as exc:
        raise CorruptDelta(f"stored change cannot be read: {exc}") from None
    if len(data) > limit or inflater.unconsumed_tail:
        raise CorruptDelta(f"stored change is over {limit:,} bytes")
    if blob[:1] == WHOLE:
        return data
    return _layers(data)


def _layers(data: bytes) -> list[Layer]:
    try:
        (count,), pos = _COUNT.unpack_from(data, 0), _COUNT.size
        layers: list[Layer] = []
        for _ in range(count):
            (splices,), pos = _COUNT.unpack_from(data, pos), pos + _COUNT.size
            layer: list[Splice] = []
            for _ in range(splices):
                start, length, size = _HEAD.unpack_from(data, pos)
                pos += _HEAD.size
                if pos + size > len(data):
                    raise CorruptDelta("stored change is cut short")
                layer.append(Splice(start, length, data[pos : pos + size]))
                pos += size
            layers.append(tuple(layer))
    except struct.error:
        raise CorruptDelta("stored change is cut short") from None
    if pos != len(data):
        raise CorruptDelta("stored change has bytes left over")
    return layers
