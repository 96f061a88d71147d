"""A CodaBench-ready submission for a run: a zip with ``predictions.jsonl`` at its root.

The archive is built in a :class:`~tempfile.SpooledTemporaryFile` (in memory up to a few
MB, on disk beyond), then read back in blocks, so memory stays flat for any run size.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from tempfile import SpooledTemporaryFile
from typing import IO

from predictions.io.exporters import iter_predictions_jsonl
from predictions.models import ModelRun

ARCHIVE_MEMBER = "predictions.jsonl"
BLOCK = 64 * 1024
SPOOL_MAX = 8 * 1024 * 1024


def iter_run_predictions(run: ModelRun) -> Iterator[str]:
    """The run's predictions jsonl; an imported run comes back exactly as it was uploaded."""
    return iter_predictions_jsonl(run)


def write_codabench_zip(run: ModelRun, target: IO[bytes]) -> None:
    """Write the submission archive for ``run`` to a binary file object."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open(ARCHIVE_MEMBER, "w") as member:
            for chunk in iter_run_predictions(run):
                member.write(chunk.encode("utf-8"))


def iter_codabench_zip(run: ModelRun) -> Iterator[bytes]:
    """The submission archive as blocks of bytes, for a streaming response."""
    with SpooledTemporaryFile(max_size=SPOOL_MAX) as spool:
        write_codabench_zip(run, spool)
        spool.seek(0)
        while block := spool.read(BLOCK):
            yield block
