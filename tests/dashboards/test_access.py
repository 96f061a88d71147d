"""Only researchers see dashboards: annotators, visitors and outsiders get no data."""

from __future__ import annotations

import pytest

from annotations.models import Rater, RaterExclusion
from tests.dashboards.helpers import DASHBOARD_URLS, import_setups

pytestmark = pytest.mark.django_db


@pytest.fixture
def annotator_client(client):
    """An anonymous Prolific participant: a session, never a login."""
    session = client.session
    session["participant_id"] = 1
    session["prolific_pid"] = "PID-annotator"
    session.save()
    return client


def assert_no_data(response):
    assert response.status_code in (302, 403, 405)
    if response.status_code == 302:
        assert response["Location"].startswith("/accounts/login/")
    assert b"alpha" not in response.content and b"accuracy" not in response.content


@pytest.mark.parametrize("who", ["client", "annotator_client", "outsider_client"])
def test_it_gives_no_dashboard_or_json_to_non_researchers(request, who):
    split = import_setups(1)
    setup_id = split.samples.first().story.setup_id
    rater = Rater.objects.first()
    browser = request.getfixturevalue(who)
    for url in [*DASHBOARD_URLS, f"/dashboards/setups/{setup_id}/"]:
        assert_no_data(browser.get(url))
    post = browser.post(
        f"/dashboards/annotators/{rater.id}/exclusion/", {"action": "exclude", "reason": "x"}
    )
    assert_no_data(post)
    assert not RaterExclusion.objects.exists()


def test_researchers_get_every_dashboard(researcher_client):
    split = import_setups(1)
    setup_id = split.samples.first().story.setup_id
    for url in [*DASHBOARD_URLS, f"/dashboards/setups/{setup_id}/"]:
        assert researcher_client.get(url).status_code == 200, url
