"""The arrival path's cost (issue 33, item 3): every page from the Prolific link to the
first item in a pinned number of SQL queries, so that a release burst's per-arrival work
cannot regrow unnoticed; and the qualification page's radio buttons rendered by the tag as
the template loop rendered them."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.template import Context, Template
from django.urls import reverse

from studies.forms import QualificationForm
from studies.models import CheckQuestion, Participant, Slot

from .helpers import PID, open_study, participant_row
from .test_participant_views import arrive, arrive_url

pytestmark = pytest.mark.django_db

POSTGRESQL = connection.vendor == "postgresql"
# The transaction of a consent or a grading is BEGIN/COMMIT under a server, a savepoint
# pair inside the test's transaction: counted either way.
# the study, the PID's participant, the qualification pool, the list lengths (the number of
# items: ``study_texts.items_per_participant``), the estimate
ARRIVE_GET = 5
# the study with the token's participant (none yet: one query), the PID's participant, the
# unqualified holds; then BEGIN, the client's lock (PostgreSQL), its holds, the rater, the
# participant, whether the study uses fixed lists, the free slots per setup, their lowest
# slots, locking them, the study's check questions (read once: the batch's attention checks
# and then the test's draw), the reservation, the attention answer, COMMIT; then the
# qualification page in the same answer: storing the draw
CONSENT_POST = 16 + POSTGRESQL
QUALIFICATION_GET = 2  # the participant, its drawn questions (the draw is stored already)
# the participant, its drawn questions; BEGIN, the participant locked, its update, COMMIT;
# then the first item's page in the same answer: the batch rows, the item with the own
# answer (the questions are not read again, nor the participant)
QUALIFICATION_POST = 8
FIRST_ITEM_GET = 3  # the participant, the batch rows, the item with the own answer


def _walk_with_limits(client, study, max_queries):
    """The arrival path, each request under its own query limit: the consent and the
    qualification POSTs are answered with the next page itself (its address in X-Page-Url);
    a GET of that page (a reload) has a limit of its own."""
    with max_queries(ARRIVE_GET):
        page = client.get(arrive_url(study.slug))
    assert page.status_code == 200
    token = re.search(r'name="token" value="([^"]+)"', page.content.decode()).group(1)
    data = {"pid": PID, "study_id": "st1", "session_id": "se1", "token": token}
    with max_queries(CONSENT_POST):
        consent = client.post(reverse("participate:consent", args=[study.slug]), data)
    qualification_url = reverse("participate:qualification", args=[study.slug])
    assert consent.status_code == 200 and consent["X-Page-Url"] == qualification_url
    assert 'id="qualification"' in consent.content.decode()
    with max_queries(QUALIFICATION_GET):
        assert client.get(qualification_url).status_code == 200
    answers = {f"q{q.pk}": q.expected for q in study.check_questions.filter(in_qualification=True)}
    with max_queries(QUALIFICATION_POST):
        graded = client.post(qualification_url, answers)
    first_url = reverse("participate:rate", args=[study.slug, 0])
    assert graded.status_code == 200 and graded["X-Page-Url"] == first_url
    assert 'id="rate-form"' in graded.content.decode()
    with max_queries(FIRST_ITEM_GET):
        first = client.get(first_url)
    assert first.status_code == 200 and 'id="rate-form"' in first.content.decode()


def test_each_page_from_the_link_to_the_first_item_takes_a_pinned_number_of_queries(
    client, django_assert_max_num_queries
):
    study = open_study(40, per_participant=30, ratings=5, checks=1)
    client.defaults["REMOTE_ADDR"] = "198.51.100.7"
    _walk_with_limits(client, study, django_assert_max_num_queries)
    participant = Participant.objects.get()
    assert participant.status == Participant.Status.QUALIFIED
    assert Slot.objects.filter(participant=participant).count() == 30


def test_the_limits_are_met_on_a_study_with_other_participants_already_in(
    client, django_assert_max_num_queries
):
    """The counts do not grow with the study's participants (per-setup counts, not a row
    per slot; the holds counted in one query)."""
    from django.test import Client

    study = open_study(40, per_participant=30, ratings=5, checks=1)
    for n in range(5):
        other = Client()
        other.defaults["REMOTE_ADDR"] = f"198.51.100.{20 + n}"
        assert arrive(other, study, f"{n + 1:024x}").status_code == 200
    client.defaults["REMOTE_ADDR"] = "198.51.100.7"
    _walk_with_limits(client, study, django_assert_max_num_queries)


def _consented(client, study):
    page = client.get(arrive_url(study.slug))
    token = re.search(r'name="token" value="([^"]+)"', page.content.decode()).group(1)
    data = {"pid": PID, "study_id": "st1", "session_id": "se1", "token": token}
    url = reverse("participate:consent", args=[study.slug])
    return url, data, client.post(url, data)


def test_the_consent_is_answered_with_the_test_at_its_own_address_and_a_repost_adds_nobody(
    client,
):
    """The consent's answer is the qualification page itself: its address in X-Page-Url and
    the canonical link (participant.js moves the address bar there), the form posting to it,
    and the hold's heartbeat as on the test's own page. The same consent sent again (a
    reload of the POST, a double click, another tab) creates no second participant."""
    study = open_study()
    client.defaults["REMOTE_ADDR"] = "198.51.100.9"
    url, data, answer = _consented(client, study)
    html = answer.content.decode()
    qualification_url = reverse("participate:qualification", args=[study.slug])
    assert answer.status_code == 200 and answer["X-Page-Url"] == qualification_url
    assert f'<link rel="canonical" href="{qualification_url}">' in html
    assert html.count("js/participant") == 1 and 'id="time-left"' in html
    assert f'<form method="post" action="{qualification_url}"' in html
    hold = reverse("participate:hold", args=[study.slug])
    assert f'<meta name="hold-heartbeat" content="{hold}"' in html
    assert client.cookies[f"resume_{study.slug}"].value == data["token"]
    again = client.post(url, data)  # the browser's reload of the POST: now a participant's
    assert again.status_code == 302 and again["Location"] == qualification_url
    from django.test import Client

    other_tab = Client(REMOTE_ADDR="198.51.100.9").post(url, data)  # no cookie, same token
    assert other_tab.status_code == 200 and other_tab["X-Page-Url"] == qualification_url
    assert Participant.objects.count() == 1
    assert Slot.objects.exclude(participant=None).count() == study.samples_per_participant
    plain = client.get(qualification_url).content.decode()  # its own address: no canonical
    assert 'rel="canonical"' not in plain and '<form method="post" class' in plain


def test_the_test_is_answered_with_the_first_item_at_its_own_address_and_graded_once(client):
    """The qualification POST's answer is the first item's page, its address in X-Page-Url,
    the canonical link and the form's action; the same answers sent again change nothing
    (the participant is qualified: a redirect to the item) and the item's page at its own
    address has no canonical link."""
    study = open_study()
    client.defaults["REMOTE_ADDR"] = "198.51.100.10"
    _consented(client, study)
    url = reverse("participate:qualification", args=[study.slug])
    answers = {f"q{q.pk}": q.expected for q in study.check_questions.filter(in_qualification=True)}
    graded = client.post(url, answers)
    first_url = reverse("participate:rate", args=[study.slug, 0])
    html = graded.content.decode()
    assert graded.status_code == 200 and graded["X-Page-Url"] == first_url
    assert f'<link rel="canonical" href="{first_url}">' in html and "js/participant" in html
    assert f'<form method="post" action="{first_url}"' in html and "hold-heartbeat" not in html
    qualified = Participant.objects.get()
    assert qualified.status == Participant.Status.QUALIFIED
    again = client.post(url, answers)
    assert again.status_code == 302 and again["Location"] == first_url
    after = Participant.objects.get()
    assert (after.qualified_at, after.qualification_answers) == (
        qualified.qualified_at,
        qualified.qualification_answers,
    )
    page = client.get(first_url).content.decode()
    assert 'rel="canonical"' not in page and '<form method="post" class' in page
    assert client.post(first_url, {"score": 3, "comment": ""}).status_code == 303


ASSET = re.compile(r'<(script) src="([^"]+)"|<link rel="(stylesheet|prefetch)" href="([^"]+)"')


def _assets(html: str) -> list[tuple[str, str]]:
    """The page's scripts, stylesheets and prefetch hints in order: what a browser (and the
    load generator) fetches with it."""
    return [(m[0] or m[2], m[1] or m[3]) for m in ASSET.findall(html)]


def test_each_page_of_the_arrival_path_links_the_one_participant_script(client):
    """The arrival page fetches 2 stylesheets and prefetches the participant pages' one
    script (issue 33: 7 asset requests per arrival before, 3 now); the test and the first
    item, sent in a POST's answer or at their own address, link it once and nothing else."""
    study = open_study()
    client.defaults["REMOTE_ADDR"] = "198.51.100.11"
    css = [("stylesheet", "/static/css/site.css"), ("stylesheet", "/static/css/study.css")]
    bundle = [("script", "/static/js/participant.js")]
    welcome = client.get(arrive_url(study.slug)).content.decode()
    assert _assets(welcome) == [*css, ("prefetch", "/static/js/participant.js")]
    _, _, consent = _consented(client, study)
    url = reverse("participate:qualification", args=[study.slug])
    assert _assets(consent.content.decode()) == css + bundle
    assert _assets(client.get(url).content.decode()) == css + bundle
    answers = {f"q{q.pk}": q.expected for q in study.check_questions.filter(in_qualification=True)}
    assert _assets(client.post(url, answers).content.decode()) == css + bundle
    first = client.get(reverse("participate:rate", args=[study.slug, 0])).content.decode()
    assert _assets(first) == css + bundle


