"""LLM servers are the operator's named endpoints, never a run's parameters (issue 11).

The reproduction: a staff run of ``openai_chat`` with ``api_key_env=SECRET_KEY`` or
``base_url=http://evil...`` sent the server's secret as a Bearer token to any URL. Now the
API, the site's form and both commands refuse such a run before anything is stored or sent.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.urls import reverse

from ambisite.llm_endpoints import parse_endpoints
from predictions.models import ModelRun
from tests.factories import ambistory_setup
from tests.llm_server import LLMServer, Reply
from tests.predictions.runhelpers import small_split

ROOT = Path(__file__).resolve().parents[2]
EVIL = [
    {"api_key_env": "SECRET_KEY"},
    {"base_url": "EVIL"},  # replaced by the "evil" server's URL
    {"api_key": "sk-stolen"},
]


@pytest.fixture
def split(db):
    return small_split("dev", setups=1)


@pytest.fixture
def api(researcher):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=researcher).key}")
    return client


@pytest.fixture
def servers(settings, monkeypatch):
    """The operator's endpoint "lab" and a server nobody configured ("evil")."""
    monkeypatch.setenv("LAB_KEY", "sk-lab")
    with LLMServer() as lab, LLMServer() as evil:
        lab_endpoint = {"base_url": lab.base_url, "api_key_env": "LAB_KEY", "models": ["tiny"]}
        settings.LLM_ENDPOINTS = parse_endpoints(json.dumps({"lab": lab_endpoint}))
        yield lab, evil


def evil_params(evil, extra: dict) -> dict:
    extra = {k: (evil.base_url if v == "EVIL" else v) for k, v in extra.items()}
    return {"endpoint": "lab", "model": "tiny", **extra}


def nothing_sent(*servers) -> bool:
    return all(not server.requests for server in servers)


@pytest.mark.django_db
@pytest.mark.parametrize("extra", EVIL, ids=lambda e: next(iter(e)))
def test_the_api_refuses_a_url_a_key_or_a_variable_and_names_the_field(api, split, servers, extra):
    lab, evil = servers
    params = evil_params(evil, extra)
    payload = {"backend": "openai_chat", "params": params, "split": split.pk}
    response = api.post("/api/v1/runs/", payload, format="json")
    assert response.status_code == 400
    field = next(iter(extra))
    assert response.json()["params"][0].startswith(f"params.{field}: not allowed")
    assert not ModelRun.objects.exists() and nothing_sent(lab, evil)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "params, problem",
    [
        ({"endpoint": "elsewhere", "model": "tiny"}, "params.endpoint: no LLM endpoint"),
        ({"endpoint": "lab", "model": "gpt-4o"}, "params.model: endpoint 'lab' does not allow"),
        ({"model": "tiny"}, "params.endpoint: openai_chat needs an endpoint"),
    ],
)
def test_the_api_refuses_unknown_endpoints_and_models_not_allowed(
    api, split, servers, params, problem
):
    payload = {"backend": "openai_chat", "params": params, "split": split.pk}
    response = api.post("/api/v1/runs/", payload, format="json")
    assert response.status_code == 400 and response.json()["params"][0].startswith(problem)
    assert not ModelRun.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "extra_body, problem",
    [
        ({"n": 128}, "params.extra_body: extra_body may not set 'n'"),
        ({"best_of": 64}, "params.extra_body: extra_body may not set 'best_of'"),
        ({"max_completion_tokens": 10**9}, "params.extra_body: extra_body 'max_completion_tokens'"),
    ],
)
def test_the_api_refuses_extra_body_outside_the_allowed_list_naming_the_key(
    api, split, servers, extra_body, problem
):
    lab, evil = servers
    params = {"endpoint": "lab", "model": "tiny", "extra_body": extra_body}
    payload = {"backend": "openai_chat", "params": params, "split": split.pk}
    response = api.post("/api/v1/runs/", payload, format="json")
    assert response.status_code == 400
    assert response.json()["params"][0].startswith(problem)
    assert not ModelRun.objects.exists() and nothing_sent(lab, evil)


