"""Celery tasks: take ids, load, call a service (enqueued with on_commit by the services)."""

from __future__ import annotations

from celery import shared_task

from . import jobs


@shared_task(name="writing.generate_precontext", ignore_result=True)
def generate_precontext(precontext_id: int) -> None:
    jobs.precontext_generate(precontext_id=precontext_id)


@shared_task(name="writing.generate_cleanup", ignore_result=True)
def generate_cleanup(cleanup_id: int) -> None:
    jobs.cleanup_generate(cleanup_id=cleanup_id)


@shared_task(name="writing.generate_example", ignore_result=True)
def generate_example(example_id: int) -> None:
    jobs.example_generate(example_id=example_id)
