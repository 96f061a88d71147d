"""Headless Chromium on a phone: a participant arrives at a use-pair (DURel) study, passes
consent and the (empty) qualification step, judges the pairs with the keys 1-4 and 0 and a
gold pair, and the judgments land in the word's graph. The word is a small one whose uses
have context outside the target's sentence (the published DWUG words have none), and one
use a long unbroken token, so the background and the phone layout are both tested."""

from __future__ import annotations

import re

import pytest

from annotations.models import Rating
from studies import services
from studies.models import Participant, Slot
from tests.conftest import goto_settled, screenshot
from tests.studies.helpers import pid
from tests.test_mobile_browser import CULPRITS, WIDTHS, log_in
from wug.analysis import graph_payload, word_judgments
from wug.crowd import crowd_study_create
from wug.exporters import word_files
from wug.graph import pair_key
from wug.models import GoldPair, Use, UsePair, Word

from .crowd_helpers import small_word

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
KEYS = ["1", "2", "3", "4", "0"]
MUTED = "rgb(103, 112, 132)"  # --muted of site.css


def _study() -> Word:
    word = small_word(6)
    use = Use.objects.get(word=word, identifier="u0")
    use.context += " " + "Donaudampfschifffahrtsgesellschaftskapitänsmütze" * 3
    use.save()
    crowd = crowd_study_create(
        words=[word],
        title="Plane pairs",
        slug="pairs",
        pairs_per_round=5,
        judgments_per_pair=1,
        pairs_per_participant=5,
        gold_pairs_total=1,
        gold_per_participant=1,
    )
    services.study_open(study=crowd.study)
    return word


def _check_pair_page(phone, pos: int) -> None:
    """Two uses, each with one marked target; the context outside the sentence muted; the
    uses stacked; nothing wider than the phone."""
    assert phone.locator("#story .use").count() == 2
    for n in (1, 2):
        assert phone.text_content(f"#use-{n} mark.wug-target") == "plane"  # by its span
        background = phone.locator(f"#use-{n} .wug-context").first
        assert background.text_content().startswith("Background sentence number")
        assert background.evaluate("e => getComputedStyle(e).color") == MUTED
        sentence = phone.locator(f"#use-{n} .wug-sentence")
        assert sentence.text_content().startswith("The plane number")
        assert sentence.evaluate("e => getComputedStyle(e).color") != MUTED
    first = phone.locator("#use-1").bounding_box()
    second = phone.locator("#use-2").bounding_box()
    assert second["y"] >= first["y"] + first["height"]  # stacked on a phone
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert "0 – Cannot decide" in phone.get_attribute("#score-0", "aria-label")
    if pos == 0:
        screenshot(phone, "use-pair-rating-phone")


def test_a_participant_judges_use_pairs_by_keys_on_a_phone(browser, live_server):
    word = _study()
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    phone = context.new_page()
    try:
        phone.goto(f"{live_server.url}/s/pairs/?PROLIFIC_PID={pid(3)}&STUDY_ID=st&SESSION_ID=se")
        assert "1 (unrelated) to 4 (identical)" in phone.text_content("#consent")
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        phone.click("#start-qualification")  # consent
        assert "no qualification test" in phone.text_content("#qualification")
        phone.click("#submit-qualification")  # Start
        participant = Participant.objects.get(prolific_pid=pid(3))
        checks = {a.position: a.question for a in participant.attention_answers.all()}
        assert len(checks) == 1
        pressed: dict[int, int] = {}
        for pos in range(6):
            phone.wait_for_url(re.compile(rf"/s/pairs/rate/{pos}/$"))
            _check_pair_page(phone, pos)
            key = str(checks[pos].expected) if pos in checks else KEYS[len(pressed)]
            if pos not in checks:
                pressed[pos] = int(key)
            phone.keyboard.press(key)
            assert phone.is_checked(f"#score-{key}")
            phone.keyboard.press("Enter")
        phone.wait_for_url(re.compile(r"/done/$"))
    finally:
        context.close()

    assert participant.attention_answers.get().passed is True
    slots = Slot.objects.filter(participant=participant).select_related("sample__use_pair")
    by_pos = {s.position: s.sample.use_pair for s in slots}
    ratings = {r.sample_id: r.score for r in Rating.objects.filter(rater=participant.rater)}
    assert sorted(ratings.values()) == [0, 1, 2, 3, 4]  # every key, once
    expected = {}
    for pos, score in pressed.items():
        pair = by_pos[pos]
        assert ratings[pair.sample_id] == score
        expected[pair_key(pair.use1.identifier, pair.use2.identifier)] = score

    # the judgments are the word's: in its graph (0 = no edge), under the pseudonym
    mine = [j for j in word_judgments(word) if j.annotator == participant.rater.pseudonym]
    assert {pair_key(j.use1, j.use2): j.score for j in mine} == expected
    edges = {(e["source"], e["target"]): e["weight"] for e in graph_payload(word)["edges"]}
    for pair, score in expected.items():
        if score:
            assert edges[pair] == score  # these pairs had no judgment before
        else:
            assert pair not in edges
    exported = word_files(word)["judgments.csv"]
    assert exported.count(participant.rater.pseudonym) == 5
    gold = GoldPair.objects.get(question=checks[next(iter(checks))])
    assert not UsePair.objects.filter(use1=gold.use1, use2=gold.use2).exists()


def test_a_researcher_adds_a_round_from_the_word_page_on_a_phone(browser, live_server, researcher):
    word = _study()
    context = browser.new_context(viewport=PHONE, has_touch=True)
    tab = context.new_page()
    try:
        log_in(tab, live_server)
        goto_settled(tab, f"{live_server.url}/wug/{word.name}/")
        assert tab.locator(".crowd-round").count() == 1
        assert tab.evaluate(WIDTHS)[0] <= PHONE["width"], tab.evaluate(CULPRITS)
        assert tab.locator("#wug-crowd button[type=submit]").first.is_disabled()  # round 1 open
        screenshot(tab, "wug-crowd-word-page-phone")
    finally:
        context.close()


def test_on_a_desktop_the_two_uses_stand_side_by_side(page, live_server):
    _study()
    page.goto(f"{live_server.url}/s/pairs/?PROLIFIC_PID={pid(4)}&STUDY_ID=st&SESSION_ID=se")
    page.click("#start-qualification")
    page.click("#submit-qualification")
    page.wait_for_url(re.compile(r"/s/pairs/rate/0/$"))
    first = page.locator("#use-1").bounding_box()
    second = page.locator("#use-2").bounding_box()
    assert second["x"] >= first["x"] + first["width"] and abs(second["y"] - first["y"]) < 1
    screenshot(page, "use-pair-rating-desktop")
