// Rating page: keys 1-5 choose a score, Enter submits (Next), the guidelines open in a dialog.
// The form posts normally, so a reload never loses a saved answer.
(function () {
  "use strict";
  var form = document.getElementById("rate-form");
  if (!form) return;
  var dialog = document.getElementById("guidelines-dialog");
  var sent = false;

  function typing(target) {
    return target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT" && target.type === "text");
  }

  function chosen() {
    return form.querySelector('input[name="score"]:checked');
  }

  document.getElementById("show-guidelines").addEventListener("click", function () {
    if (dialog.showModal) dialog.showModal(); else dialog.setAttribute("open", "");
  });

  form.addEventListener("submit", function (event) {
    if (!chosen()) {
      event.preventDefault();
      var first = document.getElementById("score-1");
      if (first) first.focus();
      form.classList.add("needs-score");
      return;
    }
    if (sent) { event.preventDefault(); return; }  // a double click sends once
    sent = true;
  });

  document.addEventListener("keydown", function (event) {
    if (dialog.open || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) return;
    if (event.key >= "1" && event.key <= "5") {
      var radio = document.getElementById("score-" + event.key);
      radio.checked = true;
      radio.focus();
      form.classList.remove("needs-score");
      event.preventDefault();
    } else if (event.key === "Enter" && event.target.tagName !== "BUTTON" && event.target.tagName !== "A") {
      event.preventDefault();
      form.requestSubmit ? form.requestSubmit() : form.submit();
    }
  });
})();
