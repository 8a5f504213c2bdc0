// The step-through board: draws the table after event i from the JSON the page embeds.
// Keys: left/right one event (mirrored right to left), up/down one round, Home/End,
// n/p next/previous finding, space play/pause; swipe on a touch screen. The address
// follows the step (#e=N), and a changed #e=N moves the board.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const steps = data.steps;
  if (!steps.length) return;
  const $ = (id) => document.getElementById(id);
  const { cardFace, cardText, SUITS } = window.cards;
  const rtl = window.pageDir === "rtl";
  const flagged = steps.filter((s) => s.findings.length).map((s) => s.index);
  const roundStarts = steps.filter((s) => s.type === "round_started").map((s) => s.index);
  const nameOf = (p) => data.game.names[p] || p;
  // the findings' messages in the page's language, by "event:code"
  const texts = JSON.parse(document.getElementById("finding-texts").textContent);
  let current = 0;
  let timer = null;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function name(p) {
    const node = el("bdi", "who", nameOf(p));
    return node;
  }

  // a finding's message: its words, and each player named (a seat: an index into
  // game.players) isolated as a name is; the English message if it has no text here
  function said(parts, message) {
    if (!parts) return [document.createTextNode(message)];
    return parts.map((part) => typeof part === "number" ? name(data.game.players[part]) : document.createTextNode(part));
  }

  function cards(list, highlight) {
    const box = el("span", "cards");
    if (!list.length) box.appendChild(el("span", "muted", t("no cards")));
    const left = (highlight || []).slice();
    list.forEach((c) => {
      const face = cardFace(c);
      const k = left.indexOf(c);
      if (k >= 0) { face.classList.add("moved"); left.splice(k, 1); }
      box.appendChild(face);
    });
    return box;
  }

  // the sentence of one event: the server's, in the page's language (the move list it
  // wrote: names isolated, cards as chips, a withdrawn entry struck and said in words);
  // no sentence is made here
  function sentence(step) {
    const said = document.querySelector('#moves a[data-step="' + step.index + '"]');
    if (!said) return [document.createTextNode(step.text)];
    return Array.from(said.childNodes, (n) => n.cloneNode(true));
  }

  function drawPlayers(step) {
    const state = step.state;
    const box = $("players");
    box.replaceChildren();
    box.classList.toggle("many", data.game.players.length >= 4); // the compact table on a phone
    const table = state.round;
    const m = step.move || {};
    // a step names the players by seat (k, their index in game.players), the ids once
    data.game.players.forEach((p, k) => {
      const panel = el("div", "player");
      panel.dataset.player = p;
      panel.dataset.seat = k;
      const total = table ? table.totals[k] : null;
      if (table && table.turn === k && !table.ended) panel.classList.add("turn");
      if (m.player === p && step.type !== "game_started") panel.classList.add("acting");
      if (m.player === p && step.findings.length) panel.classList.add("flagged");
      if (state.out.includes(k)) panel.classList.add("out");
      const head = el("div", "player-head");
      head.appendChild(el("strong", "name")).appendChild(name(p));
      head.appendChild(el("span", "score", t("score %(n)s", { n: state.scores[k] })));
      if (total !== null && total !== undefined) head.appendChild(el("span", "total", t("hand %(n)s", { n: total })));
      if (state.out.includes(k)) head.appendChild(el("span", "badge", t("out")));
      if (state.winners.includes(k)) head.appendChild(el("span", "badge win", t("winner")));
      panel.appendChild(head);
      const drew = step.type === "draw" && m.player === p ? m.cards : [];
      const shown = step.type === "showdown" && m.hands ? m.hands[p] : null;
      if (shown) panel.appendChild(cards(shown));  // laid down on the table
      else if (table && table.moves_checked && table.hands[k]) panel.appendChild(cards(table.hands[k], drew));
      box.appendChild(panel);
    });
  }

  function drawPile(step) {
    const state = step.state;
    const pile = $("pile");
    pile.replaceChildren();
    const table = state.round;
    const layers = table ? table.pile.filter((layer) => layer.length) : [];
    if (!layers.length) {
      pile.appendChild(el("span", "muted", "-"));
    } else {
      layers.slice().reverse().forEach((layer, k) => {
        const thrown = k === 0 && (step.type === "discard" || step.type === "slap") ? layer : [];
        const row = cards(layer, thrown);
        row.classList.add(k === 0 ? "top" : "under");
        pile.appendChild(row);
      });
    }
    $("stock").replaceChildren();
    if (table && table.moves_checked) {
      const stack = el("span", "stock-stack");
      if (table.stock) stack.appendChild(cardFace("??"));
      stack.appendChild(el("span", "count", t("%(n)s cards", { n: table.stock })));
      $("stock").appendChild(stack);
    } else {
      $("stock").textContent = "-";
    }
  }

  function roundOf(i) {
    const state = steps[i].state;
    return state.round ? state.round.round : null;
  }

  function show(i) {
    current = Math.max(0, Math.min(steps.length - 1, i));
    const step = steps[current];
    $("slider").value = current;
    $("position").textContent = t("event %(n)s of %(total)s", { n: step.index, total: steps.length - 1 });
    const r = roundOf(current);
    $("round-label").textContent = r ? t("round %(n)s", { n: r }) : "";
    $("event-text").replaceChildren(...sentence(step));
    const list = $("step-findings");
    list.replaceChildren();
    step.findings.forEach((f) => {
      const item = el("li", f.kind);
      item.appendChild(el("code", "", f.code));
      item.appendChild(document.createTextNode(" "));
      item.append(...said(texts[f.seq + ":" + f.code], f.message));
      list.appendChild(item);
    });
    if (step.stopped && step.findings.length) {
      list.appendChild(el("li", "inconsistency", t("the replay stops here: the log is physically impossible")));
    }
    drawPlayers(step);
    drawPile(step);
    document.querySelectorAll("#moves li.current, #findings li.current").forEach((n) => n.classList.remove("current"));
    const move = $("ev-" + step.index);
    if (move) {
      move.classList.add("current");
      const box = $("moves");
      if (box && box.scrollHeight > box.clientHeight) box.scrollTop = move.offsetTop - box.clientHeight / 2;
    }
    document.querySelectorAll("#findings a[data-step='" + step.index + "']").forEach((a) => a.parentElement.classList.add("current"));
    document.querySelectorAll("#sheet tr.current").forEach((n) => n.classList.remove("current"));
    if (r && $("sheet-" + r)) $("sheet-" + r).classList.add("current");
    if (location.hash !== "#e=" + step.index) history.replaceState(null, "", "#e=" + step.index);
  }

  function nextFinding() {
    const later = flagged.find((index) => index > current);
    show(later === undefined ? (flagged.length ? flagged[0] : current) : later);
  }

  function previousFinding() {
    const earlier = flagged.filter((index) => index < current);
    show(earlier.length ? earlier[earlier.length - 1] : (flagged.length ? flagged[flagged.length - 1] : current));
  }

  function nextRound() {
    const later = roundStarts.find((index) => index > current);
    show(later === undefined ? steps.length - 1 : later);
  }

  function previousRound() {
    const earlier = roundStarts.filter((index) => index < current);
    show(earlier.length ? earlier[earlier.length - 1] : 0);
  }

  function play(on) {
    if (timer) { clearInterval(timer); timer = null; }
    if (on && current >= steps.length - 1) show(0);
    if (on) {
      timer = setInterval(() => {
        if (current >= steps.length - 1) { play(false); return; }
        show(current + 1);
      }, Number($("speed").value));
    }
    $("play").setAttribute("aria-pressed", on ? "true" : "false");
    $("play").setAttribute("aria-label", on ? t("pause (space)") : t("play (space)"));
  }

  const stepBy = (n) => () => { play(false); show(current + n); };
  const stop = (f) => () => { play(false); f(); };
  $("first").addEventListener("click", stop(() => show(0)));
  $("prev").addEventListener("click", stepBy(-1));
  $("next").addEventListener("click", stepBy(1));
  $("last").addEventListener("click", stop(() => show(steps.length - 1)));
  $("prev-round").addEventListener("click", stop(previousRound));
  $("next-round").addEventListener("click", stop(nextRound));
  $("next-finding").addEventListener("click", stop(nextFinding));
  $("play").addEventListener("click", () => play(!timer));
  $("speed").addEventListener("change", () => { if (timer) play(true); });
  $("slider").addEventListener("input", (e) => show(Number(e.target.value)));
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
    if (e.target.tagName === "TEXTAREA" || e.target.tagName === "SELECT") return;
    const forward = stepBy(1), back = stepBy(-1);
    const keys = { ArrowLeft: rtl ? forward : back, ArrowRight: rtl ? back : forward,
                   ArrowUp: stop(previousRound), ArrowDown: stop(nextRound),
                   Home: stop(() => show(0)), End: stop(() => show(steps.length - 1)),
                   n: stop(nextFinding), p: stop(previousFinding), " ": () => play(!timer) };
    if (e.key === " " && e.target.tagName === "BUTTON") return;  // a button's own click
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  document.querySelectorAll("a[data-step]").forEach((a) =>
    a.addEventListener("click", (e) => {
      e.preventDefault();
      play(false);
      show(Number(a.dataset.step));
      // from the chart or the lists further down: the board comes into view
      if (!a.closest("#moves")) $("board").scrollIntoView({ block: "nearest" });
    }));
  window.addEventListener("hashchange", () => {
    const asked = /^#e=(\d+)$/.exec(location.hash);
    if (asked) show(Number(asked[1]));
  });

  // swipe on the table: towards the start of the line is forward
  let touch = null;
  $("board").addEventListener("touchstart", (e) => {
    if (e.touches.length === 1) touch = { x: e.touches[0].clientX, y: e.touches[0].clientY };
  }, { passive: true });
  $("board").addEventListener("touchend", (e) => {
    if (!touch || e.target.id === "slider") { touch = null; return; }
    const dx = e.changedTouches[0].clientX - touch.x, dy = e.changedTouches[0].clientY - touch.y;
    touch = null;
    if (Math.abs(dx) < 40 || Math.abs(dx) < 1.5 * Math.abs(dy)) return;
    play(false);
    show(current + ((dx < 0) !== rtl ? 1 : -1));
  });

  // a link to the event on the board, to send to the table
  const link = $("copy-link");
  link.addEventListener("click", () => {
    const url = location.href.split("#")[0] + "#e=" + steps[current].index;
    const said = () => { link.textContent = t("copied"); setTimeout(() => { link.textContent = t("link"); }, 1500); };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(url).then(said, () => window.prompt(t("copy a link to this event"), url));
    else window.prompt(t("copy a link to this event"), url);
  });

  const copy = $("copy-fingerprint");
  if (copy) {
    copy.addEventListener("click", () => {
      const done = () => { copy.textContent = t("copied"); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(copy.dataset.copy).then(done, () => select());
      } else { select(); }
      function select() {
        const code = $("fingerprint");
        code.textContent = copy.dataset.copy;
        const range = document.createRange();
        range.selectNodeContents(code);
        const sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        try { document.execCommand("copy"); done(); } catch (err) { copy.textContent = t("select and copy"); }
      }
    });
  }

  const ticks = $("ticks");
  flagged.forEach((index) => {
    const tick = el("span", "tick");
    const at = (steps.length > 1 ? (100 * index) / (steps.length - 1) : 0) + "%";
    if (rtl) tick.style.right = at; else tick.style.left = at;
    tick.title = t("finding at event %(n)s", { n: index });
    ticks.appendChild(tick);
  });

  const fromHash = /^#e=(\d+)$/.exec(location.hash);
  show(fromHash ? Number(fromHash[1]) : 0);
})();
