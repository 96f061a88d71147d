// The participant's page before the qualification test keeps the batch held only while it is
// open, hidden or not (studies/holds.py): a heartbeat when it loads, again 5 s later (so a "closed" beacon of
// the page before, arriving late, cannot end the hold) and every 60 s after that, plus one
// whenever the tab is shown again; when the page goes away (closed, reloaded, left) a beacon
// says so and the hold lapses within half a minute unless the next page sends a heartbeat.
(function () {
  "use strict";
  var me = document.currentScript;
  if (!me || !me.dataset.url) { return; }
  var url = me.dataset.url;
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
