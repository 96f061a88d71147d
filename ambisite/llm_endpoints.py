"""The strict parser of the ``LLM_ENDPOINTS`` setting: the LLM servers a run may use.

The operator names each server once, in the environment; a run picks one by name
(``{"endpoint": "local", "model": "llama3.1:8b"}``) and can never give a URL or the name of an
environment variable, so a staff account cannot send the site's secrets to a server of its
choosing. The setting is JSON::

    {"openai": {"base_url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY",
                "models": ["gpt-4o-2024-08-06"]},
     "local": {"base_url": "http://127.0.0.1:11434/v1", "models": ["*"]}}

``models`` lists the model names runs may ask for (``"*"``: any); ``api_key_env`` (optional)
names the variable whose value is sent as the Bearer token, read when a request is made.
This module is pure (no Django settings), so ``settings.py`` can call it.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,49}")
ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,99}")
KEYS = {"base_url", "api_key_env", "models"}
# Variables that hold the site's own secrets are never sent to a model server.
SITE_SECRETS = frozenset(
    {"SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "AMBISITE_PASSWORD"}
)
ANY_MODEL = "*"


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"duplicate key {repeated[0]!r}")
    return dict(pairs)


def parse_endpoints(raw: str, *, variable: str = "LLM_ENDPOINTS") -> dict[str, dict]:
    """``{name: {"base_url", "api_key_env", "models"}}`` from the JSON text, or
    ``ImproperlyConfigured`` naming the variable, the endpoint and the field at fault."""
    try:
        data = json.loads(raw, object_pairs_hook=_no_duplicates)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{variable} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ImproperlyConfigured(f"{variable} must be a JSON object of named endpoints")
    return {name: _endpoint(variable, name, spec) for name, spec in data.items()}


def _endpoint(variable: str, name: str, spec: object) -> dict:
    where = f"{variable}[{name!r}]"
    if not NAME.fullmatch(name):
        raise ImproperlyConfigured(f"{where}: a name is 1-50 of a-z, 0-9, '-' and '_'")
    if not isinstance(spec, dict):
        raise ImproperlyConfigured(f"{where} must be an object with base_url and models")
    unknown = sorted(set(spec) - KEYS)
    if unknown:
        raise ImproperlyConfigured(
            f"{where}: unknown field {unknown[0]!r} (fields: base_url, api_key_env, models)"
        )
    return {
        "base_url": _base_url(where, spec.get("base_url")),
        "api_key_env": _key_variable(where, spec.get("api_key_env", "")),
        "models": _models(where, spec.get("models")),
    }


def _base_url(where: str, value: object) -> str:
    if not isinstance(value, str):
        value = ""  # not a string: refused below like an empty URL
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ImproperlyConfigured(
            f"{where}.base_url must be an http(s) URL, e.g. http://127.0.0.1:11434/v1"
        )
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ImproperlyConfigured(
            f"{where}.base_url must hold no user, password, query or fragment "
            "(a key goes in the variable that api_key_env names)"
        )
    return value.rstrip("/")


def _key_variable(where: str, value: object) -> str:
    if value in ("", None):
        return ""
    if not isinstance(value, str) or not ENV_NAME.fullmatch(value):
        raise ImproperlyConfigured(
            f"{where}.api_key_env must be an environment variable name such as OPENAI_API_KEY"
        )
    if value in SITE_SECRETS:
        raise ImproperlyConfigured(f"{where}.api_key_env may not name the site's own {value}")
    return value


def _models(where: str, value: object) -> tuple[str, ...]:
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(m, str) and m.strip() and len(m) <= 200 for m in value)
    ):
        raise ImproperlyConfigured(
            f'{where}.models must be a non-empty list of model names (["*"] allows any)'
        )
    return tuple(m.strip() for m in value)


def allows_model(endpoint: dict, model: str) -> bool:
    return ANY_MODEL in endpoint["models"] or model in endpoint["models"]
