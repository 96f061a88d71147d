"""Small helpers shared by the management commands."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotations.models import Sample


@contextmanager
def output_stream(path: str | None):
    if not path or path == "-":
        yield sys.stdout
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        yield handle


def write_chunks(chunks: Iterable[str], path: str | None) -> None:
    with output_stream(path) as out:
        for chunk in chunks:
            out.write(chunk)


def samples_of_split(split: str, dataset: str = "ambistory"):
    samples = Sample.objects.in_split(dataset, split)
    if not samples.exists():
        raise CommandError(f"no samples in {dataset}/{split}: import it first")
    return samples


class SplitExportCommand(BaseCommand):
    """An export of one split's samples through a generator of text chunks."""

    @staticmethod
    def chunks(samples, include_excluded: bool):
        raise NotImplementedError

    def add_arguments(self, parser):
        parser.add_argument("--split", required=True)
        parser.add_argument("--dataset", default="ambistory")
        parser.add_argument("--output", "-o", default="-")
        parser.add_argument("--include-excluded", action="store_true")

    def handle(self, *args, **opts):
        samples = samples_of_split(opts["split"], opts["dataset"])
        write_chunks(self.chunks(samples, opts["include_excluded"]), opts["output"])
