"""Compressed input (``.gz``, ``.zip``), read in chunks under size limits (docs/ingest.md).

A small archive can inflate to many gigabytes (a "zip bomb"). Every archive is
decompressed chunk by chunk and refused, naming the file and the limit, as soon
as its output passes either limit, so nothing is ever inflated whole first:

* ``ARPAD_MAX_DECOMPRESSED`` (default 2 GiB): bytes of decompressed data per
  input file (all members of a zip together). Plain suffixes ``K``, ``M``,
  ``G`` (powers of 1024) are understood.
* ``ARPAD_MAX_RATIO`` (default 200): decompressed ÷ compressed size, checked once
  the output passes ``RATIO_FLOOR`` (1 MiB); small files may compress better.

Zip members that are encrypted or use a compression method Python cannot read
(deflate64 is method 9), and corrupted data (bad deflate stream, CRC mismatch),
are refused with the member's name.
"""

from __future__ import annotations

import gzip
import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from arpad.pipeline.errors import InputError

DEFAULT_MAX_DECOMPRESSED = 2 * 1024**3
DEFAULT_MAX_RATIO = 200.0
RATIO_FLOOR = 1024**2  # the ratio limit applies to outputs bigger than this
CHUNK = 1024**2
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
READABLE_ZIP_METHODS = {
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "deflate",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "lzma",
}


@dataclass(frozen=True)
class Limits:
    max_bytes: int
    max_ratio: float

    @classmethod
    def from_environment(cls) -> Limits:
        return cls(
            _size(os.environ.get("ARPAD_MAX_DECOMPRESSED"), DEFAULT_MAX_DECOMPRESSED),
            _ratio(os.environ.get("ARPAD_MAX_RATIO"), DEFAULT_MAX_RATIO),
        )


# What zipfile and zlib raise on a damaged archive or member (NotImplementedError:
# "zip file version 6.4", a newer format than Python's unzip reads).
ZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    OSError,
    EOFError,
    ValueError,
    RuntimeError,
    NotImplementedError,
)


def _size(text: str | None, default: int) -> int:
    if not text or not text.strip():
        return default
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = t[-1] if t and t[-1] in _UNITS else ""
    number = t[: len(t) - len(unit)]
    try:
        value = int(float(number) * _UNITS[unit])
    except ValueError:
        value = 0
    if value <= 0:
        raise ValueError(f"ARPAD_MAX_DECOMPRESSED={text!r} is not a size such as 2G or 500M")
    return value


def _ratio(text: str | None, default: float) -> float:
    if not text or not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 1.0:
        raise ValueError(f"ARPAD_MAX_RATIO={text!r} is not a number greater than 1")
    return value


def human(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"  # pragma: no cover


class _Meter:
    """Counts decompressed bytes of one input file and refuses it past the limits."""

    def __init__(self, path: Path, limits: Limits):
        self.path = path
        self.limits = limits
        self.out = 0

    def add(self, n: int, compressed: int, what: str) -> None:
        self.out += n
        if self.out > self.limits.max_bytes:
            raise InputError(
                self.path,
                None,
                f"{what} decompresses to more than {human(self.limits.max_bytes)} "
                "(limit ARPAD_MAX_DECOMPRESSED): refused as a possible decompression bomb",
            )
        if self.out > RATIO_FLOOR and self.out > self.limits.max_ratio * max(compressed, 1):
            raise InputError(
                self.path,
                None,
                f"{what} decompresses more than {self.limits.max_ratio:g}:1 "
                f"({human(compressed)} to over {human(self.out)}; limit ARPAD_MAX_RATIO): "
                "refused as a possible decompression bomb",
            )


def read_gzip(path: Path, limits: Limits | None = None) -> bytes:
    """The decompressed bytes of a gzip file (all its members), within the limits."""
    limits = limits or Limits.from_environment()
    meter = _Meter(path, limits)
    compressed = path.stat().st_size
    parts = []
    try:
        with gzip.open(path, "rb") as fh:
            while chunk := fh.read(CHUNK):
                meter.add(len(chunk), compressed, "the gzip stream")
                parts.append(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(path, None, f"not a readable gzip file: {exc}") from None
    return b"".join(parts)


def zip_members(
    path: Path, wanted: tuple[str, ...], notes: list[str], limits: Limits | None = None
) -> list[tuple[str, bytes]]:
    """(name, bytes) of the zip's members whose name ends with one of ``wanted``, in name
    order, each read separately within the limits. Other members are skipped with a note."""
    limits = limits or Limits.from_environment()
    meter = _Meter(path, limits)
    size = path.stat().st_size
    out: list[tuple[str, bytes]] = []
    skipped: list[str] = []
    try:
        with zipfile.ZipFile(path) as zf:
            # A member with an empty name (a damaged directory entry) is neither a file
            # nor a folder: skipped with the others (zipfile's is_dir would fail on it).
            infos = sorted(
                (i for i in zf.infolist() if i.filename and not i.filename.endswith("/")),
                key=lambda i: i.filename,
            )
            compressed = 0
            for info in infos:
                name = info.filename
                base = name.rsplit("/", 1)[-1]
                if name.startswith("__MACOSX/") or base.startswith("._"):
                    skipped.append(name)  # macOS metadata
                    continue
                if not name.lower().endswith(wanted):
                    skipped.append(name)
                    continue
                if info.flag_bits & 0x1:
                    raise InputError(
                        path, None, f"zip member {name} is encrypted: arpad reads no passwords"
                    )
                if info.compress_type not in READABLE_ZIP_METHODS:
                    raise InputError(
                        path,
                        None,
                        f"zip member {name} uses compression method {info.compress_type} "
                        "(9 is deflate64), which arpad cannot read; re-compress it with deflate",
                    )
                compressed += min(info.compress_size, size)
                parts = []
                try:
                    with zf.open(info) as fh:
                        while chunk := fh.read(CHUNK):
                            meter.add(len(chunk), compressed, f"zip member {name}")
                            parts.append(chunk)
                except ZIP_ERRORS as exc:
                    raise InputError(path, None, f"zip member {name} is corrupted: {exc}") from None
                out.append((name, b"".join(parts)))
    except ZIP_ERRORS as exc:
        raise InputError(path, None, f"not a readable zip file: {exc}") from None
    if skipped:
        shown = ", ".join(skipped[:5]) + (
            f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
        )
        notes.append(f"{len(skipped)} zip member(s) skipped, not {'/'.join(wanted)} files: {shown}")
    return out
