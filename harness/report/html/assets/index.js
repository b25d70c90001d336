"use strict";
// The index's behaviour: the filters hide rows, a click on a column's heading sorts the rows by it (again: the
// other way). Rows are only hidden and moved; no text is ever parsed as HTML.
(function () {
  const table = document.getElementById("index");
  const form = document.getElementById("filters");
  if (!table || !form) return;
  const body = table.tBodies[0];
  const headers = Array.from(table.tHead.rows[0].cells);
  const shown = document.getElementById("shown");
  const noneShown = document.getElementById("none-shown");
  const total = body.rows.length;

  // The filter state read from the form: text to find, and the kind, domain and status chosen ("" = all).
  function state() {
    return {
      text: document.getElementById("f-q").value.trim().toLowerCase(),
      kind: document.getElementById("f-kind").value,
      domain: document.getElementById("f-domain").value,
      status: document.getElementById("f-status").value,
    };
  }

  function apply(filter) {
    let visible = 0;
    for (const row of body.rows) {
      const d = row.dataset;
      const show = (!filter.text || d.q.includes(filter.text))
        && (!filter.kind || d.kind === filter.kind)
        && (!filter.domain || d.d.split(" ").includes(filter.domain))
        && (!filter.status || d.st === filter.status);
      row.hidden = !show;
      if (show) visible += 1;
    }
    shown.textContent = `${visible} of ${total} shown`;
    noneShown.hidden = visible > 0;
    return visible;
  }

  // A number column sorts by data-v (an empty cell last, either way); a text column by its text, digits as numbers.
  function compare(a, b, numeric) {
    if (numeric) {
      if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) - Number.isNaN(b);
      return a - b;
    }
    if ((a === "") !== (b === "")) return a === "" ? 1 : -1;
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  }

  function sort(column, direction) {
    const numeric = headers[column].dataset.type === "number";
    const sign = direction === "descending" ? -1 : 1;
    const keyed = Array.from(body.rows, (row, k) => {
      const cell = row.cells[column];
      const key = numeric ? (cell.dataset.v === undefined ? NaN : Number(cell.dataset.v)) : cell.textContent.trim();
      return { key, k, row };
    });
    keyed.sort((a, b) => {
      const empty = numeric ? Number.isNaN(a.key) || Number.isNaN(b.key) : a.key === "" || b.key === "";
      const order = compare(a.key, b.key, numeric);
      return (empty ? order : sign * order) || a.k - b.k;
    });
    body.append(...keyed.map((entry) => entry.row));
    headers.forEach((th, k) => th.setAttribute("aria-sort", k === column ? direction : "none"));
  }

  table.tHead.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-col]");
    if (!button) return;
    const column = Number(button.dataset.col);
    sort(column, headers[column].getAttribute("aria-sort") === "ascending" ? "descending" : "ascending");
  });
  form.addEventListener("input", () => apply(state()));
  form.addEventListener("change", () => apply(state()));

  // For tests: the same filtering and sorting the page does, driven from outside.
  window.harnessIndex = { apply, sort, state, total };
})();
