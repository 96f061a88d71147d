"""Create the researcher (staff) login if it does not exist.

With DEBUG on (``make demo``) the password defaults to the demo one and is printed, so the
demo keeps its easy login. With DEBUG off the password comes from ``--password`` or the
``AMBISITE_PASSWORD`` environment variable, or a random one is generated and shown once; any
given password must pass ``AUTH_PASSWORD_VALIDATORS`` (which refuse the demo password,
``ambisite.passwords``). The user is staff, not a superuser:
the researcher pages only check ``is_staff``. A stored password is never printed.
"""

import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from ambisite.published import DEMO_PASSWORD


class Command(BaseCommand):
    help = "Create a researcher (staff, not superuser) login if it does not exist."

    def add_arguments(self, parser):
        parser.add_argument("--username", default=os.environ.get("AMBISITE_USER", "researcher"))
        parser.add_argument(
            "--password",
            default=os.environ.get("AMBISITE_PASSWORD") or None,
            help="default: AMBISITE_PASSWORD; with DEBUG off and neither set, a random one",
        )

    def handle(self, *args, **opts):
        user_model = get_user_model()
        username = opts["username"]
        if user_model.objects.filter(username=username).exists():
            self.stdout.write(f"Researcher login: {username} (exists; password unchanged)")
            return
        password = opts["password"]
        generated = False
        if password is None:
            if settings.DEBUG:
                password = DEMO_PASSWORD
            else:
                password, generated = secrets.token_urlsafe(18), True
        user = user_model(username=username, is_staff=True, is_superuser=False)
        if not (settings.DEBUG and password == DEMO_PASSWORD):
            try:
                password_validation.validate_password(password, user)
            except ValidationError as exc:
                raise CommandError("password refused: " + " ".join(exc.messages)) from None
        user.set_password(password)
        user.save()
        if settings.DEBUG and password == DEMO_PASSWORD:
            self.stdout.write(f"Researcher login: {username} / {password} (created, demo)")
        elif generated:
            self.stdout.write(
                f"Researcher login: {username} / {password} (created; generated password, "
                "shown only this once: store it now)"
            )
        else:
            self.stdout.write(f"Researcher login: {username} (created with the given password)")
