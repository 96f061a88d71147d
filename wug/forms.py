"""Forms of the usage-graph pages."""

from __future__ import annotations

from django import forms


class CrowdStudyForm(forms.Form):
    """A use-pair crowd study of one word (``wug.crowd.crowd_study_create``)."""

    title = forms.CharField(max_length=200)
    slug = forms.SlugField(
        max_length=64,
        label="Short name in the link",
        help_text="Participants arrive at /s/<short name>/.",
    )
    pairs_per_round = forms.IntegerField(min_value=1, max_value=5000, initial=30)
    judgments_per_pair = forms.IntegerField(min_value=1, max_value=20, initial=3)
    pairs_per_participant = forms.IntegerField(min_value=1, max_value=500, initial=20)
    gold_pairs_total = forms.IntegerField(
        min_value=0, max_value=100, initial=6, label="Gold pairs (attention checks) in all"
    )
    gold_per_participant = forms.IntegerField(
        min_value=0, max_value=20, initial=2, label="Gold pairs per participant"
    )
