// The participant pages' scripts, one file (one request per participant, prefetched by the
// arrival page; issue 33): the clock, the address bar, the hold's heartbeat, the qualification
// page and the rating page. Each section acts only where its page's elements are, so the file
// can be linked from any participant page (the writing pages add writing.js for their own
// forms, which uses the clock below).

// === The clock ===========================================================================
// The clock of the participant pages (rating, qualification, writing): counts the time left
// of #time-left down, shows its data-warning in a status region in the last 5 minutes (screen
// readers announce it), its data-expired at zero, and calls the page's onZero then.
(function () {
  "use strict";
  var WARN_SECONDS = 5 * 60;

  function text(minutes) { return minutes === 1 ? "1 minute" : minutes + " minutes"; }

  // Starts the clock; returns a function that stops it (a page swapped in starts its own).
  window.ambisiteTimeLeft = function (clock, onZero) {
    if (!clock || !clock.dataset.seconds) return function () {};
    var end = Date.now() + parseInt(clock.dataset.seconds, 10) * 1000;
    var value = clock.querySelector(".value");
    var note = clock.querySelector("#time-warning");
    var warned = false, over = false, timer = null;
    function tick() {
      // rounded up: zero is shown (and onZero called) only once the time is really over
      var left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
      var shown = text(Math.ceil(left / 60));
      if (value.textContent !== shown) value.textContent = shown;
      if (left <= WARN_SECONDS && !warned) {
        warned = true;
        clock.classList.add("warn");
        if (note && clock.dataset.warning) note.textContent = clock.dataset.warning;
      }
      if (left <= 0 && !over) {
        over = true;
        window.clearInterval(timer);
        if (note && clock.dataset.expired) note.textContent = clock.dataset.expired;
        if (onZero) onZero();
      }
    }
    timer = window.setInterval(tick, 1000);
    tick();
    return function () { window.clearInterval(timer); };
  };
})();

// === The address bar =====================================================================
// A page sent in answer to a form's POST (the consent answered with the qualification test,
// the test's answers with the first item): the address bar shows the page's own address (its
// canonical link) instead of the POST's, so that a reload or Back loads it with a GET and
// does not send the form again.
(function () {
  "use strict";
  var link = document.querySelector('link[rel="canonical"]');
  if (link && window.history && history.replaceState && link.href !== window.location.href) {
    history.replaceState(null, "", link.href);
  }
})();

// === The hold's heartbeat ================================================================
// The participant's page before the qualification test keeps the batch held only while it is
// open, hidden or not (studies/holds.py): a heartbeat when it loads, again 5 s later (so a "closed" beacon of
// the page before, arriving late, cannot end the hold) and every 60 s after that, plus one
// whenever the tab is shown again; when the page goes away (closed, reloaded, left) a beacon
// says so and the hold lapses within half a minute unless the next page sends a heartbeat.
(function () {
  "use strict";
  // the address and CSRF token come from the element the hold tag renders (studies/templatetags/hold_tags.py)
  var me = document.querySelector('meta[name="hold-heartbeat"]');
  if (!me || !me.content) { return; }
  var url = me.content;
  var csrf = me.dataset.csrf || "";

  function body(gone) {
    var data = new URLSearchParams();
    data.set("csrfmiddlewaretoken", csrf);
    if (gone) { data.set("gone", "1"); }
    return data;
  }

  function beat() {  // hidden tabs beat too (at least once a minute): the guidelines tab
    fetch(url, { method: "POST", body: body(false), credentials: "same-origin", keepalive: true })
      .catch(function () { /* the next heartbeat tries again */ });
  }

  function gone() {
    if (navigator.sendBeacon) { navigator.sendBeacon(url, body(true)); }
  }

  beat();
  window.setTimeout(beat, 5000);
  window.setInterval(beat, 60000);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { beat(); }
  });
  window.addEventListener("pagehide", gone);
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) { beat(); }  // back from the browser's page cache
  });
})();

// === The qualification page ==============================================================
// Qualification page (form#qualification; never a rating page, whose own section starts its
// clock): the hold's clock. At zero the answers can still be sent: they are saved and graded,
// and the next page says whether the study goes on.
(function () {
  "use strict";
  if (!document.getElementById("qualification") || document.getElementById("rate-form")) return;
  window.ambisiteTimeLeft(document.getElementById("time-left"));
})();

