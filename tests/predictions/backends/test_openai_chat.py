"""The OpenAI-compatible backend against a real local HTTP server (tests/llm_server.py)."""

from __future__ import annotations

import json
import math

import pytest

from ambisite.llm_endpoints import parse_endpoints
from predictions.backends import ParamError, get_backend
from predictions.backends.openai_chat import (
    UNPARSED,
    LLMRequestError,
    OpenAIChatBackend,
    PredictionFailed,
    parse_retry_after,
)
from predictions.prompts import get_prompt, render
from tests.factories import ambistory_setup
from tests.llm_server import LLMServer, Reply


def samples(n: int = 6, first_id: int = 0) -> list[dict]:
    setup = ambistory_setup(first_id)
    return [
        {key: value for key, value in dict(s, id=sid).items() if key in FIELDS}
        for sid, s in list(setup.items())[:n]
    ]


FIELDS = {"id", "homonym", "judged_meaning", "example_sentence", "precontext", "sentence", "ending"}


@pytest.fixture
def server(settings):
    """The test server as the operator's endpoints: "test" (no key, any model) and "keyed"
    (key in $TEST_LLM_KEY, models "tiny" and "small" only)."""
    with LLMServer() as running:
        settings.LLM_ENDPOINTS = parse_endpoints(
            json.dumps(
                {
                    "test": {"base_url": running.base_url, "models": ["*"]},
                    "keyed": {
                        "base_url": running.base_url + "/",
                        "api_key_env": "TEST_LLM_KEY",
                        "models": ["tiny", "small"],
                    },
                }
            )
        )
        yield running


def backend(server, **params) -> OpenAIChatBackend:
    defaults = {"endpoint": "test", "model": "tiny", "backoff_base": 0.01}
    return get_backend("openai_chat", **{**defaults, **params})


def test_it_sends_the_rendered_prompt_at_temperature_zero_and_parses_the_answer(
    server, monkeypatch
):
    monkeypatch.setenv("TEST_LLM_KEY", "sk-test-key")
    server.script(Reply.text("Score: 2"))
    chat = backend(server, endpoint="keyed", prompt="ambistory-b3-4shot-v1")
    batch = samples(1)

    [out] = chat.predict_batch(batch)

    assert out.score == 2.0 and out.raw_output == "Score: 2" and out.distribution is None
    [request] = server.requests
    assert request.body["model"] == "tiny"
    assert request.body["temperature"] == 0
    assert request.body["messages"] == render(get_prompt("ambistory-b3-4shot-v1"), batch[0])
    assert "logprobs" not in request.body and "top_logprobs" not in request.body
    assert request.body["max_tokens"] == 16
    assert request.headers["Authorization"] == "Bearer sk-test-key"
    assert chat.prompt_version == "ambistory-b3-4shot-v1"
    assert chat.model_version() == "served-tiny via keyed"


def test_it_uses_the_expected_value_over_1_to_5_when_the_server_returns_logprobs(server):
    probs = {"4": 0.6, "3": 0.2, " 4": 0.1, "5": 0.05, "Sure": 0.05}
    server.script(Reply.with_logprobs(probs, prefix_tokens=("**",), content="**4**"))
    chat = backend(server, logprobs=True, top_logprobs=7)

    [out] = chat.predict_batch(samples(1))

    mass = {3: 0.2, 4: 0.7, 5: 0.05}
    expected = sum(score * p for score, p in mass.items()) / sum(mass.values())
    assert out.score == pytest.approx(expected)
    assert out.distribution == pytest.approx([0, 0, 0.2 / 0.95, 0.7 / 0.95, 0.05 / 0.95])
    assert math.isclose(sum(out.distribution), 1.0)
    body = server.requests[0].body
    assert body["logprobs"] is True and body["top_logprobs"] == 7


def test_it_falls_back_to_the_parsed_answer_when_the_server_ignores_logprobs(server):
    server.script(Reply.text("I'd say 3."))
    [out] = backend(server, logprobs=True).predict_batch(samples(1))
    assert out.score == 3.0 and out.distribution is None


