"""The acceptance walk of issue 15 in real headless Chromium against a live server: a
writer writes five sentences (one refused for using the word twice, one word skipped); a
researcher accepts sentences, generates precontexts against a local OpenAI-protocol server
and accepts them; a second writer writes two endings (one refused for containing the word);
the researcher accepts the endings and creates a rating study in one step, whose stories
come with 6 samples per setup."""

from __future__ import annotations

import re

import pytest

from annotations.models import Sample
from studies.models import Study
from tests.conftest import screenshot
from tests.llm_server import LLMServer, Reply
from tests.studies.helpers import pid
from tests.writing.helpers import SENTENCES, make_pool, open_writing_study
from writing.models import Draw, Ending, Precontext, Sentence, WrittenSetup

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PRECONTEXT = "Mia had planned the day for weeks. She packed a small bag. Then she set off early."


@pytest.fixture
def eager_celery():
    from ambisite.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def fits_the_phone(page) -> None:
    width, inner = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert width <= inner, f"{page.url} is {width}px wide on a {inner}px phone"


def arrive_and_qualify(page, live_server, slug: str, prolific_pid: str, study) -> None:
    page.goto(f"{live_server.url}/s/{slug}/?PROLIFIC_PID={prolific_pid}&STUDY_ID=st&SESSION_ID=se")
    page.click("#start-qualification")
    page.wait_for_selector("#submit-qualification")
    for q in study.check_questions.all():  # the page shows the participant's drawn ones
        if page.locator(f'input[name="q{q.pk}"]').count():
            page.click(f'label:has(input[name="q{q.pk}"][value="{q.expected}"])')
    page.click("#submit-qualification")


def write_sentences(page, live_server, study) -> None:
    arrive_and_qualify(page, live_server, "sent", pid(1), study)
    page.wait_for_url(re.compile(r"/s/sent/sentences/$"))
    assert page.text_content("#progress").strip() == "Completed 0 out of 5 sentences"
    fits_the_phone(page)
    word = page.text_content("#word").strip()
    twice = f"The {word} was next to another {word.capitalize()}."
    page.fill("#text", twice)
    page.click("#next")
    assert "exactly once" in page.text_content("#sentence-error")
    page.goto(page.url)  # opened again: the refused text is still there
    assert page.input_value("#text") == twice
    page.click("#skip")  # "A different word, please!"
    page.wait_for_load_state()
    assert page.text_content("#word").strip() != word
    for n in range(5):
        assert page.text_content("#progress").strip() == f"Completed {n} out of 5 sentences"
        page.fill("#text", SENTENCES[page.text_content("#word").strip()])
        page.click("#next")
        page.wait_for_load_state()
        if n == 2:
            page.reload()
    page.wait_for_url(re.compile(r"/s/sent/done/$"))
    assert page.text_content("#code").strip() == "WRITE123"
    assert Draw.objects.filter(status="skipped").count() == 1
    assert Sentence.objects.count() == 5


def log_in(page, live_server) -> None:
    page.goto(f"{live_server.url}/accounts/login/?next=/writing/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "rita-password")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/writing/$"))


def make_setup(page, live_server, sentence: Sentence) -> None:
    page.goto(f"{live_server.url}/writing/sentences/{sentence.pk}/")
    page.select_option("#review-form select[name=decision]", "accepted")
    page.click("#save-review")
    page.wait_for_load_state()
    page.select_option("#generate-form select[name=endpoint]", "test")
    page.fill("#generate-form input[name=model]", "m")
    page.click("#generate")
    page.wait_for_load_state()
    row = Precontext.objects.get(sentence=sentence)
    assert row.status == "done", row.error
    assert PRECONTEXT in page.text_content(f"#precontext-{row.pk}")
    page.click(f"#precontext-{row.pk} .accept-precontext")
    page.wait_for_selector("#setup-made")


def write_endings(page, live_server, study) -> None:
    arrive_and_qualify(page, live_server, "end", pid(2), study)
    page.wait_for_url(re.compile(r"/s/end/endings/$"))
    assert page.text_content("#progress").strip() == "Finished Samples: 0/2"
    fits_the_phone(page)
    word = page.text_content("#word").strip()
    page.fill("#text", f"Everyone talked about the {word} for days.")
    page.click("#next")
    assert f'must not contain the word "{word}"' in page.text_content("#ending-error")
    screenshot(page, "writing-ending-refused-phone")
    page.fill("#text", "Everyone talked about it for days.")
    page.click("#next")
    page.wait_for_load_state()
    assert page.text_content("#progress").strip() == "Finished Samples: 1/2"
    page.fill("#text", "Nobody mentioned it again.")
    page.fill("#comment", "fun one")
    page.click("#next")
    page.wait_for_url(re.compile(r"/s/end/done/$"))
    assert page.text_content("#code").strip() == study.completion_code


def test_the_writing_pipeline_from_pool_to_rating_study(
    browser, live_server, researcher, settings, eager_celery
):
    make_pool()
    sentences_study = open_writing_study(Study.Activity.SENTENCES, slug="sent", per=5)
    writer = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    write_sentences(writer, live_server, sentences_study)
    screenshot(writer, "writing-sentence-done")

    tab = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    log_in(tab, live_server)
    with LLMServer() as server:
        server.responder = lambda body: Reply.text(PRECONTEXT)
        settings.LLM_ENDPOINTS = {
            "test": {"base_url": server.base_url, "api_key_env": "", "models": ["*"]}
        }
        make_setup(tab, live_server, Sentence.objects.order_by("id").first())
        prompt = server.requests[0].body["messages"][0]["content"]
    assert prompt.startswith("Take the following ambiguous sentence, which is the fourth")
    written = WrittenSetup.objects.get()
    assert written.setup.precontext == PRECONTEXT

    tab.goto(f"{live_server.url}/writing/setups/")
    tab.fill("#id_e-title", "Endings")
    tab.fill("#id_e-slug", "end")
    tab.fill("#id_e-per_participant", "2")
    tab.click("#create-ending-study")
    tab.wait_for_url(re.compile(r"/studies/\d+/$"))
    tab.click("#open-study")
    tab.wait_for_load_state()
    endings_study = Study.objects.get(slug="end")
    assert endings_study.status == "open"

    writer2 = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    write_endings(writer2, live_server, endings_study)
    assert Ending.objects.count() == 2

    for ending in Ending.objects.order_by("id"):
        tab.goto(f"{live_server.url}/writing/endings/{ending.pk}/")
        tab.select_option("#review-form select[name=decision]", "accepted")
        tab.click("#save-review")
        tab.wait_for_load_state()
    tab.goto(f"{live_server.url}/writing/setups/")
    assert "ready to rate" in tab.text_content("#setups")
    tab.fill("#id_r-title", "Rate the new stories")
    tab.fill("#id_r-slug", "rate-new")
    tab.fill("#id_r-split", "written-1")
    tab.click("#create-rating-study")
    tab.wait_for_url(re.compile(r"/studies/\d+/$"))
    screenshot(tab, "writing-rating-study")
    rating = Study.objects.get(slug="rate-new")
    samples = Sample.objects.filter(studies=rating)
    assert samples.count() == 6
    assert set(samples.values_list("story__setup_id", flat=True)) == {written.setup_id}
    endings = sorted(set(samples.values_list("story__ending", flat=True)))
    assert endings == ["", "Everyone talked about it for days.", "Nobody mentioned it again."]
