import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate-limit counters live in the cache: every test starts with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _claims_at_once(settings):
    """The tests' threads stand for the processes of a deployment, whose consents claim
    at once: no per-process turn-taking (``assignment.claim_gate``), except where a test
    sets it."""
    settings.ARRIVAL_CLAIMS_PER_PROCESS = 0
