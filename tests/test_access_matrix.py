"""Every URL pattern the project registers, admin included, requested by every kind of visitor
and checked against an explicit rule.

The patterns come from walking ``get_resolver()``; each one needs an entry in ``RULES`` (by
URL name; the admin site is one rule for its whole namespace, since Django's admin applies
one permission scheme to every page). A URL added without a rule fails
``test_every_url_pattern_has_a_rule``. URL parameters are filled from real objects, so each
pattern is actually requested (GET; views that only accept POST answer 405 to a researcher).

Visitors: anonymous, a Prolific participant with a batch in a study (cookie session from the
real arrival and consent), another participant of the same study, a logged-in non-staff
user, a staff session, a staff API token and a non-staff API token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.authtoken.models import Token

from tests.factories import ambistory_setup

pytestmark = pytest.mark.django_db

ROLES = (
    "anonymous",
    "participant",
    "other_participant",
    "non_staff",
    "staff",
    "staff_token",
    "non_staff_token",
)
NOT_STAFF = ("anonymous", "participant", "other_participant", "non_staff", "non_staff_token")


# --- the URL patterns -------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    name: str  # namespaced, e.g. "studies:detail"; unnamed patterns get their route
    route: str
    params: tuple[str, ...]


def _walk(resolver, prefix="", namespaces=(), params=()):
    for pattern in resolver.url_patterns:
        names = params + tuple(pattern.pattern.regex.groupindex)
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            ns = namespaces + ((pattern.namespace,) if pattern.namespace else ())
            yield from _walk(pattern, route, ns, names)
        elif isinstance(pattern, URLPattern):
            # unnamed patterns (the admin's redirects and catch-all) are named by their route
            name = ":".join(namespaces + (pattern.name or route,))
            yield Route(name, route, names)


def all_routes() -> list[Route]:
    return list(_walk(get_resolver()))


# --- the rules --------------------------------------------------------------------------------
# An outcome is checked on a response; each rule says which outcome every role gets.


def _location(response) -> str:
    return response.get("Location", "")


def served(response) -> bool:
    """The view ran for this visitor: no refusal for lack of rights and no server error
    (400/404/405 are the view's own answers to a made-up parameter or a GET)."""
    return (
        response.status_code < 500
        and response.status_code not in (401, 403)
        and not (response.status_code == 302 and "login" in _location(response))
    )


def to_login(response) -> bool:
    return response.status_code == 302 and _location(response).startswith("/accounts/login/")


def to_admin_login(response) -> bool:
    return response.status_code == 302 and _location(response).startswith("/admin/login/")


def status(*codes: int) -> Callable:
    def check(response) -> bool:
        return response.status_code in codes

    check.__name__ = f"status{codes}"
    return check


def no_server_error(response) -> bool:
    return response.status_code < 500


SITE = {role: to_login for role in NOT_STAFF} | {"staff": served, "staff_token": to_login}
API = {
    "anonymous": status(401),
    "participant": status(401),
    "other_participant": status(401),
    "non_staff": status(403),
    "non_staff_token": status(403),
    "staff": served,
    "staff_token": served,
}
ADMIN = {role: to_admin_login for role in NOT_STAFF} | {
    "staff": status(200, 302, 403, 404),  # a staff user without model permissions
    "staff_token": to_admin_login,
}
PUBLIC = {role: no_server_error for role in ROLES}
# Participant pages: the participant's own session is served; anyone else gets a page of
# their own (arrival, "not started") and never the participant's items (checked below).
PARTICIPANT = {role: no_server_error for role in ROLES} | {"participant": served}

# POST-only researcher views answer 405 to every GET; their POST is checked like SITE below.
POST_ONLY_SITE = {role: status(405) for role in ROLES}

RULES: dict[str, dict[str, Callable]] = {
    "login": PUBLIC,
    "healthz": PUBLIC,  # container and load-balancer probe: "ok" or 503, nothing else
    "favicon": {role: status(200) for role in ROLES},  # the site's icon, for every visitor
    "logout": PUBLIC,  # POST only: 405 to a GET
    "admin:*": ADMIN,
    "admin:login": PUBLIC,
    "admin:logout": PUBLIC,
    # the REST API: researchers only (session or token)
    **{
        f"{name}": API
        for name in (
            "dataset-list",
            "dataset-detail",
            "split-list",
            "split-detail",
            "setup-list",
            "setup-detail",
            "sample-list",
            "sample-detail",
            "rating-list",
            "rating-detail",
            "export-reference",
            "export-ambistory",
            "export-ratings-csv",
            "export-ratings-jsonl",
            "study-list",
            "study-detail",
            "study-close",
            "study-open",
            "study-pause",
            "modelrun-list",
            "modelrun-upload",
            "modelrun-detail",
            "modelrun-cancel",
            "modelrun-retry",
            "prediction-list",
            "prediction-detail",
            "export-run-predictions",
            "export-run-codabench",
            "api-schema",
            "api-docs",
            "wug-words",
            "wug-word",
            "wug-export-uses",
            "wug-export-judgments",
            "wug-export-clusters",
            "wug-export-scores",
        )
    },
    "api/v1/^": {role: status(404) for role in ROLES},  # JSON 404 for unknown API paths
    # researcher pages of the site (session login; a token is not a login here)
    **{
        name: SITE
        for name in (
            "api-site:token",
            "api-site:upload",
            "annotations:setup_list",
            "studies:list",
            "studies:lists_download",
            "studies:create",
            "studies:detail",
            "studies:edit",
            "studies:export",
            "studies:action",
            "studies:toggle",
            "studies:live",
            "studies:adaptive_outlook",
            "studies:close",
            "studies:feedback",
            "studies:sample_texts",
            "studies:reference_texts",
            "studies:remedy",
            "studies:pid_reset",
            "studies:preview",
            "studies:preview_guidelines",
            "studies:preview_qualification",
            "studies:preview_rate",
            "studies:preview_done",
            "wug:list",
            "wug:word",
            "wug:graph",
            "dashboards:agreement",
            "dashboards:agreement_json",
            "dashboards:items",
            "dashboards:setup",
            "dashboards:leaderboard",
            "dashboards:leaderboard_json",
            "dashboards:endings",
            "dashboards:annotators",
            "dashboards:kinds",
            "dashboards:papers",
            "dashboards:chart",
            "prompts:list",
            "prompts:detail",
            "prompts:download",
            "runs:list",
            "runs:start",
            "runs:derive",
            "runs:detail",
            "runs:progress",
            "runs:cancel",
            "runs:retry",
            "runs:train",
            "runs:trained_model",
            "writing:home",
            "writing:pool",
            "writing:pair",
            "writing:sentences",
            "writing:sentence",
            "writing:endings",
            "writing:ending",
            "writing:setups",
            "writing:export",
            "writing:preview",
        )
    },
    "writing:pair_flag": POST_ONLY_SITE,
    **{
        f"writing:{name}": POST_ONLY_SITE
        for name in (
            "sentence_review",
            "sentence_cleanup",
            "sentence_cleanup_accept",
            "sentence_cleanup_reject",
            "precontext_generate",
            "precontext_write",
            "precontext_accept",
            "ending_review",
            "ending_cleanup",
            "ending_cleanup_accept",
            "ending_cleanup_reject",
            "sentence_senses",
            "ending_sense",
            "examples_generate",
            "example_accept",
            "example_reject",
            "examples_missing",
            "pool_add",
            "pool_import",
            "ending_study_create",
            "rating_study_create",
        )
    },
    # the writing pages of a writing study (Figures 2 and 3): like the rating pages
    "write:sentences": PARTICIPANT,
    "write:endings": PARTICIPANT,
    "write:ending_at": PARTICIPANT,  # Figure 3's Back: an ending written before
    "dashboards:rater_exclusion": POST_ONLY_SITE,
    "wug:annotate": POST_ONLY_SITE,
    "wug:crowd_start": POST_ONLY_SITE,
    "wug:crowd_round": POST_ONLY_SITE,
    "wug:crowd_gold": POST_ONLY_SITE,
    "wug:crowd_gold_remove": POST_ONLY_SITE,
    "studies:lists_upload": POST_ONLY_SITE,
    "studies:lists_make": POST_ONLY_SITE,
    "participate:arrive": PUBLIC,
    # the heartbeat of the pages before qualifying (static/js/participant.js): POST only
    "participate:hold": {role: status(405) for role in ROLES},
    **{
        f"participate:{name}": PARTICIPANT
        for name in (
            "consent",
            "welcome",
            "guidelines",
            "qualification",
            "rate_next",
            "rate",
            "done",
            "screened_out",
            "timed_out",
            "closed",
        )
    },
}


# What a POST (empty form) from each visitor without researcher rights gets, by GET rule:
# refused like the GET, so no state changes. Staff POSTs are left out (they change data).
POST_RULES = {id(SITE): SITE, id(POST_ONLY_SITE): SITE, id(API): API, id(ADMIN): ADMIN}


def rule_for(route: Route) -> dict[str, Callable] | None:
    if route.name in RULES:
        return RULES[route.name]
    if route.name.startswith("admin:"):
        return RULES["admin:*"]
    return None


# --- the world --------------------------------------------------------------------------------


def wug_word() -> str:
    """The smallest usage graph of data/wug, imported."""
    from django.core.management import call_command

    from tests.conftest import ROOT

    call_command("import_wug", str(ROOT / "data" / "wug" / "uug" / "Aufkommen"), stdout=StringIO())
    return "Aufkommen"


def role_clients(staff, plain, study) -> tuple[dict[str, Client], object]:
    """A client per role (the participant arrived and qualified, another only arrived) and
    the qualified participant."""
    from studies.models import Participant
    from tests.studies.helpers import pid
    from tests.studies.test_participant_views import arrive, qualify_by_post

    clients = {role: Client() for role in ROLES}
    arrive(clients["participant"], study, pid(1))
    qualify_by_post(clients["participant"], study)
    arrive(clients["other_participant"], study, pid(2))
    clients["non_staff"].force_login(plain)
    clients["staff"].force_login(staff)
    for role, user in (("staff_token", staff), ("non_staff_token", plain)):
        key = Token.objects.create(user=user).key
        clients[role] = Client(HTTP_AUTHORIZATION=f"Token {key}")
    return clients, Participant.objects.get(prolific_pid=pid(1))


def url_values(staff, study, participant) -> dict:
    """A value for each URL parameter that is not a primary key."""
    from annotations.models import Rater, Sample, Setup
    from predictions.prompts import all_prompts
    from tests.writing.helpers import writing_world

    written = writing_world(staff)
    return {
        "pair_pk": written["pair_pk"],
        "sentence_pk": written["sentence_pk"],
        "ending_pk": written["ending_pk"],
        "study_pk": written["sentence_study"].pk,
        "slug": study.slug,
        "participant_pk": participant.pk,
        "sample_pk": Sample.objects.filter(studies=study).first().pk,
        "pos": 0,
        "position": 0,
        "action": "pause",
        "setup_id": Setup.objects.first().pk,
        "rater_id": Rater.objects.first().pk,
        "prompt_id": all_prompts()[0].id,
        "app_label": "annotations",
        "object_id": str(Sample.objects.first().pk),
        "content_type_id": 1,
        "id": str(staff.pk),
        "url": "x",
        "name": wug_word(),
        "gold_pk": 1,  # refused before it is looked up: POST only, researchers only
    }


@pytest.fixture
def world(django_user_model):
    """One object of each kind a URL names, and a client per role."""
    from annotations.importers import ambistory_import, parse_ambistory
    from annotations.models import Dataset, Rating, Sample, Setup, Split
    from dashboards.charts import CHARTS
    from predictions.io.importers import predictions_import
    from predictions.models import TrainedModel
    from tests.studies.helpers import open_study, pid, unrated_setups

    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")
    split = Split.objects.get(dataset__name="ambistory", name="dev")
    lines = [
        f'{{"id": "{k}", "prediction": 3}}'
        for k in split.samples.values_list("dataset_id", flat=True)
    ]
    staff = django_user_model.objects.create_user("staff", password="pw-staff-1", is_staff=True)
    plain = django_user_model.objects.create_user("plain", password="pw-plain-1")
    run = predictions_import(split=split, name="run", lines=lines, created_by=staff)
    trained = TrainedModel.objects.create(name="m", split=split)
    study = open_study(samples=unrated_setups(4))
    clients, participant = role_clients(staff, plain, study)
    pks = {
        "studies": study.pk,
        "runs:trained_model": trained.pk,
        "runs": run.pk,
        "export-run": run.pk,
        "modelrun": run.pk,
        "dataset": Dataset.objects.first().pk,
        "split": split.pk,
        "setup": Setup.objects.first().pk,
        "sample": Sample.objects.first().pk,
        "rating": Rating.objects.filter(sample__split=split).first().pk,
        "prediction": run.predictions.first().pk,
        "study": study.slug,
    }
    return {
        "clients": clients,
        "values": url_values(staff, study, participant),
        "pks": pks,
        "chart": next(iter(CHARTS)),
        "secret": pid(1),
    }


def url_of(route: Route, world) -> str:
    if route.name == "api/v1/^":
        return "/api/v1/no-such-thing/"
    if route.name.startswith("admin:admin/"):  # unnamed admin patterns
        path = route.route.replace("<path:object_id>", world["values"]["object_id"])
        return "/" + path.replace("(?P<url>.*)$", "no-such-page/")
    kwargs = {}
    for param in route.params:
        if param == "pk":
            prefix = next(p for p in world["pks"] if route.name.startswith(p))
            kwargs[param] = world["pks"][prefix]
        elif param == "slug" and route.name == "dashboards:chart":
            kwargs[param] = world["chart"]
        elif param == "format":
            kwargs[param] = "json"
        else:
            kwargs[param] = world["values"][param]
    return reverse(route.name, kwargs=kwargs)


# --- the tests --------------------------------------------------------------------------------


def test_every_url_pattern_has_a_rule():
    missing = [r.name for r in all_routes() if rule_for(r) is None]
    assert not missing, f"URL patterns without a rule in tests/test_access_matrix.py: {missing}"
    named = {r.name for r in all_routes()}
    stale = [name for name in RULES if name != "admin:*" and name not in named]
    assert not stale, f"rules for URLs that no longer exist: {stale}"


def test_every_url_answers_every_visitor_by_its_rule(world):
    failures = []
    requested = 0
    for route in all_routes():
        rule = rule_for(route)
        url = url_of(route, world)
        for role in ROLES:
            response = world["clients"][role].get(url)
            requested += 1
            if not rule[role](response):
                where = _location(response)
                failures.append(f"{role:18} GET {url} -> {response.status_code} {where}")
            elif (
                role not in ("participant", "staff", "staff_token") and response.status_code == 200
            ):
                body = (
                    b"".join(response.streaming_content) if response.streaming else response.content
                )
                if world["secret"].encode() in body:
                    failures.append(f"{role:18} GET {url} shows the participant's Prolific id")
        post_rule = POST_RULES.get(id(rule))
        if post_rule is None or route.name in ("admin:login", "admin:logout"):
            continue
        for role in (*NOT_STAFF, "staff_token"):
            response = world["clients"][role].post(url, {})
            requested += 1
            if not post_rule[role](response):
                where = _location(response)
                failures.append(f"{role:18} POST {url} -> {response.status_code} {where}")
    assert requested >= 7 * 200
    assert not failures, "\n".join(failures)
