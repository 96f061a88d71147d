"""Forms of the researcher's remedies (``studies.remedies``)."""

from __future__ import annotations

from django import forms

from .remedies import Selection

REASON_MAX = 500


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=REASON_MAX,
        strip=True,
        help_text="Kept with the remedy, with your name and the time.",
    )


class RemedyForm(ReasonForm):
    """Whose holds to end: one client, a time window of consents (UTC), or both."""

    client = forms.CharField(
        max_length=64,
        required=False,
        strip=True,
        help_text="An address as the participants table shows it (IPv6: its /64 network).",
    )
    started_from = forms.DateTimeField(
        required=False,
        label="Consented from (UTC)",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
    started_to = forms.DateTimeField(
        required=False,
        label="Consented before (UTC)",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
    exclude = forms.BooleanField(
        required=False,
        label="Also exclude them (their ratings stop counting; their samples get replacements)",
    )
    field_order = ["client", "started_from", "started_to", "exclude", "reason"]

    def clean(self):
        data = super().clean() or {}
        if not data.get("client") and not data.get("started_from") and not data.get("started_to"):
            raise forms.ValidationError("Name a client or a time window (or both).")
        start, end = data.get("started_from"), data.get("started_to")
        if start and end and start >= end:
            self.add_error("started_to", "The window ends before it starts.")
        return data

    def selection(self) -> Selection:
        data = self.cleaned_data
        return Selection(
            client=data.get("client") or "",
            started_from=data.get("started_from"),
            started_to=data.get("started_to"),
        )
