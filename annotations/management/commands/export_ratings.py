from django.core.management.base import BaseCommand

from annotations.management.base import write_chunks
from annotations.models import Rating, RatingQuerySet
from annotations.rating_exports import iter_ratings_csv, iter_ratings_jsonl, ratings_for_export

GENERATORS = {"csv": iter_ratings_csv, "jsonl": iter_ratings_jsonl}


class Command(BaseCommand):
    help = "Export ratings in long format (one row per rating, raters by pseudonym)."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=sorted(GENERATORS), default="jsonl")
        parser.add_argument("--dataset", help="only this dataset")
        parser.add_argument("--split", help="only this split")
        parser.add_argument("--include-excluded", action="store_true")
        parser.add_argument("--output", "-o", default="-")

    def handle(self, *args, **opts):
        ratings: RatingQuerySet = Rating.objects.all()
        if opts["dataset"]:
            ratings = ratings.filter(sample__split__dataset__name=opts["dataset"])
        if opts["split"]:
            ratings = ratings.filter(sample__split__name=opts["split"])
        ratings = ratings_for_export(ratings, include_excluded=opts["include_excluded"])
        write_chunks(GENERATORS[opts["format"]](ratings), opts["output"])
