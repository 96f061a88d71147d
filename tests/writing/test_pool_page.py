"""/writing/pool/ holds two forms with a "flag out" box each: every id is unique and each
label ticks its own form's box (issue 28: a repeated ``id_flag_pos`` ticked the wrong one)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.pagehtml import label_problems, parse, repeated_ids
from writing.models import SensePair

pytestmark = pytest.mark.django_db


def test_the_pool_page_has_no_repeated_ids_and_each_label_names_one_element(researcher_client):
    page = researcher_client.get(reverse("writing:pool")).content.decode()
    assert repeated_ids(page) == []
    assert label_problems(page) == []
    boxes = [a for tag, a in parse(page).elements if tag == "input" and a.get("name") == "flag_pos"]
    assert len(boxes) == 2 and len({a["id"] for a in boxes}) == 2


def test_each_flag_label_points_into_its_own_form(researcher_client):
    page = researcher_client.get(reverse("writing:pool")).content.decode()
    for form_id in ("add-pair", "import-pool"):
        start = page.index(f'id="{form_id}"')
        part = page[start : page.index("</form>", start)]
        label = part.index("Flag out pairs of different parts of speech")
        target = part[:label].rsplit('for="', 1)[1].split('"', 1)[0]
        assert f'id="{target}"' in part and 'name="flag_pos"' in part


def test_the_import_box_left_unticked_flags_nothing(researcher_client):
    text = (
        "word\tmeaning_1\texample_1\tpos_1\tmeaning_2\texample_2\tpos_2\n"
        "bear\ta mammal\t\tnoun\tto carry\t\tverb\n"
    )
    upload = SimpleUploadedFile("pool.tsv", text.encode())
    researcher_client.post(reverse("writing:pool_import"), {"file": upload})
    assert not SensePair.objects.get(homonym__form="bear").excluded
