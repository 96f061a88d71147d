"""Issue 31's acceptance test for the list design: the AmbiStory dev ratings replayed through
a list-design study (lists of at most 30 samples, 5 simulated participants per list, as the
paper's groups), and the agreement page's upper bound, average annotator and leave-one-out,
overall and per list, against an independent numpy/scipy computation
(``tests/annotations/group_oracle.py``)."""

from __future__ import annotations

import re

import pytest
from django.db.models import Count

from studies import services
from studies.models import ListSlot, Participant, Slot, StudyListItem
from studies.selectors import batch_items
from tests.annotations.group_oracle import group_oracle
from tests.studies.helpers import pid

pytestmark = pytest.mark.django_db

PER_LIST = 5
LIST_SIZE = 30


def replay(study, dev_json) -> list[tuple]:
    """Arrivals until the study is full; participant k of a list (its rotation) gives each
    sample the k-th of the sample's published ratings. Returns the oracle's rows."""
    rows = []
    n = 0
    while True:
        try:
            participant = services.participant_arrive(study=study, pid=pid(n))
        except services.StudyFull:
            break
        n += 1
        answers = {q.pk: q.expected for q in study.check_questions.all()}
        assert services.participant_qualify(participant=participant, answers=answers)
        place = ListSlot.objects.get(participant=participant)
        ids = dict(
            Slot.objects.filter(participant=participant).values_list(
                "position", "sample__dataset_id"
            )
        )
        for item in batch_items(participant):
            score = dev_json[ids[item.position]]["choices"][place.rotation]
            services.item_save(
                participant=participant, position=item.position, answer=services.Answer(score=score)
            )
            rows.append((place.list_id, participant.pk, ids[item.position], score))
    return rows


def test_dev_replayed_through_lists_gives_the_papers_group_figures(
    researcher_client, dev_split, dev_json
):
    study = services.study_create(
        title="Dev by lists",
        slug="dev-lists",
        samples=list(dev_split.samples.all()),
        assignment="lists",
        ratings_per_sample=PER_LIST,
        samples_per_participant=LIST_SIZE,
        attention_checks_per_batch=0,
    )
    study = services.study_open(study=study)
    sizes = sorted(
        StudyListItem.objects.filter(list__study=study)
        .values("list_id")
        .annotate(n=Count("id"))
        .values_list("n", flat=True)
    )
    assert len(sizes) == 20 and set(sizes) == {29, 30}  # 588 samples, at most 30 a list
    rows = replay(study, dev_json)
    assert Participant.objects.filter(study=study, status="finished").count() == 20 * PER_LIST
    assert len(rows) == 588 * PER_LIST

    want = group_oracle(rows)
    got = {
        m["key"]: m["value"]
        for m in researcher_client.get(
            "/dashboards/agreement.json", {"study": study.pk, "boot": 20}
        ).json()["metrics"]
    }
    for key in ("best_accuracy", "best_spearman", "average_accuracy", "average_spearman"):
        assert got[key] == pytest.approx(want[key], abs=1e-9), key
    assert got["loo_spearman"] == pytest.approx(want["loo_spearman"], abs=1e-9)
    assert want["best_spearman"] > want["average_spearman"]  # the best is the upper bound

    html = researcher_client.get("/dashboards/", {"study": study.pk}).content.decode()
    assert "Groups: 20 lists of a list-design study" in html
    assert "Human upper bound: Spearman (best annotator per group)" in html
    assert "Average annotator: Spearman against the others" in html
    assert "Human upper bound: accuracy (average" not in html
    assert f"{want['best_spearman']:.3f}" in html and f"{want['average_accuracy']:.3f}" in html
    table = html[html.index('id="group-figures"') :]
    for list_id, group in want["groups"].items():
        number = StudyListItem.objects.filter(list_id=list_id).first().list.number
        row = re.search(rf"<td>dev-lists list {number}</td>(.*?)</tr>", table, re.S)
        assert row, number
        cells = re.findall(r'<td class="num">([^<]*)</td>', row.group(1))
        expected = [
            str(group["annotators"]),
            str(group["samples"]),
            *(
                f"{group[k]:.3f}"
                for k in ("best_accuracy", "best_spearman", "average_accuracy", "average_spearman")
            ),
        ]
        assert cells == expected, number