@pytest.mark.django_db
@pytest.mark.parametrize("extra", EVIL, ids=lambda e: next(iter(e)))
def test_the_run_form_refuses_them_too(researcher_client, split, servers, extra):
    lab, evil = servers
    params = json.dumps(evil_params(evil, extra))
    form = {"run-backend": "openai_chat", "run-split": split.pk, "run-params": params}
    response = researcher_client.post(reverse("runs:start"), form)
    field = next(iter(extra))
    assert response.status_code == 400 and f"params.{field}: not allowed" in response.text
    assert not ModelRun.objects.exists() and nothing_sent(lab, evil)


@pytest.mark.django_db
@pytest.mark.parametrize("extra", EVIL, ids=lambda e: next(iter(e)))
def test_the_predict_and_run_model_commands_refuse_them(tmp_path, split, servers, extra):
    lab, evil = servers
    source = tmp_path / "in.json"
    source.write_text(json.dumps(ambistory_setup(0)))
    params = json.dumps(evil_params(evil, extra))
    field = next(iter(extra))
    output = str(tmp_path / "out.jsonl")
    predict = ["--backend", "openai_chat", "--input", str(source), "--output", output]
    with pytest.raises(CommandError, match=f"params.{field}: not allowed"):
        call_command("predict", *predict, "--params", params)
    with pytest.raises(CommandError, match=f"params.{field}: not allowed"):
        call_command("run_model", "--backend", "openai_chat", "--split", "dev", "--params", params)
    assert not (tmp_path / "out.jsonl").exists()
    assert not ModelRun.objects.exists() and nothing_sent(lab, evil)


@pytest.mark.django_db
def test_a_configured_endpoint_gets_its_own_key_and_a_failure_stores_a_short_message(
    split, servers, caplog
):
    from predictions.runs.services import run_create
    from predictions.runs.worker import run_execute

    lab, evil = servers
    body = json.dumps({"error": {"message": "model overloaded: sk-lab\n" + "x" * 5000}})
    lab.responder = lambda request: Reply(status=400, raw_body=body)
    params = {"endpoint": "lab", "model": "tiny", "max_retries": 0}
    run = run_create(name="r", backend="openai_chat", params=params, split=split, enqueue=False)

    run = run_execute(run.pk)

    assert run.status == "failed"
    assert run.error == "LLMRequestError: endpoint 'lab': HTTP 400: model overloaded: [key]"
    assert lab.requests[0].headers["Authorization"] == "Bearer sk-lab" and nothing_sent(evil)
    assert "Traceback" in caplog.text  # the traceback goes to the log, never to run.error
    assert "sk-lab" not in json.dumps(run.params) + run.error + run.model_version


@pytest.mark.django_db
def test_the_api_never_returns_a_key(api, split, servers):
    """Old runs that stored a key lose it in migration 0004; a new run cannot store one."""
    params = {"endpoint": "lab", "model": "tiny"}
    run = ModelRun.objects.create(
        name="old", backend="openai_chat", split=split, total=1, params=params
    )
    assert "sk-" not in api.get(f"/api/v1/runs/{run.pk}/").text


KEYED = '{"a": {"base_url": "http://x/v1", "models": ["*"], "api_key_env": "VAR"}}'


