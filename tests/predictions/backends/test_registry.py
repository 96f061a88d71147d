"""Every backend takes explicit keyword parameters: a misspelt one is refused when the run is
created, naming the field, instead of being accepted and ignored."""

import pytest

from predictions.backends import ParamError, UnknownBackend, get_backend
from predictions.errors import PredictionsError
from predictions.runs.services import run_create
from tests.predictions.runhelpers import small_split


@pytest.mark.parametrize(
    "backend, params",
    [
        ("random", {"sede": 1}),
        ("constant", {"tuned": True}),
        ("embedding", {"maping": "band"}),
        ("hf_causal", {"model_path": "/nowhere", "temprature": 0}),
        ("openai_chat", {"endpoint": "local", "model": "m", "temprature": 0}),
        ("sense_choice_chat", {"endpoint": "local", "model": "m", "temprature": 0}),
    ],
)
def test_a_misspelt_parameter_is_refused_naming_it(backend, params):
    typo = next(k for k in params if k not in ("model_path", "endpoint", "model"))
    with pytest.raises(ParamError, match=rf"^params\.{typo}: {backend} has no such parameter"):
        get_backend(backend, **params)


@pytest.mark.django_db
def test_run_creation_refuses_the_typo_and_stores_nothing():
    split = small_split()
    with pytest.raises(ParamError, match=r"params\.sede"):
        run_create(name="", backend="random", params={"sede": 1}, split=split, enqueue=False)
    from predictions.models import ModelRun

    assert not ModelRun.objects.exists()


def test_unknown_backends_and_wrong_types_belong_to_the_app_error_family():
    with pytest.raises(UnknownBackend) as caught:
        get_backend("no-such-backend")
    assert isinstance(caught.value, PredictionsError)
    with pytest.raises(PredictionsError, match="wrong type"):
        get_backend("random", seed=None, low=None)


@pytest.mark.parametrize(
    "field, value",
    [("logprobs", True), ("top_logprobs", 3), ("fallback_score", 2), ("fallback_prompt", "x")],
)
def test_sense_choice_chat_refuses_the_chat_parameters_it_does_not_use(settings, field, value):
    """Its answers are parsed as a candidate (no log-probabilities, no comparative prompt)
    and a sample with no choice scores -1: these would be accepted and ignored."""
    settings.LLM_ENDPOINTS = {
        "local": {"base_url": "http://127.0.0.1:9", "api_key_env": "", "models": ["*"]}
    }
    with pytest.raises(ParamError, match=rf"^params\.{field}: sense_choice_chat does not use"):
        get_backend("sense_choice_chat", endpoint="local", model="m", **{field: value})
