// The text alternative of a dashboard chart: the numbers it draws, as a table in the
// chart's <figcaption> ("Numbers" disclosure), and a one-line summary as the canvas's
// aria-label. Every chart page loads this before its own script.
(function () {
  "use strict";

  function cell(tag, text, numeric) {
    const el = document.createElement(tag);
    el.textContent = text;
    if (numeric) el.className = "num";
    return el;
  }

  // rows: [[label, v1, v2, ...]], head: ["", "series 1", ...]
  function table(container, head, rows) {
    const t = document.createElement("table");
    t.className = "chart-numbers";
    const tr = document.createElement("tr");
    head.forEach((h, i) => tr.appendChild(cell("th", h, i > 0)));
    t.createTHead().appendChild(tr);
    const body = t.createTBody();
    for (const row of rows) {
      const r = body.insertRow();
      row.forEach((v, i) => r.appendChild(cell(i ? "td" : "th", v === null || v === undefined ? "—" : String(v), i > 0)));
    }
    container.replaceChildren(t);
  }

  // A bar chart's data ({title, labels, series: [{name, values}]}): a table with one row per
  // label ("what": the x axis, e.g. "score") and a column per series; "unit" follows each value.
  function fromSeries(canvas, data, what, unit) {
    unit = unit || "";
    const box = document.querySelector(`[data-numbers-for="${canvas.id}"]`);
    const rows = data.labels.map((label, i) => [label, ...data.series.map((s) => s.values[i])]);
    const head = data.series.map((s) => (unit ? `${s.name} (${unit})` : s.name));
    if (box) table(box, [what, ...head], rows);
    const said = data.series.map((s) => `${s.name}: ` +
      s.values.map((v, i) => `${what} ${data.labels[i]}: ${v}${unit}`).join(", "));
    canvas.setAttribute("aria-label", `${data.title}. ${said.join("; ")}.`);
  }

  window.ChartTable = { table: table, fromSeries: fromSeries };
})();
