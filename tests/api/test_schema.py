"""/api/v1/schema/ and /api/v1/docs/: OpenAPI 3 for researchers, Swagger UI self-hosted."""

import pytest
import yaml

pytestmark = pytest.mark.django_db


def test_the_schema_documents_every_endpoint_and_its_filters(api):
    response = api.get("/api/v1/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    for path in ("/api/v1/samples/", "/api/v1/ratings/", "/api/v1/runs/upload/",
                 "/api/v1/studies/{slug}/open/", "/api/v1/exports/reference.jsonl",
                 "/api/v1/runs/{id}/codabench.zip"):  # fmt: skip
        assert path in schema["paths"]
    params = {p["name"]: p for p in schema["paths"]["/api/v1/samples/"]["get"]["parameters"]}
    assert {"split", "homonym", "has_ending", "study", "page"} <= set(params)
    assert "ending" in params["has_ending"]["description"]
    assert "tokenAuth" in schema["components"]["securitySchemes"]


def test_the_schema_documents_a_runs_fit_split_as_its_own_field(api):
    schemas = yaml.safe_load(api.get("/api/v1/schema/").content)["components"]["schemas"]
    fit_split = schemas["RunCreate"]["properties"]["fit_split"]
    assert fit_split["type"] == "string" and "train,dev" in fit_split["description"]
    assert "fit_split" in schemas["RunCreate"]["properties"]["params"]["description"]
    assert schemas["ModelRun"]["properties"]["fit_split"]["readOnly"]


def test_the_swagger_ui_loads_its_assets_from_this_site(researcher_client):
    response = researcher_client.get("/api/v1/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn" not in html.lower() and "unpkg" not in html.lower()


def test_non_researchers_get_neither_schema_nor_docs(non_researchers):
    for _, client, status in non_researchers:
        response = client.get("/api/v1/schema/")
        assert response.status_code == status
        assert b"paths" not in response.content and b"detail" in response.content
        assert client.get("/api/v1/docs/").status_code == status
