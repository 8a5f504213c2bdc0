// The step-through board: draws the table after event i from the JSON the page embeds.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const steps = data.steps;
  if (!steps.length) return;
  const $ = (id) => document.getElementById(id);
  const SUITS = { C: ["\u2663", "black"], D: ["\u2666", "red"], H: ["\u2665", "red"], S: ["\u2660", "black"] };
  const flagged = steps.filter((s) => s.findings.length).map((s) => s.index);
  let current = 0;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function card(code) {
    if (code === "??") return el("span", "card hidden", "?");
    if (code === "JK") return el("span", "card joker", "JK");
    const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
    const [symbol, colour] = SUITS[code.slice(-1)] || ["?", "black"];
    const node = el("span", "card " + colour, rank + symbol);
    node.title = code;
    return node;
  }

  function cards(list) {
    const box = el("span", "cards");
    if (!list.length) box.appendChild(el("span", "muted", t("no cards")));
    list.forEach((c) => box.appendChild(card(c)));
    return box;
  }

  function drawPlayers(state) {
    const box = $("players");
    box.replaceChildren();
    const table = state.round;
    data.game.players.forEach((p) => {
      const panel = el("div", "player");
      panel.dataset.player = p;
      if (table && table.turn === p && !table.ended) panel.classList.add("turn");
      if (state.out.includes(p)) panel.classList.add("out");
      const head = el("div", "player-head");
      head.appendChild(el("strong", "name", data.game.names[p] || p));
      head.appendChild(el("span", "score", t("score %(n)s", { n: state.scores[p] })));
      if (table && table.totals[p] !== undefined) head.appendChild(el("span", "total", t("hand %(n)s", { n: table.totals[p] })));
      if (state.out.includes(p)) head.appendChild(el("span", "badge", t("out")));
      if (state.winners.includes(p)) head.appendChild(el("span", "badge win", t("winner")));
      panel.appendChild(head);
      if (table && table.moves_checked && table.hands[p]) panel.appendChild(cards(table.hands[p]));
      box.appendChild(panel);
    });
  }

  function drawPile(state) {
    const pile = $("pile");
    pile.replaceChildren();
    const table = state.round;
    const layers = table ? table.pile.filter((layer) => layer.length) : [];
    if (!layers.length) {
      pile.appendChild(el("span", "muted", "-"));
    } else {
      layers.reverse().forEach((layer, k) => {
        const row = cards(layer);
        row.classList.add(k === 0 ? "top" : "under");
        pile.appendChild(row);
      });
    }
    $("stock").textContent = table ? t("%(n)s cards", { n: table.stock }) : "-";
  }

  function show(i) {
    current = Math.max(0, Math.min(steps.length - 1, i));
    const step = steps[current];
    $("slider").value = current;
    $("position").textContent = t("event %(n)s of %(total)s", { n: step.index, total: steps.length - 1 });
    $("event-text").textContent = step.text;
    const list = $("step-findings");
    list.replaceChildren();
    step.findings.forEach((f) => {
      const item = el("li", f.kind);
      item.appendChild(el("span", "kind", f.kind));
      item.appendChild(el("code", "", f.code));
      item.appendChild(document.createTextNode(" " + f.message));
      list.appendChild(item);
    });
    if (step.stopped && step.findings.length) {
      list.appendChild(el("li", "inconsistency", t("the replay stops here: the log is physically impossible")));
    }
    drawPlayers(step.state);
    drawPile(step.state);
    document.querySelectorAll("#moves li.current").forEach((n) => n.classList.remove("current"));
    const move = $("ev-" + step.index);
    if (move) {
      move.classList.add("current");
      move.scrollIntoView({ block: "nearest" });
    }
    history.replaceState(null, "", "#e=" + step.index);
  }

  function nextFinding() {
    const later = flagged.find((index) => index > current);
    show(later === undefined ? (flagged.length ? flagged[0] : current) : later);
  }

  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(current - 1));
  $("next").addEventListener("click", () => show(current + 1));
  $("last").addEventListener("click", () => show(steps.length - 1));
  $("next-finding").addEventListener("click", nextFinding);
  $("slider").addEventListener("input", (e) => show(Number(e.target.value)));
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
    if (e.target.tagName === "TEXTAREA" || e.target.tagName === "SELECT") return;
    const keys = { ArrowLeft: () => show(current - 1), ArrowRight: () => show(current + 1),
                   Home: () => show(0), End: () => show(steps.length - 1), n: nextFinding };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  document.querySelectorAll("a[data-step]").forEach((a) =>
    a.addEventListener("click", (e) => { e.preventDefault(); show(Number(a.dataset.step)); }));

  const ticks = $("ticks");
  flagged.forEach((index) => {
    const tick = el("span", "tick");
    tick.style.left = (steps.length > 1 ? (100 * index) / (steps.length - 1) : 0) + "%";
    tick.title = "finding at event " + index;
    ticks.appendChild(tick);
  });

  const fromHash = /^#e=(\d+)$/.exec(location.hash);
  show(fromHash ? Number(fromHash[1]) : 0);
})();