// === The rating page =====================================================================
// Rating page (form#rate-form; nothing else is set up without it): digit keys choose a score
// (1-5, 0-4 or the n-th sense), Enter submits (Next), the guidelines open in a dialog,
// the time left counts down (the clock section: a warning near the end; at zero the page
// reloads and the server shows what happens next).
//
// Next sends the form with fetch() and the header X-Rating-Page: 1. The server saves the
// answer and answers with the next item's page itself (its address in X-Page-Url), which is
// swapped in here and pushed onto the history: one request per item instead of a POST and
// the GET its redirect asks for. Any other answer (the code page after the last item, an
// error page) is shown as a normal form submission would show it. Without fetch, or when
// the request fails, the form posts normally (saving an item twice updates it), so a reload
// never loses a saved answer and the page works without this script.
(function () {
  "use strict";
  if (!document.getElementById("rate-form")) return;
  var form, dialog, message, sent, stopClock;

  function typing(target) {
    return target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT" && target.type === "text");
  }

  function chosen() {
    return form.querySelector('input[name="score"]:checked');
  }

  function clearMessage() {
    form.classList.remove("needs-score");
    if (message) message.textContent = "";
  }

  var inPage = !!(window.fetch && window.DOMParser && window.URLSearchParams && window.FormData &&
                  window.history && history.pushState);

  function show(html, url) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var next = doc.querySelector("main");
    var here = document.querySelector("main");
    if (!next || !here) { window.location.assign(url); return; }
    // the swapped-in item comes without what is the same for every item, which the server
    // leaves out: the form's CSRF token and the guidelines dialog stay from this page
    var token = form && form.querySelector('input[name="csrfmiddlewaretoken"]');
    var guidelines = document.getElementById("guidelines-dialog");
    here.replaceWith(document.adoptNode(next));
    var nextForm = document.getElementById("rate-form");
    if (token && nextForm && !nextForm.querySelector('input[name="csrfmiddlewaretoken"]')) {
      nextForm.prepend(token);
    }
    if (guidelines && !document.getElementById("guidelines-dialog")) next.appendChild(guidelines);
    document.title = doc.title;
    if (url !== window.location.pathname) history.pushState({ rating: url }, "", url);
    window.scrollTo(0, 0);
    setUp();
    var title = document.querySelector(".rate-title");
    if (title) { title.setAttribute("tabindex", "-1"); title.focus({ preventScroll: true }); }
  }

  function send() {
    var target = form.getAttribute("action") || window.location.href;
    fetch(target, {
      method: "POST",
      body: new URLSearchParams(new FormData(form)),
      headers: { "X-Rating-Page": "1" },
      credentials: "same-origin"
    }).then(function (response) {
      var url = response.headers.get("X-Page-Url");
      if (url) return response.text().then(function (html) { show(html, url); });
      if (response.redirected) { window.location.assign(response.url); return; }
      // an error page: shown as the form's own submission would show it
      return response.text().then(function (html) {
        document.open(); document.write(html); document.close();
      });
    }).catch(function () {
      form.submit();  // the network failed: post normally (a second save updates the first)
    });
  }

  function setUp() {
    form = document.getElementById("rate-form");
    if (!form) return;
    dialog = document.getElementById("guidelines-dialog");
    message = document.getElementById("score-error");
    sent = false;

    document.getElementById("show-guidelines").addEventListener("click", function () {
      if (dialog.showModal) dialog.showModal(); else dialog.setAttribute("open", "");
    });

    form.addEventListener("change", function (event) {
      if (event.target.name === "score") clearMessage();
    });

    form.addEventListener("submit", function (event) {
      if (!chosen()) {
        event.preventDefault();
        form.classList.add("needs-score");
        // an alert region: screen readers announce the new text
        if (message) message.textContent = message.dataset.text || "Please select an answer.";
        var first = form.querySelector('input[name="score"]');
        if (first) first.focus();
        return;
      }
      if (sent) { event.preventDefault(); return; }  // a double click sends once
      sent = true;
      if (inPage) { event.preventDefault(); send(); }
    });

    if (stopClock) stopClock();
    stopClock = window.ambisiteTimeLeft(
      document.getElementById("time-left"),
      function () { if (!sent) window.location.reload(); });
  }

  document.addEventListener("keydown", function (event) {
    if (!form || !document.body.contains(form)) return;
    if (dialog.open || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) return;
    // a digit picks the radio whose data-key (sense choice: 1, 2, ...) or value is that digit
    var radio = event.key.length === 1 && event.key >= "0" && event.key <= "9" &&
      (form.querySelector('input[name="score"][data-key="' + event.key + '"]') ||
       form.querySelector('input[name="score"][value="' + event.key + '"]:not([data-key])'));
    if (radio) {
      radio.checked = true;
      radio.focus();
      clearMessage();
      event.preventDefault();
    } else if (event.key === "Enter" && event.target.tagName !== "BUTTON" && event.target.tagName !== "A") {
      event.preventDefault();
      form.requestSubmit ? form.requestSubmit() : form.submit();
    }
  });

  // Back and Forward between swapped-in items: load that address as a page.
  window.addEventListener("popstate", function () { window.location.reload(); });

  setUp();
})();
