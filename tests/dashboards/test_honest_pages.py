"""What the dashboards say about their own numbers: which ratings they count, "—" with a
reason for an undefined figure (never "nan"), flags computed on the figure shown, text
alternatives for every chart and inside/outside marks that are not colour alone."""

from __future__ import annotations

import re

import pytest

from annotations.models import Rater
from annotations.services import rater_exclude
from studies.models import Participant, Study, StudySample
from tests.dashboards.helpers import import_run, import_setups, study_ratings
from tests.pagehtml import parse

pytestmark = pytest.mark.django_db

PAGES = ["/dashboards/", "/dashboards/items/", "/dashboards/endings/", "/dashboards/annotators/"]


def a_study(split, scores_by_rater: dict[str, list[int]]) -> tuple[Study, list[Rater]]:
    """A study over the split's samples whose participants gave these ratings."""
    raters = study_ratings(split, scores_by_rater)
    study = Study.objects.create(slug="s", title="Pilot", completion_code="c", screenout_code="x")
    for k, rater in enumerate(raters):
        Participant.objects.create(study=study, rater=rater, prolific_pid=f"P{k}")
    for sample in split.samples.all():
        StudySample.objects.create(study=study, sample=sample)
    return study, raters


def scope_text(html: str) -> str:
    found = re.search(r'<p class="muted" id="scope">(.*?)</p>', html, re.S).group(1)
    return " ".join(re.sub(r"<[^>]+>", "", found).split())


def test_with_a_study_filter_it_says_only_the_studys_ratings_count_and_who_is_left_out(
    researcher_client,
):
    split = import_setups(1, split="studied")
    study, (s1, s2, s3) = a_study(
        split, {"S1": [1, 1, 5, 5, 3, 2], "S2": [1, 2, 5, 4, 3, 2], "S3": [5, 5, 1, 1, 3, 4]}
    )
    rater_exclude(rater=s3, source="manual", reason="speeder")
    html = researcher_client.get("/dashboards/", {"study": study.id}).content.decode()
    said = scope_text(html)
    assert "study Pilot’s own participants only" in said
    assert "imported ratings and other studies’ ratings of the same samples are not counted" in said
    assert "Valid ratings only: left out are the ratings of 1 excluded rater (S3)." in said
    assert "excluded raters included" not in html
    kept = researcher_client.get("/dashboards/", {"study": study.id, "include_excluded": "on"})
    said = scope_text(kept.content.decode())
    assert "Excluded raters are counted too (the toggle is on): 1 excluded rater (S3)." in said
    assert "Valid ratings only" not in said
    assert "12 ratings" in html and "18 ratings" in kept.content.decode()  # what is said


def test_without_a_study_it_counts_every_source_and_names_no_one_when_nobody_is_excluded(
    researcher_client,
):
    import_setups(1)
    said = scope_text(researcher_client.get("/dashboards/").content.decode())
    assert said.startswith("All ratings of the matching samples: imported ones and those of")
    assert said.endswith("No rater of these ratings is excluded.")


def test_it_never_prints_nan_and_says_why_a_figure_is_undefined(researcher_client):
    split = import_setups(1, split="flat")
    study, _ = a_study(split, {"F1": [3] * 6, "F2": [3] * 6})  # nothing varies
    for path in PAGES:
        html = researcher_client.get(path, {"study": study.id}).content.decode()
        assert not re.search(r"\bnan\b", html, re.I), path
    html = researcher_client.get("/dashboards/", {"study": study.id}).content.decode()
    loo = re.search(r'id="loo-summary">(.*?)</p>', html, re.S).group(1)
    assert "median —, min —, max —" in loo and "undefined:" in loo