@pytest.mark.parametrize(
    ("prefix", "content"),
    [
        ("I cannot rate this on a scale of ", "I cannot rate this on a scale of 1 to 5."),
        ("Somewhere between ", "Somewhere between 3 and 4."),
    ],
)
def test_with_logprobs_an_answer_without_one_score_is_reasked_not_scored(server, prefix, content):
    """A digit token inside a refusal or a range is no answer: its log-probabilities must
    not become a score (the text alone is re-asked, and so must it be with logprobs)."""
    probs = {"1": 0.5, "3": 0.3, "4": 0.2}
    server.script(
        Reply.with_logprobs(probs, prefix_tokens=(prefix,), content=content),
        Reply.with_logprobs({"2": 0.8, "3": 0.2}, content="2"),
    )

    [out] = backend(server, logprobs=True).predict_batch(samples(1))

    assert len(server.requests) == 2  # re-asked
    assert out.score == pytest.approx(2 * 0.8 + 3 * 0.2)
    assert out.raw_output == f"{content}\n---\n2"


def test_with_logprobs_the_expected_value_is_read_at_the_token_of_the_parsed_score(server):
    """ "Scale 1-5: 4" parses as 4; the expected value comes from the "4", not the "1"."""
    probs = {"4": 0.6, "5": 0.4}
    server.script(Reply.with_logprobs(probs, prefix_tokens=("1", "-5: "), content="1-5: 4"))
    [out] = backend(server, logprobs=True).predict_batch(samples(1))
    assert out.score == pytest.approx(4 * 0.6 + 5 * 0.4)


def test_it_retries_429s_honouring_retry_after_then_succeeds(server):
    server.script(Reply.rate_limited(retry_after="1"), Reply.rate_limited(), Reply.text("5"))
    [out] = backend(server, backoff_base=0.05).predict_batch(samples(1))

    assert out.score == 5.0
    first, second, third = (r.at for r in server.requests)
    assert second - first >= 0.95  # waited as long as Retry-After said
    assert 0.02 <= third - second < 0.9  # then exponential backoff from backoff_base


def test_it_gives_up_after_max_retries_on_5xx(server):
    server.script(*[Reply.server_error(503)] * 5)
    with pytest.raises(LLMRequestError, match="gave up after 3 attempts"):
        backend(server, max_retries=2).predict_batch(samples(1))
    assert len(server.requests) == 3


def test_it_recovers_from_a_500_and_a_malformed_body(server):
    server.script(Reply.server_error(500), Reply(raw_body="<html>oops"), Reply.text("1"))
    [out] = backend(server).predict_batch(samples(1))
    assert out.score == 1.0 and len(server.requests) == 3


def test_it_retries_an_answer_cut_short_by_the_connection(server):
    """A body shorter than its Content-Length (the endpoint or a proxy dropped the
    connection) raised http.client.IncompleteRead past the retries and failed the run."""
    server.script(Reply(cut_short=True), Reply.text("2"))
    [out] = backend(server, backoff_base=0.01).predict_batch(samples(1))
    assert out.score == 2.0 and len(server.requests) == 2


def test_it_does_not_retry_a_client_error(server):
    server.script(Reply(status=401, raw_body='{"error": "bad key"}'))
    with pytest.raises(LLMRequestError, match="HTTP 401"):
        backend(server).predict_batch(samples(1))
    assert len(server.requests) == 1


def test_it_reasks_once_after_a_malformed_answer(server):
    server.script(Reply.text("Hmm, hard to say."), Reply.text("4"))
    chat = backend(server)
    [out] = chat.predict_batch(samples(1))

    assert out.score == 4.0
    assert out.raw_output == "Hmm, hard to say.\n---\n4"
    reask = server.requests[1].body["messages"]
    assert reask[-2] == {"role": "assistant", "content": "Hmm, hard to say."}
    assert reask[-1]["role"] == "user" and "Return only the numbered score" in reask[-1]["content"]


def test_it_records_a_failure_with_the_raw_text_after_a_second_malformed_answer(server):
    server.script(Reply.text("no idea"), Reply.text("between 3 and 4"))
    chat = backend(server, fallback_score=3.5)
    [out] = chat.predict_batch(samples(1))

    assert out.score == 3.5
    assert out.raw_output == UNPARSED + "no idea\n---\nbetween 3 and 4"
    assert chat.failures == 1 and len(server.requests) == 2


def test_it_can_raise_on_an_unparseable_answer(server):
    server.script(Reply.text("no idea"), Reply.text("still no idea"))
    with pytest.raises(PredictionFailed) as failed:
        backend(server, on_failure="raise").predict_batch(samples(1))
    assert "still no idea" in failed.value.raw_output


