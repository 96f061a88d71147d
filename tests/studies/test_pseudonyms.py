"""A participant's Prolific ID appears on no page, export or API response except the study's
participants table (staff only); raters are random pseudonyms."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from studies.models import Participant

from .helpers import PID, open_study, rate_all
from .test_participant_views import arrive, qualify_by_post

pytestmark = pytest.mark.django_db

SKIP_PREFIXES = ("admin/", "s/", "accounts/")  # admin is Django's; /s/ is the participant's


def _routes(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern)


def _urls(ids: list[int]) -> list[str]:
    """Every GET route of the site with its arguments filled in from ``ids``."""
    urls = []
    for route in _routes(get_resolver().url_patterns):
        route = re.sub(r"\^|\$|\\Z", "", route).replace("\\.", ".")
        if route.startswith(SKIP_PREFIXES) or re.search(r"[(\[?*+\\]", route):
            continue  # regex routes with groups (router detail views) are not filled in
        args = re.findall(r"<(?:(\w+):)?(\w+)>", route)
        if not all(conv in ("int", "str", "slug", "") for conv, _ in args):
            continue
        fills = ids if args else [None]
        for value in fills:
            url = re.sub(r"<(?:\w+:)?\w+>", str(value), route)
            urls.append("/" + url)
    return sorted(set(urls))


def test_no_page_export_or_api_response_but_the_participants_table_shows_a_pid(client, researcher):
    study = open_study(4, per_participant=4, ratings=2, checks=1)
    arrive(client, study, PID)
    qualify_by_post(client, study)
    participant = Participant.objects.get()
    rate_all(participant, check_score=5)  # fails its check too: excluded, on the failures list
    assert PID not in participant.rater.pseudonym
    assert re.fullmatch(r"p-[0-9a-f]{16}", participant.rater.pseudonym)
    staff = Client()
    staff.force_login(researcher)
    ids = sorted({study.pk, participant.pk, participant.rater_id, 1})
    urls = _urls(ids) + [
        "/api/v1/ratings/?format=json",
        "/api/v1/exports/ratings.csv",
        "/api/v1/exports/ratings.jsonl",
        "/api/v1/exports/ambistory.json?split=study&include_excluded=1",
        "/api/v1/exports/reference.jsonl?split=study&include_excluded=1",
        reverse("studies:export", args=[study.pk]) + "?include_excluded=1",
    ]
    checked = []
    for url in urls:
        response = staff.get(url)
        if response.status_code != 200:
            continue
        body = b"".join(response.streaming_content) if response.streaming else response.content
        text = body.decode(errors="replace")
        if url == reverse("studies:detail", args=[study.pk]):
            assert PID in text  # the participants table, for payment reconciliation
            text = re.sub(r'<table id="participant-table">.*?</table>', "", text, flags=re.S)
        if url == reverse("studies:pid_reset", args=[study.pk, participant.pk]):
            assert PID in text  # the reset's confirmation names the PID it frees
            text = re.sub(r'<code id="reset-pid">.*?</code>', "", text, flags=re.S)
        assert PID not in text, url
        checked.append(url)
    musts = ["/dashboards/annotators/", "/api/v1/exports/ratings.csv", "/studies/"]
    musts.append("/api/v1/exports/ambistory.json?split=study&include_excluded=1")
    for must in musts:
        assert must in checked
    assert len(checked) >= 20, checked


def test_the_data_migration_renames_participant_raters_to_random_pseudonyms():
    from importlib import import_module

    from django.apps import apps

    from annotations.models import Rater

    study = open_study()
    rater = Rater.objects.create(kind=Rater.Kind.PARTICIPANT, pseudonym=f"{study.pk}:{PID}")
    Participant.objects.create(study=study, rater=rater, prolific_pid=PID)
    migration = import_module("studies.migrations.0003_arrival_holds_resume_token")
    migration.pseudonymise_participant_raters(apps, None)
    rater.refresh_from_db()
    assert PID not in rater.pseudonym and re.fullmatch(r"p-[0-9a-f]{16}", rater.pseudonym)
