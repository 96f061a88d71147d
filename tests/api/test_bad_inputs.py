"""Regression tests for every bad input of issue 11: each answers a clear 4xx or
``CommandError`` naming the line, id or field, and writes nothing."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from annotations.models import Rating, Sample, Split
from annotations.rating_exports import spreadsheet_safe
from annotations.safe_input import InputError, TooLarge, iter_lines, loads
from predictions.models import ModelRun, Prediction
from studies.models import TIME_LIMIT_MAX_MINUTES, Study
from tests.factories import ambistory_setup

pytestmark = pytest.mark.django_db

HUGE_INT = "1" + "0" * 400  # 1e400 written out: beyond the float range
LONG_INT = "9" * 5000  # beyond Python's 4300-digit int limit
DEEP = "[" * 100_000 + "]" * 100_000


def line(key: str, value: str) -> str:
    return f'{{"id": "{key}", "prediction": {value}}}'


def bad_prediction_files(ids: list[str]) -> dict[str, tuple[bytes, str]]:
    """name: (file content, words the error must hold)."""
    good = [line(key, "3") for key in ids]
    return {
        "overflow": (("\n".join([line(ids[0], HUGE_INT), *good[1:]])).encode(), "line 1"),
        "long digits": (("\n".join([line(ids[0], LONG_INT), *good[1:]])).encode(), "line 1"),
        "deep nesting": (("\n".join([*good[:1], DEEP, *good[1:]])).encode(), "line 2"),
        "nul": (("\n".join([*good[:2], '{"id": "x\\u0000", "prediction": 3}'])).encode(), "NUL"),
        "not utf-8": (("\n".join(good[:3])).encode() + b'\n{"id": "\xff"}\n', "line 4"),
        "duplicate key": ((b'{"id": "0", "prediction": 3, "prediction": 4}'), "twice"),
        "NaN": (("\n".join([line(ids[0], "NaN"), *good[1:]])).encode(), "line 1"),
        "empty": (b"", "empty"),
        "blank lines": (b"\n\n  \n", "id 0 is missing"),
    }


def counts() -> tuple[int, ...]:
    return (
        ModelRun.objects.count(),
        Prediction.objects.count(),
        Sample.objects.count(),
        Split.objects.count(),
        Rating.objects.count(),
        Study.objects.count(),
    )


# --- the one loader -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, words",
    [
        (HUGE_INT, "401 digits: too large"),
        ("2" + "0" * 308, "range of a double"),
        (LONG_INT, "5000 digits"),
        ("1e400", "range of a double"),
        ("-Infinity", "not a number"),
        (DEEP, "nested deeper"),
        ('{"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}', "nested"),
        ('{"a": 1, "a": 2}', "'a' appears twice"),
        ('"\\u0000"', "NUL"),
        (b"\xff\xfe", "not UTF-8"),
        ("   ", "empty"),
        ("{", "not valid JSON"),
    ],
)
def test_the_loader_refuses_with_a_clear_message(text, words):
    with pytest.raises(InputError, match=words):
        loads(text)


def test_the_loader_keeps_good_json_and_a_bom():
    assert loads(b'\xef\xbb\xbf{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}
    assert loads("1" + "0" * 300) == 10**300


def test_lines_are_read_as_a_stream_with_a_cap():
    assert list(iter_lines([b"a\n", b"b\n"])) == [(1, "a\n"), (2, "b\n")]
    with pytest.raises(TooLarge):
        list(iter_lines([b"a" * 10, b"b" * 10], max_bytes=15))
    with pytest.raises(InputError, match="line 2 is not UTF-8"):
        list(iter_lines([b"a\n", b"\xff\n"]))


# --- prediction uploads: API and site --------------------------------------------------------


def _ids(split) -> list[str]:
    return list(split.samples.order_by("position").values_list("dataset_id", flat=True))


def _post_api(client, split, content: bytes):
    upload = SimpleUploadedFile("p.jsonl", content, content_type="application/jsonl")
    data = {"split": split.pk, "name": "bad", "file": upload}
    return client.post("/api/v1/runs/upload/", data, format="multipart")


def _post_site(client, split, content: bytes):
    upload = SimpleUploadedFile("p.jsonl", content, content_type="application/jsonl")
    return client.post("/api/upload/", {"split": split.pk, "name": "bad", "file": upload})


@pytest.fixture
def api_client(api):
    return api


def test_both_upload_endpoints_refuse_every_bad_file_and_store_nothing(
    api_client, researcher_client, small_split
):
    for name, (content, words) in bad_prediction_files(_ids(small_split)).items():
        before = counts()
        response = _post_api(api_client, small_split, content)
        assert response.status_code == 400, (name, response.content)
        assert words in response.json()["file"][0], name
        page = _post_site(researcher_client, small_split, content)
        assert page.status_code == 400, name
        assert words in page.content.decode(), name
        assert counts() == before, name


def test_a_good_upload_still_works(api_client, small_split):
    content = "\n".join(line(key, "3.5") for key in _ids(small_split)).encode()
    response = _post_api(api_client, small_split, content)
    assert response.status_code == 201, response.content
    assert response.json()["done"] == 12


def test_an_upload_over_the_cap_is_refused_with_413(
    api_client, researcher_client, small_split, settings
):
    settings.UPLOAD_MAX_BYTES = 200
    content = "\n".join(line(key, "3.5") for key in _ids(small_split)).encode()
    assert len(content) > 200
    before = counts()
    response = _post_api(api_client, small_split, content)
    assert response.status_code == 413
    assert "200 bytes" in response.json()["file"][0]
    page = _post_site(researcher_client, small_split, content)
    assert page.status_code == 413 and "200 bytes" in page.content.decode()
    assert counts() == before


def test_a_huge_body_is_refused_before_it_is_read(api_client, researcher_client, settings):
    settings.UPLOAD_MAX_BYTES = 1000
    big = {"CONTENT_LENGTH": str(10**9), "CONTENT_TYPE": "multipart/form-data; boundary=x"}
    assert api_client.generic("POST", "/api/v1/runs/upload/", b"", **big).status_code == 413
    assert researcher_client.generic("POST", "/api/upload/", b"", **big).status_code == 413


# --- commands ---------------------------------------------------------------------------------


def test_score_and_import_predictions_refuse_every_bad_file(tmp_path, small_split):
    ids = _ids(small_split)
    reference = tmp_path / "ref.jsonl"
    reference.write_text("\n".join(json.dumps({"id": k, "label": [3, 4]}) for k in ids))
    out = tmp_path / "scores.json"
    for name, (content, words) in bad_prediction_files(ids).items():
        path = tmp_path / "bad.jsonl"
        path.write_bytes(content)
        before = counts()
        if name not in ("empty", "blank lines"):  # an empty file is "id 0 is missing"
            with pytest.raises(CommandError, match=words):
                call_command("score", str(reference), str(path), str(out))
            assert not out.exists(), name
            with pytest.raises(CommandError):
                call_command("score", str(path), str(reference), str(out))
        with pytest.raises(CommandError) as caught:
            call_command("import_predictions", str(path), "--split", "dev")
        assert words in str(caught.value) or "missing" in str(caught.value), name
        assert counts() == before, name


# --- AmbiStory import -------------------------------------------------------------------------


def _ambistory(path, data: str | bytes):
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


@pytest.mark.parametrize(
    "content, words",
    [
        (b'{"0": {"homonym": "\xff"}}', "not UTF-8"),
        ('{"0": {"choices": [' + HUGE_INT + "]}}", "401 digits: too large"),
        ('{"0": {"choices": [1e400]}}', "range of a double"),
        ('{"0": {"choices": [' + LONG_INT + "]}}", "5000 digits"),
        (DEEP, "nested deeper"),
        ("{}", "no samples: nothing to import"),
        ("", "empty"),
        ('{"0": {"homonym": "a\\u0000"}}', "NUL"),
    ],
)
def test_import_ambistory_refuses_bad_files(tmp_path, content, words):
    path = _ambistory(tmp_path / "bad.json", content)
    before = counts()
    with pytest.raises(CommandError, match=words) as caught:
        call_command("import_ambistory", str(path), "--split", "extra")
    assert "nothing was imported" in str(caught.value)
    assert counts() == before


def test_import_ambistory_refuses_a_duplicate_sample_id_naming_it(tmp_path):
    samples = ambistory_setup(0)
    first = json.dumps({"7": samples["0"]})[:-1]
    text = first + ", " + json.dumps({"7": samples["1"]})[1:]
    path = _ambistory(tmp_path / "dup.json", text)
    with pytest.raises(CommandError, match="sample 7: appears twice"):
        call_command("import_ambistory", str(path), "--split", "extra")
    assert Sample.objects.count() == 0


def test_import_ambistory_refuses_a_sample_already_in_another_split(tmp_path):
    path = _ambistory(tmp_path / "dev.json", json.dumps(ambistory_setup(0)))
    call_command("import_ambistory", str(path), "--split", "dev")
    before = counts()
    with pytest.raises(CommandError, match="sample 0: already exists in split ambistory/dev"):
        call_command("import_ambistory", str(path), "--split", "train")
    assert counts() == before
    call_command("import_ambistory", str(path), "--split", "dev")  # re-import: no change
    assert counts() == before


# --- addresses --------------------------------------------------------------------------------


def test_items_with_a_run_that_is_not_a_number_is_a_400(researcher_client):
    for bad in ("abc", "1.5", "²", "9" * 30, "-1"):
        response = researcher_client.get("/dashboards/items/", {"run": bad})
        assert response.status_code == 400, bad


def test_nul_in_a_path_or_query_is_a_400(researcher_client, api_client, small_split):
    from predictions.prompts import all_prompts

    prompt = all_prompts()[0].id
    page = researcher_client.get(f"/prompts/{prompt}/?sample=%00")
    assert page.status_code == 400 and b"NUL" in page.content
    assert researcher_client.get(f"/prompts/{prompt}/?split=%C2%B2").status_code == 400
    response = api_client.get("/api/v1/studies/%00/")
    assert response.status_code == 400 and "NUL" in response.json()["detail"]
    assert api_client.get("/api/v1/samples/?split=%00").status_code == 400


# --- the study time limit ---------------------------------------------------------------------


def test_a_time_limit_beyond_the_maximum_is_refused_by_the_form_and_the_database(small_split):
    from studies.forms import StudyForm

    data = {
        "title": "t",
        "slug": "t",
        "ratings_per_sample": 1,
        "samples_per_participant": 2,
        "attention_checks_per_batch": 0,
        "time_limit_minutes": 2147483647,
        "completion_code": "C",
        "screenout_code": "S",
        "prolific_completion_url": "https://example.org/?cc={code}",
        "split": small_split.pk,
        "endings": "all",
    }
    form = StudyForm(data)
    assert not form.is_valid()
    assert "time_limit_minutes" in form.errors
    assert StudyForm({**data, "time_limit_minutes": TIME_LIMIT_MAX_MINUTES}).is_valid()
    with pytest.raises(IntegrityError), transaction.atomic():
        Study.objects.create(
            slug="x",
            title="x",
            completion_code="c",
            screenout_code="s",
            time_limit_minutes=2**31 - 1,
        )


def test_deadlines_cannot_overflow_even_for_an_unchecked_value():
    study = Study(time_limit_minutes=2147483647, qualification_minutes=10)
    assert study.hold_minutes(True) == TIME_LIMIT_MAX_MINUTES
    assert study.hold_minutes(False) == 10


def test_arrival_and_expiry_work_at_the_maximum_time_limit(client):
    from tests.studies.helpers import PID, open_study

    study = open_study(minutes=TIME_LIMIT_MAX_MINUTES)
    response = client.get(f"/s/{study.slug}/", {"PROLIFIC_PID": PID, "STUDY_ID": "x"})
    assert response.status_code < 500
    call_command("expire_study_sessions")


# --- CSV cells --------------------------------------------------------------------------------


@pytest.mark.parametrize("cell", ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"])
def test_formula_cells_are_neutralised(cell):
    assert spreadsheet_safe(cell) == "'" + cell
    assert spreadsheet_safe("plain") == "plain" and spreadsheet_safe(-1) == -1


def test_ratings_csv_neutralises_a_participants_comment(participant, api_client):
    Rating.objects.filter(rater=participant.rater).update(comment='=HYPERLINK("http://evil")')
    body = b"".join(api_client.get("/api/v1/exports/ratings.csv").streaming_content).decode()
    assert "'=HYPERLINK" in body
    assert ",=HYPERLINK" not in body and ',"=HYPERLINK' not in body


# --- JSON request bodies (API) and the run parameters field (site) ---------------------------


@pytest.mark.parametrize(
    "body, words",
    [
        (b"[" * 100_000, "nested deeper"),
        (
            b'{"name": "x", "backend": "random", "split": 1, "params": {"seed": '
            + b"1" * 5000
            + b"}}",
            "5000 digits",
        ),
        (b'{"name": "x", "backend": "random", "split": 1, "params": {"x": "\\u0000"}}', "NUL"),
        (b'{"name": "x", "name": "y", "backend": "random", "split": 1}', "'name' appears twice"),
        (b'{"name": "\xff"}', "not UTF-8"),
    ],
)
def test_a_bad_json_body_is_a_400_naming_the_problem(api, small_split, body, words):
    before = counts()
    response = api.post("/api/v1/runs/", body, content_type="application/json")
    assert response.status_code == 400
    assert words in response.json()["detail"]
    assert counts() == before


@pytest.mark.parametrize(
    "params", ["[" * 100_000, '{"seed": ' + "1" * 5000 + "}", '{"x": "\\u0000"}']
)
def test_bad_run_parameters_on_the_site_are_a_form_error(researcher_client, small_split, params):
    before = counts()
    data = {"run-name": "x", "run-backend": "random", "run-split": small_split.pk}
    response = researcher_client.post("/runs/start/", {**data, "run-params": params})
    assert response.status_code == 400
    assert b"the parameters" in response.content
    assert counts() == before


def test_an_id_in_a_query_string_is_a_whole_number_or_a_400():
    from django.core.exceptions import BadRequest

    from ambisite.query import id_param

    assert id_param({"run": " 12 "}, "run") == 12 and id_param({}, "run") is None
    for bad in ("abc", "²", "١", "-1", "0", "1.5", "9" * 30):
        with pytest.raises(BadRequest, match="run must be an id"):
            id_param({"run": bad}, "run")


def test_the_upload_handler_stops_reading_at_the_cap(rf, settings):
    from django.core.files.uploadhandler import StopUpload

    from predictions.web.upload_handlers import UploadCapHandler

    settings.UPLOAD_MAX_BYTES = 100
    request = rf.post("/")
    handler = UploadCapHandler(request)
    assert handler.receive_data_chunk(b"x" * 60, 0) == b"x" * 60
    with pytest.raises(StopUpload):
        handler.receive_data_chunk(b"x" * 60, 60)
    assert request.upload_too_large
