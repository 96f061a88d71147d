// Leaderboard: bootstrap intervals per run, the label distribution and the model-vs-human scatter.
(function () {
  "use strict";
  const COLORS = ["#2f5bd3", "#e08a1e", "#7d4cc2", "#c0392b", "#0f766e", "#6b7280"];
  const known = (v) => typeof v === "number" && isFinite(v);
  const fmt = (ci) => (ci && known(ci[0]) && known(ci[1]) ? `${ci[0].toFixed(3)} … ${ci[1].toFixed(3)}` : "—");
  const get = (url) => fetch(url, { credentials: "same-origin" }).then((r) => r.json());

  const table = document.getElementById("leaderboard");
  if (table) {
    get(table.dataset.url).then((data) => {
      for (const [run, ci] of Object.entries(data.runs)) {
        const row = table.querySelector(`tr[data-run="${run}"]`);
        if (!row) continue;
        row.querySelector(".ci-accuracy").textContent = fmt(ci.accuracy);
        row.querySelector(".ci-spearman").textContent = fmt(ci.spearman);
        const fewer = ci.replicates < data.n_boot ? ` (${ci.replicates} replicates)` : "";
        row.querySelector(".ci-spearman").textContent += fewer;
        for (const key of ["accuracy", "spearman"]) {
          const cell = row.querySelector(`.ci-${key}`);
          const defined = ci.defined ? ci.defined[key] : ci.replicates;
          // an interval over fewer replicates than drawn says so
          const some = defined < ci.replicates ? ` (${defined} of ${ci.replicates} replicates defined)` : "";
          cell.textContent += some;
          cell.title = `${ci.replicates} bootstrap replicates over setups${some}`;
        }
      }
      const note = document.getElementById("leaderboard-boot");
      if (note) note.textContent = `Intervals: ${data.n_boot} bootstrap replicates over setups ` +
        "(fewer on very large runs, as marked).";
    });
  }

  const labels = document.getElementById("chart-labels");
  if (labels) {
    get(labels.dataset.url).then((data) => {
      ChartTable.fromSeries(labels, data, "rounded score", "%");
      return new Chart(labels, {
      type: "bar",
      data: { labels: data.labels, datasets: data.series.map((s, i) => ({
        label: s.name, data: s.values,
        backgroundColor: s.name === "humans" ? "#1e8e5a" : COLORS[i % COLORS.length] })) },
      options: { responsive: true, maintainAspectRatio: false, animation: false,
        plugins: { title: { display: true, text: data.title } },
        scales: { x: { title: { display: true, text: "rounded score" } },
                  y: { beginAtZero: true, title: { display: true, text: "% of samples" } } } },
      });
    });
  }

  // The scatter's text alternative: how many of the points drawn fall inside and outside.
  function describeScatter(canvas, data, nIn, nOut) {
    const box = document.querySelector(`[data-numbers-for="${canvas.id}"]`);
    const shown = nIn + nOut;
    const pct = (n) => (shown ? `${(100 * n / shown).toFixed(1)}%` : "—");
    if (box) {
      ChartTable.table(box, ["samples drawn", "number", "share"], [
        ["inside the band (●)", nIn, pct(nIn)], ["outside the band (✕)", nOut, pct(nOut)],
        ["all drawn", shown, shown ? "100%" : "—"]]);
      if (data.n && data.n > shown) {
        const note = document.createElement("p");
        note.textContent = `${shown} of the run's ${data.n} predictions are drawn (an even spread).`;
        box.appendChild(note);
      }
    }
    canvas.setAttribute("aria-label", `${data.title}: ${data.run ? data.run.name : "no run"}. ` +
      `${shown} samples drawn: ${nIn} inside the band, ${nOut} outside.`);
  }

  const scatter = document.getElementById("chart-scatter");
  if (scatter) {
    get(scatter.dataset.url).then((data) => {
      const inside = data.points.filter((p) => p.inside);
      const outside = data.points.filter((p) => !p.inside);
      describeScatter(scatter, data, inside.length, outside.length);
      const line = (d) => [{ x: 1, y: 1 + d }, { x: 5, y: 5 + d }];
      const guide = (d, dash) => ({ type: "line", label: d ? `mean ${d > 0 ? "+" : "−"} 1` : "prediction = mean",
        data: line(d), borderColor: "#9aa3b5", borderDash: dash, pointRadius: 0, borderWidth: 1 });
      new Chart(scatter, {
        type: "scatter",
        data: { datasets: [
          { label: "● inside the band", data: inside, backgroundColor: "#1e8e5a", pointStyle: "circle", pointRadius: 3 },
          { label: "✕ outside the band", data: outside, borderColor: "#c0392b", backgroundColor: "#c0392b",
            pointStyle: "crossRot", pointRadius: 4, borderWidth: 2 },
          guide(0, []), guide(1, [5, 4]), guide(-1, [5, 4]),
        ] },
        options: { responsive: true, maintainAspectRatio: false, animation: false,
          plugins: { title: { display: true, text: `${data.title}: ${data.run ? data.run.name : ""}` },
                     legend: { labels: { usePointStyle: true } } },
          scales: { x: { min: 1, max: 5, title: { display: true, text: "human mean" } },
                    y: { min: 0.5, max: 5.5, title: { display: true, text: "prediction" } } } },
      });
    });
  }
})();
