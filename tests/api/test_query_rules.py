"""Query parameters are judged as the schema states (Schemathesis runs every check on them):
page numbers and sizes are whole numbers in range, true/false filters take only those words,
an empty optional value is the parameter left out."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "query, field",
    [
        ("page_size=null", "page_size"),
        ("page_size=0", "page_size"),
        ("page_size=1001", "page_size"),
        ("page=0", "page"),
        ("page=1.5", "page"),
        ("page=last", "page"),
        ("has_ending=-58800", "has_ending"),
        ("has_ending=maybe", "has_ending"),
    ],
)
def test_a_bad_page_or_flag_is_a_400_naming_it(api, small_split, query, field):
    response = api.get(f"/api/v1/samples/?{query}")
    assert response.status_code == 400 and field in response.json()


def test_empty_values_are_left_out_and_good_ones_work(api, small_split):
    everything = api.get("/api/v1/samples/").json()
    assert api.get("/api/v1/samples/?page=&page_size=&has_ending=&split=").json() == everything
    page = api.get("/api/v1/samples/?page=2&page_size=5").json()
    assert len(page["results"]) == 5 and page["count"] == everything["count"] == 12
    with_ending = api.get("/api/v1/samples/?has_ending=1").json()["count"]
    open_ended = api.get("/api/v1/samples/?has_ending=false").json()["count"]
    assert with_ending > 0 and open_ended > 0 and with_ending + open_ended == 12
    assert api.get("/api/v1/samples/?has_ending=true").json()["count"] == with_ending
    assert api.get("/api/v1/samples/?page=9").status_code == 404  # past the last page


def test_the_schema_states_the_rules():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    parameters = {p["name"]: p for p in schema["paths"]["/api/v1/samples/"]["get"]["parameters"]}
    assert parameters["page"]["schema"] == {"type": "integer", "minimum": 1}
    assert parameters["page_size"]["schema"]["maximum"] == 1000
    assert parameters["setup"]["schema"]["type"] == "integer"
    assert parameters["setup"]["schema"]["minimum"] == 1
    assert parameters["homonym"]["schema"]["pattern"] == "^[^\\x00]*$"
    assert all(p["allowEmptyValue"] for p in parameters.values())


@pytest.mark.parametrize(
    "address, name",
    [
        ("/api/v1/samples/?studdy=pilot", "studdy"),
        ("/api/v1/ratings/?kind=relatedness", "kind"),
        ("/api/v1/ratings/?include_outdated=true", "include_outdated"),
        ("/api/v1/ratings/1/?sample=1&raterr=x", "raterr"),
        ("/api/v1/splits/?datasett=ambistory", "datasett"),
        ("/api/v1/setups/?form=bank", "form"),
        ("/api/v1/datasets/?name=ambistory", "name"),
        ("/api/v1/studies/?statuss=open", "statuss"),
        ("/api/v1/runs/?splitt=dev", "splitt"),
        ("/api/v1/predictions/?runn=1", "runn"),
        ("/api/v1/wug/words/?word=bank", "word"),
        ("/api/v1/wug/words/bank/?x=1", "x"),
    ],
)
def test_an_unknown_parameter_is_a_400_naming_it_never_the_unfiltered_list(
    api, small_split, address, name
):
    response = api.get(address)
    assert response.status_code == 400, response.content[:200]
    (message,) = response.json()[name]
    assert message.startswith(f"{name}: unknown query parameter (this address takes: ")


def test_every_documented_parameter_and_the_page_ones_are_still_taken(api, small_split):
    for address in (
        "/api/v1/samples/?dataset=ambistory&split=dev&homonym=bank&setup=1&has_ending=true"
        "&study=&page=1&page_size=5",
        "/api/v1/ratings/?dataset=ambistory&split=dev&sample=1&rater=&rater_kind=imported"
        "&study=&include_excluded=false&page_size=5",
        "/api/v1/splits/?dataset=ambistory&name=dev",
        "/api/v1/setups/?homonym=bank",
        "/api/v1/studies/?status=open",
        "/api/v1/runs/?status=queued&backend=import&dataset=ambistory&split=dev",
        "/api/v1/predictions/?run=1&sample=1",
        "/api/v1/datasets/?page=1&format=json",
        "/api/v1/wug/words/",
    ):
        assert api.get(address).status_code == 200, address


@pytest.mark.parametrize(
    "address, name",
    [
        ("/api/v1/samples/?split=dev&split=nope", "split"),
        ("/api/v1/ratings/?include_excluded=false&include_excluded=true", "include_excluded"),
        ("/api/v1/splits/?name=dev&name=dev", "name"),
        ("/api/v1/samples/?page_size=5&page_size=6", "page_size"),
        ("/api/v1/exports/ambistory.json?split=dev&split=nope", "split"),
        ("/api/v1/exports/reference.jsonl?split=dev&dataset=ambistory&dataset=x", "dataset"),
        ("/api/v1/exports/ratings.jsonl?split=dev&split=nope", "split"),
        ("/api/v1/exports/ratings.csv?kind=plausibility&kind=plausibility", "kind"),
    ],
)
def test_a_parameter_given_twice_is_a_400_naming_it_never_its_last_value(
    api, small_split, address, name
):
    """``?split=dev&split=nope`` was read as ``nope`` (or ``dev``, by the view): no parameter
    takes a list, so one given more than once is refused, whatever its values."""
    response = api.get(address)
    assert response.status_code == 400, response.content[:200]
    (message,) = response.json()[name]
    assert message.startswith(f"{name}: given 2 times"), message


def test_the_dashboards_scope_refuses_a_repeated_parameter(researcher_client, small_split):
    for url in ("/dashboards/?", "/dashboards/charts/rating-histogram.json?"):
        response = researcher_client.get(url + "split=nope&split=dev")  # was read as dev
        assert response.status_code == 400, url
        assert b"split: given 2 times" in response.content, url


def test_the_rule_refuses_a_repeat_in_a_query_dict_only():
    from django.http import QueryDict

    from ambisite.query import unknown_param

    assert unknown_param(QueryDict("a=1&b=2"), ("a", "b")) is None
    assert unknown_param({"a": "1"}, ("a",)) is None
    name, message = unknown_param(QueryDict("a=1&b=2&b=2&b=3"), ("a", "b"))
    assert (name, message.split(" (")[0]) == ("b", "given 3 times")
