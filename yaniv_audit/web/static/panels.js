// The game page on a phone: the moves, the rounds, the findings and the score chart as
// tabs right under the board, so that each is one tap from it (on a laptop the moves
// stand beside the board and the rest under both: the tabs are not shown). Without
// this script every panel is shown, one under another.
(() => {
  "use strict";
  const bar = document.getElementById("panel-tabs");
  const layout = document.querySelector(".layout");
  if (!bar || !layout) return;
  const tabs = Array.from(bar.querySelectorAll("[role=tab]"));
  const panel = (tab) => document.getElementById(tab.getAttribute("aria-controls"));
  function choose(tab, focus) {
    tabs.forEach((other) => {
      const on = other === tab;
      other.setAttribute("aria-selected", String(on));
      other.tabIndex = on ? 0 : -1;
      const shown = panel(other);
      if (shown) shown.classList.toggle("shown", on);
    });
    if (focus) tab.focus();
  }
  tabs.forEach((tab) => {
    const shown = panel(tab);
    if (shown) {
      shown.setAttribute("role", "tabpanel");
      shown.setAttribute("aria-labelledby", tab.id);
    }
    tab.addEventListener("click", () => choose(tab, false));
  });
  // the arrow keys move between the tabs (and do not step the game meanwhile)
  bar.addEventListener("keydown", (e) => {
    const at = tabs.indexOf(document.activeElement);
    if (at < 0) return;
    const rtl = document.documentElement.dir === "rtl";
    const moves = { ArrowRight: rtl ? -1 : 1, ArrowLeft: rtl ? 1 : -1, Home: -at, End: tabs.length - 1 - at };
    if (!(e.key in moves)) return;
    e.preventDefault();
    e.stopPropagation();
    choose(tabs[(at + moves[e.key] + tabs.length) % tabs.length], true);
  });
  // a link to a round's explanation (the rounds table, the chart's marks) opens the rounds
  const rounds = tabs.find((tab) => tab.getAttribute("aria-controls") === "rounds");
  function roundAsked() {
    if (rounds && /^#round-\d+$/.test(location.hash)) {
      choose(rounds, false);
      const target = document.querySelector(location.hash);
      if (target) target.scrollIntoView({ block: "start" });
    }
  }
  window.addEventListener("hashchange", roundAsked);
  // the chart's numbers at 13 px on the screen, however wide the chart is drawn (its
  // viewBox scales them: 11 units were 7 px on a phone)
  const chart = document.getElementById("score-chart");
  if (chart && chart.viewBox && chart.viewBox.baseVal) {
    const fit = () => {
      const wide = chart.getBoundingClientRect().width;
      if (wide > 0) chart.style.setProperty("--chart-font", Math.min(26, Math.max(11, 13 * chart.viewBox.baseVal.width / wide)).toFixed(1) + "px");
    };
    fit();
    if (window.ResizeObserver) new ResizeObserver(fit).observe(chart);
  }
  choose(tabs[0], false);
  layout.classList.add("tabbed");
  bar.hidden = false;
  roundAsked();
})();
