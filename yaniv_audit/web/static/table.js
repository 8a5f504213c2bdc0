// The live table (/tables/<id>): follows a game being played, for anyone with the
// link. The table's event stream (GET /api/v1/tables/<id>/events, server-sent events;
// the browser's EventSource reconnects with Last-Event-ID when the server ends a stream)
// says when entries are appended; the table itself (GET /api/v1/tables/<id>: its count,
// state, audit report, and every entry said in the page's language: "said") is then
// read and drawn: the board as the viewer draws it (the cards of cards.js, the classes
// of board.css), the findings, the rounds, the moves. No sentence is made here.
// The root element's data-seq is the number of entries shown.
"use strict";
(function () {
  const root = document.getElementById("follow");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const { cardFace, cardText, SUITS } = window.cards;
  const id = root.dataset.table;
  const base = "/api/v1/tables/" + encodeURIComponent(id);
  const headers = { Accept: "application/json", "Accept-Language": document.documentElement.lang || "en" };
  const WORDS = { clean: t("clean"), claims: t("wrong claims"), violations: t("rules broken"), corrupt: t("impossible"),
    violation: t("rule broken"), inconsistency: t("impossible"), claim: t("wrong claim") };
  let reading = null;
  let again = false;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function name(p) {
    return el("bdi", "who", p);
  }

  // a card within a sentence, as the game page's move list draws it
  function chip(c) {
    const suit = SUITS[c.slice(-1)];
    return el("span", "chip " + (c === "JK" ? "joker" : suit ? suit[1] : ""), cardText(c));
  }

  function cards(list) {
    const box = el("span", "cards");
    if (!list.length) box.appendChild(el("span", "muted", t("no cards")));
    list.forEach((c) => box.appendChild(cardFace(c)));
    return box;
  }

  // an entry in a sentence: the server's (the answer's said.moves, in the page's
  // language, as the game page says it), names isolated, cards as chips
  function sentence(said, players, seq) {
    const parts = said && said.moves[seq];
    if (!parts) return [];
    return saidNodes(parts, (k) => name(players[k]), chip);
  }

  // GET /api/v1/tables/<id>: its state as /api/v1/state answers it (game, state,
  // report, next)
  function viewOf(body) {
    const inner = body.state;
    return { state: inner.state, report: body.report || inner.report, players: inner.game.players, next: inner.next,
      said: body.said };
  }

  function drawPlayers(view) {
    const s = view.state;
    const box = $("players");
    box.replaceChildren();
    box.classList.toggle("many", view.players.length >= 4);
    const open = $("show-hands").checked;
    view.players.forEach((p) => {
      const panel = el("div", "player");
      panel.dataset.player = p;
      if (!s.finished && (s.up === p || s.turn === p)) panel.classList.add("turn");
      if (s.out.includes(p)) panel.classList.add("out");
      const head = el("div", "player-head");
      head.appendChild(el("strong", "name")).appendChild(name(p));
      const score = el("span", "score", t("score %(n)s", { n: s.scores[p] }));
      score.dataset.score = String(s.scores[p]);
      head.appendChild(score);
      if (open && s.totals && s.totals[p] !== undefined) head.appendChild(el("span", "total", t("hand %(n)s", { n: s.totals[p] })));
      if (s.out.includes(p)) head.appendChild(el("span", "badge", t("out")));
      if (s.winners.includes(p)) head.appendChild(el("span", "badge win", t("winner")));
      panel.appendChild(head);
      const hand = (s.hands || {})[p];
      if (hand && s.moves_checked) panel.appendChild(cards(open ? hand : hand.map(() => "??")));
      box.appendChild(panel);
    });
  }

  function drawPile(view) {
    const s = view.state;
    const pile = $("pile");
    pile.replaceChildren();
    const layers = (s.pile || []).filter((layer) => layer.length);
    if (!layers.length || !s.moves_checked) pile.appendChild(el("span", "muted", "-"));
    else layers.slice(-2).reverse().forEach((layer, k) => {
      const row = cards(layer);
      row.classList.add(k === 0 ? "top" : "under");
      pile.appendChild(row);
    });
    // a game written down by its scoresheet has no table top and no hands to show
    const hands = Boolean(s.moves_checked) || Object.values(s.hands || {}).some((h) => h.length);
    $("table-top").hidden = !s.moves_checked;
    $("show-hands-label").hidden = !hands;
    const stock = $("stock");
    stock.replaceChildren();
    if (s.moves_checked) {
      const stack = el("span", "stock-stack");
      if (s.stock) stack.appendChild(cardFace("??"));
      stack.appendChild(el("span", "count", view.said ? view.said.stock : String(s.stock)));
      stock.appendChild(stack);
    } else {
      stock.textContent = "-";
    }
  }

  function drawFindings(report) {
    const list = $("findings");
    list.replaceChildren();
    report.findings.forEach((f) => {
      const item = el("li", f.kind);
      item.appendChild(el("span", null, t("event %(n)s", { n: f.seq }) + " "));
      item.appendChild(el("span", "kind", WORDS[f.kind] || f.kind));
      item.appendChild(document.createTextNode(" "));
      item.appendChild(el("code", null, f.code));
      item.appendChild(el("br"));
      item.appendChild(el("span", "message", f.text || f.message));
      list.appendChild(item);
    });
    $("findings-title").textContent = t("Findings (%(n)s)", { n: report.findings.length });
    $("no-findings").hidden = report.findings.length > 0;
  }

  function drawSheet(view) {
    const sheet = $("sheet");
    sheet.replaceChildren();
    const head = el("tr");
    head.appendChild(el("th", null, "#"));
    view.players.forEach((p) => head.appendChild(el("th")).appendChild(name(p)));
    head.appendChild(el("th", null, t("winner")));
    const thead = el("thead");
    thead.appendChild(head);
    sheet.appendChild(thead);
    const body = el("tbody");
    view.report.rounds.forEach((r) => {
      const row = el("tr");
      row.appendChild(el("td", "num", String(r.round)));
      view.players.forEach((p) => {
        const cell = el("td", "num");
        if ((r.winners || []).includes(p)) cell.classList.add("won");
        if (p === r.caller && (r.assaf || []).length) cell.classList.add("assafed");
        if (r.scores && p in r.scores) {
          cell.textContent = String(r.scores[p]);
          if (r.points && r.points[p]) cell.appendChild(el("small", null, "+" + r.points[p]));
        } else {
          cell.textContent = "-";
        }
        row.appendChild(cell);
      });
      row.appendChild(el("td", null, (r.winners || []).join(", ") || "-"));
      body.appendChild(row);
    });
    // the scores now, the last row
    const now = el("tr", "now");
    now.appendChild(el("th", null, t("score")));
    view.players.forEach((p) => {
      const cell = el("td", "num", String(view.state.scores[p]));
      cell.dataset.player = p;
      now.appendChild(cell);
    });
    now.appendChild(el("td"));
    body.appendChild(now);
    sheet.appendChild(body);
  }

  function drawMoves(view) {
    const report = view.report;
    const list = $("moves");
    const gone = {};
    (report.withdrawn || []).forEach((w) => { gone[w.seq] = w.by; });
    const flagged = new Set(report.findings.map((f) => f.seq));
    const count = view.said ? view.said.moves.length : 0;
    list.replaceChildren();
    for (let seq = 0; seq < count; seq++) {
      const item = el("li", flagged.has(seq) ? "flagged" : "");
      item.id = "ev-" + seq;
      const said = sentence(view.said, view.players, seq);
      if (seq in gone) {
        item.classList.add("withdrawn");
        const struck = el("del");
        said.forEach((n) => struck.appendChild(n));
        item.appendChild(struck);
        item.appendChild(el("span", "withdrawn-tag", " " + t("(withdrawn by %(n)s, not counted)", { n: gone[seq] })));
      } else {
        said.forEach((n) => item.appendChild(n));
      }
      list.appendChild(item);
    }
    list.scrollTop = list.scrollHeight;
    const last = count - 1;
    const said = $("event-text");
    said.replaceChildren(...sentence(view.said, view.players, last));
    const found = $("step-findings");
    found.replaceChildren();
    report.findings.filter((f) => f.seq === last).forEach((f) => {
      const item = el("li", f.kind);
      item.appendChild(el("code", null, f.code));
      item.appendChild(document.createTextNode(f.text || f.message));
      found.appendChild(item);
    });
  }

  function draw(body) {
    const view = viewOf(body);
    const report = view.report;
    const verdict = $("verdict");
    verdict.className = "verdict " + report.verdict;
    verdict.textContent = WORDS[report.verdict] || report.verdict;
    const line = $("players-line");
    line.replaceChildren();
    if (view.state.finished && view.state.winners.length) {
      line.className = "winner-line";
      line.textContent = t("won by %(names)s", { names: view.state.winners.join(", ") });
    } else {
      line.className = "muted";
      line.textContent = view.players.join(", ");
    }
    drawPile(view);
    drawPlayers(view);
    drawFindings(report);
    drawSheet(view);
    drawMoves(view);
    const archived = $("archived");
    archived.hidden = !body.fingerprint;
    if (body.fingerprint) {
      archived.replaceChildren();
      const link = el("a", null, t("The game in the archive"));
      link.href = "/games/" + body.fingerprint;
      link.id = "archived-link";
      archived.appendChild(link);
    }
    root.dataset.seq = String(body.seq);
  }

  function error(text) {
    const box = $("follow-error");
    box.textContent = text || "";
    box.hidden = !text;
  }

  async function getJson(url) {
    const response = await fetch(url, { headers: headers });
    const body = await response.json().catch(() => null);
    if (!response.ok) throw new Error(body && body.error ? body.error.message : response.status + " " + response.statusText);
    return body;
  }

  // the table read again (one reading at a time; news during it: once more after it)
  async function read() {
    if (reading) { again = true; return; }
    reading = (async () => {
      try {
        // the table, its entries said by the server in the page's language
        draw(await getJson(base));
        error("");
      } catch (e) {
        error(t("This table cannot be read: %(error)s", { error: e.message }));
      }
    })();
    await reading;
    reading = null;
    if (again) {
      again = false;
      read();
    }
  }

  $("show-hands").addEventListener("change", () => read());

  const live = $("live");
  if (window.EventSource) {
    const stream = new EventSource(base + "/events");
    stream.onopen = () => { live.textContent = t("live"); live.className = "live on"; };
    stream.onerror = () => { live.textContent = t("reconnecting…"); live.className = "live off"; };
    // an "entry" for each entry appended, a "summary" after each append, "closed"
    ["entry", "summary", "closed"].forEach((kind) => stream.addEventListener(kind, () => read()));
  }
  read();
})();
