// Study page: poll the study's live JSON and update the counts, places and the numbers of
// the sample rows shown, without reloading. Polling pauses while the tab is hidden and
// resumes (at once) when it is shown again.
(function () {
  "use strict";
  var box = document.getElementById("live");
  if (!box || !window.fetch) { return; }
  var EVERY_MS = 10000;
  var timer = null;
  var rows = Array.prototype.slice.call(document.querySelectorAll("#sample-stats tbody tr[id^='sample-']"));
  var ids = rows.map(function (row) { return row.id.slice("sample-".length); });
  var url = box.dataset.url + "?ids=" + ids.join(",");

  function setText(id, value) {
    var el = document.getElementById(id);
    if (el && el.textContent !== String(value)) { el.textContent = value; }
  }

  // As the template writes it: "0", or "<n> outdated" in the warning colour.
  function outdated(cell, n) {
    if (!cell) { return; }
    var text = n ? n + " outdated" : "0";
    if (cell.textContent === text) { return; }
    if (!n) { cell.textContent = "0"; return; }
    var strong = document.createElement("strong");
    strong.className = "excluded";
    strong.textContent = text;
    cell.replaceChildren(strong);
  }

  function show(data) {
    setText("study-status", data.status_label);
    setText("study-ratings", data.n_study_ratings);
    setText("n-short", data.n_short);
    data.participants.forEach(function (c) { setText("chip-" + c.status, c.n); });
    data.places.forEach(function (p) { setText("places-" + p.status, p.n); });
    data.samples.forEach(function (s) {
      var row = document.getElementById("sample-" + s.id);
      if (!row) { return; }
      ["n", "mean", "sd", "all"].forEach(function (key) {
        var cell = row.querySelector("td." + key);
        if (cell && cell.textContent !== String(s[key])) { cell.textContent = s[key]; }
      });
      outdated(row.querySelector("td.outdated"), s.outdated);
    });
    var at = new Date(data.updated_at);
    setText("live-note", "Updated at " + at.toLocaleTimeString() + "; updates by itself while this tab is open.");
  }

  function schedule() {
    window.clearTimeout(timer);
    if (!document.hidden) { timer = window.setTimeout(poll, EVERY_MS); }
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) { throw new Error(response.status); }
        return response.json();
      })
      .then(show)
      .catch(function () { setText("live-note", "Could not update just now; trying again."); })
      .then(schedule);
  }

  document.addEventListener("visibilitychange", function () {
    window.clearTimeout(timer);
    if (!document.hidden) { poll(); }
  });
  schedule();
})();
