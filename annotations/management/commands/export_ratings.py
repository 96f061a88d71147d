from django.core.management.base import BaseCommand, CommandError

from annotations.management.base import write_chunks
from annotations.rating_exports import iter_ratings_csv, iter_ratings_jsonl, ordered_for_export
from annotations.scope import ScopeError, parse_scope

GENERATORS = {"csv": iter_ratings_csv, "jsonl": iter_ratings_jsonl}


class Command(BaseCommand):
    help = (
        "Export ratings in long format (one row per rating, raters by pseudonym): the valid "
        "ones by default, as exports/ratings.csv and .jsonl do, and through the same rating "
        "scope (annotations.scope)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=sorted(GENERATORS), default="jsonl")
        parser.add_argument("--dataset", help="only this dataset")
        parser.add_argument("--split", help="only this split (name or id)")
        parser.add_argument(
            "--include-excluded",
            action="store_true",
            help="also the ratings of excluded raters (flagged rater_excluded)",
        )
        parser.add_argument(
            "--include-outdated",
            action="store_true",
            help="also ratings given on an earlier version of a text (flagged outdated)",
        )
        parser.add_argument("--output", "-o", default="-")

    def handle(self, *args, **opts):
        params = {
            "dataset": opts["dataset"] or "",
            "split": opts["split"] or "",
            "include_excluded": "1" if opts["include_excluded"] else "",
            "include_outdated": "1" if opts["include_outdated"] else "",
        }
        try:
            scope = parse_scope(params, default_kind=None)
        except ScopeError as error:
            flag = "--" + error.param.replace("_", "-")
            raise CommandError(str(error).replace(error.param, flag, 1)) from error
        ratings = ordered_for_export(scope.ratings())
        write_chunks(GENERATORS[opts["format"]](ratings), opts["output"])
