"""Removing a gold pair from a use-pair study (``wug.crowd_gold.gold_pair_remove`` and the
word page's remove button): identity pairs too, while the study is a draft (the rule gold
pairs are added by), and the checks per participant never exceed the golds left."""

from __future__ import annotations

import html

import pytest

from studies import services
from studies.models import CheckQuestion
from wug.crowd_gold import CrowdError, GoldSpec, gold_pair_add, gold_pair_remove
from wug.crowd_reads import study_golds
from wug.models import GoldPair

from .crowd_helpers import small_word
from .test_crowd_gold import _study

pytestmark = pytest.mark.django_db


def _identity_golds(crowd) -> list[GoldPair]:
    golds = GoldPair.objects.filter(question__study_id=crowd.study_id).order_by("question__order")
    return [g for g in golds if g.use1_id == g.use2_id]


def _url(gold: GoldPair) -> str:
    return f"/wug/plane_test/crowd/planes/gold/{gold.pk}/remove/"


def test_an_identity_gold_pair_is_removed_with_its_check_question():
    crowd = _study(small_word(), gold_pairs_total=3, gold_per_participant=2)
    first, *rest = _identity_golds(crowd)  # no unrelated pair judged: identity pairs only
    gold_pair_remove(crowd_study=crowd, gold=first)
    assert not GoldPair.objects.filter(pk=first.pk).exists()
    assert not CheckQuestion.objects.filter(pk=first.question_id).exists()
    assert [(g.use1, g.use2) for g in study_golds(crowd.study_id)] == [
        (g.use1.identifier, g.use2.identifier) for g in rest
    ]
    crowd.study.refresh_from_db()
    assert crowd.study.attention_checks_per_batch == 2


def test_the_checks_per_participant_follow_the_golds_left_and_the_study_still_opens():
    crowd = _study(small_word())  # 2 golds, 2 checks per participant
    first, second = _identity_golds(crowd)
    gold_pair_remove(crowd_study=crowd, gold=first)
    crowd.study.refresh_from_db()
    assert crowd.study.attention_checks_per_batch == 1
    gold_pair_remove(crowd_study=crowd, gold=second)
    crowd.study.refresh_from_db()
    assert crowd.study.attention_checks_per_batch == 0
    assert services.study_open(study=crowd.study).status == "open"


def test_gold_pairs_are_removed_from_drafts_only_and_from_their_own_study():
    word = small_word()
    crowd = _study(word)
    other = _study(word, slug="other", title="Other")
    gold = _identity_golds(crowd)[0]
    with pytest.raises(CrowdError, match="not a gold pair of Other"):
        gold_pair_remove(crowd_study=other, gold=gold)
    services.study_open(study=crowd.study)
    with pytest.raises(CrowdError, match="while the study is a draft"):
        gold_pair_remove(crowd_study=crowd, gold=gold)
    assert GoldPair.objects.filter(pk=gold.pk).exists()


def test_a_removed_gold_pair_can_be_added_again():
    crowd = _study(small_word())
    gold = _identity_golds(crowd)[0]
    gold_pair_remove(crowd_study=crowd, gold=gold)
    spec = GoldSpec(gold.use1.identifier, gold.use2.identifier, 4)
    assert gold_pair_add(crowd_study=crowd, spec=spec).use1_id == gold.use1_id


def test_the_word_page_removes_a_gold_pair_of_a_draft(researcher_client):
    crowd = _study(small_word())
    gold = _identity_golds(crowd)[0]
    page = html.unescape(researcher_client.get("/wug/plane_test/").content.decode())
    assert f'action="{_url(gold)}"' in page
    assert researcher_client.get(_url(gold)).status_code == 405
    response = researcher_client.post(_url(gold), follow=True)
    page = html.unescape(response.content.decode())
    assert f"Gold pair {gold.use1.identifier} ~ {gold.use2.identifier} is removed" in page
    assert not GoldPair.objects.filter(pk=gold.pk).exists()
    assert f'action="{_url(gold)}"' not in page and "Gold pairs (1)" in page


def test_the_word_page_refuses_for_an_open_study(researcher_client):
    crowd = _study(small_word())
    gold = _identity_golds(crowd)[0]
    services.study_open(study=crowd.study)
    page = html.unescape(researcher_client.get("/wug/plane_test/").content.decode())
    assert f'action="{_url(gold)}"' not in page
    response = researcher_client.post(_url(gold), follow=True)
    page = html.unescape(response.content.decode())
    assert "No gold pair was removed: Gold pairs are added and removed while" in page
    assert GoldPair.objects.filter(pk=gold.pk).exists()
    missing = "/wug/plane_test/crowd/planes/gold/999999/remove/"
    assert researcher_client.post(missing).status_code == 404


def test_outsiders_cannot_remove_gold_pairs(client, outsider_client):
    crowd = _study(small_word())
    gold = _identity_golds(crowd)[0]
    for who in (client, outsider_client):
        assert who.post(_url(gold)).status_code == 302
    assert GoldPair.objects.filter(pk=gold.pk).exists()
