// Setup view: a small rating histogram in every cell of the 2 senses x 3 stories grid.
(function () {
  "use strict";
  const grid = document.getElementById("setup-grid");
  if (!grid) return;
  fetch(grid.dataset.url, { credentials: "same-origin" }).then((r) => r.json()).then((data) => {
    const top = Math.max(1, ...Object.values(data.cells).flat());
    for (const canvas of grid.querySelectorAll("canvas.hist")) {
      const counts = data.cells[canvas.dataset.sample] || [0, 0, 0, 0, 0];
      new Chart(canvas, {
        type: "bar",
        data: { labels: data.labels, datasets: [{ data: counts, backgroundColor: "#2f5bd3" }] },
        options: { responsive: false, animation: false, plugins: { legend: { display: false } },
          scales: { y: { beginAtZero: true, max: top, ticks: { precision: 0 } } } },
      });
    }
  });
})();
