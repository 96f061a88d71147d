// Qualification page: the hold's clock (time_left.js). At zero the answers can still be sent:
// they are saved and graded, and the next page says whether the study goes on.
(function () {
  "use strict";
  if (window.ambisiteTimeLeft) window.ambisiteTimeLeft(document.getElementById("time-left"));
})();
