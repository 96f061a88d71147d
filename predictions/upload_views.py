"""The page where a researcher uploads a predictions jsonl as a new, scored model run."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from ambisite.access import researcher_required
from annotations.models import Split

from .api.views import read_lines
from .evaluation import ScoringError
from .importers import IMPORT_BACKEND, predictions_import
from .models import ModelRun


class UploadForm(forms.Form):
    split = forms.ModelChoiceField(queryset=Split.objects.select_related("dataset"))
    name = forms.CharField(max_length=200)
    file = forms.FileField(help_text='Official jsonl: one {"id": "0", "prediction": 2.5} per line.')


@researcher_required
@require_http_methods(["GET", "POST"])
def predictions_upload(request):
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = predictions_import(
                split=data["split"],
                name=data["name"],
                lines=read_lines(data["file"]),
                created_by=request.user,
            )
        except ScoringError as error:
            form.add_error("file", str(error))
        else:
            messages.success(request, f"Run {run.pk} “{run.name}” was created and scored.")
            return redirect("api-site:upload")
    runs = ModelRun.objects.filter(backend=IMPORT_BACKEND).select_related("split__dataset")
    context = {"form": form, "runs": runs.order_by("-created_at", "-id")[:20]}
    return render(request, "api/upload.html", context, status=400 if form.errors else 200)
