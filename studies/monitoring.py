"""What the study page shows while a study runs, and what adaptive settings imply.

Places (slots) in plain words, the one samples table (searchable, optionally only the
samples short of ratings), the JSON the page polls (:func:`study_live`) and the adaptive
outlook (:func:`studies.adaptive.outlook` with the study's samples and budget). Reads only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import QuerySet
from django.template.defaultfilters import floatformat
from django.utils import timezone

from annotations.models import Sample, SampleQuerySet

from . import adaptive, researcher_reads
from .forms import OutlookForm
from .models import Participant, Slot, Study

# A slot is one place for one rating; researchers read these words, never the status codes.
PLACE_WORDS = {
    Slot.Status.FREE: "waiting for a participant",
    Slot.Status.RESERVED: "held by a participant who is rating now",
    Slot.Status.DONE: "rated",
    Slot.Status.VOID: "withdrawn because the rater was excluded (replaced by a new place)",
    Slot.Status.OUTDATED: "withdrawn because the text was edited after the rating (replaced)",
}

LIVE_SAMPLES_MAX = 200  # more than a page of the table (50 rows)


def place_counts(study: Study) -> list[dict[str, Any]]:
    counts = researcher_reads.slot_counts(study)
    return [
        {"status": str(status), "words": words, "n": counts.get(status, 0)}
        for status, words in PLACE_WORDS.items()
    ]


def participant_chips(study: Study) -> list[dict[str, Any]]:
    by_label = researcher_reads.participant_counts(study)
    return [
        {"status": value, "label": label, "n": by_label.get(label, 0)}
        for value, label in Participant.Status.choices
    ]


def sample_rows(study: Study, *, text: str = "", short: bool = False) -> SampleQuerySet:
    """The study's samples with their statistics (``researcher_reads.study_samples_with_stats``),
    those matching ``text`` (``SampleQuerySet.search``), with ``short`` only those with
    fewer of the study's valid ratings than ``ratings_per_sample``."""
    rows = researcher_reads.study_samples_with_stats(study).search(text)
    return rows.filter(n_ratings__lt=study.ratings_per_sample) if short else rows


def short_count(study: Study) -> int:
    return sample_rows(study, short=True).count()


def _two(value: float | None) -> str:
    return "" if value is None else str(floatformat(value, 2))


def sample_stats(rows: Iterable[Sample]) -> list[dict[str, Any]]:
    """The numbers of the samples table's rows, formatted as the page shows them."""
    return [
        {
            "id": s.pk,
            "n": s.n_ratings,  # type: ignore[attr-defined]  # annotated
            "mean": _two(s.mean),  # type: ignore[attr-defined]
            "sd": _two(s.sd),  # type: ignore[attr-defined]
            "all": s.n_all,  # type: ignore[attr-defined]
            "outdated": s.n_outdated,  # type: ignore[attr-defined]
        }
        for s in rows
    ]


def study_live(study: Study, sample_ids: list[int]) -> dict[str, Any]:
    """What the study page updates while it is open: status, counts, places and the numbers
    of the sample rows it shows (``sample_ids``, at most ``LIVE_SAMPLES_MAX``)."""
    rows = researcher_reads.study_samples_with_stats(study).filter(
        pk__in=sample_ids[:LIVE_SAMPLES_MAX]
    )
    return {
        "status": study.status,
        "status_label": study.get_status_display(),
        "n_study_ratings": researcher_reads.study_ratings(study).count(),
        "n_short": short_count(study),
        "participants": participant_chips(study),
        "places": place_counts(study),
        "samples": sample_stats(rows),
        "updated_at": timezone.now().isoformat(timespec="seconds"),
    }


def known_sds(samples: QuerySet[Sample]) -> list[float]:
    """The SDs of the samples' valid ratings (any rater), where there are at least two."""
    rows = samples.order_by().with_stats().values_list("sd", flat=True)  # type: ignore[attr-defined]
    return [sd for sd in rows if sd is not None]


def settings_outlook(
    *,
    minimum: int,
    maximum: int,
    target_width: float,
    rating_budget: int | None,
    samples: QuerySet[Sample] | None,
) -> adaptive.Outlook:
    """The outlook of adaptive settings over ``samples`` (None: not chosen yet). The budget
    is the model's rule (``Study.budget``), the numbers the growth rule's."""
    n_samples = 0 if samples is None else samples.count()
    rule = Study(max_ratings_per_sample=maximum, rating_budget=rating_budget)
    return adaptive.outlook(
        minimum=minimum,
        maximum=maximum,
        target_width=target_width,
        n_samples=n_samples,
        budget=rule.budget(n_samples),
        sds=[] if samples is None else known_sds(samples),
    )


def study_outlook(study: Study) -> adaptive.Outlook | None:
    """What the study's adaptive settings imply (None without adaptive allocation)."""
    if not study.adaptive:
        return None
    return settings_outlook(
        minimum=study.ratings_per_sample,
        maximum=study.max_ratings_per_sample,
        target_width=study.target_width,
        rating_budget=study.rating_budget,
        samples=Sample.objects.filter(studies=study),
    )


def outlook_from(params: Mapping[str, Any]) -> tuple[adaptive.Outlook | None, str]:
    """The outlook of the adaptive settings in ``params`` (the study form's field names,
    plus ``split`` or ``study`` for the samples), or None and what is wrong with them."""
    form = OutlookForm(params)
    if not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        return None, f"{field}: {' '.join(str(e) for e in errors)}"
    data = form.cleaned_data
    found = settings_outlook(
        minimum=data["ratings_per_sample"],
        maximum=data["max_ratings_per_sample"],
        target_width=data["target_width"],
        rating_budget=data["rating_budget"],
        samples=form.samples(),
    )
    return found, ""


def form_outlook(form: Any, study: Study | None) -> adaptive.Outlook | None:
    """The outlook of what the study form shows now (sent or initial values); None while
    they are not numbers yet."""
    params = {name: form[name].value() for name in OutlookForm.base_fields if name in form.fields}
    params = {k: "" if v is None else v for k, v in params.items()}
    if study is not None:
        params["study"] = study.pk
    return outlook_from(params)[0]
