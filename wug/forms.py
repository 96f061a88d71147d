"""Forms of the usage-graph pages."""

from __future__ import annotations

import re

from django import forms


class CrowdStudyForm(forms.Form):
    """A use-pair crowd study of the page's word and any others
    (``wug.crowd.crowd_study_create``)."""

    title = forms.CharField(max_length=200)
    slug = forms.SlugField(
        max_length=64,
        label="Short name in the link",
        help_text="Participants arrive at /s/<short name>/.",
    )
    other_words = forms.CharField(
        required=False,
        max_length=2000,
        label="Other words (optional)",
        help_text="Names of other imported usage-usage words, separated by spaces or commas.",
    )

    def clean_other_words(self) -> list[str]:
        return [n for n in re.split(r"[\s,]+", self.cleaned_data["other_words"]) if n]

    pairs_per_round = forms.IntegerField(min_value=1, max_value=5000, initial=30)
    judgments_per_pair = forms.IntegerField(min_value=1, max_value=20, initial=3)
    pairs_per_participant = forms.IntegerField(min_value=1, max_value=500, initial=20)
    gold_pairs_total = forms.IntegerField(
        min_value=0, max_value=100, initial=6, label="Gold pairs (attention checks) in all"
    )
    gold_per_participant = forms.IntegerField(
        min_value=0, max_value=20, initial=2, label="Gold pairs per participant"
    )


class GoldPairForm(forms.Form):
    """A researcher's gold pair (``wug.crowd_gold.gold_pair_add``): the checks of the use
    ids and the answer's range live there, so the command gets the same errors."""

    use1 = forms.CharField(max_length=300, label="First use (identifier)")
    use2 = forms.CharField(max_length=300, label="Second use (identifier)")
    expected = forms.TypedChoiceField(
        coerce=int,
        choices=[(1, "1 unrelated"), (2, "2 distantly related"), (3, "3 closely related"),
                 (4, "4 identical")],
        label="Expected answer",
    )  # fmt: skip
    tolerance = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=1,
        help_text="How far an answer may be off and still pass (default: 1 for answers 1 and "
        "4, 0 for 2 and 3).",
    )
