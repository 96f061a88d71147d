"""The setup list: the first page a researcher sees."""

import pytest
from django.urls import reverse

from tests.conftest import screenshot

pytestmark = pytest.mark.django_db


def test_it_sends_anonymous_visitors_and_outsiders_to_the_login(client, outsider_client, dev_split):
    for who in (client, outsider_client):
        response = who.get(reverse("annotations:setup_list"))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_it_lists_setups_with_six_samples_ratings_mean_and_sd(researcher_client, dev_split):
    response = researcher_client.get(reverse("annotations:setup_list"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "98 setups" in html
    first_setup, rows = response.context["setups"][0]
    assert len(rows) == 6
    track = next(r for r in rows if r.sample.dataset_id == "0")
    assert [r.score for r in track.ratings] == [4, 5, 3, 1, 5]
    assert track.mean == pytest.approx(3.6)
    assert track.sd == pytest.approx(1.6733200530681511)
    assert "3.60" in html and "1.67" in html


def test_its_query_count_does_not_grow_with_the_page(
    researcher_client, dev_split, django_assert_max_num_queries
):
    with django_assert_max_num_queries(8):
        researcher_client.get(reverse("annotations:setup_list") + "?page=2")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_setup_list_renders_in_chromium(live_server, page, researcher, dev_json):
    from annotations.importers import ambistory_import, parse_ambistory

    ambistory_import(samples=parse_ambistory(dev_json), split="dev")
    page.goto(f"{live_server.url}/accounts/login/?next=/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "rita-password")
    page.click("button[type=submit]")
    page.wait_for_selector("#setup-count")
    assert page.inner_text("#setup-count") == "98 setups"
    assert page.locator("article.setup").count() == 20
    screenshot(page, "setup-list")


def test_with_train_and_dev_loaded_the_first_page_counts_478_setups(researcher_client, dev_split):
    from annotations.importers import ambistory_import, parse_ambistory
    from tests.conftest import load_split_json

    ambistory_import(samples=parse_ambistory(load_split_json("train")), split="train")
    response = researcher_client.get(reverse("annotations:setup_list"))
    assert "478 setups" in response.content.decode()
    assert response.context["page"].paginator.count == 478
