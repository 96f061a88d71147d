"""bench/abuse.py's clients: one simulated browser each (its own cookies and address), and
the tally of what each attack and its real arrivals got."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field

from abuse_stack import Study

TOKEN = re.compile(r'name="token" value="([^"]+)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
QUESTION = re.compile(r'name="q(\d+)"')


@dataclass
class Tally:
    real_tried: int = 0
    real_in: int = 0
    real_qualified: int = 0
    real_in_after_reset: int = 0
    refusals: Counter = field(default_factory=Counter)  # real arrivals' refusals by status
    attacker: Counter = field(default_factory=Counter)  # attacker answers by status
    sent: int = 0


class Client:
    """One browser: its own cookies, its own address (X-Forwarded-For), no redirects followed."""

    def __init__(self, base: str, address: str, tally: Tally | None = None):
        import aiohttp

        self.base, self.address, self.tally = base, address, tally
        self.session = aiohttp.ClientSession(
            cookie_jar=aiohttp.CookieJar(unsafe=True),
            timeout=aiohttp.ClientTimeout(total=60),
        )

    async def close(self) -> None:
        await self.session.close()

    async def request(self, method: str, path: str, data=None) -> tuple[int, str, str]:
        headers = {"X-Forwarded-For": self.address}
        try:
            async with self.session.request(
                method, self.base + path, data=data, headers=headers, allow_redirects=False
            ) as response:
                text = await response.text()
                status = response.status
                # where the answer sends the browser: a redirect's Location, or the address
                # of a page sent in a POST's own answer (the consent answers with the test,
                # the test with the first item: X-Page-Url, studies.views.PAGE_URL_HEADER)
                location = response.headers.get("Location") or response.headers.get(
                    "X-Page-Url", ""
                )
        except (TimeoutError, OSError) as exc:
            status, text, location = 0, repr(exc), ""
        if self.tally is not None:
            self.tally.sent += 1
            self.tally.attacker[status] += 1
        return status, text, location

    async def arrive(self, slug: str, pid: str) -> tuple[int, str]:
        """The arrival link and the consent: (status, where it led: ``request``'s location)
        of the consent, or of the arrival page when it refused."""
        link = f"/s/{slug}/?PROLIFIC_PID={pid}&STUDY_ID=&SESSION_ID=se{pid[:8]}"
        status, page, _ = await self.request("GET", link)
        token, csrf = TOKEN.search(page), CSRF.search(page)
        if status != 200 or not token or not csrf:
            return status, ""
        data = {"pid": pid, "token": token[1], "csrfmiddlewaretoken": csrf[1]}
        data |= {"study_id": "", "session_id": f"se{pid[:8]}"}
        status, _, location = await self.request("POST", f"/s/{slug}/consent/", data)
        return status, location

    async def qualify(self, study: Study) -> bool:
        """Answer the qualification test correctly; True when it is passed."""
        path = f"/s/{study.slug}/qualification/"
        status, page, _ = await self.request("GET", path)
        csrf = CSRF.search(page)
        if status != 200 or not csrf:
            return False
        data = {"csrfmiddlewaretoken": csrf[1]}
        data |= {f"q{pk}": str(study.answers[int(pk)]) for pk in QUESTION.findall(page)}
        status, _, location = await self.request("POST", path, data)
        self.qualified_to = f"{status} {location}"
        return moved_to(status, location, "/rate/")


def moved_to(status: int, location: str, part: str) -> bool:
    """Whether an answer took the browser on to a page whose address has ``part``: a
    redirect there, or that page sent in the answer itself."""
    return status in (200, 302, 303) and part in location


def made_up_pid(rng: random.Random) -> str:
    return f"{rng.getrandbits(96):024x}"
