"""Gold pairs of use-pair studies: the researcher's own (page form and ``wug_study --gold``),
validated with errors naming the field or use id; the automatic choice mixes answers, and
the word page warns when one key passes every gold pair (e.g. identity pairs only)."""

from __future__ import annotations

import html
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.models import Rater
from studies import services
from studies.models import CheckQuestion, Study
from tests.studies.helpers import rate_all
from wug.crowd import crowd_study_create
from wug.crowd_gold import CrowdError, GoldSpec, gold_pair_add, parse_gold
from wug.crowd_reads import gold_warning, study_golds
from wug.graph import Judgment
from wug.models import CrowdStudy, GoldPair, UsePair
from wug.sampling import Gold, constant_keys, gold_pairs

from .crowd_helpers import arrive, small_word

pytestmark = pytest.mark.django_db


def _study(word, **fields):
    defaults = dict(
        words=[word], title="Planes", slug="planes", pairs_per_round=3,
        judgments_per_pair=1, pairs_per_participant=3, gold_pairs_total=2,
        gold_per_participant=2,
    )  # fmt: skip
    return crowd_study_create(**{**defaults, **fields})


def _free_pair(crowd) -> tuple[str, str]:
    """Two different uses that no pair or gold pair of the study holds together."""
    asked = {
        frozenset(p)
        for p in UsePair.objects.filter(round__crowd_study=crowd).values_list(
            "use1__identifier", "use2__identifier"
        )
    }
    uses = [f"u{i}" for i in range(8)]
    return next((a, b) for a in uses for b in uses if a < b and frozenset((a, b)) not in asked)


def _page(client) -> str:
    return html.unescape(client.get("/wug/plane_test/").content.decode())


@pytest.mark.parametrize(
    ("golds", "keys"),
    [
        ([], [0, 1, 2, 3, 4]),
        ([Gold("a", "a", 4), Gold("b", "b", 4)], [3, 4]),
        ([Gold("a", "a", 4), Gold("a", "b", 1)], []),
        ([Gold("a", "b", 2), Gold("c", "c", 4)], [3]),  # a middle answer within 1 is too wide
        ([Gold("a", "b", 2, 0), Gold("c", "c", 4)], []),
    ],
)
def test_constant_keys_are_the_answers_that_pass_every_gold(golds, keys):
    assert constant_keys(golds) == keys


def test_the_automatic_golds_mix_answers_when_the_graph_has_a_unanimous_unrelated_pair():
    uses = [f"u{i}" for i in range(6)]
    assert constant_keys(gold_pairs(uses, [], 4)) == [3, 4]  # identity pairs only
    judged = [Judgment("u0", "u1", "a", 1), Judgment("u0", "u1", "b", 1)]
    golds = gold_pairs(uses, judged, 4)
    assert constant_keys(golds) == [] and golds[0] == Gold("u0", "u1", 1)
    assert Gold("u0", "u1", 1) not in gold_pairs(uses, judged, 4, taken=[("u1", "u0")])


def test_the_page_warns_when_only_identity_pairs_are_gold_and_a_given_pair_fixes_it(
    researcher_client,
):
    crowd = _study(small_word())
    assert all(g.use1 == g.use2 for g in study_golds(crowd.study_id))
    assert "Pressing 3 or 4 every time passes every gold pair" in _page(researcher_client)
    a, b = _free_pair(crowd)
    response = researcher_client.post(
        "/wug/plane_test/crowd/planes/gold/", {"use1": a, "use2": b, "expected": "1"}
    )
    assert response.status_code == 302
    gold = GoldPair.objects.get(use1__identifier=a, use2__identifier=b)
    question = CheckQuestion.objects.get(pk=gold.question_id)
    assert (question.expected, question.tolerance, question.as_attention_check) == (1, 1, True)
    page = _page(researcher_client)
    assert "every time passes" not in page and f"{a} ~ {b}: answer 1" in page


def test_the_form_names_the_field_or_use_that_is_wrong(researcher_client):
    crowd = _study(small_word())
    asked = UsePair.objects.filter(round__crowd_study=crowd).first()
    cases = [
        ({"use1": "u0", "use2": "zz", "expected": "1"}, "use2: plane_test has no use 'zz'"),
        ({"use1": "nope", "use2": "u1", "expected": "4"}, "use1: plane_test has no use 'nope'"),
        ({"use1": "u0", "use2": "u1", "expected": "0"}, "expected: Select a valid choice"),
        ({"use1": "u0", "use2": "u1", "expected": "1", "tolerance": "2"}, "tolerance:"),
        ({"use1": "u2", "use2": "u2", "expected": "1"}, "is identical: 4"),
        (
            {"use1": asked.use1.identifier, "use2": asked.use2.identifier, "expected": "1"},
            "is an ordinary pair of this study",
        ),
    ]
    before = GoldPair.objects.count()
    for data, message in cases:
        response = researcher_client.post("/wug/plane_test/crowd/planes/gold/", data, follow=True)
        assert message in html.unescape(response.content.decode()), data
    assert GoldPair.objects.count() == before


