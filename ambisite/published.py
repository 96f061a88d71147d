"""Secrets published in this repository, never good enough for a production site. Pure (no
Django), so ``settings.py`` can use it; the checks that use it are ``ambisite.passwords``."""

from __future__ import annotations

DEMO_PASSWORD = "ambisite-demo"  # ``make demo``'s researcher login (README)
KNOWN_PASSWORDS = frozenset({DEMO_PASSWORD})
# .env.example's placeholder and the key settings use with DEBUG on when none is set.
PLACEHOLDER_KEYS = frozenset(
    {
        "replace-me-with-50-random-characters-from-secrets-token-urlsafe-50",
        "insecure-development-key-set-SECRET_KEY-in-production",
    }
)
KEY_HINT = 'python -c "import secrets; print(secrets.token_urlsafe(50))"'


def is_known_password(password: str | None) -> bool:
    return password is not None and password.strip().lower() in KNOWN_PASSWORDS


def is_placeholder_key(key: str) -> bool:
    return key in PLACEHOLDER_KEYS or key.startswith("replace-me")
