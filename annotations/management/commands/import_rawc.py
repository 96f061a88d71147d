from django.core.management.base import BaseCommand

from ambisite.commands import import_errors
from annotations.metrics_relatedness import RAWC_REPORTED_AGREEMENT
from annotations.models import Split
from annotations.rawc import RawcFormatError, load_rawc, rawc_import, relatedness_agreement


class Command(BaseCommand):
    help = (
        "Import RAW-C (raw-c.csv, normed_critical.csv, raw-c_with_dominance.csv) from a "
        "folder, all or nothing; re-importing changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", help="e.g. data/rawc")
        parser.add_argument("--dataset", default="raw-c")

    def handle(self, *args, **opts):
        with import_errors(opts["folder"], RawcFormatError, name_path=False):
            data = load_rawc(opts["folder"])
            report = rawc_import(data=data, dataset=opts["dataset"])
        self.stdout.write(
            f"{report.pairs} pairs, {report.words} words, {report.judgments} judgments by "
            f"{report.participants} participants ({report.pairs_created} pairs and "
            f"{report.judgments_created} judgments new)"
        )
        split = Split.objects.get(dataset__name=opts["dataset"], name="all")
        loao = relatedness_agreement(split)
        if loao is not None:
            self.stdout.write(
                f"leave-one-annotator-out agreement: mean rho {loao.mean:.3f}, median "
                f"{loao.median:.3f} (SD {loao.sd:.3f}, {loao.n_annotators} annotators); "
                f"the paper reports {RAWC_REPORTED_AGREEMENT}"
            )
