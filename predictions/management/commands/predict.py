import json
import logging
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from ambisite.progress import command_progress
from annotations.importers import AmbiStoryFormatError, load_ambistory
from annotations.models import Split
from predictions.errors import FitOnScoredSamples
from predictions.io.files import predict_samples
from predictions.runs.artifacts import backend_for
from predictions.runs.claims import short_error
from predictions.runs.rows import split_names, split_rows

log = logging.getLogger(__name__)


def read_samples(path: str, *, allow_redacted: bool) -> list[dict]:
    try:
        parsed = load_ambistory(path, allow_redacted=allow_redacted)
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc}") from exc
    except AmbiStoryFormatError as exc:
        raise CommandError(f"{path}: {exc}") from exc
    out = []
    for p in parsed:
        sample = {**p.as_text(), "id": p.dataset_id}
        if p.labelled:
            sample["choices"] = list(p.choices)
            sample["average"] = sum(p.choices) / len(p.choices)
        out.append(sample)
    return out


def split_samples(split: str) -> list[dict]:
    """The labelled samples of one split: from the database, or else data/ambistory/."""
    try:
        db_split = Split.objects.filter(dataset__name="ambistory", name=split).first()
    except DatabaseError:  # no database set up (e.g. a fresh checkout): the files will do
        db_split = None
    if db_split is not None:
        return [row.sample for row in split_rows(db_split, labels=True)]
    path = Path(settings.BASE_DIR) / "data" / "ambistory" / f"{split}.json"
    if not path.is_file():
        raise CommandError(f"no split {split!r} in the database nor at {path}")
    return read_samples(str(path), allow_redacted=False)


def fit_samples(split: str | None, fit_file: str | None) -> list[dict] | None:
    """Labelled samples to fit on: a file, or the splits (``"train"``, ``"train,dev"``) in
    the database or data/ambistory/, in the order named."""
    if fit_file:
        return read_samples(fit_file, allow_redacted=False)
    names = split_names(split)
    if not names:
        return None
    return [sample for name in names for sample in split_samples(name)]


def show_progress(verbosity: int) -> None:
    """Let the backends' own progress lines (fine-tuning epochs, fits) through to stderr."""
    if verbosity >= 1:
        logging.getLogger("predictions").setLevel(logging.INFO)


class Command(BaseCommand):
    help = (
        "Write official-format predictions ({'id', 'prediction'} per line) for any "
        "AmbiStory-format file, labelled or redacted, with a registered backend."
    )

    def add_arguments(self, parser):
        parser.add_argument("--backend", required=True)
        parser.add_argument("--input", required=True, help="an AmbiStory-format JSON file")
        parser.add_argument("--output", required=True, help="predictions jsonl to write")
        parser.add_argument("--params", default="{}", help="backend parameters as JSON")
        parser.add_argument(
            "--fit-split",
            help="split(s) to fit on, e.g. train or train,dev (DB or data/)",
        )
        parser.add_argument("--fit-file", help="an AmbiStory file to fit on instead")

    def handle(self, *args, **opts):
        try:
            params = json.loads(opts["params"])
            backend = backend_for(opts["backend"], params)
        except ValueError as exc:  # bad JSON, PredictionsError, a value a backend refuses
            raise CommandError(str(exc)) from exc
        show_progress(opts["verbosity"])
        started = time.perf_counter()
        samples = read_samples(opts["input"], allow_redacted=True)
        fit = fit_samples(opts["fit_split"], opts["fit_file"])
        progress = command_progress(self, opts["verbosity"], len(samples), label="predict")
        if fit and opts["verbosity"] > 0:
            source = opts["fit_file"] or "+".join(split_names(opts["fit_split"]))
            note = f"predict: fitting {opts['backend']} on {len(fit)} samples of {source}"
            self.stderr.write(note, style_func=str)
        try:
            outputs = predict_samples(backend, samples, fit, on_batch=progress)
        except (FitOnScoredSamples, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        except RuntimeError as exc:  # a backend that failed for good (e.g. an LLM server's 401)
            log.exception("predict with %s failed", opts["backend"])
            raise CommandError(short_error(exc)) from exc
        Path(opts["output"]).parent.mkdir(parents=True, exist_ok=True)
        with open(opts["output"], "w", encoding="utf-8") as handle:
            for sample, out in zip(samples, outputs):
                handle.write(json.dumps({"id": sample["id"], "prediction": out.score}) + "\n")
        self.stdout.write(
            f"{len(outputs)} predictions written to {opts['output']} "
            f"in {time.perf_counter() - started:.0f} s"
        )
