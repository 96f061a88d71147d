from django.core.management.base import BaseCommand, CommandError

from wug.crowd import CrowdError, crowd_study_create
from wug.crowd_reads import round_progress
from wug.models import Word


class Command(BaseCommand):
    help = (
        "Start a use-pair (DURel) crowd study of one or more imported usage-usage words: a "
        "draft study with its gold pairs and round 1 of random pairs (open it on its page)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the study's short name (/s/<slug>/)")
        parser.add_argument("words", nargs="+")
        parser.add_argument("--title", default="")
        parser.add_argument("--pairs-per-round", type=int, default=30)
        parser.add_argument("--judgments-per-pair", type=int, default=3)
        parser.add_argument("--pairs-per-participant", type=int, default=20)
        parser.add_argument("--gold-pairs", type=int, default=6)
        parser.add_argument("--gold-per-participant", type=int, default=2)
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, **opts):
        names = opts["words"]
        words = list(Word.objects.filter(name__in=names))
        missing = sorted(set(names) - {w.name for w in words})
        if missing:
            raise CommandError(f"no such word: {', '.join(missing)} (import_wug first)")
        try:
            crowd = crowd_study_create(
                words=words,
                title=opts["title"] or f"Use pairs of {', '.join(sorted(names))}",
                slug=opts["slug"],
                pairs_per_round=opts["pairs_per_round"],
                judgments_per_pair=opts["judgments_per_pair"],
                pairs_per_participant=opts["pairs_per_participant"],
                gold_pairs_total=opts["gold_pairs"],
                gold_per_participant=opts["gold_per_participant"],
                seed=opts["seed"],
            )
        except (CrowdError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        first = round_progress(crowd)[0]
        self.stdout.write(
            f"{crowd.study.slug}: draft study {crowd.study.pk}, round 1 with {first.pairs} "
            f"pairs, {crowd.study.check_questions.count()} gold pairs"
        )