def test_a_screened_out_answer_is_still_a_redirect(client):
    """Only the test and the items come in the POST's answer; the code pages are
    redirected to."""
    study = open_study()
    client.defaults["REMOTE_ADDR"] = "198.51.100.11"
    _consented(client, study)
    wrong = {f"q{q.pk}": 1 if q.expected >= 3 else 5 for q in study.check_questions.all()}
    response = client.post(reverse("participate:qualification", args=[study.slug]), wrong)
    assert response.status_code == 302
    assert response["Location"] == reverse("participate:screened_out", args=[study.slug])


def test_grading_reads_the_questions_once_and_leaves_the_participant_as_stored(client):
    """The qualification POST grades the questions its form showed (the stored draw), not
    read again, and the first item's page follows from the participant the service left
    updated."""
    from django.test.utils import CaptureQueriesContext

    study = open_study()
    client.defaults["REMOTE_ADDR"] = "198.51.100.8"
    arrive(client, study)
    client.get(reverse("participate:qualification", args=[study.slug]))
    answers = {f"q{q.pk}": q.expected for q in study.check_questions.filter(in_qualification=True)}
    with CaptureQueriesContext(connection) as queries:
        response = client.post(reverse("participate:qualification", args=[study.slug]), answers)
    assert response["X-Page-Url"] == reverse("participate:rate", args=[study.slug, 0])
    sqls = [q["sql"] for q in queries.captured_queries]
    assert sum('FROM "studies_checkquestion"' in s for s in sqls) == 1, sqls
    reads = [s for s in sqls if s.startswith("SELECT") and '"studies_participant"' in s]
    assert len(reads) == 2, sqls  # read (with its study), locked
    participant = Participant.objects.get()
    assert participant.status == Participant.Status.QUALIFIED
    stored = participant.qualification_answers
    assert sorted(map(int, stored)) == sorted(participant.qualification_draw)  # the draw
    assert all(answers[f"q{pk}"] == value for pk, value in stored.items())


