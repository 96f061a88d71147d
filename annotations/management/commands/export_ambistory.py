from annotations.exporters import iter_ambistory_json
from annotations.management.base import SplitExportCommand


class Command(SplitExportCommand):
    help = "Export a split in AmbiStory JSON (the import format)."

    @staticmethod
    def chunks(samples, include_excluded: bool):
        return iter_ambistory_json(samples, include_excluded=include_excluded)
