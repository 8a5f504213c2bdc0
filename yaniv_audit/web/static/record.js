// The table's recorder (/record): writes the game down as a log while it is played.
// Every entry is sent with the log so far to POST /api/v1/state, so the engine on the
// server says at once what the audit will say of it. The log (and the entry being made)
// lives in localStorage: a reload or a lost connection loses nothing. The log is only
// ever appended to: Undo writes a "withdraw" event that takes the last entry back (the
// engine then reads the log as if it had never been written, as the audit does).
// Few taps: a card is one tap; an entry that is complete and legal is written at the
// tap that completes it (a turn's draw, a Yaniv, the deal's last card, a totals-only
// round's caller or last total), with Undo at hand in place of a confirmation; an
// entry with a finding waits for "Record ... anyway". An entry is judged only once it
// says something, and only by what it says until it is complete.
"use strict";
(function () {
  const root = document.getElementById("record");
  if (!root) return;
  const KEY = "yaniv-audit-record/1";
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
  const SUITS = { C: ["\u2663", "black"], D: ["\u2666", "red"], H: ["\u2665", "red"], S: ["\u2660", "black"] };
  const $ = (id) => document.getElementById(id);
  // the words of the report, in the page's language
  const WORDS = { clean: t("clean"), claims: t("claims"), violations: t("violations"),
    corrupt: t("corrupt"), violation: t("violation"), inconsistency: t("inconsistency"),
    claim: t("claim") };

  let saved = load(); // {events, entries: [[first, last]], draft, mode}
  let table = null; // the state after saved.events
  let preview = null; // the state after saved.events and the draft's events
  let previewError = null;
  let picker = null; // {label, take(card), used(card) -> bool}
  let timer = null;
  let previewRun = 0;

  // --- small helpers ------------------------------------------------------------------

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function button(text, cls, onClick) {
    const node = el("button", cls, text);
    node.type = "button";
    node.addEventListener("click", onClick);
    return node;
  }

  // a card as a player reads it: 10♥, A♠, JK
  function cardText(code) {
    if (code === "JK" || code === "??" || !SUITS[code.slice(-1)]) return code;
    return (code.slice(0, -1) === "T" ? "10" : code.slice(0, -1)) + SUITS[code.slice(-1)][0];
  }

  function cardFace(code, tag) {
    const node = el(tag || "span", "rc-card");
    node.dataset.card = code;
    if (code === "JK") {
      node.classList.add("joker");
      node.appendChild(el("span", "rc-rank", "JK"));
    } else if (code === "??") {
      node.classList.add("unknown");
      node.appendChild(el("span", "rc-rank", "?"));
    } else {
      const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
      const [symbol, colour] = SUITS[code.slice(-1)] || ["?", "black"];
      node.classList.add(colour);
      node.appendChild(el("span", "rc-rank", rank));
      node.appendChild(el("span", "rc-suit", symbol));
    }
    node.title = cardText(code);
    return node;
  }

  function load() {
    try {
      const found = JSON.parse(localStorage.getItem(KEY) || "null");
      if (found && found.draft) found.draft.commit = 0; // a tap of another page's life
      if (found && Array.isArray(found.events)) return found;
    } catch (e) { /* a broken store starts afresh */ }
    return null;
  }

  function save() {
    if (saved) localStorage.setItem(KEY, JSON.stringify(saved));
    else localStorage.removeItem(KEY);
  }

  function jsonl(events) {
    return events.map((e) => JSON.stringify(e)).join("\n") + "\n";
  }

  function stamp() {
    // an ISO-8601 time with this device's offset: 2024-05-17T21:02:00+03:00
    const now = new Date();
    const pad = (n) => String(Math.abs(n)).padStart(2, "0");
    const offset = -now.getTimezoneOffset();
    return now.getFullYear() + "-" + pad(now.getMonth() + 1) + "-" + pad(now.getDate()) + "T" +
      pad(now.getHours()) + ":" + pad(now.getMinutes()) + ":" + pad(now.getSeconds()) +
      (offset >= 0 ? "+" : "-") + pad(Math.trunc(offset / 60)) + ":" + pad(offset % 60);
  }

  // how many answers the page still waits for (data-busy: the tests wait for 0)
  let busy = 0;
  function setBusy(delta) {
    busy += delta;
    root.dataset.busy = String(busy);
  }

  async function ask(events) {
    setBusy(1);
    try {
      return await askNow(events);
    } finally {
      setBusy(-1);
    }
  }

  async function askNow(events) {
    let response;
    try {
      response = await fetch("/api/v1/state", { method: "POST", body: jsonl(events),
        headers: { "Content-Type": "application/x-ndjson",
          // the findings said in the page's language (each finding's "text")
          "Accept-Language": document.documentElement.lang || "en" } });
    } catch (e) {
      return { error: t("No connection to the server: the log is kept on this device; try again.") };
    }
    const body = await response.json().catch(() => null);
    if (!response.ok) return { error: body && body.error ? body.error.message : response.statusText };
    return { answer: body };
  }

  function params() {
    return table ? table.report.rules.params : {};
  }

  function players() {
    return table ? table.game.players : [];
  }

  // --- setup --------------------------------------------------------------------------

  function setupRow(value) {
    const list = $("setup-players");
    const row = el("li", "rec-player-row");
    const input = el("input");
    input.className = "rec-player-name";
    input.value = value || "";
    input.placeholder = t("name");
    input.setAttribute("aria-label", t("player %(n)s", { n: list.children.length + 1 }));
    row.appendChild(input);
    row.appendChild(button("\u00d7", "rec-small rec-remove", () => {
      if (list.children.length > 2) row.remove();
    }));
    list.appendChild(row);
  }

  let rulesFromFile = null;

  function showSetup() {
    $("setup").hidden = false;
    $("game").hidden = true;
    const list = $("setup-players");
    if (!list.children.length) for (let i = 0; i < 3; i++) setupRow("");
  }

  $("add-player").addEventListener("click", () => {
    if ($("setup-players").children.length < 8) setupRow("");
  });

  $("setup-rules-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    rulesFromFile = null;
    if (!file) return;
    try {
      rulesFromFile = JSON.parse(await file.text());
      $("setup-rules").value = "";
      $("setup-rules").required = false;
    } catch (e) {
      showError("setup-error", t("The rules file is not JSON: %(error)s", { error: e.message }));
    }
  });

  $("setup-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const names = Array.from(document.querySelectorAll(".rec-player-name"))
      .map((input) => input.value.trim()).filter((name) => name);
    const start = { type: "game_started", seq: 0, at: stamp(), format: "yaniv-log/1",
      players: names, rules: rulesFromFile || $("setup-rules").value.trim(),
      meta: { recorder: "yaniv-audit /record" } };
    const place = $("setup-place").value.trim();
    if (place) start.meta.place = place;
    const result = await ask([start]);
    if (result.error) return showError("setup-error", result.error);
    saved = { events: [start], entries: [[0, 0]], draft: null, mode: "scoresheet" };
    save();
    table = result.answer;
    showGame();
  });

  function showError(id, text) {
    const box = $(id);
    box.textContent = text || "";
    box.hidden = !text;
  }

  // --- the game -----------------------------------------------------------------------

  async function refresh() {
    const result = await ask(saved.events);
    if (result.error) {
      showError("rec-error", result.error);
      return;
    }
    showError("rec-error", "");
    table = result.answer;
    if (!draftFits()) saved.draft = freshDraft();
    save();
    render();
    schedulePreview();
  }

  function showGame() {
    $("setup").hidden = true;
    $("game").hidden = false;
    refresh();
  }

  function expects(type) {
    return table.next.expects.includes(type);
  }

  // the kind of entry the table is at: a new round, a turn, a draw, the end
  function stage() {
    const s = table.state;
    if (s.stopped) return "stopped";
    if (s.finished) {
      const gone = withdrawn();
      return saved.events.some((e, i) => e.type === "game_ended" && !gone.has(i)) ? "done" : "finished";
    }
    if (expects("round_started")) {
      // a round of moves just ended: its result shows until the table goes on
      if (s.round !== null && s.moves_checked && !saved.nextRound) return "round-over";
      return "round";
    }
    if (!s.moves_checked) return "sheet-open";
    return s.phase === "threw" ? "draw" : "turn";
  }

  function draftFits() {
    const d = saved.draft;
    if (!d) return false;
    const at = stage();
    if (at === "round") return (d.kind === "sheet" || d.kind === "deal") && d.round === table.next.round;
    if (at === "turn") return d.kind === "turn" && d.at === saved.events.length;
    if (at === "draw") return d.kind === "draw" && d.at === saved.events.length;
    return false;
  }

  function freshDraft() {
    const at = stage();
    const s = table.state;
    if (at === "round") {
      const deal = table.next.deal;
      const starter = (table.next.starters || deal)[0];
      const base = { round: table.next.round, starter: starter, hands: {}, active: deal[0] };
      deal.forEach((p) => { base.hands[p] = []; });
      if (saved.mode === "moves") return Object.assign(base, { kind: "deal", upcard: null, upcardKnown: true });
      // each seat is entered as last round (its cards, or its total only)
      const how = saved.how || {};
      const entry = {}, totals = {};
      deal.forEach((p) => { entry[p] = how[p] || "cards"; totals[p] = ""; });
      return Object.assign(base, { kind: "sheet", caller: "", entry: entry, totals: totals,
        points: {}, scores: {} });
    }
    if (at === "turn") return { kind: "turn", at: saved.events.length, player: s.up, cards: [], call: false,
      source: null, card: null, swap: null, naming: false };
    if (at === "draw") return { kind: "draw", at: saved.events.length, player: s.turn, source: null, card: null, swap: null };
    return null;
  }

  // the events the draft would add to the log
  function draftEvents() {
    const d = saved.draft;
    if (!d) return [];
    if (d.kind === "sheet") {
      if (!said(d)) return [];
      const hands = {}, totals = {};
      Object.keys(d.hands).forEach((p) => {
        if (d.entry[p] === "total") {
          if (d.totals[p] !== "" && !isNaN(Number(d.totals[p]))) totals[p] = Number(d.totals[p]);
        } else if (d.hands[p].length) {
          hands[p] = d.hands[p];
        }
      });
      const showdown = { type: "showdown", caller: d.caller || null, hands: hands };
      if (Object.keys(totals).length) showdown.totals = totals;
      const ended = { type: "round_ended", round: d.round };
      ["points", "scores"].forEach((field) => {
        const written = {};
        Object.keys(d[field]).forEach((p) => {
          if (d[field][p] !== "" && !isNaN(Number(d[field][p]))) written[p] = Number(d[field][p]);
        });
        if (Object.keys(written).length) ended[field] = written;
      });
      return [{ type: "round_started", round: d.round, starter: d.starter }, showdown, ended];
    }
    if (d.kind === "deal") {
      const start = { type: "round_started", round: d.round, starter: d.starter, hands: d.hands };
      if (d.upcardKnown && d.upcard) start.upcard = d.upcard;
      return [start];
    }
    if (d.kind === "turn") {
      // the throw and the draw, one entry: the draw's tap completes the turn
      if (d.call) return [{ type: "yaniv", player: d.player }];
      if (!d.cards.length) return [];
      return [{ type: "discard", player: d.player, cards: d.cards }].concat(drawEvents(d));
    }
    if (d.kind === "draw") return drawEvents(d);
    return [];
  }

  // the draft's draw, once it is all said (a card named where the log needs one)
  function drawEvents(d) {
    if (!d.source || (d.source === "pile" && !d.card)) return [];
    if (d.source === "stock" && !d.card && !table.state.stock_known) return [];
    const draw = { type: "draw", player: d.player, source: d.source };
    if (d.card) draw.card = d.card;
    if (d.swap) draw.swap = d.swap;
    return [draw];
  }

  // whether a scoresheet round says anything yet (a blank one is not judged)
  function said(d) {
    return Boolean(d.caller) || d.callerNobody || Object.keys(d.hands).some((p) =>
      d.entry[p] === "total" ? d.totals[p] !== "" : d.hands[p].length > 0);
  }

  // every seat entered by its total only: the round is complete once the caller and
  // every total are there (a hand of cards may always have one card more)
  function totalsOnly(d) {
    return d.kind === "sheet" && Object.keys(d.hands).every((p) => d.entry[p] === "total");
  }

  function ready() {
    return complete() && !previewError;
  }

  // whether the draft is a whole entry (judged in full, and writable)
  function complete() {
    const d = saved.draft;
    if (!d || !draftEvents().length) return false;
    if (d.kind === "sheet") {
      return Boolean(d.caller || d.callerNobody) && Object.keys(d.hands).every((p) =>
        d.entry[p] === "total" ? d.totals[p] !== "" : d.hands[p].length > 0);
    }
    if (d.kind === "deal") return Object.values(d.hands).every((h) => h.length > 0) &&
      (!d.upcardKnown || d.upcard);
    if (d.kind === "turn") return d.call || draftEvents().length === 2;
    return true;
  }

  // the tap that completes an entry: written at once when the engine finds it legal
  // each completing tap is numbered: only the preview asked after it may write the entry
  // (an answer to an earlier question, still on its way, judged the entry without it)
  let commits = 0;
  function commit() {
    if (saved.draft) saved.draft.commit = ++commits;
    changed();
  }

  function changed() {
    save();
    render();
    schedulePreview();
  }

  function schedulePreview() {
    if (timer === null) setBusy(1);
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      runPreview().finally(() => setBusy(-1));
    }, 120);
  }

  async function runPreview() {
    const events = draftEvents();
    const asked = saved.draft;
    const committed = asked ? asked.commit : 0;
    const run = ++previewRun;
    let answer = null, error = null;
    if (events.length) {
      const base = saved.events.length;
      const result = await ask(saved.events.concat(events.map((e, i) => Object.assign({ seq: base + i }, e))));
      if (result.error) error = result.error;
      else answer = result.answer;
    }
    if (run !== previewRun) return; // a later entry is being previewed
    preview = answer;
    previewError = error;
    const d = saved.draft;
    if (d && d.kind === "turn" && answer && events.length === 1 && events[0].type === "discard" && !d.legal) {
      // the draws the rules allow after this throw: marks on the previous throw's cards
      d.legal = answer.next.moves.filter((m) => m.type === "draw");
      save();
      renderEntry();
    }
    if (d && d === asked && committed && d.commit === committed) {
      d.commit = 0;
      const legal = preview && !preview.report.findings.some((f) => f.seq >= saved.events.length);
      if (legal && ready() && (d.kind !== "sheet" || totalsOnly(d))) {
        await write(events);
        return;
      }
    }
    renderPreview();
    renderActions();
    seatTotals();
  }

  async function write(events, withdrawn) {
    const base = saved.events.length;
    const at = stamp();
    events.forEach((e, i) => saved.events.push(Object.assign({ seq: base + i, at: at }, e)));
    if (!withdrawn) saved.entries.push([base, saved.events.length - 1]);
    saved.draft = null;
    saved.nextRound = false;
    save();
    await refresh();
  }

  // --- drawing ------------------------------------------------------------------------

  function render() {
    const s = table.state;
    const title = $("round-title");
    if (s.finished) title.textContent = t("Game over");
    else if (s.round === null) title.textContent = t("Round 1");
    else if (stage() === "round") title.textContent = t("Round %(n)s", { n: table.next.round });
    else title.textContent = t("Round %(n)s", { n: s.round });
    const verdict = $("rec-verdict");
    verdict.className = "verdict " + table.report.verdict;
    verdict.textContent = WORDS[table.report.verdict];
    renderEntry();
    renderScores();
    renderRounds();
    renderFindings();
    renderLog();
    renderKeep();
    renderPreview();
    renderActions();
    seatTotals();
  }

  function renderEntry() {
    const box = $("entry");
    box.after($("picker")); // out of the entry before it is drawn anew
    box.replaceChildren();
    picker = null;
    const at = stage();
    const d = saved.draft;
    if (at === "round") {
      box.appendChild(modeSwitch());
      if (d.kind === "sheet") sheetEntry(box, d);
      else dealEntry(box, d);
    } else if (at === "round-over") {
      box.appendChild(el("p", "rec-say", t("The round is over.")));
      const rounds = table.report.rounds;
      if (rounds.length) box.appendChild(roundTable(rounds[rounds.length - 1]));
    } else if (at === "turn") {
      turnEntry(box, d);
    } else if (at === "draw") {
      drawEntry(box, d);
    } else if (at === "finished") {
      box.appendChild(el("p", "rec-say", t("%(who)s won the game.", { who: table.state.winners.join(", ") })));
    } else if (at === "done") {
      box.appendChild(el("p", "rec-say", t("%(who)s won the game.", { who: table.state.winners.join(", ") })));
      box.appendChild(el("p", null, t("The game is written down: download it or store it.")));
    } else if (at === "stopped") {
      box.appendChild(el("p", "rec-say bad", t("The log is impossible from here on: the audit stops at the last finding. Undo the entry or download the log as it is.")));
    } else if (at === "sheet-open") {
      box.appendChild(el("p", "rec-say", t("This round was opened without its hands: write its showdown.")));
    }
    renderPicker();
  }

  function modeSwitch() {
    const wrap = el("div", "rec-mode");
    wrap.setAttribute("role", "group");
    [["scoresheet", t("Scoresheet")], ["moves", t("Every move")]].forEach(([mode, label]) => {
      const b = button(label, "rec-tab" + (saved.mode === mode ? " on" : ""), () => {
        saved.mode = mode;
        saved.draft = freshDraft();
        changed();
      });
      b.id = "mode-" + mode;
      b.setAttribute("aria-pressed", saved.mode === mode ? "true" : "false");
      wrap.appendChild(b);
    });
    return wrap;
  }

  function select(id, label, options, value, onChange) {
    const wrap = el("label", "rec-field");
    wrap.appendChild(document.createTextNode(label + " "));
    const node = el("select");
    node.id = id;
    options.forEach(([v, text]) => {
      const option = el("option", null, text);
      option.value = v;
      if (v === value) option.selected = true;
      node.appendChild(option);
    });
    node.addEventListener("change", () => onChange(node.value));
    wrap.appendChild(node);
    return wrap;
  }

  function starterSelect(d) {
    const allowed = table.next.starters || table.next.deal;
    return select("starter", t("Opened by"), table.next.deal.map((p) =>
      [p, allowed.includes(p) ? p : p + " " + t("(not by the rules)")]), d.starter, (v) => {
      d.starter = v;
      changed();
    });
  }

  // a seat's hand being entered: its cards as chips (a tap takes one back), and a tap on
  // the seat makes it the one the picker fills
  function handSeat(seat, d, p) {
    seat.appendChild(chips(d.hands[p], (i) => {
      d.hands[p].splice(i, 1);
      d.active = p;
      changed();
    }));
    activates(seat, d, p);
  }

  function activates(seat, d, p) {
    seat.addEventListener("click", () => {
      if (d.active !== p) {
        d.active = p;
        changed();
      }
    });
  }

  function chips(cards, onRemove) {
    const box = el("div", "rc-hand");
    if (!cards.length) box.appendChild(el("span", "muted small", t("no cards yet")));
    cards.forEach((c, i) => {
      const face = cardFace(c, "button");
      face.type = "button";
      face.setAttribute("aria-label", t("remove %(card)s", { card: cardText(c) }));
      face.addEventListener("click", (event) => {
        event.stopPropagation();
        onRemove(i);
      });
      box.appendChild(face);
    });
    return box;
  }

  function usedIn(d) {
    return (card) => {
      let n = 0;
      Object.values(d.hands).forEach((h) => h.forEach((c) => { if (c === card) n++; }));
      if (d.upcard === card) n++;
      const copies = card === "JK" ? params().jokers * params().decks : params().decks;
      return n >= copies;
    };
  }

  function sheetEntry(box, d) {
    box.appendChild(starterSelect(d));
    // the caller: one tap (the round is written at it when every total is in)
    const callers = el("div", "rec-callers");
    callers.id = "caller";
    callers.setAttribute("role", "group");
    callers.setAttribute("aria-label", t("Yaniv called by"));
    callers.appendChild(el("span", "rec-callers-label", t("Yaniv called by")));
    const choices = Object.keys(d.hands).map((p) => [p, p]);
    if (params().reshuffle === "round_ends") choices.push(["", t("nobody: the stock ran out")]);
    choices.forEach(([p, label]) => {
      const on = p ? d.caller === p : Boolean(d.callerNobody);
      const b = button(label, "rec-tab" + (on ? " on" : ""), () => {
        d.caller = on ? "" : p;
        d.callerNobody = !on && !p;
        commit();
      });
      b.dataset.player = p;
      b.setAttribute("aria-pressed", on ? "true" : "false");
      callers.appendChild(b);
    });
    box.appendChild(callers);
    const list = el("div", "rec-seats");
    Object.keys(d.hands).forEach((p) => {
      const seat = el("div", "rec-seat" + (d.active === p ? " active" : ""));
      seat.dataset.player = p;
      const head = el("div", "rec-seat-head");
      head.appendChild(el("strong", null, p));
      const toggle = el("span", "rec-toggle");
      [["cards", t("cards")], ["total", t("total")]].forEach(([how, label]) => {
        const b = button(label, "rec-tab small" + (d.entry[p] === how ? " on" : ""), (event) => {
          event.stopPropagation();
          d.entry[p] = how;
          d.active = p;
          saved.how = Object.assign(saved.how || {}, { [p]: how }); // kept for the next rounds
          changed();
        });
        b.dataset.how = how;
        b.setAttribute("aria-pressed", d.entry[p] === how ? "true" : "false");
        toggle.appendChild(b);
      });
      head.appendChild(toggle);
      seat.appendChild(head);
      if (d.entry[p] === "total") {
        const input = el("input", "rec-number");
        input.type = "number";
        input.inputMode = "numeric";
        input.min = "0";
        input.value = d.totals[p];
        input.setAttribute("aria-label", t("%(player)s's total", { player: p }));
        input.addEventListener("input", () => {
          d.totals[p] = input.value;
          save();
          schedulePreview();
        });
        // a total is said once it is left (the keyboard's next or done): then the round
        // may be complete
        input.addEventListener("change", () => {
          d.totals[p] = input.value;
          d.commit = ++commits;
          save();
          schedulePreview();
        });
        input.addEventListener("keydown", (event) => {
          if (event.key !== "Enter") return;
          const inputs = Array.from(document.querySelectorAll("#entry .rec-seat .rec-number"));
          const next = inputs[inputs.indexOf(input) + 1];
          if (next) next.focus();
          else input.blur();
        });
        seat.appendChild(input);
      } else {
        handSeat(seat, d, p);
      }
      list.appendChild(seat);
    });
    box.appendChild(list);
    if (d.entry[d.active] === "cards") {
      picker = { label: t("Cards of %(player)s", { player: d.active }), used: usedIn(d),
        anchor: list.querySelector(".rec-seat.active"),
        take: (card) => {
          d.hands[d.active].push(card);
          changed();
        } };
    }
    const wrote = el("details", "rec-wrote");
    wrote.open = Boolean(d.wroteOpen);
    wrote.addEventListener("toggle", () => {
      d.wroteOpen = wrote.open;
      save();
    });
    wrote.appendChild(el("summary", null, t("What the table wrote down (optional)")));
    const grid = el("div", "rec-wrote-grid");
    grid.appendChild(el("span"));
    grid.appendChild(el("span", "small muted", t("points")));
    grid.appendChild(el("span", "small muted", t("score")));
    Object.keys(d.hands).forEach((p) => {
      grid.appendChild(el("span", null, p));
      ["points", "scores"].forEach((field) => {
        const input = el("input", "rec-number");
        input.type = "number";
        input.inputMode = "numeric";
        input.value = d[field][p] || "";
        input.dataset.player = p;
        input.dataset.field = field;
        input.setAttribute("aria-label", p + " " + field);
        input.addEventListener("input", () => {
          d[field][p] = input.value;
          save();
          schedulePreview();
        });
        grid.appendChild(input);
      });
    });
    wrote.appendChild(grid);
    box.appendChild(wrote);
  }

  function dealEntry(box, d) {
    box.appendChild(starterSelect(d));
    box.appendChild(el("p", "muted small", t("Tap each hand as it was dealt (%(n)s cards), then the upcard.", { n: params().hand_size })));
    const list = el("div", "rec-seats");
    Object.keys(d.hands).concat(["upcard"]).forEach((p) => {
      const seat = el("div", "rec-seat" + (d.active === p ? " active" : ""));
      seat.dataset.player = p;
      const head = el("div", "rec-seat-head");
      if (p === "upcard") {
        head.appendChild(el("strong", null, t("Upcard")));
        const known = el("label", "small");
        const box2 = el("input");
        box2.type = "checkbox";
        box2.id = "upcard-unknown";
        box2.checked = !d.upcardKnown;
        box2.addEventListener("change", () => {
          d.upcardKnown = !box2.checked;
          if (!d.upcardKnown) d.upcard = null;
          if (complete()) commit();
          else changed();
        });
        known.appendChild(box2);
        known.appendChild(document.createTextNode(" " + t("not recorded")));
        head.appendChild(known);
        seat.appendChild(head);
        if (d.upcardKnown) seat.appendChild(chips(d.upcard ? [d.upcard] : [], () => {
          d.upcard = null;
          changed();
        }));
        activates(seat, d, p);
      } else {
        head.appendChild(el("strong", null, p));
        head.appendChild(el("span", "small muted", d.hands[p].length + "/" + params().hand_size));
        seat.appendChild(head);
        handSeat(seat, d, p);
      }
      list.appendChild(seat);
    });
    box.appendChild(list);
    if (d.active !== "upcard" || d.upcardKnown) {
      picker = { label: d.active === "upcard" ? t("The upcard") : t("Cards of %(player)s", { player: d.active }),
        used: usedIn(d), anchor: list.querySelector(".rec-seat.active"), take: (card) => {
          const order = Object.keys(d.hands).concat(["upcard"]);
          if (d.active === "upcard") d.upcard = card;
          else d.hands[d.active].push(card);
          // on to the next hand once this one is full
          if (d.active !== "upcard" && d.hands[d.active].length >= params().hand_size) {
            d.active = order[order.indexOf(d.active) + 1];
          }
          if (complete()) commit();
          else changed();
        } };
    }
  }

  function handOf(player) {
    return table.state.hands[player] || [];
  }

  function pileBlock(label, cards, cls) {
    const block = el("div", "rec-pile " + (cls || ""));
    block.appendChild(el("span", "small muted", label));
    const row = el("div", "rc-hand");
    cards.forEach((c) => row.appendChild(cardFace(c)));
    block.appendChild(row);
    return block;
  }

  function tableTop(box) {
    const s = table.state;
    const top = el("div", "rec-tabletop");
    if (s.pile.length) top.appendChild(pileBlock(t("Pile top"), s.pile[s.pile.length - 1], "top"));
    top.appendChild(el("span", "rec-stock", t("Stock: %(n)s", { n: s.stock })));
    box.appendChild(top);
  }

  function turnEntry(box, d) {
    const s = table.state;
    tableTop(box);
    const dealt = Object.keys(s.hands);
    box.appendChild(select("mover", t("Who moves"), dealt.map((p) =>
      [p, p === s.up ? p + " " + t("(their turn)") : p]), d.player, (v) => {
      d.player = v;
      d.cards = [];
      d.call = false;
      d.source = null;
      d.card = null;
      d.legal = null;
      changed();
    }));
    const slaps = table.next.moves.filter((m) => m.type === "slap");
    slaps.forEach((m) => {
      box.appendChild(button(t("%(player)s slaps %(card)s", { player: m.player, card: cardText(m.card) }), "rec-go alt", () =>
        write([{ type: "slap", player: m.player, card: m.card }])));
    });
    box.appendChild(el("p", "rec-say", t("%(player)s throws: tap the cards in the order placed", { player: d.player })));
    const hand = el("div", "rc-hand rec-hand-pick");
    handOf(d.player).forEach((c, i) => {
      const face = cardFace(c, "button");
      face.type = "button";
      const chosen = d.cards.indexOf(c) >= 0 && handOf(d.player).indexOf(c) === i;
      if (chosen) face.classList.add("chosen");
      face.setAttribute("aria-pressed", chosen ? "true" : "false");
      face.addEventListener("click", () => {
        const at = d.cards.indexOf(c);
        if (at >= 0) d.cards.splice(at, 1);
        else d.cards.push(c);
        d.call = false;
        d.source = null;
        d.card = null;
        d.swap = null;
        d.legal = null; // the draws the engine allows after this throw: asked again
        changed();
      });
      hand.appendChild(face);
    });
    box.appendChild(hand);
    const total = s.totals[d.player];
    const call = button(t("Yaniv! (hand %(n)s)", { n: total }), "rec-tab rec-call" + (d.call ? " on" : ""), () => {
      d.call = !d.call;
      d.cards = [];
      d.source = null;
      if (d.call) commit();
      else changed();
    });
    call.id = "call-yaniv";
    box.appendChild(call);
    if (!d.cards.length) return;
    // then the draw: its tap completes the turn
    box.appendChild(pileBlock(t("The throw"), d.cards, "throw"));
    box.appendChild(el("p", "rec-say", t("%(player)s draws", { player: d.player })));
    drawChoices(box, d, s.pile.length ? s.pile[s.pile.length - 1] : [], d.legal);
  }

  function drawEntry(box, d) {
    const s = table.state;
    tableTop(box);
    box.appendChild(el("p", "rec-say", t("%(player)s draws", { player: d.player })));
    const hand = el("div", "rc-hand rec-held");
    handOf(d.player).forEach((c) => hand.appendChild(cardFace(c)));
    box.appendChild(hand);
    drawChoices(box, d, s.pile.length >= 2 ? s.pile[s.pile.length - 2] : [],
      table.next.moves.filter((m) => m.type === "draw"));
  }

  // the stock, the previous throw's cards and the joker swaps: one tap draws (a card
  // the log must name is then one tap in the picker); ``legal`` (the engine's draws,
  // null while not known) marks what the rules let the player take
  function drawChoices(box, d, previous, legal) {
    const s = table.state;
    if (s.stock_known) {
      const stock = button(t("From the stock (%(n)s left)", { n: s.stock }), "rec-tab" + (d.source === "stock" ? " on" : ""), () => {
        d.source = "stock";
        d.card = null;
        d.swap = null;
        d.naming = false;
        commit();
      });
      stock.id = "draw-stock";
      box.appendChild(stock);
    } else {
      // the stock's order is not recorded: the card drawn is named, and that one tap
      // is the draw (the picker below, unless the upcard is being named)
      if (d.source === "stock" && d.card) box.appendChild(pileBlock(t("Drawn from the stock"), [d.card], "drawn"));
      picker = { label: t("From the stock (%(n)s left): tap the card drawn", { n: s.stock }), used: () => false, take: (card) => {
        d.source = "stock";
        d.card = card;
        d.swap = null;
        d.naming = false;
        commit();
      } };
    }
    const block = el("div", "rec-pile previous");
    block.appendChild(el("span", "small muted", t("or from the previous throw:")));
    const row = el("div", "rc-hand");
    previous.forEach((c) => {
      const face = cardFace(c, "button");
      face.type = "button";
      if (legal) {
        const takeable = c === "??" ? true : legal.some((m) => m.source === "pile" && m.card === c && !m.swap);
        face.classList.add(takeable ? "takeable" : "refused");
      }
      if (d.source === "pile" && (d.card === c || (c === "??" && d.naming))) face.classList.add("chosen");
      face.addEventListener("click", () => {
        d.source = "pile";
        d.swap = null;
        d.naming = c === "??";
        d.card = c === "??" ? null : c;
        commit();
      });
      row.appendChild(face);
    });
    block.appendChild(row);
    box.appendChild(block);
    if (d.source === "pile" && d.naming) {
      box.appendChild(el("p", "muted small", t("The upcard was not recorded: name it.")));
      if (d.card) box.appendChild(chips([d.card], () => { d.card = null; changed(); }));
      picker = { label: t("The upcard"), used: () => false, take: (card) => {
        d.card = card;
        commit();
      } };
    }
    (legal || []).filter((m) => m.swap).forEach((m) => {
      box.appendChild(button(t("Swap %(natural)s for %(joker)s", { natural: cardText(m.swap), joker: cardText(m.card) }),
        "rec-tab" + (d.swap === m.swap ? " on" : ""), () => {
          d.source = "pile";
          d.card = m.card;
          d.swap = m.swap;
          d.naming = false;
          commit();
        }));
    });
  }

  // the picker: every card of the deck, one tap each (a suit a row), the joker after
  function renderPicker() {
    const box = $("picker");
    box.hidden = !picker;
    if (!picker) return;
    // right under the hand it fills (the seat being entered), else under the entry
    if (picker.anchor) picker.anchor.after(box);
    else $("entry").appendChild(box);
    $("picker-for").textContent = picker.label;
    const grid = $("picker-cards");
    grid.replaceChildren();
    const rows = Object.keys(SUITS).map((suit) => RANKS.map((r) => r + suit));
    if (params().jokers > 0) rows.push(["JK"]);
    rows.forEach((cards) => {
      const row = el("div", "rec-suit-row");
      cards.forEach((card) => {
        const key = cardFace(card, "button");
        key.type = "button";
        key.classList.add("rc-key");
        if (picker.used(card)) key.classList.add("used");
        key.setAttribute("aria-label", cardText(card));
        key.addEventListener("click", () => picker.take(card));
        row.appendChild(key);
      });
      grid.appendChild(row);
    });
  }

  function findingItem(f) {
    const item = el("li", "rec-finding " + f.kind);
    item.appendChild(el("span", "kind", WORDS[f.kind]));
    item.appendChild(el("code", null, f.code));
    item.appendChild(el("span", "rec-message", f.text || f.message));
    return item;
  }

  function roundTable(r) {
    const wrap = el("div", "rec-round");
    let head;
    if (r.end === null) head = t("Round %(n)s: not scored yet", { n: r.round });
    else if (r.end === "stock") head = t("Round %(n)s: the stock ran out", { n: r.round });
    else if (r.assaf.length) head = t("Round %(n)s: %(caller)s called Yaniv, Assaf by %(who)s", { n: r.round, caller: r.caller, who: r.assaf.join(", ") });
    else head = t("Round %(n)s: %(caller)s called Yaniv and won", { n: r.round, caller: r.caller });
    wrap.appendChild(el("p", "rec-round-head", head));
    if (r.end === null) return wrap;
    const grid = el("table", "rec-round-table");
    const top = el("tr");
    ["", t("hand"), t("points"), t("score")].forEach((h) => top.appendChild(el("th", null, h)));
    grid.appendChild(top);
    Object.keys(r.totals).forEach((p) => {
      const row = el("tr");
      row.dataset.player = p;
      row.appendChild(el("th", null, p));
      row.appendChild(el("td", "num", String(r.totals[p])));
      row.appendChild(el("td", "num", String(r.points[p])));
      const score = el("td", "num", String(r.scores[p]));
      const cut = r.reductions.find((x) => x.player === p);
      if (cut) score.appendChild(el("span", "rec-cut", " " + t("(%(from)s \u2192 %(to)s)", { from: cut.from, to: cut.to })));
      if (r.out.includes(p)) score.appendChild(el("span", "badge", t("out")));
      row.appendChild(score);
      grid.appendChild(row);
    });
    wrap.appendChild(grid);
    return wrap;
  }

  // the hand totals of the round being entered, in each seat's head
  function seatTotals() {
    const d = saved.draft;
    if (!d || d.kind !== "sheet") return;
    const rounds = preview ? preview.report.rounds : [];
    const totals = rounds.length ? rounds[rounds.length - 1].totals : {};
    document.querySelectorAll("#entry .rec-seat").forEach((seat) => {
      const head = seat.querySelector(".rec-seat-head");
      let node = head.querySelector(".rec-total");
      const total = totals[seat.dataset.player];
      if (total === undefined) {
        if (node) node.remove();
        return;
      }
      if (!node) node = head.appendChild(el("span", "rec-total"));
      node.textContent = t("hand %(n)s", { n: total });
    });
  }

  function renderPreview() {
    const box = $("preview");
    box.replaceChildren();
    if (!table) return;
    if (previewError) {
      box.appendChild(el("p", "rec-error", previewError));
      return;
    }
    if (!preview) return;
    const base = saved.events.length;
    const d = saved.draft;
    // an entry being made is judged by what it says: a round or a deal half entered only
    // by the cards it names (their count, whether they exist), the rest once it is whole
    const whole = complete() || (d && (d.kind === "turn" || d.kind === "draw"));
    const found = preview.report.findings.filter((f) => f.seq >= base && (whole || f.kind === "inconsistency"));
    if (d && d.kind === "sheet" && preview.report.rounds.length) {
      box.appendChild(roundTable(preview.report.rounds[preview.report.rounds.length - 1]));
    }
    if (found.length) {
      box.appendChild(el("p", "rec-warn", t("The audit will say:")));
      const list = el("ul", "rec-findings");
      found.forEach((f) => list.appendChild(findingItem(f)));
      box.appendChild(list);
    } else if (whole && draftEvents().length) {
      box.appendChild(el("p", "rec-ok", t("Legal under these rules.")));
    }
  }

  function renderActions() {
    const box = $("actions");
    box.replaceChildren();
    if (!table) return;
    const at = stage();
    const d = saved.draft;
    const label = {
      sheet: t("Write down round %(n)s", { n: d && d.round }), deal: t("Deal"),
      turn: d && d.call ? t("Record the Yaniv") : t("Record the turn"), draw: t("Record the draw") }[d && d.kind];
    // a complete legal entry is written at the tap that completes it; the button is for
    // a round entered by its cards, and for an entry the audit will flag
    if (label && (d.kind === "sheet" || complete())) {
      const whole = complete();
      const found = whole && preview ? preview.report.findings.filter((f) => f.seq >= saved.events.length) : [];
      const b = button(found.length ? label + " " + t("anyway") : label, "rec-go" + (found.length ? " warn" : ""), () => {
        if (ready()) write(draftEvents());
      });
      b.id = "write";
      b.disabled = !ready();
      box.appendChild(b);
    }
    if (at === "round-over") {
      const b = button(t("Next round"), "rec-go", () => {
        saved.nextRound = true;
        saved.draft = freshDraft();
        changed();
      });
      b.id = "next-round";
      box.appendChild(b);
    }
    if (at === "finished") {
      const b = button(t("Write down the end of the game"), "rec-go", () =>
        write([{ type: "game_ended", winner: table.state.winners }]));
      b.id = "end-game";
      box.appendChild(b);
    }
  }

  function renderScores() {
    const box = $("scores");
    box.replaceChildren();
    const s = table.state;
    // the scores in one line under the round's head, for a phone (the table is further down)
    const line = $("score-line");
    line.replaceChildren();
    players().forEach((p) => {
      const item = el("span", s.out.includes(p) ? "out" : (s.winners.includes(p) ? "win" : ""));
      item.appendChild(el("bdi", null, p));
      item.appendChild(document.createTextNode(" " + s.scores[p]));
      line.appendChild(item);
    });
    players().forEach((p) => {
      const row = el("tr", s.out.includes(p) ? "out" : "");
      row.dataset.player = p;
      const name = el("th", null, p);
      if (s.up === p || (stage() === "draw" && s.turn === p)) name.appendChild(el("span", "rec-turn", " \u25c0"));
      row.appendChild(name);
      const cell = el("td", "num", String(s.scores[p]));
      row.appendChild(cell);
      const marks = el("td");
      if (s.out.includes(p)) marks.appendChild(el("span", "badge", t("out")));
      if (s.winners.includes(p)) marks.appendChild(el("span", "badge win", t("winner")));
      row.appendChild(marks);
      box.appendChild(row);
    });
  }

  function renderRounds() {
    const box = $("rounds");
    box.replaceChildren();
    const rounds = table.report.rounds;
    if (!rounds.length) box.appendChild(el("p", "muted small", t("none yet")));
    rounds.slice().reverse().forEach((r) => box.appendChild(roundTable(r)));
  }

  function renderFindings() {
    const box = $("findings");
    box.replaceChildren();
    const list = table.report.findings;
    if (!list.length) box.appendChild(el("li", "muted small", t("none: every entry so far is legal and right")));
    list.forEach((f) => {
      const item = findingItem(f);
      item.insertBefore(el("span", "small muted", t("event %(n)s", { n: f.seq }) + " "), item.firstChild);
      box.appendChild(item);
    });
  }

  // a name or cards kept whole inside a sentence of either direction (first strong
  // isolate: "ben: 10♦" stays so in a Hebrew line)
  function iso(text) {
    return "\u2068" + text + "\u2069";
  }

  function describe(e) {
    const said = describeRaw(Object.assign({}, e, e.player ? { player: iso(e.player) } : {}));
    return said;
  }

  function describeRaw(e) {
    const cards = (list) => iso((list || []).map(cardText).join(" "));
    switch (e.type) {
      case "game_started": return e.players.join(", ") + " \u00b7 " + (typeof e.rules === "string" ? e.rules : JSON.stringify(e.rules));
      case "round_started": return t("round %(n)s, opened by %(player)s", { n: e.round, player: e.starter }) + (e.hands ? " \u00b7 " + t("dealt") : "");
      case "discard": return e.player + ": " + cards(e.cards);
      case "draw": {
        // words, not an arrow (an arrow points the wrong way in a right-to-left page)
        const said = e.source === "stock"
          ? (e.card ? t("%(player)s draws %(card)s from the stock", { player: e.player, card: cardText(e.card) })
            : t("%(player)s draws from the stock", { player: e.player }))
          : t("%(player)s takes %(card)s from the pile", { player: e.player, card: cardText(e.card || "??") });
        return said + (e.swap ? " " + t("(swapping %(card)s for it)", { card: cardText(e.swap) }) : "");
      }
      case "slap": return t("%(player)s slaps %(card)s", { player: e.player, card: cardText(e.card) });
      case "yaniv": return e.player + ": Yaniv";
      case "showdown": return t("showdown") + ": " + Object.keys(e.hands).map((p) => p + " " + cards(e.hands[p]))
        .concat(Object.keys(e.totals || {}).map((p) => p + " " + e.totals[p])).join(" \u00b7 ");
      case "round_ended": return t("round %(n)s written down", { n: e.round });
      case "game_ended": return t("game over") + (e.winner ? ": " + [].concat(e.winner).join(", ") : "");
      case "note": return t("note") + ": " + e.text;
      case "withdraw": return t("Undo: %(what)s taken back", { what: e.seqs.map((i) => String(i)).join(", ") });
      default: return e.type;
    }
  }

  // the entries taken back (the recorder writes seq = position, so a seq is an index)
  function withdrawn() {
    const out = new Set();
    saved.events.forEach((e) => { if (e.type === "withdraw") (e.seqs || []).forEach((i) => out.add(i)); });
    return out;
  }

  function renderLog() {
    const box = $("log");
    box.replaceChildren();
    const gone = withdrawn();
    saved.events.forEach((e, i) => {
      const item = el("li", gone.has(i) ? "withdrawn" : "", describe(e));
      item.dataset.seq = String(i);
      box.appendChild(item);
    });
    box.scrollTop = box.scrollHeight;
    const said = $("withdrawn-note");
    said.hidden = !gone.size;
    said.textContent = gone.size ? t("Struck through: taken back with Undo. The audit reads the log without them, as the page does.") : "";
  }

  function lastEntry() {
    const gone = withdrawn();
    for (let k = saved.entries.length - 1; k > 0; k--) {
      const [first, last] = saved.entries[k];
      if (!gone.has(first)) return [first, last];
    }
    return null;
  }

  function renderKeep() {
    const entry = lastEntry();
    $("undo").disabled = !entry;
    // what Undo would take back, so that it needs no confirmation
    $("last-entry").textContent = entry ? describe(saved.events[entry[1]]) : "";
    const link = $("download");
    if (link.href && link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([jsonl(saved.events)], { type: "application/x-ndjson" }));
    // the day and time the game started: two games of one evening are two files
    const at = saved.events[0].at || "";
    link.download = "yaniv-" + (at ? at.slice(0, 10) + "-" + at.slice(11, 16).replace(":", "") : "game") + ".jsonl";
  }

  $("undo").addEventListener("click", () => {
    const entry = lastEntry();
    if (!entry) return;
    const [first, last] = entry;
    const seqs = [];
    for (let i = first; i <= last; i++) seqs.push(i);
    const what = seqs.map((i) => describe(saved.events[i])).join("; ").replace(/[\u2068\u2069]/g, "");
    write([{ type: "withdraw", seqs: seqs, reason: t("entered by mistake: %(what)s", { what: what }) }], true);
  });

  $("store").addEventListener("click", async () => {
    // sent as a file named as the download is, so that the archive lists its source as
    // that name (a raw body would be "request.jsonl")
    const headers = {};
    const form = new FormData();
    form.append("log", new Blob([jsonl(saved.events)], { type: "application/x-ndjson" }), $("download").download);
    const token = $("token");
    if (token && token.value) headers.Authorization = "Bearer " + token.value;
    const note = $("stored");
    note.hidden = false;
    note.replaceChildren();
    let response, body;
    try {
      response = await fetch("/api/v1/games", { method: "POST", headers: headers, body: form });
      body = await response.json();
    } catch (e) {
      note.textContent = t("No connection to the server: the log is kept on this device; try again.");
      return;
    }
    if (!response.ok) {
      note.textContent = body && body.error ? body.error.message : response.statusText;
      return;
    }
    const game = body.added[0] || body.duplicates[0];
    if (!game) {
      note.textContent = body.refused.length ? body.refused[0].error.message : "";
      return;
    }
    note.appendChild(document.createTextNode((body.added.length ? t("Stored.") : t("Already in the archive.")) + " "));
    const link = el("a", null, t("Open it in the viewer"));
    link.href = "/games/" + game.fingerprint;
    link.id = "viewer-link";
    note.appendChild(link);
  });

  $("new-game").addEventListener("click", () => {
    if (!window.confirm(t("Start a new game? Download or store this one first: it will be gone from this device."))) return;
    saved = null;
    table = null;
    save();
    showSetup();
  });

  if (saved) showGame();
  else showSetup();
})();
