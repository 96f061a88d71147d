// Rating page: digit keys choose a score (1-5, 0-4 or the n-th sense), Enter submits (Next), the guidelines open in a dialog,
// the time left counts down (a warning near the end; at zero the page reloads and the server
// shows what happens next). The form posts normally, so a reload never loses a saved answer.
(function () {
  "use strict";
  var form = document.getElementById("rate-form");
  if (!form) return;
  var dialog = document.getElementById("guidelines-dialog");
  var message = document.getElementById("score-error");
  var sent = false;
  var WARN_SECONDS = 5 * 60;

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
  });

  document.addEventListener("keydown", function (event) {
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

  var clock = document.getElementById("time-left");
  if (clock && clock.dataset.seconds) {
    var end = Date.now() + parseInt(clock.dataset.seconds, 10) * 1000;
    var value = clock.querySelector(".value");
    var warned = false;
    var tick = function () {
      var left = Math.max(0, Math.round((end - Date.now()) / 1000));
      var minutes = Math.ceil(left / 60);
      value.textContent = minutes === 1 ? "1 minute" : minutes + " minutes";
      if (left <= WARN_SECONDS && !warned) {
        warned = true;
        clock.classList.add("warn");
        document.getElementById("time-warning").textContent =
          "Please finish soon: when the time is up, unanswered items go to other participants.";
      }
      if (left <= 0) {
        window.clearInterval(timer);
        if (!sent) window.location.reload();
      }
    };
    var timer = window.setInterval(tick, 15000);
    tick();
  }
})();
