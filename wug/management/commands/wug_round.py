from django.core.management.base import BaseCommand, CommandError

from wug.crowd import CrowdError, crowd_round_add
from wug.crowd_reads import round_progress
from wug.models import CrowdStudy


class Command(BaseCommand):
    help = (
        "Add the next round of use pairs to a use-pair crowd study, sampled from the current "
        "clustering (refused while the last round has open judgments, or once every word is "
        "connected enough)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the study's short name")

    def handle(self, *args, **opts):
        crowd = CrowdStudy.objects.filter(study__slug=opts["slug"]).first()
        if crowd is None:
            raise CommandError(f"no use-pair study {opts['slug']!r} (wug_study starts one)")
        try:
            pair_round = crowd_round_add(crowd_study=crowd)
        except CrowdError as exc:
            raise CommandError(str(exc)) from exc
        progress = round_progress(crowd)[-1]
        self.stdout.write(
            f"{opts['slug']}: round {pair_round.number} with {progress.pairs} pairs, "
            f"{progress.open} judgments to make"
        )
