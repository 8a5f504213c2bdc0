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
// A live table (docs/web.md): the game opened on the service (POST /api/v1/tables); every
// entry is appended with If-Match (the entries this phone has seen) and an
// Idempotency-Key, from a queue kept here, so that an entry made offline is sent when
// the connection returns; another phone's entries arrive by the table's event stream;
// a stale append (412) is a conflict: the table's entries are taken, this phone's own is
// offered again, never forked. Other phones join by the link /record#table=ID&key=KEY.
"use strict";
(function () {
  const root = document.getElementById("record");
  if (!root) return;
  const KEY = "yaniv-audit-record/1";
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
  const SUITS = { C: ["\u2663", "black"], D: ["\u2666", "red"], H: ["\u2665", "red"], S: ["\u2660", "black"] };
  const $ = (id) => document.getElementById(id);
  // the words of the report, in the page's language
  const WORDS = { clean: t("clean"), claims: t("wrong claims"), violations: t("rules broken"),
    corrupt: t("impossible"), violation: t("rule broken"), inconsistency: t("impossible"),
    claim: t("wrong claim") };

  let saved = load(); // {events, entries: [[first, last]], draft, mode, table, sent, outbox}
  const HOLDER = "yaniv-audit-phone/1"; // who holds this phone (said on its entries)
  let table = null; // the state after saved.events
  let preview = null; // the state after saved.events and the draft's events
  let previewError = null;
  let previewOffline = false; // the entry being made could not be judged: no connection
  let online = navigator.onLine;
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
      if (found && Array.isArray(found.events)) {
        // a game recorded before live tables: kept on this phone
        if (!found.outbox) Object.assign(found, { outbox: [], sent: found.events.length, share: "local", table: null });
        return found;
      }
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
      return { error: t("No connection to the server: the log is kept on this device; try again."), offline: true };
    }
    const body = await response.json().catch(() => null);
    if (!response.ok) return { error: body && body.error ? body.error.message : response.statusText };
    online = true;
    learn(events, body.said);
    return { answer: body };
  }

  // the server's sentence of each entry (an answer's said.moves: parts, in the page's
  // language), by the entry as written; kept with the game, so that a reload offline
  // still says them
  function learn(events, said) {
    if (!said || !saved) return;
    if (!saved.said || saved.saidLang !== said.lang) {
      saved.said = {};
      saved.saidLang = said.lang;
    }
    events.forEach((e, i) => {
      if (said.moves[i]) saved.said[keyOf(e)] = said.moves[i];
    });
  }

  // an entry as the sentence of it depends on: not its place, time or phone
  function keyOf(e) {
    const out = plain(e);
    return JSON.stringify(Object.keys(out).sort().map((k) => [k, out[k]]));
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
    const error = await startGame(start, "scoresheet");
    if (error) showError("setup-error", error);
  });

  // a new game from its first event: checked by the engine, then opened as a table
  // (kept on this phone alone where the service opens none); undefined, or the error
  async function startGame(start, mode) {
    const result = await ask([start]);
    if (result.error) return result.error;
    stopFollowing();
    saved = { events: [start], entries: [[0, 0]], draft: null, mode: mode, table: null,
      sent: 0, outbox: [], share: "wanted" };
    learn([start], result.answer.said);
    table = result.answer;
    saved.view = table;
    saved.viewAt = 1;
    save();
    await openTable();
    showGame();
    return undefined;
  }

  function showError(id, text) {
    const box = $(id);
    box.textContent = text || "";
    box.hidden = !text;
  }

  // --- the game -----------------------------------------------------------------------

  async function refresh() {
    const result = await ask(saved.events);
    if (result.offline && saved.view) {
      // offline: the last answer, moved on to the round after those written since
      online = false;
      showError("rec-error", "");
      table = predicted();
    } else if (result.error) {
      showError("rec-error", result.error);
      renderShare();
      return;
    } else {
      showError("rec-error", "");
      table = result.answer;
      saved.view = table;
      saved.viewAt = saved.events.length;
    }
    if (saved.refill && stage() === "round" && saved.refill.round === table.next.round) {
      saved.draft = inDealOrder(saved.refill);
    }
    saved.refill = null;
    if (!draftFits()) saved.draft = freshDraft();
    save();
    render();
    schedulePreview();
  }

  // the table as the last answer said it, and the scoresheet rounds written since (while
  // offline): the next round is the one after the last standing round written
  function predicted() {
    const view = JSON.parse(JSON.stringify(saved.view));
    if (saved.events.length === saved.viewAt) return view;
    const gone = withdrawn();
    const standing = saved.events.filter((e, i) => !gone.has(i) && e.type !== "note" && e.type !== "withdraw");
    const last = standing[standing.length - 1];
    if (last && last.type === "round_ended" && view.next.expects.includes("round_started")) {
      view.next.round = last.round + 1;
      view.next.starters = null;
      view.state.round = last.round;
    } else if (last && last.type === "game_started") {
      view.next.round = 1;
    }
    return view;
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
    let answer = null, error = null, unjudged = false;
    if (events.length) {
      const base = saved.events.length;
      const result = await ask(saved.events.concat(events.map((e, i) => Object.assign({ seq: base + i }, e))));
      if (result.offline) unjudged = true;
      else if (result.error) error = result.error;
      else answer = result.answer;
    }
    if (run !== previewRun) return; // a later entry is being previewed
    preview = answer;
    previewError = error;
    previewOffline = unjudged;
    const d = saved.draft;
    if (d && d.kind === "turn" && answer && events.length === 1 && events[0].type === "discard" && !d.legal) {
      // the draws the rules allow after this throw: marks on the previous throw's cards
      d.legal = answer.next.moves.filter((m) => m.type === "draw");
      save();
      renderEntry();
    }
    if (d && d === asked && committed && d.commit === committed) {
      d.commit = 0;
      // offline, an entry is written unjudged (the audit judges it once it is sent)
      const legal = previewOffline ||
        (preview && !preview.report.findings.some((f) => f.seq >= saved.events.length));
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
    queue(events, !withdrawn);
    if (!withdrawn && saved.replay) {
      // a corrected round: the rounds after it written again, as they were
      saved.replay.forEach((batch) => queue(batch, true));
      saved.replay = null;
    }
    saved.draft = null;
    saved.nextRound = false;
    save();
    flush();
    await refresh();
  }

  // an entry added to the log and to the queue of entries the table has not taken yet
  function queue(events, entry) {
    const base = saved.events.length;
    const at = stamp();
    const key = token();
    const holder = localStorage.getItem(HOLDER) || "";
    events.forEach((e, i) => {
      const written = Object.assign({ seq: base + i, at: at }, e, { _entry: key });
      if (holder) written._by = holder;
      saved.events.push(written);
    });
    if (entry) saved.entries.push([base, saved.events.length - 1]);
    if (!saved.outbox) saved.outbox = [];
    saved.outbox.push({ first: base, last: saved.events.length - 1, key: key });
  }

  function token() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  // --- the live table -------------------------------------------------------------------

  let flushing = false;
  let retry = null;
  let follower = null;
  let syncing = false;

  function headersFor(more) {
    return Object.assign({ "Accept-Language": document.documentElement.lang || "en" }, more || {});
  }

  function tableUrl(rest) {
    return "/api/v1/tables/" + encodeURIComponent(saved.table.id) + (rest || "");
  }

  // opens the game on the service: false where it cannot (then the game is kept here)
  async function openTable() {
    const token = $("setup-token") && $("setup-token").value;
    const headers = headersFor({ "Content-Type": "application/json" });
    if (token) headers.Authorization = "Bearer " + token;
    let response;
    try {
      response = await fetch("/api/v1/tables", { method: "POST", headers: headers, body: JSON.stringify(saved.events[0]) });
    } catch (e) {
      online = false;
      scheduleRetry();
      return false; // tried again when the connection returns
    }
    const body = await response.json().catch(() => null);
    if (response.status !== 201 || !body || !body.id) {
      saved.share = "local";
      saved.shareWhy = body && body.error ? body.error.message : response.status + " " + response.statusText;
      save();
      return false;
    }
    saved.table = { id: body.id, key: body.key };
    saved.sent = body.seq || 1;
    saved.share = "table";
    save();
    follow();
    return true;
  }

  // sends the queue in order, each entry with If-Match: the entries this phone has seen
  async function flush() {
    if (flushing || !saved) return;
    flushing = true;
    setBusy(1);
    try {
      while (saved && saved.outbox && saved.outbox.length) {
        if (!saved.table) {
          if (saved.share !== "wanted" || !(await openTable())) break;
          continue;
        }
        if (!(await append(saved.outbox[0]))) break;
      }
    } finally {
      flushing = false;
      setBusy(-1);
      renderShare();
    }
  }

  // one entry of the queue appended: true when the table took it
  async function append(item) {
    const sent = saved.sent;
    let response;
    try {
      response = await fetch(tableUrl("/events"), { method: "POST",
        body: jsonl(saved.events.slice(item.first, item.last + 1)),
        headers: headersFor({ "Content-Type": "application/x-ndjson", Authorization: "Bearer " + saved.table.key,
          "If-Match": '"' + sent + '"', "Idempotency-Key": item.key }) });
    } catch (e) {
      online = false;
      scheduleRetry();
      return false;
    }
    online = true;
    const body = await response.json().catch(() => null);
    if (response.ok && body) {
      saved.sent = body.seq;
      saved.outbox.shift();
      saved.tableError = null;
      save();
      return true;
    }
    if (response.status === 412 && body) {
      await conflict(body, sent);
      return false;
    }
    saved.tableError = body && body.error ? body.error.message : response.status + " " + response.statusText;
    if (response.status === 400) {
      // an entry the table cannot read is taken out of this phone's log too
      saved.events.splice(item.first);
      saved.outbox = [];
      rebuildEntries();
      save();
      refresh();
    } else if (response.status === 401 || response.status === 403) {
      // the table does not take this phone's key: the entries wait for its link, pasted
      saved.rejoin = true;
    } else if (response.status >= 500 || response.status === 429) {
      scheduleRetry();
    }
    save();
    return false;
  }

  function scheduleRetry() {
    clearTimeout(retry);
    retry = setTimeout(() => { retry = null; flush(); }, 4000);
    renderShare();
  }

  // a stale If-Match: another phone wrote first. This phone takes the table's entries
  // and offers its own again (never a second log)
  async function conflict(body, sent) {
    // the 412 names the entries since this phone's count: [{seq, event}]
    let theirs = Array.isArray(body.entries) ? body.entries.map((x) => x.event) : null;
    if (!theirs) theirs = await fetchSince(sent);
    if (!theirs) return;
    const mine = saved.outbox.map((it) => saved.events.slice(it.first, it.last + 1).map(plain));
    saved.events = saved.events.slice(0, sent).concat(theirs.filter((e) => e.seq === undefined || e.seq >= sent));
    saved.sent = saved.events.length;
    saved.outbox = [];
    saved.replay = null;
    rebuildEntries();
    const by = theirs.length ? theirs[theirs.length - 1]._by || "" : "";
    saved.conflict = { by: by, at: sent, theirs: theirs.map(plain), mine: mine.filter((b) => b.length && b[0].type !== "withdraw") };
    const round = saved.conflict.mine.map(sheetDraft).find((d) => d);
    if (round) saved.refill = round;
    saved.draft = null;
    save();
    await refresh();
  }

  // an event as written again: its place, time and entry are the new entry's
  function plain(e) {
    const out = Object.assign({}, e);
    delete out.seq;
    delete out.at;
    delete out._entry;
    delete out._by;
    return out;
  }

  // the table's entries from position n on (the JSON form of the follow API)
  async function fetchSince(n) {
    let response;
    try {
      response = await fetch(tableUrl("/events" + (n > 0 ? "?after=" + (n - 1) : "")),
        { headers: headersFor({ Accept: "application/json" }) });
    } catch (e) {
      online = false;
      return null;
    }
    const body = await response.json().catch(() => null);
    if (!response.ok || !body) {
      saved.tableError = body && body.error ? body.error.message : response.status + " " + response.statusText;
      return null;
    }
    // {seq, entries: [{seq, event}]}: the entries whose seq is after the one asked
    return (body.entries || []).filter((x) => x.seq >= n).map((x) => x.event);
  }

  // the entries (Undo's steps) read again from the log: one entry per Idempotency-Key
  function rebuildEntries() {
    const out = [[0, 0]];
    for (let i = 1; i < saved.events.length; i++) {
      const e = saved.events[i];
      if (e.type === "withdraw") continue;
      const last = out[out.length - 1];
      if (e._entry && last[1] === i - 1 && saved.events[last[1]]._entry === e._entry) last[1] = i;
      else out.push([i, i]);
    }
    saved.entries = out;
  }

  // another phone's entries, as the table's stream tells of them
  function follow() {
    stopFollowing();
    if (!saved || !saved.table || !window.EventSource) return;
    follower = new EventSource(tableUrl("/events"));
    // an "entry" event for each entry appended (a "summary" after each append)
    follower.addEventListener("entry", (message) => {
      const seq = Number(message.lastEventId);
      if (saved && saved.table && !(seq < saved.sent) && !syncing) {
        syncing = true;
        setTimeout(sync, 50);
      }
    });
    follower.onopen = () => {
      online = true;
      flush();
    };
  }

  function stopFollowing() {
    if (follower) follower.close();
    follower = null;
  }

  async function sync() {
    try {
      if (!saved || !saved.table || flushing || (saved.outbox && saved.outbox.length)) return;
      const news = await fetchSince(saved.sent);
      if (!news || !news.length || (saved.outbox && saved.outbox.length)) return;
      saved.events = saved.events.slice(0, saved.sent).concat(news);
      saved.sent = saved.events.length;
      rebuildEntries();
      save();
      await refresh();
    } finally {
      syncing = false;
    }
  }

  // the link another phone joins by: the key in the fragment, never sent to a server
  function joinLink() {
    return location.origin + "/record#table=" + encodeURIComponent(saved.table.id) + "&key=" + encodeURIComponent(saved.table.key);
  }

  async function joinFromLink() {
    const found = new URLSearchParams(location.hash.slice(1));
    const id = found.get("table"), key = found.get("key");
    if (!id || !key) return false;
    history.replaceState(null, "", location.pathname + location.search);
    if (saved && saved.table && saved.table.id === id) return true;
    const before = saved;
    saved = { events: [], entries: [[0, 0]], draft: null, mode: "scoresheet", table: { id: id, key: key },
      sent: 0, outbox: [], share: "table" };
    const events = await fetchSince(0);
    if (!events || !events.length) {
      const why = saved.tableError || t("No connection to the server: the log is kept on this device; try again.");
      saved = before;
      showSetup();
      showError("setup-error", t("This phone could not join the table: %(error)s", { error: why }));
      return true;
    }
    saved.events = events;
    saved.sent = events.length;
    rebuildEntries();
    save();
    return false;
  }

  function renderShare() {
    if (!saved || $("game").hidden) return;
    const box = $("table-box");
    box.replaceChildren();
    if (saved.table) {
      box.appendChild(el("p", "small", t("Other phones at the table join with this link (it lets them write to this game):")));
      const row = el("div", "rec-link-row");
      const input = el("input", "rec-link");
      input.id = "table-link";
      input.readOnly = true;
      input.value = joinLink();
      input.setAttribute("aria-label", t("the table's link"));
      row.appendChild(input);
      const copy = button(t("copy"), "rec-small", () => {
        input.select();
        if (navigator.clipboard) navigator.clipboard.writeText(input.value).catch(() => {});
      });
      copy.id = "copy-table-link";
      row.appendChild(copy);
      box.appendChild(row);
      const code = el("img", "rec-qr");
      code.id = "table-qr";
      code.alt = t("QR code of the table's link");
      code.hidden = !saved.table.qr;
      if (saved.table.qr) code.src = saved.table.qr;
      else drawQr();
      box.appendChild(code);
      const watch = el("a", "rec-button", t("Follow the game (read only)"));
      watch.id = "follow-link";
      watch.href = "/tables/" + encodeURIComponent(saved.table.id);
      box.appendChild(watch);
      const holder = select("phone-holder", t("This phone is held by"),
        [["", "-"]].concat(players().map((p) => [p, p])), localStorage.getItem(HOLDER) || "", (v) => {
          localStorage.setItem(HOLDER, v);
        });
      box.appendChild(holder);
    } else if (saved.share === "local") {
      box.appendChild(el("p", "small muted", t("This game is kept on this phone only: %(why)s", { why: saved.shareWhy || "" })));
      const b = button(t("Open a table for the other phones"), "rec-small", async () => {
        saved.share = "wanted";
        save();
        flush();
        if (await openTable()) flush();
        renderShare();
      });
      b.id = "open-table";
      box.appendChild(b);
    }
    renderQueue();
  }

  // the link's QR code, drawn by the server (POST: the key never in an address)
  let qrAsked = null;
  async function drawQr() {
    if (!saved.table || qrAsked === saved.table.id) return;
    qrAsked = saved.table.id;
    try {
      const response = await fetch("/record/qr", { method: "POST", body: joinLink(), headers: { "Content-Type": "text/plain" } });
      if (!response.ok) return;
      const svg = await response.text();
      saved.table.qr = "data:image/svg+xml;base64," + btoa(svg);
      save();
      renderShare();
    } catch (e) {
      qrAsked = null; // asked again when the page is drawn online
    }
  }

  function renderQueue() {
    const note = $("queue");
    const waiting = saved && saved.outbox ? saved.outbox.length : 0;
    note.dataset.waiting = String(waiting);
    let text = "";
    if (waiting && (saved.table || saved.share === "wanted")) {
      text = t("Entries waiting: %(n)s", { n: waiting });
      if (!online) text += " " + t("(offline: sent when the connection returns)");
      if (behind()) text += ". " + t("The scores shown are from before them.");
    } else if (saved && saved.table && !online) {
      text = t("Offline: new entries wait on this phone.");
    }
    note.textContent = text;
    note.hidden = !text;
    const error = saved && saved.tableError;
    showError("table-error", error ? t("The table refused the entry: %(error)s", { error: error }) : "");
    renderRejoin();
    renderConflict();
  }

  // a key the table does not take (401/403): the entries wait on this phone until the
  // table's link, pasted from another phone at the table, gives it the key again
  function renderRejoin() {
    const box = $("rejoin");
    box.replaceChildren();
    const asked = Boolean(saved && saved.table && saved.rejoin);
    box.hidden = !asked;
    if (!asked) return;
    const label = el("label", "rec-field", t("Paste the table's link from another phone at the table to write to it again:"));
    const input = el("input", "rec-link");
    input.id = "rejoin-link";
    input.type = "url";
    input.autocomplete = "off";
    label.appendChild(input);
    box.appendChild(label);
    const wrong = el("p", "rec-error");
    wrong.id = "rejoin-error";
    wrong.hidden = true;
    const go = button(t("Join again"), "rec-small", () => {
      const key = keyFrom(input.value);
      if (!key) {
        wrong.textContent = t("That is not this table's link.");
        wrong.hidden = false;
        return;
      }
      saved.table.key = key;
      saved.table.qr = null; // the QR code shows the link with the key
      qrAsked = null;
      saved.rejoin = false;
      saved.tableError = null;
      save();
      renderShare();
      flush();
    });
    go.id = "rejoin-go";
    box.appendChild(go);
    box.appendChild(wrong);
  }

  // the key of a pasted link to this table (/record#table=ID&key=KEY), else null
  function keyFrom(text) {
    const at = text.indexOf("#");
    if (at < 0) return null;
    const found = new URLSearchParams(text.slice(at + 1).trim());
    const key = found.get("key");
    return found.get("table") === saved.table.id && key ? key : null;
  }

  // whether the page shows the table as the server last said it, before entries since
  function behind() {
    return Boolean(saved && saved.viewAt && saved.events.length > saved.viewAt);
  }

  function renderConflict() {
    const box = $("conflict");
    box.replaceChildren();
    const c = saved && saved.conflict;
    box.hidden = !c;
    if (!c) return;
    const what = entryText(c.theirs);
    box.appendChild(el("p", "rec-conflict-head", c.by
      ? t("%(who)s's phone wrote first: %(what)s", { who: c.by, what: what })
      : t("Another phone wrote first: %(what)s", { what: what })));
    if (c.mine.length) {
      box.appendChild(el("p", null, t("Not written, from this phone: %(what)s. The table's entries are shown.",
        { what: c.mine.map(entryText).join("; ") })));
      // the same round written twice: mine in its place (the table's taken back), else
      // mine after the table's
      const rounds = (list) => list.filter((e) => e.type === "round_started").map((e) => e.round);
      const same = rounds([].concat(...c.mine)).some((r) => rounds(c.theirs).includes(r));
      const again = button(same ? t("Write mine in its place") : t("Write mine after it"), "rec-small", () => {
        const mine = c.mine;
        saved.conflict = null;
        saved.draft = null;
        if (same) {
          const gone = withdrawn();
          const seqs = [];
          for (let i = c.at; i < saved.events.length; i++) {
            if (!gone.has(i) && !["note", "withdraw"].includes(saved.events[i].type)) seqs.push(i);
          }
          if (seqs.length) queue([{ type: "withdraw", seqs: seqs, reason: t("the same round written by two phones") }], false);
        }
        mine.forEach((b) => queue(b, true));
        save();
        flush();
        refresh();
      });
      again.id = "conflict-again";
      box.appendChild(again);
    }
    const drop = button(t("Keep the table's"), "rec-small", () => {
      saved.conflict = null;
      save();
      render();
    });
    drop.id = "conflict-drop";
    box.appendChild(drop);
  }

  // an entry in a few words: its events as the server said them, listed
  function entryText(batch) {
    return batch.map(describe).join("; ");
  }

  window.addEventListener("online", () => {
    online = true;
    flush();
    if (saved && saved.table && !follower) follow();
    if (saved && !$("game").hidden) refresh();
  });
  window.addEventListener("offline", () => {
    online = false;
    renderShare();
  });

  // --- a scoresheet round typed again (Undo, a conflict, a correction) --------------------

  // the form of a scoresheet round, refilled from its events (null: not such a round)
  function sheetDraft(batch) {
    const start = batch.find((e) => e.type === "round_started");
    const show = batch.find((e) => e.type === "showdown");
    const end = batch.find((e) => e.type === "round_ended");
    if (!start || start.hands || !show || !end) return null;
    const hands = {}, entry = {}, totals = {};
    const written = show.totals || {};
    Object.keys(show.hands || {}).concat(Object.keys(written)).forEach((p) => {
      hands[p] = (show.hands && show.hands[p]) || [];
      entry[p] = p in written ? "total" : "cards";
      totals[p] = p in written ? String(written[p]) : "";
    });
    const text = (o) => {
      const out = {};
      Object.keys(o || {}).forEach((p) => { out[p] = String(o[p]); });
      return out;
    };
    return { kind: "sheet", round: start.round, starter: start.starter, hands: hands, entry: entry,
      totals: totals, active: Object.keys(hands)[0], caller: show.caller || "", callerNobody: !show.caller,
      points: text(end.points), scores: text(end.scores), wroteOpen: Boolean(end.points || end.scores) };
  }

  // the refilled seats in the order of the deal (a seat the round did not say: empty)
  function inDealOrder(d) {
    const hands = {}, entry = {}, totals = {};
    (table.next.deal || Object.keys(d.hands)).forEach((p) => {
      hands[p] = d.hands[p] || [];
      entry[p] = d.entry[p] || "cards";
      totals[p] = d.totals[p] || "";
    });
    if (!(d.active in hands)) d.active = Object.keys(hands)[0];
    return Object.assign({}, d, { hands: hands, entry: entry, totals: totals });
  }

  // the standing entry that holds event i
  function entryOf(i) {
    return saved.entries.find(([first, last]) => first <= i && i <= last) || [i, i];
  }

  // a scoresheet round corrected: it and every later entry are withdrawn (the latest
  // entries, as a withdrawal takes them back), the form refilled with it, and the later
  // entries written again after the corrected round
  function correctRound(n) {
    const gone = withdrawn();
    const standing = [];
    saved.events.forEach((e, i) => {
      if (!gone.has(i) && !["withdraw", "note", "game_started"].includes(e.type)) standing.push(i);
    });
    const from = standing.find((i) => saved.events[i].type === "round_started" && saved.events[i].round === n);
    if (from === undefined) return;
    const [first, last] = entryOf(from);
    const refill = sheetDraft(saved.events.slice(first, last + 1));
    if (!refill) return;
    const later = saved.entries.filter(([f]) => f > last && !gone.has(f))
      .map(([f, l]) => saved.events.slice(f, l + 1).map(plain));
    saved.refill = refill;
    saved.correcting = { round: n, later: later.length };
    write([{ type: "withdraw", seqs: standing.filter((i) => i >= first),
      reason: t("to correct round %(n)s", { n: n }) }], true).then(() => {
      saved.replay = later;
      save();
      render();
    });
  }

  // a sheet round standing in the log, by its number (the rounds the side list offers to correct)
  function sheetRounds() {
    const gone = withdrawn();
    const out = new Set();
    saved.events.forEach((e, i) => {
      if (gone.has(i) || e.type !== "round_started" || e.hands) return;
      const [first, last] = entryOf(i);
      if (sheetDraft(saved.events.slice(first, last + 1))) out.add(e.round);
    });
    return out;
  }

  async function rematch() {
    const first = saved.events[0];
    const start = { type: "game_started", seq: 0, at: stamp(), format: "yaniv-log/1",
      players: first.players, rules: first.rules, meta: Object.assign({}, first.meta || {}, { recorder: "yaniv-audit /record" }) };
    const error = await startGame(start, saved.mode);
    if (error) showError("rec-error", error);
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
    renderShare();
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
      if (rounds.length) box.appendChild(roundTable(table, rounds.length - 1));
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
    return top;
  }

  // A slap offered after a draw: the pile and the slap buttons come into view below the
  // sticky round header (the page stayed where the draw was tapped, and they sat under
  // it). Once per offer, so that tapping the cards further down is not pulled back up.
  let slapShown = "";
  function revealSlap(top, offer) {
    if (!offer || offer === slapShown) { slapShown = offer; return; }
    slapShown = offer;
    requestAnimationFrame(() => {
      const head = document.querySelector(".rec-head");
      const under = head ? head.getBoundingClientRect().bottom : 0;
      const at = top.getBoundingClientRect().top;
      if (at < under + 4 || at > window.innerHeight * 0.6) window.scrollBy({ top: at - under - 8 });
    });
  }

  function turnEntry(box, d) {
    const s = table.state;
    const top = tableTop(box);
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
    revealSlap(top, slaps.map((m) => saved.events.length + ":" + m.player + m.card).join(" "));
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

  // a round of an answer (the k-th of its report), headed as the server says it
  function roundTable(answer, k) {
    const r = answer.report.rounds[k];
    const wrap = el("div", "rec-round");
    const head = el("p", "rec-round-head");
    const parts = answer.said ? answer.said.rounds[k] : [t("Round %(n)s", { n: r.round })];
    head.append(...saidNodes(parts, (seat) => el("bdi", null, answer.game.players[seat]),
      (c) => document.createTextNode(iso(cardText(c)))));
    wrap.appendChild(head);
    if (r.end === null) return wrap;
    const grid = el("table", "rec-round-table");
    const top = el("tr");
    top.appendChild(el("td")); // the corner above the names: no header of anything
    [t("hand"), t("points"), t("score")].forEach((h) => top.appendChild(el("th", null, h)));
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
    if (previewOffline && complete()) {
      box.appendChild(el("p", "rec-warn", t("Offline: this entry is checked when it reaches the table.")));
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
      box.appendChild(roundTable(preview, preview.report.rounds.length - 1));
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
    const labels = {
      sheet: [t("Write down round %(n)s", { n: d && d.round }), t("Write down round %(n)s anyway", { n: d && d.round })],
      deal: [t("Deal"), t("Deal anyway")],
      turn: d && d.call ? [t("Record the Yaniv"), t("Record the Yaniv anyway")] : [t("Record the turn"), t("Record the turn anyway")],
      draw: [t("Record the draw"), t("Record the draw anyway")] }[d && d.kind];
    const label = labels && labels[0];
    // a complete legal entry is written at the tap that completes it; the button is for
    // a round entered by its cards, and for an entry the audit will flag
    if (label && (d.kind === "sheet" || complete())) {
      const whole = complete();
      const found = whole && preview ? preview.report.findings.filter((f) => f.seq >= saved.events.length) : [];
      const b = button(found.length ? labels[1] : label, "rec-go" + (found.length ? " warn" : ""), () => {
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
    if (at === "finished" || at === "done") {
      const b = button(t("Rematch: a new game, the same players and rules"), "rec-go alt", rematch);
      b.id = "rematch";
      box.appendChild(b);
    }
    if (saved.replay && saved.replay.length && d && d.kind === "sheet") {
      box.appendChild(el("p", "small muted", t("The %(n)s entries after this round are written again after it.", { n: saved.replay.length })));
    }
  }

  function renderScores() {
    const box = $("scores");
    box.replaceChildren();
    const s = table.state;
    // the scores in one line under the round's head, for a phone (the table is further down)
    const line = $("score-line");
    line.replaceChildren();
    // offline: the scores the server last gave, before the entries written since
    line.classList.toggle("behind", behind());
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
    const sheets = sheetRounds();
    rounds.map((r, k) => [r, k]).reverse().forEach(([r, k]) => {
      const wrap = roundTable(table, k);
      if (sheets.has(r.round)) {
        const fix = button(t("Correct round %(n)s", { n: r.round }), "rec-small", () => correctRound(r.round));
        fix.dataset.round = String(r.round);
        fix.classList.add("rec-correct");
        wrap.appendChild(fix);
      }
      box.appendChild(wrap);
    });
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

  // a name or cards kept whole inside a line of either direction (first strong
  // isolate: "ben: 10♦" stays so in a Hebrew line)
  function iso(text) {
    return "\u2068" + text + "\u2069";
  }

  // an entry as the server said it (names and cards isolated), as nodes; an entry the
  // server has not read yet (written offline) by its kind, who and what it holds, with
  // no sentence made here
  function describeNodes(e) {
    const parts = saved && saved.said ? saved.said[keyOf(e)] : null;
    const seats = saved && saved.events.length ? saved.events[0].players : [];
    if (parts) {
      return saidNodes(parts, (k) => document.createTextNode(iso(seats[k])),
        (c) => document.createTextNode(iso(cardText(c))));
    }
    const kind = { game_started: t("game start"), round_started: t("deal"), discard: t("throw"),
      draw: t("draw"), slap: t("slap"), yaniv: t("Yaniv"), showdown: t("showdown"),
      round_ended: t("scores written down"), game_ended: t("game over"), note: t("note"),
      withdraw: t("undo"), reshuffle: t("reshuffle") }[e.type] || e.type;
    const items = [kind];
    const who = e.player || e.starter || e.caller;
    if (who) items.push(iso(who));
    if (e.round !== undefined) items.push("#" + e.round);
    const held = [].concat(e.cards || [], e.card ? [e.card] : []);
    if (held.length) items.push(iso(held.map(cardText).join(" ")));
    if (e.type === "withdraw") items.push("#" + (e.seqs || []).join(" #"));
    if (e.type === "note") items.push(iso(e.text || ""));
    return [document.createTextNode(items.join(" \u00b7 "))];
  }

  function describe(e) {
    return describeNodes(e).map((n) => n.textContent).join("");
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
    const waiting = saved.outbox && saved.outbox.length ? saved.outbox[0].first : saved.events.length;
    saved.events.forEach((e, i) => {
      const item = el("li", gone.has(i) ? "withdrawn" : "");
      item.append(...describeNodes(e));
      if (i >= waiting) item.classList.add("waiting");
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
    // a scoresheet round comes back in the form, as it was typed
    saved.refill = sheetDraft(saved.events.slice(first, last + 1));
    saved.replay = null;
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
    stopFollowing();
    saved = null;
    table = null;
    save();
    showSetup();
  });

  // a reload offline still opens the recorder: the page and its files kept by a service
  // worker (static/sw.js, served as /record/sw.js for the scope /record)
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/record/sw.js", { scope: "/record" }).catch(() => {});
  }

  (async () => {
    if (await joinFromLink()) return;
    if (saved) {
      if (saved.view && !table) table = saved.view;
      showGame();
      follow();
      flush();
    } else {
      showSetup();
    }
  })();
})();
