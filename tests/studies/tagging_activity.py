"""A small activity that lives only in the tests: participants tag a word per item on a page
of its own. It is what a new app would hold (a model, a page, a URL and an ``Activity``), and
it plugs into studies by one line: ``activities.register(TAGGING)``."""

from __future__ import annotations

from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from ambisite.urls import urlpatterns as site_patterns
from studies import selectors as study_selectors
from studies import services as study_services
from studies.activities import Activity
from studies.models import Participant
from studies.views import RESUME_COOKIE


class Tag(models.Model):
    # DO_NOTHING: deleting a participant elsewhere in the suite never looks for this table
    participant = models.ForeignKey(
        "studies.Participant", on_delete=models.DO_NOTHING, related_name="tags"
    )
    word = models.CharField(max_length=40)
    late = models.BooleanField(default=False)

    class Meta:
        app_label = "studies"
        db_table = "tests_tagging_tag"
        managed = False  # created and dropped by the test that uses it

    def __str__(self) -> str:
        return self.word


TAGGING = Activity(
    name="tagging",
    answers="tags",
    verb="tag",
    nouns=("word", "words"),
    page="tagging_page",
    preview="tagging_page_preview",
)


def _participant(request: HttpRequest, slug: str) -> Participant | None:
    token = request.COOKIES.get(RESUME_COOKIE.format(slug))
    if not token:
        return None
    participant = study_selectors.participant_by_token(slug, study_services.resume_hash(token))
    if participant is None or participant.study.activity != TAGGING.name:
        return None
    return participant if participant.status == Participant.Status.QUALIFIED else None


@require_http_methods(["GET", "POST"])
def tag_page(request: HttpRequest, slug: str) -> HttpResponse:
    participant = _participant(request, slug)
    if participant is None:
        return HttpResponseRedirect(reverse("participate:arrive", args=[slug]))
    done = participant.tags.count()
    if request.method == "POST":
        Tag.objects.create(participant=participant, word=request.POST["word"])
        done += 1
        if done >= participant.study.samples_per_participant:
            participant.status = Participant.Status.FINISHED
            participant.finished_at = timezone.now()
            participant.save(update_fields=["status", "finished_at"])
        return HttpResponseRedirect(reverse("participate:arrive", args=[slug]))
    total = participant.study.samples_per_participant
    return HttpResponse(f"<p id='tagging'>Tag word {done + 1} of {total}</p>")


def tag_preview(request: HttpRequest, pk: int) -> HttpResponse:
    return HttpResponse(f"<p id='tagging-preview'>Preview of study {pk}</p>")


urlpatterns = [
    *site_patterns,
    path("s/<slug:slug>/tag/", tag_page, name="tagging_page"),
    path("studies/<int:pk>/tag-preview/", tag_preview, name="tagging_page_preview"),
]