def test_gold_pairs_are_added_to_drafts_only_and_once():
    crowd = _study(small_word())
    a, b = _free_pair(crowd)
    gold_pair_add(crowd_study=crowd, spec=GoldSpec(a, b, 1))
    with pytest.raises(CrowdError, match="gold pair of this study already"):
        gold_pair_add(crowd_study=crowd, spec=GoldSpec(b, a, 1))
    with pytest.raises(CrowdError, match="expected: 0 is no answer"):
        gold_pair_add(crowd_study=crowd, spec=GoldSpec("u1", "u6", 0))
    services.study_open(study=crowd.study)
    with pytest.raises(CrowdError, match="while the study is a draft"):
        gold_pair_add(crowd_study=crowd, spec=GoldSpec("u1", "u6", 1))


def test_a_participant_pressing_4_every_time_fails_mixed_golds():
    word = small_word()
    crowd = _study(word, gold=[GoldSpec("u0", "u5", 1)], judgments_per_pair=2)
    golds = study_golds(crowd.study_id)
    assert [g.expected for g in golds] == [1, 4] and gold_warning(golds) == ""
    study = services.study_open(study=crowd.study)
    lazy, careful = arrive(study, 1), arrive(study, 2)
    rate_all(lazy, check_score=4)
    rate_all(careful)
    assert Rater.objects.excluded().filter(pk=lazy.rater_id).exists()
    assert not Rater.objects.excluded().filter(pk=careful.rater_id).exists()


def test_the_command_takes_gold_pairs_and_warns_about_constant_keys():
    small_word()
    out, err = StringIO(), StringIO()
    call_command("wug_study", "planes", "plane_test", "--gold", "u0,u5,1", "--gold",
                 "plane_test:u1,u6,2,1", stdout=out, stderr=err)  # fmt: skip
    study = Study.objects.get(slug="planes")
    golds = study_golds(study.pk)
    assert golds[:2] == [Gold("u0", "u5", 1, 1), Gold("u1", "u6", 2, 1)]
    assert len(golds) == 6 and err.getvalue() == ""
    with pytest.raises(CommandError, match="use2: plane_test has no use 'zz'"):
        call_command("wug_study", "x", "plane_test", "--gold", "u0,zz,1", stdout=StringIO())
    with pytest.raises(CommandError, match="answer: 'one' is not a whole number"):
        call_command("wug_study", "y", "plane_test", "--gold", "u0,u1,one", stdout=StringIO())
    assert not Study.objects.filter(slug__in=["x", "y"]).exists()
    call_command("wug_study", "z", "plane_test", stdout=StringIO(), stderr=err)
    assert "warning: Pressing 3 or 4 every time" in err.getvalue()


def test_parse_gold_reads_word_uses_answer_and_tolerance():
    assert parse_gold("w:a,b,2,0") == GoldSpec("a", "b", 2, 0, "w")
    assert parse_gold("a, b, 4") == GoldSpec("a", "b", 4, None, "")
    with pytest.raises(CrowdError, match="write"):
        parse_gold("a,b")


def test_the_start_form_takes_other_words(researcher_client):
    small_word()
    small_word(name="plane_two").__class__.objects.filter(name="plane_two").update(lemma="jet")
    form = {
        "title": "Two", "slug": "two", "other_words": "plane_two", "pairs_per_round": "2",
        "judgments_per_pair": "1", "pairs_per_participant": "2", "gold_pairs_total": "2",
        "gold_per_participant": "1",
    }  # fmt: skip
    researcher_client.post("/wug/plane_test/crowd/", form)
    crowd = CrowdStudy.objects.get(study__slug="two")
    assert sorted(w.name for w in crowd.words.all()) == ["plane_test", "plane_two"]
    assert UsePair.objects.filter(round__crowd_study=crowd).values("word").distinct().count() == 2
    response = researcher_client.post(
        "/wug/plane_test/crowd/", {**form, "slug": "three", "other_words": "plane_two, nope"},
        follow=True,
    )  # fmt: skip
    assert "no such word 'nope'" in html.unescape(response.content.decode())
    assert not Study.objects.filter(slug="three").exists()
