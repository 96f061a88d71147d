from annotations.exporters import iter_reference_jsonl
from annotations.management.base import SplitExportCommand


class Command(SplitExportCommand):
    help = 'Export a split as the official reference jsonl ({"id": ..., "label": [...]}).'

    @staticmethod
    def chunks(samples, include_excluded: bool):
        return iter_reference_jsonl(samples, include_excluded=include_excluded)
