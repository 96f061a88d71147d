import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create a researcher (staff) login if it does not exist, and print it."

    def add_arguments(self, parser):
        parser.add_argument("--username", default=os.environ.get("AMBISITE_USER", "researcher"))
        parser.add_argument(
            "--password", default=os.environ.get("AMBISITE_PASSWORD", "ambisite-demo")
        )

    def handle(self, *args, **opts):
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(
            username=opts["username"], defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            user.set_password(opts["password"])
            user.save()
            self.stdout.write(
                f"Researcher login: {opts['username']} / {opts['password']} (created)"
            )
        else:
            self.stdout.write(f"Researcher login: {opts['username']} (exists; password unchanged)")
