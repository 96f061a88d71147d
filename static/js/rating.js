// Rating page: digit keys choose a score (1-5, 0-4 or the n-th sense), Enter submits (Next), the guidelines open in a dialog,
// the time left counts down (time_left.js: a warning near the end; at zero the page reloads
// and the server shows what happens next).
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
    here.replaceWith(document.adoptNode(next));
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
    stopClock = window.ambisiteTimeLeft && window.ambisiteTimeLeft(
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
