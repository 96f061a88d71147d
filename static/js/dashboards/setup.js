// Setup view: a small rating histogram in every cell of the 2 senses x 3 stories grid; each
// canvas's aria-label gives its counts (its text alternative).
(function () {
  "use strict";
  const grid = document.getElementById("setup-grid");
  if (!grid) return;
  const small = { display: true, text: "", font: { size: 9 }, padding: 0 };
  fetch(grid.dataset.url, { credentials: "same-origin" }).then((r) => r.json()).then((data) => {
    const top = Math.max(1, ...Object.values(data.cells).flat());
    for (const canvas of grid.querySelectorAll("canvas.hist")) {
      const counts = data.cells[canvas.dataset.sample] || [0, 0, 0, 0, 0];
      const listed = data.labels.map((label, i) => `score ${label}: ${counts[i]}`).join(", ");
      canvas.setAttribute("aria-label", `Histogram of this cell's ratings: ${listed}.`);
      new Chart(canvas, {
        type: "bar",
        data: { labels: data.labels, datasets: [{ data: counts, backgroundColor: "#2f5bd3" }] },
        options: { responsive: false, animation: false, plugins: { legend: { display: false } },
          scales: { x: { title: { ...small, text: "score" } },
                    y: { beginAtZero: true, max: top, ticks: { precision: 0 },
                         title: { ...small, text: "ratings" } } } },
      });
    }
  });
})();
