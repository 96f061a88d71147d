"""Relatedness and sense-choice studies for tests: a few RAW-C pairs and FOOL-style items."""

from __future__ import annotations

from pathlib import Path

from annotations.models import Sample
from annotations.rawc import RawcData, load_rawc, rawc_import
from annotations.sensechoice import load_sense_choice, sense_choice_import
from studies import services
from studies.models import Study

DATA = Path(__file__).resolve().parents[2] / "data"


def rawc_samples(n_pairs: int = 12, per_word: int = 2) -> list[Sample]:
    """The first ``n_pairs`` of RAW-C's pairs taking ``per_word`` pairs of each word (a
    relatedness study's batch holds one pair per word: a few words are needed)."""
    data = load_rawc(DATA / "rawc")
    taken: dict[str, int] = {}
    pairs = []
    for pair in data.pairs:
        if len(pairs) < n_pairs and taken.get(pair.word, 0) < per_word:
            taken[pair.word] = taken.get(pair.word, 0) + 1
            pairs.append(pair)
    rawc_import(data=RawcData(pairs=pairs, judgments=[]))
    return list(Sample.objects.filter(split__dataset__name="raw-c").order_by("position"))


def fool_samples(item_set: str = "1") -> list[Sample]:
    sense_choice_import(data=load_sense_choice(DATA / "fool" / "fool-sample.json"))
    return list(
        Sample.objects.filter(split__dataset__name="fool-sample", item_set=item_set).order_by(
            "position"
        )
    )


def open_kind_study(kind: str, samples: list[Sample], *, per_participant: int = 4) -> Study:
    study = services.study_create(
        title=f"{kind} demo",
        slug="demo",
        task_kind=kind,
        samples=samples,
        ratings_per_sample=2,
        samples_per_participant=per_participant,
        completion_code="DONE1234",
        screenout_code="OUT98765",
    )
    return services.study_open(study=study)