LOOP = (
    '{% with current=field.value|stringformat:"s" %}{% for n, text, word in scale_rows %}'
    '<label class="option" title="{{ text }}"><input type="radio" name="{{ field.html_name }}"'
    ' value="{{ n }}" id="{{ field.auto_id }}_{{ n }}" aria-label="{{ n }} &ndash; {{ text }}"'
    ' required{% if current == n|stringformat:"s" %} checked{% endif %}> <span class="num"'
    ' aria-hidden="true">{{ n }}</span><span class="word" aria-hidden="true">{{ word }}</span>'
    "</label>{% endfor %}{% endwith %}"
)


@pytest.mark.parametrize("data", [None, {"q{pk}": "4"}, {"q{pk}": "<b>"}])
def test_the_qualification_scale_tag_renders_what_the_template_loop_rendered(data):
    from studies import defaults

    study = open_study()
    question = CheckQuestion.objects.filter(study=study, in_qualification=True).first()
    bound = {k.format(pk=question.pk): v for k, v in data.items()} if data else None
    form = QualificationForm(bound, questions=[question], kind=study.task_kind)
    field = form[f"q{question.pk}"]
    rows = defaults.page_context(study.task_kind)["scale_rows"]
    ctx = Context({"field": field, "scale_rows": rows})
    expected = Template(LOOP).render(ctx)
    got = Template("{% load study_text %}{% qualification_scale field scale_rows %}").render(ctx)
    assert got == expected
    assert got.count(" checked") == (1 if data and data["q{pk}"] == "4" else 0)


def test_the_study_and_the_tokens_participant_are_read_together():
    """``selectors.study_and_participant``: the study with no participant for a token nobody
    has (the consent's case), the token's participant with that study, nothing for a draft."""
    from studies import selectors
    from studies.models import Study

    study = open_study(4, per_participant=3, ratings=1, checks=0)
    found, nobody = selectors.study_and_participant(study.slug, "f" * 64)
    assert (found.pk, found.status, nobody) == (study.pk, Study.Status.OPEN, None)
    participant = participant_row(study, 1, resume_hash="a" * 64)
    found, mine = selectors.study_and_participant(study.slug, "a" * 64)
    assert mine.pk == participant.pk and mine.study is found and found.pk == study.pk
    assert selectors.study_and_participant(study.slug, "b" * 64)[1] is None
    Study.objects.filter(pk=study.pk).update(status=Study.Status.DRAFT)
    assert selectors.study_and_participant(study.slug, "a" * 64) is None
