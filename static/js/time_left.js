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
