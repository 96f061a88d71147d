// Run detail: poll the run's progress endpoint and update the bar until the run finishes.
// A cancelled run is finished only once its worker has stopped (the last batch may still
// add predictions): the page keeps polling while the progress says "stopping".
(function () {
  "use strict";
  var box = document.getElementById("run-progress");
  if (!box) { return; }
  var bar = document.getElementById("run-bar");
  bar.style.width = (parseFloat(bar.dataset.percent) || 0) + "%";  // no inline style (CSP)
  var url = box.dataset.url;
  if (box.dataset.finished === "1") { return; }

  function text(id, value) { document.getElementById(id).textContent = value; }

  // One optional part of the "n / total samples · rate · time left" line: hidden when empty,
  // so that no separator is left dangling.
  function part(id, value) {
    text(id, value);
    document.getElementById(id + "-part").hidden = !value;
  }

  function show(p) {
    document.getElementById("run-bar").style.width = p.percent + "%";
    box.querySelector(".bar").setAttribute("aria-valuenow", p.done);
    text("run-done", p.done);
    text("run-total", p.total);
    text("run-status", p.status.charAt(0).toUpperCase() + p.status.slice(1));
    document.getElementById("run-status").className = "status " + p.status;
    document.getElementById("run-stopping").hidden = !p.stopping;
    part("run-rate", p.rate ? p.rate.toFixed(1) + " samples/s" : "");
    part("run-eta", p.eta_seconds === null ? "" : Math.round(p.eta_seconds) + " s left");
    var error = document.getElementById("run-error");
    error.hidden = !p.error;
    error.textContent = p.error;
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (p) {
        show(p);
        // A finished run has new scores and buttons: reload the page once to show them.
        if (p.finished) { window.location.reload(); } else { window.setTimeout(poll, 1000); }
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  window.setTimeout(poll, 500);
})();
