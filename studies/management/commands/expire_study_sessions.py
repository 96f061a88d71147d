from django.core.management.base import BaseCommand

from studies.services import participants_expire


class Command(BaseCommand):
    help = (
        "Time out participants past their study's time limit and release their unrated "
        "slots. Arrivals also do this, so running it (e.g. every minute from cron) only "
        "keeps the researcher page current."
    )

    def handle(self, *args, **options):
        count = participants_expire()
        self.stdout.write(f"Timed out {count} participant(s).")
