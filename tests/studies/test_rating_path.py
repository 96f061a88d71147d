"""The rating path's cost: one POST per item answering 303 straight to the next item, a
bounded number of SQL queries, and no session row read or written."""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from studies import selectors
from studies.models import Participant

from .helpers import open_study
from .test_participant_views import arrive, qualify_by_post

pytestmark = pytest.mark.django_db

# On PostgreSQL the slot's compare-and-set, the rating upsert and the data version's bump are
# one statement; elsewhere three.
WRITES = 1 if connection.vendor == "postgresql" else 3
POST_QUERIES = 3 + WRITES + 2  # the participant read and locked in one query, batch rows,
# slot CAS + rating upsert + bump, the finish after the last item; plus the savepoint pair
# the test's transaction turns BEGIN/COMMIT into
GET_QUERIES = 3  # participant, batch rows, the item with the own answer


def _check_extra(pos: int, checks: dict) -> int:
    """The queries an attention check's save takes beyond a sample's: it is read under the
    lock and then written (two statements where a sample's write is ``WRITES``; fewer on
    SQLite, where a sample's is three)."""
    return 2 - WRITES if pos in checks else 0


def _walk(client, study):
    """(queries of the POST, of the GET that follows) per item; a check's extra counted off."""
    participant = Participant.objects.get()
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    pos, costs = 0, []
    while True:
        url = reverse("participate:rate", args=[study.slug, pos])
        with CaptureQueriesContext(connection) as post_q:
            response = client.post(url, {"score": checks.get(pos, 3), "comment": ""})
        assert response.status_code == 303
        location = response["Location"]
        if location == reverse("participate:done", args=[study.slug]):
            costs.append((len(post_q) - _check_extra(pos, checks), None))
            return costs
        assert location == reverse("participate:rate", args=[study.slug, pos + 1])
        with CaptureQueriesContext(connection) as get_q:
            page = client.get(location)
        assert page.status_code == 200
        costs.append((len(post_q) - _check_extra(pos, checks), len(get_q)))
        pos += 1


def test_each_rated_item_is_one_post_answering_303_to_the_next_item_in_few_queries(client):
    study = open_study(8, per_participant=6, ratings=2, checks=1)
    arrive(client, study)
    qualify_by_post(client, study)
    costs = _walk(client, study)
    assert len(costs) == 7
    assert max(post for post, _ in costs) <= POST_QUERIES, costs
    assert max(get for _, get in costs if get is not None) <= GET_QUERIES, costs
    assert Participant.objects.get().status == "finished"


def test_a_participant_session_never_touches_the_session_table(client):
    study = open_study()
    arrive(client, study)
    qualify_by_post(client, study)
    with CaptureQueriesContext(connection) as queries:
        _walk(client, study)
    assert not any("django_session" in q["sql"] for q in queries.captured_queries)
    assert not Session.objects.exists()
    assert "sessionid" not in client.cookies


# On PostgreSQL the statement that saves a sample also reads the next item (the page the
# script gets back); a check's save reads it after.
NEXT_READ = 0 if connection.vendor == "postgresql" else 1
# the participant read and locked, batch rows, slot CAS + rating upsert + bump (+ the next item;
# its page is built from the rows the save read); plus the test's savepoint pair
IN_PAGE_QUERIES = 2 + WRITES + NEXT_READ + 2


def _in_page_check_extra(pos: int, checks: dict) -> int:
    """A check's extra queries when the script posts it: its read and write, and the next
    item read apart."""
    return _check_extra(pos, checks) + 1 - NEXT_READ if pos in checks else 0