def test_the_low_correlation_flag_uses_the_correlation_shown_and_states_the_rule(
    researcher_client,
):
    split = import_setups(1, split="hand")
    agree, dissent = [1, 1, 5, 5, 3, 2], [5, 5, 1, 1, 3, 4]
    study_ratings(split, {"A": agree, "B": agree, "D": dissent, "flat": [3] * 6})
    for rater in Rater.objects.filter(kind=Rater.Kind.IMPORTED):  # the participants only
        rater_exclude(rater=rater, source="manual", reason="not part of this case")
    response = researcher_client.get("/dashboards/annotators/")
    rows = {r.pseudonym: r for r in response.context["page"].object_list}
    assert rows["flat"].correlation is None and rows["flat"].compared == 6
    assert "low correlation" not in rows["flat"].flags  # "—" is shown: no flag
    assert "straight-lining" in rows["flat"].flags
    assert rows["D"].correlation < 0 and "low correlation" in rows["D"].flags
    assert "low correlation" not in rows["A"].flags
    flagged = sum(1 for r in rows.values() if r.flags)
    assert response.context["n_flagged"] == flagged  # the count agrees with the rows
    html = response.content.decode()
    assert "never when it is &quot;—&quot;" in html or 'never when it is "—"' in html
    assert "computed on 5+ compared items" in html


def test_the_paired_table_shows_an_undefined_spearman_as_a_dash(researcher_client):
    split = import_setups(4)
    varied = import_run(split, "varied")
    constant = import_run(split, "constant", value=lambda i: 3)
    response = researcher_client.get("/dashboards/leaderboard/", {"a": varied.id, "b": constant.id})
    html = response.content.decode()
    row = re.search(r'<tr class="spearman">(.*?)</tr>', html, re.S).group(1)
    cells = [
        re.sub(r"<[^>]+>", "", c).split() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    ]
    assert cells[1][0] != "—"  # the varied run has one
    assert cells[2] == ["—", "(undefined)"] and cells[3] == ["—", "(undefined)"]
    assert cells[4] == ["—"]
    assert 'id="paired-undefined"' in html and "None" not in row


def canvases(html: str) -> list[dict]:
    return [a for tag, a in parse(html).elements if tag == "canvas"]


def test_every_chart_has_a_text_alternative(researcher_client):
    split = import_setups(2)
    import_run(split, "run")
    setup_id = split.samples.first().story.setup_id
    for path in ("/dashboards/", "/dashboards/leaderboard/", f"/dashboards/setups/{setup_id}/"):
        html = researcher_client.get(path).content.decode()
        found = canvases(html)
        assert found, path
        for canvas in found:
            assert canvas.get("role") == "img" and canvas.get("aria-label"), (path, canvas)
            if canvas.get("id"):  # a page chart: a caption and a table of its numbers
                assert f'data-numbers-for="{canvas["id"]}"' in html, (path, canvas["id"])
        if path != f"/dashboards/setups/{setup_id}/":
            assert html.count("<figcaption") == len(found)


def test_inside_and_outside_the_band_are_marked_in_text_not_only_colour(researcher_client):
    split = import_setups(2)
    import_run(split, "run")
    html = researcher_client.get("/dashboards/items/").content.decode()
    marks = re.findall(r'<span class="sr-only">(inside|outside) the band</span>', html)
    assert marks and set(marks) <= {"inside", "outside"}
    assert "✓ inside" in html and "✗ outside" in html  # the legend
    assert html.count('aria-hidden="true">✓</span>') == marks.count("inside")
    assert html.count('aria-hidden="true">✗</span>') == marks.count("outside")
    setup_id = split.samples.first().story.setup_id
    html = researcher_client.get(f"/dashboards/setups/{setup_id}/").content.decode()
    assert re.search(r'<span class="sr-only">(inside|outside) the band</span>', html)
    assert 'id="setup-legend"' in html


def test_an_undefined_agreement_figure_is_a_dash_with_its_reason(researcher_client):
    split = import_setups(1, split="flat")
    study, _ = a_study(split, {"F1": [3] * 6, "F2": [3] * 6})
    html = researcher_client.get("/dashboards/", {"study": study.id}).content.decode()
    cells = re.findall(r'<td class="num value"[^>]*>(.*?)</td>', html, re.S)
    undefined = [c for c in cells if c.startswith("—")]
    assert undefined and all("undefined: these ratings have too few" in c for c in undefined)
