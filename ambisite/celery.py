"""The Celery app. Tasks take ids, load, and call a service."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ambisite.settings")

app = Celery("ambisite")
app.config_from_object("django.conf:settings", namespace="CELERY")


@app.on_configure.connect
def _configure_filesystem_transport(sender: Celery, **kwargs) -> None:
    from django.conf import settings

    if not str(settings.CELERY_BROKER_URL).startswith("filesystem://"):
        return
    folder = settings.CELERY_FILESYSTEM_DIR
    for sub in ("queue", "processed", "control"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    sender.conf.broker_transport_options = {
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "processed_folder": str(folder / "processed"),
        # without this kombu writes its broadcast exchange to ./control in the working dir
        "control_folder": str(folder / "control"),
    }


app.autodiscover_tasks()