def test_the_rating_script_gets_the_next_item_in_the_answer_to_its_post(client):
    """participant.js posts with ``X-Rating-Page: 1``: the answer is the next item's page (200,
    its address in ``X-Page-Url``, the time it was shown in the signed cookie), one request
    per item in fewer queries than the POST and the GET together; after the last item the
    answer is the 303 to the code page, as for a form."""
    study = open_study(8, per_participant=6, ratings=2, checks=1)
    arrive(client, study)
    qualify_by_post(client, study)
    participant = Participant.objects.get()
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    first = client.get(reverse("participate:rate", args=[study.slug, 0])).content.decode()
    assert 'name="csrfmiddlewaretoken"' in first  # a page has its form's token
    assert 'id="guidelines-dialog"' in first  # and the guidelines
    for pos in range(7):
        url = reverse("participate:rate", args=[study.slug, pos])
        with CaptureQueriesContext(connection) as queries:
            response = client.post(
                url, {"score": checks.get(pos, 3), "comment": ""}, headers={"X-Rating-Page": "1"}
            )
        if pos == 6:
            assert response.status_code == 303
            assert response["Location"] == reverse("participate:done", args=[study.slug])
            break
        assert response.status_code == 200, pos
        assert response["X-Page-Url"] == reverse("participate:rate", args=[study.slug, pos + 1])
        page = response.content.decode()
        assert f"<title>Sample {pos + 2} of 7" in page and 'id="rate-form"' in page
        # what the script swaps in: the title and <main>, not the head, header or scripts
        assert "<main>" in page and "<head>" not in page and "<script" not in page
        # and no CSRF token: the script keeps the page's, so none is masked or its cookie
        # sent again with each item
        assert "csrfmiddlewaretoken" not in page and "csrftoken" not in response.cookies
        assert "guidelines-dialog" not in page  # the same for every item: the page keeps its
        assert client.cookies[f"shown_{study.slug}"].value.split(":")[0].startswith(f"{pos + 1}|")
        limit = IN_PAGE_QUERIES + _in_page_check_extra(pos, checks)
        assert len(queries) <= limit, [q["sql"] for q in queries.captured_queries]
    participant.refresh_from_db()
    assert participant.status == "finished"
    assert participant.rater.ratings.count() == 6


def test_a_refused_answer_from_the_script_shows_the_same_item_again(client):
    study = open_study(8, per_participant=6, ratings=2, checks=1)
    arrive(client, study)
    qualify_by_post(client, study)
    url = reverse("participate:rate", args=[study.slug, 0])
    response = client.post(url, {"score": 9}, headers={"X-Rating-Page": "1"})
    assert response.status_code == 200 and response["X-Page-Url"] == url
    assert "Sample 1 of 7" in response.content.decode()
    assert not Participant.objects.get().rater.ratings.exists()


def test_a_rating_post_reads_the_participant_once_and_locked(client):
    """The save's transaction starts with the one read of the participant (by its token,
    with its study), which also locks the row; no second read to lock it."""
    study = open_study(8, per_participant=6, ratings=2, checks=1)
    arrive(client, study)
    qualify_by_post(client, study)
    participant = Participant.objects.get()
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    url = reverse("participate:rate", args=[study.slug, 0])
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            url, {"score": checks.get(0, 3), "comment": ""}, headers={"X-Rating-Page": "1"}
        )
    assert response.status_code == 200
    assert response["X-Page-Url"] == reverse("participate:rate", args=[study.slug, 1])
    reads = [q["sql"] for q in queries.captured_queries if 'FROM "studies_participant"' in q["sql"]]
    assert len(reads) == 1, reads
    if connection.vendor == "postgresql":
        assert reads[0].endswith("FOR UPDATE OF p")
    assert participant.rater.ratings.count() == (0 if 0 in checks else 1)


def test_the_scripts_next_item_comes_from_the_statement_that_saves_the_answer(client):
    """With the script, a sample's save also reads the page's next item (PostgreSQL: in the
    same statement, one round trip less); the page shows that item and its text versions."""
    study = open_study(8, per_participant=6, ratings=2, checks=1)
    arrive(client, study)
    qualify_by_post(client, study)
    participant = Participant.objects.get()
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    pos = 0 if 0 not in checks else 1
    for earlier in range(pos):  # a check at 0: answered first, as the order asks
        client.post(reverse("participate:rate", args=[study.slug, earlier]), {"score": 1})
    url = reverse("participate:rate", args=[study.slug, pos])
    with CaptureQueriesContext(connection) as queries:
        response = client.post(url, {"score": 4}, headers={"X-Rating-Page": "1"})
    assert response.status_code == 200
    rows = selectors.batch_rows(participant.pk)
    expected = selectors.batch_item(participant, next(r for r in rows if r.position == pos + 1))
    page = response.content.decode()
    assert escape(expected.precontext) in page and escape(expected.meaning) in page
    if expected.text_version:
        assert f'name="text_version" value="{expected.text_version}"' in page
    reads = [q["sql"] for q in queries.captured_queries if "homonym" in q["sql"].lower()]
    assert len(reads) == 1, reads  # the next item is read once
    if connection.vendor == "postgresql":
        assert reads[0].startswith("WITH claimed AS (UPDATE")  # by the save itself
