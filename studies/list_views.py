"""The researcher's list pages (staff only): a list-design study's lists, made from its
samples or uploaded, while the study is a draft (``studies.lists``)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from ambisite.access import researcher_required
from ambisite.http import attachment

from . import lists
from .errors import StudyError
from .list_design import ListFileError
from .list_models import ListDesign
from .models import Study

MAX_LIST_FILE = 2 * 1024 * 1024


class ListFileForm(forms.Form):
    file = forms.FileField(
        help_text="CSV, one list per line (its cells: the samples' ids, in order), or JSON, an "
        'array of arrays of ids (or {"lists": [...]}); write split:id where two splits share '
        "an id."
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_LIST_FILE:
            raise forms.ValidationError("The file is larger than 2 MiB.")
        try:
            return upload.name, upload.read().decode("utf-8")
        except UnicodeDecodeError:
            raise forms.ValidationError("The file is not UTF-8 text.") from None


@require_POST
@researcher_required
def lists_upload(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    form = ListFileForm(request.POST, request.FILES)
    if not form.is_valid():
        reasons = " ".join(str(e) for e in form.errors.get("file", []))
        messages.error(request, f"Lists not uploaded: {reasons}")
        return redirect("studies:detail", study.pk)
    name, text = form.cleaned_data["file"]
    try:
        n = lists.lists_upload(study=study, text=text, name=name)
    except (StudyError, ListFileError) as exc:
        messages.error(request, f"Lists not uploaded: {name}: {exc}")
    else:
        messages.success(request, f"{n} list{'s' if n != 1 else ''} uploaded from {name}.")
    return redirect("studies:detail", study.pk)


@researcher_required
def lists_download(request: HttpRequest, pk: int) -> HttpResponse:
    """The study's lists as a CSV file in the upload format."""
    study = get_object_or_404(Study, pk=pk)
    response = HttpResponse(lists.lists_csv(study), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = attachment(f"{study.slug}-lists.csv")
    return response


@require_POST
@researcher_required
def lists_make(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    try:
        n = lists.lists_make(study=study)
    except StudyError as exc:
        messages.error(request, f"Lists not made: {exc}")
    else:
        messages.success(request, f"{n} list{'s' if n != 1 else ''} made from the samples.")
    return redirect("studies:detail", study.pk)


def lists_context(study: Study) -> dict | None:
    """What the study page shows of a list-design study's lists (None for any other)."""
    design = ListDesign.objects.filter(study=study).first()
    if design is None:
        return None
    rows = lists.list_fill(study)
    return {
        "design": design,
        "rows": rows,
        "n_samples": sum(r.items for r in rows),
        "wanted": sum(r.wanted for r in rows),
        "finished": sum(r.finished for r in rows),
        "rating": sum(r.rating for r in rows),
        "free": sum(r.free for r in rows),
        "replaced": sum(r.replaced for r in rows),
        "form": ListFileForm() if study.status == Study.Status.DRAFT else None,
    }
