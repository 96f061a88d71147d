"""Property-based tests (hypothesis) on every parser of outside input: AmbiStory import,
predictions upload (API and site), ``score``, the rating form, the study form and a study's
list file.

Random and mutated inputs must give the documented error type (``CommandError``, a 400/413
answer, an invalid form), never another exception or a 5xx, and a refused input writes
nothing (row counts unchanged). Examples are few and derandomized so the suite stays fast
and CI stable.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from annotations.models import Rating, Sample, Setup, Split
from predictions.models import ModelRun, Prediction
from studies.list_design import ListFileError, SampleRef, parse_lists, resolve_lists
from studies.models import Study
from tests.factories import ambistory_setup

pytestmark = [pytest.mark.property, pytest.mark.django_db]

FAST = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)

BAD_NUMBERS = ["1" + "0" * 400, "9" * 5000, "1e400", "-1e400", "NaN", "Infinity", "1e-400", "-0"]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
# raw JSON text of a value: mostly well-formed JSON, sometimes a number JSON should not hold
raw_values = st.one_of(
    json_values.map(json.dumps),
    st.sampled_from(BAD_NUMBERS),
    st.sampled_from(['"\\u0000"', "[" * 2000 + "]" * 2000, '{"a": 1, "a": 2}']),
)


def counts() -> tuple[int, ...]:
    return tuple(
        m.objects.count() for m in (ModelRun, Prediction, Sample, Split, Setup, Rating, Study)
    )


@st.composite
def mutated_bytes(draw, good: bytes) -> bytes:
    """A good file, then cut, spliced with random bytes, or left whole."""
    how = draw(st.sampled_from(["whole", "cut", "splice", "random", "latin1"]))
    if how == "cut":
        return good[: draw(st.integers(0, len(good)))]
    if how == "splice":
        at = draw(st.integers(0, len(good)))
        return good[:at] + draw(st.binary(max_size=12)) + good[at:]
    if how == "random":
        return draw(st.binary(max_size=200))
    if how == "latin1":
        return good.replace(b"a", b"\xe4", 1)
    return good


# --- AmbiStory import -------------------------------------------------------------------------

SAMPLES = ambistory_setup(0)
FIELDS = list(SAMPLES["0"])


@st.composite
def ambistory_files(draw) -> bytes:
    samples = {sid: dict(raw) for sid, raw in list(SAMPLES.items())[:2]}
    kind = draw(st.sampled_from(["field", "raw", "bytes", "keys"]))
    if kind == "field":  # one field of one sample becomes a random value or bad number
        sid = draw(st.sampled_from(list(samples)))
        field = draw(st.sampled_from(FIELDS))
        text = json.dumps(samples)
        marker = json.dumps({field: samples[sid][field]})[1:-1]
        replaced = f'"{field}": {draw(raw_values)}'
        return text.replace(marker, replaced, 1).encode()
    if kind == "raw":  # a whole document of random JSON
        return draw(raw_values).encode()
    if kind == "keys":  # random sample ids, or the same id twice
        sid = draw(st.text(max_size=6))
        body = json.dumps(SAMPLES["0"])
        return f'{{"{json.dumps(sid)[1:-1]}": {body}, "{json.dumps(sid)[1:-1]}": {body}}}'.encode()
    return draw(mutated_bytes(json.dumps(samples).encode()))


@FAST
@given(content=ambistory_files())
def test_import_ambistory_refuses_or_imports_whole(content):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "in.json"
        path.write_bytes(content)
        before = counts()
        try:
            call_command("import_ambistory", str(path), "--split", "fuzz")
        except CommandError as error:
            assert "nothing was imported" in str(error)
            assert counts() == before


# --- predictions upload, import and score ----------------------------------------------------


@st.composite
def prediction_files(draw, ids: list[str]) -> bytes:
    lines = [json.dumps({"id": key, "prediction": 3.5}) for key in ids]
    kind = draw(st.sampled_from(["value", "line", "bytes", "id"]))
    at = draw(st.integers(0, len(lines) - 1))
    if kind == "value":
        lines[at] = f'{{"id": "{ids[at]}", "prediction": {draw(raw_values)}}}'
    elif kind == "line":
        lines[at] = draw(raw_values)
    elif kind == "id":
        lines[at] = f'{{"id": {draw(raw_values)}, "prediction": 2}}'
    else:
        return draw(mutated_bytes("\n".join(lines).encode()))
    return "\n".join(lines).encode()


@pytest.fixture
def split(db):
    from annotations.importers import ambistory_import, parse_ambistory

    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")
    return Split.objects.get(name="dev")


def _ids(split) -> list[str]:
    return list(split.samples.order_by("position").values_list("dataset_id", flat=True))


@pytest.fixture
def token_client(researcher):
    from rest_framework.authtoken.models import Token

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=researcher).key}")
    return client


@FAST
@given(data=st.data())
def test_both_upload_endpoints_answer_201_or_a_clear_4xx(
    data, split, token_client, researcher_client
):
    content = data.draw(prediction_files(_ids(split)))
    for post in (
        lambda f: token_client.post(
            "/api/v1/runs/upload/", {"split": split.pk, "name": "f", "file": f}, format="multipart"
        ),
        lambda f: researcher_client.post(
            "/api/upload/", {"split": split.pk, "name": "f", "file": f}
        ),
    ):
        before = counts()
        response = post(SimpleUploadedFile("p.jsonl", content))
        assert response.status_code in (201, 302, 400, 413), response.content[:300]
        if response.status_code >= 400:
            assert counts() == before


@FAST
@given(data=st.data())
def test_score_and_import_predictions_raise_only_command_error(data, split):
    ids = _ids(split)
    predictions = data.draw(prediction_files(ids))
    reference = "\n".join(json.dumps({"id": k, "label": [3, 4, 5]}) for k in ids).encode()
    if data.draw(st.booleans()):  # fuzz the reference instead
        reference, predictions = (
            data.draw(mutated_bytes(reference)),
            predictions.replace(b"3.5", b"3"),
        )
    with tempfile.TemporaryDirectory() as folder:
        ref, pred, out = (Path(folder) / name for name in ("r.jsonl", "p.jsonl", "s.json"))
        ref.write_bytes(reference)
        pred.write_bytes(predictions)
        try:
            call_command("score", str(ref), str(pred), str(out))
        except CommandError:
            assert not out.exists()
        before = counts()
        try:
            call_command("import_predictions", str(pred), "--split", "dev")
        except CommandError as error:
            assert "nothing was imported" in str(error)
            assert counts() == before


# --- the rating form (through the participant's rating page) ---------------------------------

form_values = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        ["1", "5", "0", "6", "-1", "3.0", "9" * 40, "true", "on", "", "9999-12-31T23:59:59"]
    ),
    st.sampled_from(["0001-01-01 00:00", "2026-01-01T00:00:00+14:00", "\x00", "=cmd"]),
)


@pytest.fixture
def rating_participant(client):
    from tests.studies.helpers import open_study, pid
    from tests.studies.test_participant_views import arrive, qualify_by_post

    study = open_study(checks=0)
    arrive(client, study, pid(1))
    qualify_by_post(client, study)
    return client, study


@FAST
@given(
    fields=st.dictionaries(
        st.sampled_from(["score", "nonsensical", "comment", "shown_at"]), form_values
    )
)
def test_the_rating_form_never_fails_and_an_invalid_answer_writes_nothing(
    fields, rating_participant
):
    from studies.forms import RatingForm

    client, study = rating_participant
    valid = RatingForm(fields).is_valid()
    before = counts()
    response = client.post(f"/s/{study.slug}/rate/0/", fields)
    assert response.status_code < 500
    if not valid:
        assert counts() == before


# --- the study form (through the researcher's "new study" page) ------------------------------

STUDY_FIELDS = {
    "title": "Pilot",
    "slug": "pilot",
    "ratings_per_sample": "5",
    "samples_per_participant": "4",
    "attention_checks_per_batch": "1",
    "time_limit_minutes": "45",
    "completion_code": "C0MPLETE",
    "screenout_code": "SCREEN00",
    "prolific_completion_url": "https://app.prolific.com/submissions/complete?cc={code}",
    "guidelines": "Rate.",
    "endings": "with",
    "homonyms": "",
}
study_values = st.one_of(
    form_values,
    st.sampled_from(["2147483647", "2147483648", "32768", "-5", "1e3", "(", "[a-", "{code}"]),
    st.integers().map(str),
)


@FAST
@given(
    changes=st.dictionaries(
        st.sampled_from(
            [
                *STUDY_FIELDS,
                "limit",
                "qualification_minutes",
                "max_unqualified",
                "pid_pattern",
                "prolific_study_id",
            ]
        ),
        study_values,
        max_size=4,
    )
)
def test_the_study_form_never_fails_and_a_refused_study_writes_nothing(
    changes, split, researcher_client
):
    data = {**STUDY_FIELDS, "split": str(split.pk), **changes}
    before = counts()
    response = researcher_client.post("/studies/new/", data)
    assert response.status_code in (200, 302, 400), response.status_code
    if response.status_code != 302:
        assert counts() == before
    else:
        Study.objects.all().delete()  # the slug is free again for the next example


# --- a study's list file (studies.list_design) --------------------------------------------

LIST_REFS = {str(i): [SampleRef(i, i // 2)] for i in range(12)}
GOOD_LISTS = ["0,2,4\n1,3\n", "[[0, 2, 4],\n [1, 3]]", '{"lists": [\n[5, 7],\n["9"]]}']


@st.composite
def list_files(draw) -> tuple[str, str]:
    kind = draw(st.sampled_from(["mutated", "json", "text"]))
    if kind == "json":
        return draw(raw_values), "lists.json"
    if kind == "text":
        return draw(st.text(max_size=120)), draw(st.sampled_from(["l.csv", "l.json", ""]))
    good = draw(st.sampled_from(GOOD_LISTS))
    content = draw(mutated_bytes(good.encode())).decode("utf-8", "replace")
    return content, draw(st.sampled_from(["l.csv", "l.json", ""]))


@FAST
@given(file=list_files())
def test_a_list_file_gives_lists_of_study_samples_or_an_error_naming_its_line(file):
    text, name = file
    try:
        found = resolve_lists(parse_lists(text, name), LIST_REFS)
    except ListFileError as exc:
        assert exc.line >= 0 and (str(exc).startswith(f"line {exc.line}: ") or exc.line == 0)
        return
    assert found and all(found)
    for items in found:  # study samples, none twice, one per setup
        assert set(items) <= set(range(12)) and len({i // 2 for i in items}) == len(items)