def test_it_keeps_at_most_max_concurrency_requests_in_flight(server):
    server.delay = 0.15
    batch = samples(6) + samples(6, first_id=6)
    outs = backend(server, max_concurrency=3).predict_batch(batch)

    assert [o.score for o in outs] == [4.0] * 12
    assert server.max_in_flight == 3
    assert len(server.requests) == 12


def test_it_returns_scores_in_sample_order_whatever_the_answer_order(server):
    def by_meaning(body):
        text = body["messages"][-1]["content"]
        river = "sloping land" in text
        return Reply.text("1" if river else "5", delay=0.1 if not river else 0.0)

    server.responder = by_meaning
    batch = samples(6)
    outs = backend(server, max_concurrency=6).predict_batch(batch)
    expected = [1.0 if "sloping" in s["judged_meaning"] else 5.0 for s in batch]
    assert [o.score for o in outs] == expected


def test_the_comparative_prompt_scores_both_senses_of_a_story_in_one_call(server):
    server.responder = lambda body: Reply.text('Here you go: {"A": 5, "B": 2}')
    chat = backend(server, prompt="ambistory-comparative-v1")
    batch = samples(6)
    reordered = [batch[1], batch[0], *batch[2:]]

    outs = chat.predict_batch(reordered)

    assert chat.needs_whole_stories is True
    assert len(server.requests) == 3  # three stories, two senses each
    by_id = {s["id"]: o.score for s, o in zip(reordered, outs)}
    assert by_id == {"0": 5.0, "1": 2.0, "2": 5.0, "3": 2.0, "4": 5.0, "5": 2.0}
    sent = [request.body["messages"] for request in server.requests]
    assert render(get_prompt("ambistory-comparative-v1"), batch[0], batch[1]) in sent


def test_the_comparative_prompt_scores_a_lone_sense_with_the_single_sample_prompt(server):
    server.script(Reply.text("3"))
    chat = backend(server, prompt="ambistory-comparative-v1")
    [out] = chat.predict_batch(samples(1))
    assert out.score == 3.0
    assert server.requests[0].body["messages"] == render(
        get_prompt("ambistory-b3-zeroshot-v1"), samples(1)[0]
    )


def test_the_comparative_prompt_reasks_and_then_records_a_failure_for_both(server):
    server.script(Reply.text('{"A": 9}'), Reply.text("A is likely"))
    outs = backend(server, prompt="ambistory-comparative-v1").predict_batch(samples(2))
    assert all(o.raw_output.startswith(UNPARSED) for o in outs)
    assert len(server.requests) == 2


