from django.core.management.base import BaseCommand

from annotations.exporters import iter_ambistory_json

from ._io import samples_of_split, write_chunks


class Command(BaseCommand):
    help = "Export a split in AmbiStory JSON (the import format)."

    def add_arguments(self, parser):
        parser.add_argument("--split", required=True)
        parser.add_argument("--dataset", default="ambistory")
        parser.add_argument("--output", "-o", default="-")
        parser.add_argument("--include-excluded", action="store_true")

    def handle(self, *args, **opts):
        samples = samples_of_split(opts["split"], opts["dataset"])
        chunks = iter_ambistory_json(samples, include_excluded=opts["include_excluded"])
        write_chunks(chunks, opts["output"])