@pytest.mark.parametrize(
    "raw, problem",
    [
        ("not json", "not valid JSON"),
        ('["a"]', "must be a JSON object"),
        ('{"a": {"base_url": "http://x/v1", "models": ["*"]}, "a": {}}', "duplicate key 'a'"),
        ('{"Bad Name": {"base_url": "http://x/v1", "models": ["*"]}}', "a name is 1-50"),
        ('{"a": {"base_url": "ftp://x/v1", "models": ["*"]}}', "base_url must be an http(s) URL"),
        ('{"a": {"base_url": "http://u:p@x/v1", "models": ["*"]}}', "no user, password"),
        ('{"a": {"base_url": "http://x/v1", "models": []}}', "models must be a non-empty list"),
        ('{"a": {"base_url": "http://x/v1", "models": ["*"], "key": "sk"}}', "unknown field"),
        (KEYED.replace("VAR", "SECRET_KEY"), "may not name the site's own SECRET_KEY"),
        (KEYED.replace("VAR", "lower"), "must be an environment variable name"),
    ],
)
def test_the_setting_is_parsed_strictly(raw, problem):
    with pytest.raises(ImproperlyConfigured, match=re.escape(problem)):
        parse_endpoints(raw)


def test_the_setting_keeps_what_a_backend_needs():
    parsed = parse_endpoints(
        '{"openai": {"base_url": "https://api.openai.com/v1/", "api_key_env": "OPENAI_API_KEY",'
        ' "models": ["gpt-4o"]},'
        ' "local": {"base_url": "http://127.0.0.1:11434/v1", "models": ["*"]}}'
    )
    assert parsed["openai"] == {
        "base_url": "https://api.openai.com/v1",
        "api_key_env": "OPENAI_API_KEY",
        "models": ("gpt-4o",),
    }
    assert parsed["local"] == {
        "base_url": "http://127.0.0.1:11434/v1",
        "api_key_env": "",
        "models": ("*",),
    }


def test_the_example_in_env_example_parses():
    lines = (ROOT / ".env.example").read_text().splitlines()
    [line] = [line for line in lines if line.startswith("# LLM_ENDPOINTS=")]
    parsed = parse_endpoints(line.split("=", 1)[1].strip("'"))
    assert parsed["openai"]["api_key_env"] == "OPENAI_API_KEY"


@pytest.mark.django_db
def test_the_runs_page_names_the_endpoints_a_run_may_use(researcher_client, settings):
    settings.LLM_ENDPOINTS = parse_endpoints(
        '{"lab": {"base_url": "http://10.0.0.5:8000/v1", "api_key_env": "LAB_KEY",'
        ' "models": ["tiny", "small"]}, "local": {"base_url": "http://127.0.0.1:1/v1",'
        ' "models": ["*"]}}'
    )
    page = researcher_client.get(reverse("runs:list")).content.decode()
    assert "lab: tiny, small; local: any model" in page
    assert "10.0.0.5" not in page and "LAB_KEY" not in page  # names only, never where or how
    settings.LLM_ENDPOINTS = {}
    assert "No LLM endpoints are configured" in researcher_client.get(reverse("runs:list")).text


@pytest.mark.django_db
def test_predict_stops_with_the_short_message_when_the_server_refuses(tmp_path, servers):
    lab, _ = servers
    lab.responder = lambda request: Reply(status=401, raw_body='{"error": {"message": "bad key"}}')
    source = tmp_path / "in.json"
    source.write_text(json.dumps(ambistory_setup(0)))
    output = tmp_path / "out.jsonl"
    params = json.dumps({"endpoint": "lab", "model": "tiny"})
    args = ["--backend", "openai_chat", "--input", str(source), "--output", str(output)]
    with pytest.raises(CommandError) as stopped:
        call_command("predict", *args, "--params", params, "-v", "0")
    assert str(stopped.value) == "LLMRequestError: endpoint 'lab': HTTP 401: bad key"
    assert not output.exists()


@pytest.mark.django_db
def test_the_migration_removes_keys_that_older_runs_stored(split):
    import importlib

    from django.apps import apps

    migration = importlib.import_module("predictions.migrations.0004_remove_stored_api_keys")
    params = {"model": "m", "api_key": "sk-old", "base_url": "http://x/v1"}
    old = ModelRun.objects.create(
        name="old", backend="openai_chat", split=split, total=1, params=params
    )
    migration.remove_api_keys(apps, None)
    old.refresh_from_db()
    assert old.params == {"model": "m", "base_url": "http://x/v1"}