def test_it_sends_no_authorization_header_when_the_endpoint_has_no_key(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")  # no longer read: the endpoint decides
    backend(server).predict_batch(samples(1))
    assert "Authorization" not in server.requests[0].headers


def test_it_fails_with_a_clear_message_when_the_key_variable_is_unset(server, monkeypatch):
    monkeypatch.delenv("TEST_LLM_KEY", raising=False)
    with pytest.raises(LLMRequestError, match="key variable TEST_LLM_KEY is not set"):
        backend(server, endpoint="keyed").predict_batch(samples(1))
    assert server.requests == []


def test_extra_body_is_merged_and_a_null_max_tokens_is_left_out(server):
    chat = backend(server, max_tokens=None, extra_body={"max_completion_tokens": 32})
    chat.predict_batch(samples(1))
    body = server.requests[0].body
    assert "max_tokens" not in body and body["max_completion_tokens"] == 32
    assert backend(server, max_concurrency=8).batch_size == 32


def test_it_needs_a_model_the_endpoint_allows(server):
    with pytest.raises(ParamError, match="params.model: openai_chat needs a model"):
        get_backend("openai_chat", endpoint="test")
    with pytest.raises(ParamError, match="params.model: endpoint 'keyed' does not allow"):
        get_backend("openai_chat", endpoint="keyed", model="gpt-4o")
    assert get_backend("openai_chat", endpoint="keyed", model="small").model == "small"


def test_it_needs_a_configured_endpoint(server, settings):
    with pytest.raises(ParamError, match=r"params.endpoint: .*configured: keyed, test"):
        get_backend("openai_chat", model="tiny")
    with pytest.raises(ParamError, match="no LLM endpoint 'elsewhere'"):
        get_backend("openai_chat", endpoint="elsewhere", model="tiny")
    settings.LLM_ENDPOINTS = {}
    with pytest.raises(ParamError, match="the operator sets LLM_ENDPOINTS"):
        get_backend("openai_chat", endpoint="test", model="tiny")


@pytest.mark.parametrize(
    "field, value",
    [("base_url", "http://evil.example/v1"), ("api_key_env", "SECRET_KEY"), ("api_key", "sk-x")],
)
def test_it_refuses_a_url_a_key_or_a_variable_name_in_the_params(server, field, value):
    with pytest.raises(ParamError, match=f"params.{field}: not allowed"):
        backend(server, **{field: value})
    assert server.requests == []


def test_extra_body_cannot_swap_the_model_or_the_messages(server):
    for key in ("model", "messages"):
        with pytest.raises(ParamError, match="params.extra_body"):
            backend(server, endpoint="keyed", extra_body={key: "gpt-4o"})


def test_a_client_error_keeps_the_status_and_the_first_line_only_with_the_key_masked(
    server, monkeypatch
):
    monkeypatch.setenv("TEST_LLM_KEY", "sk-live-123")
    body = '{"error": {"message": "Incorrect API key provided: sk-live-123\\nmore detail"}}'
    server.script(Reply(status=401, raw_body=body))
    with pytest.raises(LLMRequestError) as failed:
        backend(server, endpoint="keyed").predict_batch(samples(1))
    assert str(failed.value) == ("endpoint 'keyed': HTTP 401: Incorrect API key provided: [key]")


def test_a_redirect_is_not_followed_so_the_key_goes_nowhere_else(server, monkeypatch):
    monkeypatch.setenv("TEST_LLM_KEY", "sk-live-123")
    with LLMServer() as elsewhere:
        server.script(Reply(status=307, headers={"Location": elsewhere.base_url}, raw_body=""))
        with pytest.raises(LLMRequestError, match="HTTP 307"):
            backend(server, endpoint="keyed").predict_batch(samples(1))
        assert elsewhere.requests == []


def test_retry_after_accepts_seconds_and_http_dates():
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_a_timeout_is_retried(server):
    server.script(Reply.text("4", delay=3.0), Reply.text("2"))
    [out] = backend(server, timeout=1.0).predict_batch(samples(1))
    assert out.score == 2.0 and len(server.requests) == 2


@pytest.mark.django_db
def test_a_model_run_over_a_split_stores_scores_raw_answers_and_the_prompt_version(server):
    from annotations.importers import ambistory_import, parse_ambistory
    from annotations.models import Split
    from predictions.models import ModelRun
    from predictions.runs.services import run_create
    from predictions.runs.worker import run_execute

    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")
    server.responder = lambda body: Reply.text('{"A": 4, "B": 2}')
    params = {"endpoint": "test", "model": "tiny", "prompt": "ambistory-comparative-v1"}
    run = run_create(
        name="cmp", backend="openai_chat", params=params, split=Split.objects.get(name="dev")
    )

    run = run_execute(run.pk)

    assert run.status == ModelRun.Status.SUCCEEDED, run.error
    assert run.prompt_version == "ambistory-comparative-v1"
    assert run.model_version == "tiny via test"  # recorded before any request
    scores = dict(run.predictions.values_list("sample__dataset_id", "score"))
    assert scores == {"0": 4.0, "1": 2.0, "2": 4.0, "3": 2.0, "4": 4.0, "5": 2.0}
    assert set(run.predictions.values_list("raw_output", flat=True)) == {'{"A": 4, "B": 2}'}
    assert len(server.requests) == 3
    assert run.scores["total"] == 6


@pytest.mark.parametrize(
    "field, value",
    [
        ("prompt", "no-such-prompt"),
        ("fallback_prompt", "no-such-prompt"),
        ("max_concurrency", 10**9),
        ("max_concurrency", "many"),
        ("timeout", "nan"),
        ("max_retries", -1),
        ("top_logprobs", None),
        ("temperature", 9),
        ("fallback_score", 0),
        ("extra_body", [1]),
        ("on_failure", "explode"),
    ],
)
def test_a_bad_parameter_value_is_refused_naming_the_field(server, field, value):
    with pytest.raises(ParamError, match=f"^params.{field}: "):
        backend(server, **{field: value})
