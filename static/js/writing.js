// Writing pages (Figures 2 and 3): the clock (participant.js, linked before this file). At zero a text being written
// is sent as it is (the server saves it marked late, or says why not, and shows the code);
// with nothing typed the page reloads and the server shows what happens next.
(function () {
  "use strict";
  var form = document.getElementById("sentence-form") || document.getElementById("ending-form");
  var sent = false;
  if (form) form.addEventListener("submit", function () { sent = true; });
  if (!window.ambisiteTimeLeft) return;
  window.ambisiteTimeLeft(document.getElementById("time-left"), function () {
    if (sent) return;
    var text = form && form.querySelector("textarea[name=text]");
    if (text && text.value.trim()) {
      sent = true;
      text.removeAttribute("required");
      form.submit();
    } else {
      window.location.reload();
    }
  });
})();
