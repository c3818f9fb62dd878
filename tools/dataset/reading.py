"""Reading an import's sources within limits: the length of a line, the bytes of the whole import.

A 200 KB gzip file can hold one 200 MB line, or gigabytes of short ones: read naively, one line
is held whole in memory (and decoded, and matched) before anything can say it is absurd. Here
every line is read with a bound (``readline(limit + 1)``), so a line longer than
:attr:`ReadLimits.line_bytes` is refused after reading that many bytes, with its ``file:line``;
the decompressed bytes of all sources together are counted as they are read and the import
stops at :attr:`ReadLimits.total_bytes`; a JSON document read whole (an array, a
pretty-printed export) is read at most :attr:`ReadLimits.document_bytes`. Each refusal is a
:class:`~diagnosis_harness.tools.dataset.format.DatasetError` naming the file, the line and the
setting that would allow it (docs/data.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from diagnosis_harness.tools.dataset.format import DatasetError
from diagnosis_harness.tools.dataset.sniff import GIB, MIB, bounded_lines


@dataclass(frozen=True)
class ReadLimits:
    """The bounds of one import (``HARNESS_IMPORT_MAX_*`` settings)."""

    line_bytes: int = MIB
    """Longest line of a source, in bytes, its line break (LF or CRLF) not counted."""
    total_bytes: int = 4 * GIB
    """Decompressed bytes of all sources of one import together."""
    document_bytes: int = 64 * MIB
    """Largest JSON document read whole (a file that is one array or object, not JSON lines)."""


class ByteMeter:
    """Counts the decompressed bytes an import reads, against its :class:`ReadLimits`.

    A source may be read twice (its day/month order settled late): :meth:`start` begins a pass
    over a source, and only the last pass over each source counts.
    """

    def __init__(self, limits: ReadLimits) -> None:
        self.limits = limits
        self.done = 0
        """Bytes of the sources finished so far."""
        self.current = 0
        """Bytes of the source being read, this pass."""

    def start(self) -> None:
        """A new pass over the current source: what an earlier pass read no longer counts."""
        self.current = 0

    def finish(self) -> None:
        """The current source is done: its bytes count for the rest of the import."""
        self.done += self.current
        self.current = 0

    def add(self, size: int, path: Path, where: int | str) -> None:
        """Count ``size`` more bytes of ``path``; DatasetError past the total."""
        self.current += size
        if self.done + self.current > self.limits.total_bytes:
            raise DatasetError(path, [
                f"{path}:{where}: the import has read more than {_size(self.limits.total_bytes)} "
                "(decompressed) from its sources; import fewer files at once, or raise "
                "HARNESS_IMPORT_MAX_BYTES"])

    def lines(self, handle: IO[bytes], path: Path) -> Iterator[tuple[int, bytes]]:
        """The numbered lines of one source; DatasetError for a line over the limit."""
        limit = self.limits.line_bytes
        for lineno, (raw, cut) in enumerate(bounded_lines(handle, limit), start=1):
            if cut:
                raise DatasetError(path, [
                    f"{path}:{lineno}: a line longer than {_size(limit)}: not a log, table or "
                    "runbook line the import reads (a binary or minified file?); leave the file "
                    "out, or raise HARNESS_IMPORT_MAX_LINE_BYTES"])
            self.add(len(raw), path, lineno)
            yield lineno, raw

    def document(self, handle: IO[bytes], path: Path) -> bytes:
        """A JSON document read whole; DatasetError past its limit or the import's total."""
        limit = self.limits.document_bytes
        data = handle.read(limit + 1)
        if len(data) > limit:
            raise DatasetError(path, [
                f"{path}:1: a JSON document larger than {_size(limit)}, read whole; export it "
                "as JSON lines (one record a line), or raise HARNESS_IMPORT_MAX_DOCUMENT_BYTES"])
        self.add(len(data), path, 1)
        return data

    def copy(self, src: IO[bytes], dst: IO[bytes], path: Path) -> None:
        """Copy a table or runbook line by line, within the limits."""
        for _, raw in self.lines(src, path):
            dst.write(raw)


def _size(n: int) -> str:
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", 1024)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"
