"""Secrets that are published, so never good enough for a production site (DEBUG off).

* The demo login's password (``make demo``, README) passes Django's validators (13
  characters, not common), so a site started with DEBUG off could keep it; it is refused by a
  password validator (``ensure_researcher``, ``changepassword``, the admin) and, with DEBUG
  off, by the login itself (:class:`ModelBackend`), for an account created in a demo and
  carried over.
* The ``SECRET_KEY`` placeholder of ``.env.example`` is 67 characters long, so Django's own
  deployment check (W009) lets it through: settings refuse it at start-up with DEBUG off, and
  ``check --deploy`` reports it (``ambisite.E001``) where DEBUG is on.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import backends
from django.contrib.auth.forms import AuthenticationForm
from django.core import checks
from django.core.exceptions import ValidationError

from .published import KEY_HINT, is_known_password, is_placeholder_key


class KnownPasswordValidator:
    """Refuses a password published in this repository (the demo login's)."""

    def validate(self, password: str, user=None) -> None:
        if is_known_password(password):
            raise ValidationError(
                "This password is published (the demo login's); choose another.",
                code="password_published",
            )

    def get_help_text(self) -> str:
        return "Your password can't be the demo login's."


class ModelBackend(backends.ModelBackend):
    """Django's, refusing a published password when DEBUG is off (the account keeps it
    until a researcher sets another with ``manage.py changepassword``)."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if not settings.DEBUG and is_known_password(password):
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class LoginForm(AuthenticationForm):
    """The login page's form: with DEBUG off the demo password gets its own message (it is
    public, so saying so gives nothing away) instead of "enter a correct password"."""

    def clean(self):
        if not settings.DEBUG and is_known_password(self.cleaned_data.get("password")):
            raise ValidationError(
                "The demo password is refused on this site. A researcher sets another with "
                "manage.py changepassword (or ensure_researcher for a new login).",
                code="password_published",
            )
        return super().clean()


@checks.register(checks.Tags.security, deploy=True)
def check_secret_key(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    if is_placeholder_key(settings.SECRET_KEY):
        return [
            checks.Error(
                "SECRET_KEY is the published placeholder of .env.example.",
                hint=f"Set 50+ random characters: {KEY_HINT}",
                id="ambisite.E001",
            )
        ]
    return []
