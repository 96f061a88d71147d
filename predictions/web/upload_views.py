"""The page where a researcher uploads a predictions jsonl as a new, scored model run."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from ambisite.access import researcher_required
from ambisite.request_body import accepts_upload
from annotations.models import Split
from predictions.evaluation import ScoringError
from predictions.io.importers import (
    TooLarge,
    request_too_large,
    run_upload,
    upload_refused,
)
from predictions.models import IMPORT_BACKEND, ModelRun


class UploadForm(forms.Form):
    split = forms.ModelChoiceField(queryset=Split.objects.select_related("dataset"))
    name = forms.CharField(max_length=200)
    file = forms.FileField(
        help_text='Official jsonl: one {"id": "0", "prediction": 2.5} per line '
        f"(at most {settings.UPLOAD_MAX_BYTES // 1_000_000} MB)."
    )


@accepts_upload
@researcher_required
@require_http_methods(["GET", "POST"])
def predictions_upload(request):
    too_large = request.method == "POST" and request_too_large(request)
    if too_large:  # refused before the body is read
        form = UploadForm()
        messages.error(request, str(TooLarge(settings.UPLOAD_MAX_BYTES)))
    else:
        form = UploadForm(request.POST or None, request.FILES or None)
        if upload_refused(request):
            too_large = True
            form = UploadForm()
            messages.error(request, str(TooLarge(settings.UPLOAD_MAX_BYTES)))
    if request.method == "POST" and not too_large and form.is_valid():
        data = form.cleaned_data
        try:
            run = run_upload(
                split=data["split"], name=data["name"], file=data["file"], created_by=request.user
            )
        except TooLarge as error:
            too_large = True
            form.add_error("file", str(error))
        except ScoringError as error:
            form.add_error("file", str(error))
        else:
            messages.success(request, f"Run {run.pk} “{run.name}” was created and scored.")
            return redirect("api-site:upload")
    runs = ModelRun.objects.filter(backend=IMPORT_BACKEND).select_related("split__dataset")
    context = {"form": form, "runs": runs.order_by("-created_at", "-id")[:20]}
    code = 413 if too_large else 400 if form.errors else 200
    return render(request, "api/upload.html", context, status=code)
