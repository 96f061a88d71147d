"""Post-processing of the OpenAPI schema that drf-spectacular generates: rules that hold for
every parameter of the API, stated once here rather than on each view."""

from __future__ import annotations

# RefuseNulMiddleware answers 400 to a NUL character anywhere in the path or query string
# (PostgreSQL cannot store or compare text holding one).
NO_NUL = "^[^\\x00]*$"


def document_parameter_rules(result: dict, generator, request, public) -> dict:
    """Every optional query parameter gets ``allowEmptyValue``: across the API an empty value
    (``?split=``) is the parameter left out, as django-filter and DRF's query parsing treat
    it. Every free-text path or query parameter gets a pattern refusing NUL characters."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                _document(parameter)
    return result


def _document(parameter: dict) -> None:
    if parameter.get("in") not in ("query", "path"):
        return
    if parameter["in"] == "query" and not parameter.get("required"):
        parameter["allowEmptyValue"] = True
    schema = parameter.get("schema", {})
    if schema.get("type") == "string" and not {"enum", "pattern", "format"} & set(schema):
        schema["pattern"] = NO_NUL
