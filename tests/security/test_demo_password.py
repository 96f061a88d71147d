"""The demo login's password is published: with DEBUG off it is refused when a login is
created or changed, and an account that still has it cannot log in."""

from __future__ import annotations

import pytest
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from ambisite.passwords import ModelBackend
from ambisite.published import DEMO_PASSWORD

pytestmark = pytest.mark.django_db


def test_ensure_researcher_refuses_the_demo_password_with_debug_off(django_user_model, settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="password refused: .*published"):
        call_command("ensure_researcher", "--username", "lab", "--password", DEMO_PASSWORD)
    assert not django_user_model.objects.filter(username="lab").exists()


def test_the_validators_refuse_it_whatever_its_case():
    for password in (DEMO_PASSWORD, DEMO_PASSWORD.upper(), f" {DEMO_PASSWORD} "):
        with pytest.raises(ValidationError, match="published"):
            password_validation.validate_password(password)
    password_validation.validate_password("Grau-Wal-7-Nebel")


def test_an_account_with_the_demo_password_cannot_log_in_with_debug_off(
    client, django_user_model, settings
):
    user = django_user_model.objects.create_user("demo", password=DEMO_PASSWORD, is_staff=True)
    settings.DEBUG = False
    refused = client.post("/accounts/login/", {"username": "demo", "password": DEMO_PASSWORD})
    assert refused.status_code == 200 and "_auth_user_id" not in client.session
    assert "The demo password is refused on this site" in refused.content.decode()
    backend = ModelBackend()  # the admin's login and any other caller of authenticate()
    assert backend.authenticate(None, username="demo", password=DEMO_PASSWORD) is None
    settings.DEBUG = True
    allowed = client.post("/accounts/login/", {"username": "demo", "password": DEMO_PASSWORD})
    assert allowed.status_code == 302 and client.session["_auth_user_id"] == str(user.pk)


def test_the_demo_login_still_works_with_debug_on(capsys, django_user_model, settings):
    settings.DEBUG = True
    call_command("ensure_researcher", "--username", "demo")
    assert django_user_model.objects.get(username="demo").check_password(DEMO_PASSWORD)
