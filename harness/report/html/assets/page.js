"use strict";
// The page's behaviour: filters over the groups, trajectories built when first unfolded, a repeat's pair shown on
// hover. Text from the records is only ever set through textContent, never parsed as HTML.
(function () {
  const form = document.getElementById("filters");
  if (!form) return;
  const sections = Array.from(document.querySelectorAll("section.task"));
  const cards = sections.map((section) => Array.from(section.querySelectorAll("article.g")));
  const shown = document.getElementById("shown");
  const noneShown = document.getElementById("none-shown");
  const total = cards.reduce((n, list) => n + list.length, 0);

  function checkedValue(name) {
    const input = form.querySelector(`input[name="${name}"]:checked`);
    return input ? input.value : "";
  }

  function conditions() {
    const select = form.querySelector("#f-cond select");
    if (select) return select.value === "" ? null : new Set([select.value]);
    return new Set(Array.from(form.querySelectorAll("#f-cond input:checked"), (box) => box.value));
  }

  // The filter state read from the form: conditions (null = all), solved, frozen, repeats only, task text.
  function state() {
    return {
      conditions: conditions(),
      solved: checkedValue("solved"),
      frozen: checkedValue("frozen"),
      repeats: document.getElementById("f-rep").checked,
      task: document.getElementById("f-task").value.trim().toLowerCase(),
    };
  }

  function apply(filter) {
    const wanted = filter.conditions == null ? null : new Set(Array.from(filter.conditions, String));
    let visible = 0;
    sections.forEach((section, k) => {
      const taskMatches = !filter.task || section.dataset.q.includes(filter.task);
      let inSection = 0;
      for (const card of cards[k]) {
        const d = card.dataset;
        const show = taskMatches
          && (wanted === null || wanted.has(d.c))
          && (!filter.solved || d.s === filter.solved)
          && (!filter.frozen || d.f === filter.frozen)
          && (!filter.repeats || d.r === "1");
        card.hidden = !show;
        if (show) inSection += 1;
      }
      section.hidden = inSection === 0;
      visible += inSection;
    });
    shown.textContent = `${visible} of ${total} shown`;
    noneShown.hidden = visible > 0;
    return visible;
  }

  form.addEventListener("input", () => apply(state()));
  form.addEventListener("change", () => apply(state()));

  let pool = null;
  function steps(text) {
    return new Set((text || "").split(" ").filter((s) => s !== "").map(Number));
  }

  // The diagnosis's marks (data-d decisive, data-cl claimed, data-e error steps), as classes and a text tag.
  function mark(item, step, details) {
    const tags = [];
    if (steps(details.dataset.d).has(step)) { item.classList.add("dec"); tags.push("decisive"); }
    if (steps(details.dataset.cl).has(step)) { item.classList.add("cl"); tags.push("claimed"); }
    if (steps(details.dataset.e).has(step)) { item.classList.add("err"); tags.push("error"); }
    if (tags.length === 0) return;
    const tag = document.createElement("span");
    tag.className = "mk";
    tag.textContent = tags.join(", ");
    item.append(tag);
  }

  function trajectory(number, details) {
    if (pool === null) pool = JSON.parse(document.getElementById("trajectories").textContent);
    const indices = pool.t[number];
    const list = document.createElement("ol");
    list.className = "steps";
    for (let i = 0; i < indices.length; i += 2) {
      const item = document.createElement("li");
      mark(item, i / 2 + 1, details);
      const action = document.createElement("pre");
      action.className = "a";
      action.textContent = pool.s[indices[i]];
      const observation = document.createElement("pre");
      observation.className = "o";
      observation.textContent = pool.s[indices[i + 1]];
      item.append(action, observation);
      list.append(item);
    }
    if (indices.length === 0) list.textContent = "no step recorded";
    return list;
  }

  // toggle does not bubble: listen while it is captured on the way down.
  document.addEventListener("toggle", (event) => {
    const details = event.target;
    if (details.matches && details.matches("details.tj") && details.open && !details.dataset.built) {
      details.append(trajectory(Number(details.dataset.t), details));
      details.dataset.built = "1";
    }
  }, true);

  function pair(event, on) {
    const link = event.target.closest && event.target.closest("a.sim[data-to]");
    if (!link) return;
    const earlier = document.getElementById(link.dataset.to);
    const later = link.closest("li.t");
    for (const row of [earlier, later]) if (row) row.classList.toggle("pair", on);
  }
  document.addEventListener("mouseover", (event) => pair(event, true));
  document.addEventListener("mouseout", (event) => pair(event, false));

  // For tests and benchmarks: the same filtering the form does, driven from outside.
  window.harnessReport = { apply, state, total };
})();
