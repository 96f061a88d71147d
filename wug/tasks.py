"""Celery tasks of the WUG app: take ids, call a service."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="wug.annotate_word", ignore_result=True)
def annotate_word(annotation_id: int) -> None:
    from wug.annotators import model_annotation_run

    model_annotation_run(annotation_id)
