// Tabletop Referee dashboard. Plain JS, no framework: one EventSource for pushed updates. Every message
// says what it is (type), where it stands (seq) and which game it belongs to (game_seq): a new game clears
// the ruling area. Each camera frame is numbered and fetched by number, and its label is what vision read
// on that very frame (its overlay), shown only once that frame is on screen.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const ui = {
    state: null, gameSeq: null, rulings: [], mySeat: null, reactions: [], overlays: new Map(),
    wantSeq: 0, loadingSeq: null, shownSeq: null, shown: null, messages: 0,
    named: {},        // landed_t_us -> {card, at: Date.now()} when that landing's name first showed (the bench)
  };
  window.referee = ui;   // for tests, the bench and curious operators

  // ---- formatting ----------------------------------------------------------------------
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function cardHTML(s) {
    if (!s) return "";
    if (/^jo/i.test(s)) return "Joker";
    const suit = s.slice(-1).toUpperCase(), rank = s.slice(0, -1).toUpperCase().replace(/^T$/, "10");
    const sym = SUITS[suit];
    if (!sym) return escapeHTML(s);
    const red = suit === "H" || suit === "D";
    return escapeHTML(rank) + (red ? `<span class="red">${sym}</span>` : sym);
  }
  function escapeHTML(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }
  function fmtUs(us) {
    const a = Math.abs(us);
    if (a < 1000) return `${us} µs`;
    if (a < 10000) return `${(us / 1000).toFixed(2)} ms`;
    return `${(us / 1000).toFixed(1)} ms`;
  }
  function seatName(seat) {
    if (seat === null || seat === undefined) return "nobody";
    const p = ui.state && ui.state.players && ui.state.players[seat];
    return p ? p.name : `Player ${seat + 1}`;
  }
  function rulingText(r) {
    if (r.headline) return r.headline;
    if (r.say) return r.say;
    const who = r.seat !== null && r.seat !== undefined ? seatName(r.seat) + ": " : "";
    return who + r.kind.replace(/_/g, " ");
  }

  // ---- state -------------------------------------------------------------------------
  function newGame(seq) {
    // a new game: the last game's rulings, headline and timeline go (they belong to that game)
    ui.gameSeq = seq;
    ui.rulings = [];
    const big = $("ruling");
    big.className = "ruling-big idle";
    big.textContent = "A new game begins…";
    delete big.dataset.t;
    delete big.dataset.kind;
    renderRulings();
  }
  function renderState(s) {
    if (!s) return;
    ui.state = s;
    $("title").textContent = s.title || "Tabletop Referee";
    const players = s.players || [];
    const turn = players.find((p) => p.turn);
    $("turn").textContent = s.over ? "game over" : turn ? `Turn: ${turn.name}` : "";
    $("howto").textContent = s.howto || "";
    const paused = s.paused || [];
    $("pausebanner").hidden = !paused.length;
    $("pausewhy").textContent = paused.includes("operator") ? "by the operator" : paused.join(", ");
    const opmsg = $("opmsg");                 // a PIN lockout shows on the operator panel while it lasts
    if (s.operator_lockout) { opmsg.className = "oprow err"; opmsg.textContent = s.operator_lockout; opmsg.dataset.lock = "1"; }
    else if (opmsg.dataset.lock) { opmsg.textContent = ""; delete opmsg.dataset.lock; }
    renderOperatorPanel();
    $("pressbtn").hidden = !s.presses;        // only where a press means something (Slapstick's chicken)
    const bits = [`${s.pile ?? 0} in the pile`];
    if (s.round) bits.push(`round ${escapeHTML(s.round)}`);
    $("pileinfo").innerHTML = bits.join(" · ");
    const seats = $("seats");
    seats.textContent = "";
    seats.dataset.n = players.length;
    for (const p of players) {
      const d = el("div", `seat ${p.status || ""}`);
      d.dataset.seat = p.seat;
      if (p.turn && !s.over) d.classList.add("turn");
      if (s.winner === p.seat) d.classList.add("winner");
      const name = el("div", "name", p.name);
      if (ui.mySeat === p.seat) name.appendChild(el("span", "you", "YOU"));
      d.appendChild(name);
      const line = el("div", "line");
      const cards = el("span", "cards", String(p.cards));
      cards.appendChild(el("small", null, p.cards === 1 ? " card" : " cards"));
      line.appendChild(cards);
      const extra = [p.status === "in" ? "" : (p.status || "").replace("_", " ")];   // the turn: the blue frame
      if (p.scoring) extra.push(`${p.scoring} won`);
      if (p.penalty) extra.push(`${p.penalty} pen.`);
      line.appendChild(el("span", "status", extra.filter(Boolean).join(" · ")));
      d.appendChild(line);
      seats.appendChild(d);
    }
    renderGameOver(s);
  }
  function renderGameOver(s) {
    const box = $("gameover");
    if (!s.over) { box.hidden = true; return; }
    box.hidden = false;
    $("gowinner").textContent = s.winner !== null && s.winner !== undefined ? `${seatName(s.winner)} wins!`
      : s.loser !== null && s.loser !== undefined ? `${seatName(s.loser)} loses` : "No winner";
    const ol = $("standings");
    ol.textContent = "";
    for (const row of s.standings || []) {
      const li = el("li", row.seat === s.winner ? "won" : row.seat === s.loser ? "lost" : "", row.name);
      li.dataset.seat = row.seat;
      li.appendChild(el("span", null, row.what));
      ol.appendChild(li);
    }
  }

  // ---- rulings and timelines: the ruling area is the last ruling's, and only its -----------
  function addRuling(r, amended) {
    if (amended) {
      const i = ui.rulings.findIndex((x) => x.t_us === r.t_us && x.kind === r.kind);
      if (i >= 0) { ui.rulings[i] = r; renderRulings(); return; }
    }
    ui.rulings.push(r);
    if (ui.rulings.length > 30) ui.rulings.shift();
    noteReaction(r);
    renderRulings();
  }
  function renderRulings() {
    const last = ui.rulings[ui.rulings.length - 1];
    const big = $("ruling");
    if (last) {
      big.className = `ruling-big k-${last.kind}`;
      big.textContent = rulingText(last);
      big.dataset.kind = last.kind;
      big.dataset.t = last.t_us;
    }
    const list = $("recent");
    list.textContent = "";
    for (const r of ui.rulings.slice(-9, -1).reverse()) {
      list.appendChild(el("li", `k-${r.kind}`, rulingText(r)));     // a headline names its own margin
    }
    renderTimeline(last);
  }
  function renderTimeline(r) {
    const box = $("timeline");
    if (!r || !r.timeline) { box.hidden = true; box.textContent = ""; delete box.dataset.t; return; }
    box.hidden = false;
    box.textContent = "";
    box.dataset.kind = r.kind;
    box.dataset.t = r.t_us;
    const head = el("div", "head");
    head.appendChild(el("span", null, "Slaps after the card"));
    const times = r.timeline.map((x) => x.us).sort((a, b) => a - b);
    const margin = typeof r.margin_us === "number" ? r.margin_us : (times.length > 1 ? times[1] - times[0] : null);
    head.appendChild(el("span", "margin", margin === null ? "no runner-up" : `margin ${fmtUs(margin)}`));
    box.appendChild(head);
    const bySeat = new Map(r.timeline.map((x) => [x.seat, x.us]));
    const n = ui.state && ui.state.players ? ui.state.players.length : 0;
    const seats = [...r.timeline.map((x) => x.seat)];
    for (let s = 0; s < n; s++) if (!bySeat.has(s)) seats.push(s);
    const span = Math.max(1, ...times) * 1.08;
    for (const seat of seats) {
      const row = el("div", "trow");
      row.dataset.seat = seat;
      if (seat === r.seat) row.classList.add(r.kind === "picks_up" || r.kind === "false_slap" ? "loser" : "ruled");
      if (seat === ui.mySeat) row.classList.add("you");
      row.appendChild(el("span", "who", seatName(seat)));
      const track = el("span", "track");
      const t = el("span", "t");
      if (bySeat.has(seat)) {
        const us = bySeat.get(seat);
        const dot = el("span", "dot");
        dot.style.left = `${Math.max(0, Math.min(100, (us / span) * 100))}%`;
        track.appendChild(dot);
        t.textContent = `+${fmtUs(us)}`;
      } else {
        row.classList.add("none");
        t.textContent = "no slap";
      }
      row.appendChild(track);
      row.appendChild(t);
      box.appendChild(row);
    }
  }

  // ---- camera: frame N is fetched by number and labelled with what vision read on frame N ----
  function wantFrame(seq) {
    ui.wantSeq = Math.max(ui.wantSeq, seq);
    if (ui.loadingSeq === null) loadFrame();
  }
  function loadFrame() {
    if (ui.wantSeq === ui.shownSeq) return;
    ui.loadingSeq = ui.wantSeq;
    $("frame").src = `/frame.jpg?seq=${ui.loadingSeq}`;
  }
  function frameDone(ok) {
    const seq = ui.loadingSeq;
    ui.loadingSeq = null;
    if (ok) { ui.shownSeq = seq; $("nocam").hidden = true; drawOverlay(ui.overlays.get(seq) || null); }
    for (const k of ui.overlays.keys()) if (k < (ui.shownSeq || 0) - 20) ui.overlays.delete(k);
    if (ui.wantSeq > seq) loadFrame();       // a newer frame was announced meanwhile
  }
  function drawOverlay(o) {
    const img = $("frame"), svg = $("overlay"), name = $("cardname");
    ui.shown = o;
    svg.textContent = "";
    const w = (o && o.width) || img.naturalWidth, h = (o && o.height) || img.naturalHeight;
    if (w && h) svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    name.dataset.seq = o ? o.seq : "";
    name.dataset.card = o && o.card ? o.card : "";
    if (o && o.reading) { name.hidden = false; name.className = "reading"; name.textContent = "reading…"; return; }
    if (o && o.unreadable) { name.hidden = false; name.className = "unreadable"; name.textContent = "can't read it"; return; }
    if (!o || !o.card) { name.hidden = true; return; }
    const ns = "http://www.w3.org/2000/svg";
    if (Array.isArray(o.quad) && o.quad.length >= 3 && w && h) {
      const poly = document.createElementNS(ns, "polygon");
      poly.setAttribute("points", o.quad.map((p) => p.join(",")).join(" "));
      svg.appendChild(poly);
    }
    name.hidden = false;
    name.className = "";
    if (o.landed_t_us !== undefined && !ui.named[o.landed_t_us]) {
      ui.named[o.landed_t_us] = { card: o.card, at: Date.now() };
      const keys = Object.keys(ui.named);
      if (keys.length > 400) delete ui.named[keys[0]];
    }
    name.innerHTML = cardHTML(o.card) + (typeof o.confidence === "number"
      ? `<span class="conf">${Math.round(o.confidence * 100)}%</span>` : "");
  }

  // ---- pushed updates -------------------------------------------------------------------
  function onMessage(m) {
    ui.messages++;
    if (typeof m.game_seq === "number" && m.game_seq !== ui.gameSeq && m.type !== "frame") newGame(m.game_seq);
    if (m.type === "state") {
      if (m.recent) ui.rulings = m.recent.slice(-30);
      renderState(m.state);
      renderRulings();
    } else if (m.type === "ruling") {
      if (m.state) renderState(m.state);
      addRuling(m.ruling, m.amended);
    } else if (m.type === "frame" && m.overlay && typeof m.overlay.seq === "number") {
      ui.overlays.set(m.overlay.seq, m.overlay);
      wantFrame(m.overlay.seq);
    }
    if (m.state && m.state.highscores) renderScores(m.state.highscores);
  }
  function connect() {
    const es = new EventSource("/api/events");
    const conn = $("conn");
    es.onopen = () => { conn.textContent = "live"; conn.className = ""; };
    es.onerror = () => { conn.textContent = "reconnecting"; conn.className = "off"; };
    for (const type of ["state", "ruling", "frame"]) {
      es.addEventListener(type, (ev) => { try { onMessage(JSON.parse(ev.data)); } catch (e) { console.error(e); } });
    }
  }

  // ---- beat the bots ---------------------------------------------------------------------
  async function post(url, body, headers) {
    const res = await fetch(url, { method: "POST", headers: Object.assign({ "Content-Type": "application/json" }, headers || {}),
      body: JSON.stringify(body || {}) });
    let data = {};
    try { data = await res.json(); } catch (e) { /* empty body */ }
    return { ok: res.ok, status: res.status, data };
  }
  async function join() {
    const r = await post("/api/join", {});
    if (!r.ok) { $("reactions").textContent = r.data.error || "cannot join now"; $("play").hidden = false; return; }
    ui.mySeat = typeof r.data.seat === "number" ? r.data.seat : null;
    $("joinbtn").hidden = true;
    $("play").hidden = false;
    $("reactions").textContent = ui.mySeat === null ? "joined" : `You are ${seatName(ui.mySeat)}: watch the line above!`;
    renderState(ui.state);
  }
  function act(kind) {
    if (ui.mySeat === null) { join(); return; }
    post(`/api/${kind}`, { seat: ui.mySeat });
  }
  function verdict(r) {
    // what a ruling means for the visitor's own seat (null: nothing to say to them)
    const me = ui.mySeat;
    if (me === null) return null;
    if (r.kind === "false_slap" && r.seat === me) return { cls: "lost", text: "false slap!" };
    if (!r.timeline) return null;
    const mine = r.timeline.find((x) => x.seat === me);
    const first = r.timeline.length ? Math.min(...r.timeline.map((x) => x.us)) : 0;
    if (r.kind === "wins_pile") {
      if (r.seat === me) return { cls: "beat", text: `WON in ${fmtUs(mine ? mine.us : first)}` };
      return mine ? { cls: "lost", text: `too slow by ${fmtUs(mine.us - first)}` } : { cls: "lost", text: "missed it" };
    }
    if (r.kind === "picks_up") {
      if (r.seat === me) return { cls: "lost", text: mine ? `last, at ${fmtUs(mine.us)}` : "no slap: you pick up" };
      return mine ? { cls: "beat", text: `safe in ${fmtUs(mine.us)}` } : null;
    }
    return null;
  }
  function noteReaction(r) {
    const v = verdict(r);
    if (!v) return;
    ui.reactions.unshift(v);
    ui.reactions.length = Math.min(ui.reactions.length, 3);
    const box = $("reactions");
    box.textContent = "";
    ui.reactions.forEach((x, i) => {
      if (i) box.appendChild(document.createTextNode(" · "));
      box.appendChild(el("span", x.cls, x.text));
    });
    refreshScores();
  }
  function scoreMs(x) {
    const ms = x.ms ?? x.best_ms ?? x.reaction_ms ?? (typeof x.us === "number" ? x.us / 1000 : null);
    return typeof ms === "number" ? `${Math.round(ms)} ms` : "";
  }
  function renderScores(rows) {
    const list = Array.isArray(rows) ? rows : (rows && rows.highscores) || [];
    const box = $("scores"), ol = $("hilist");
    ol.textContent = "";
    if (!list.length) {
      box.textContent = "High scores: be the first to beat the bots!";
      ol.appendChild(el("li", null, "be the first to beat the bots!"));
      return;
    }
    box.innerHTML = "High scores: " + list.slice(0, 5).map((x, i) =>
      `${i + 1}. <b>${escapeHTML(x.name ?? x.who ?? "?")}</b> ${scoreMs(x)}`).join(" · ");
    for (const x of list.slice(0, 10)) {
      const li = el("li", null, String(x.name ?? x.who ?? "?"));
      li.appendChild(el("span", null, scoreMs(x)));
      ol.appendChild(li);
    }
  }
  async function refreshScores() {
    try { const res = await fetch("/api/highscores"); renderScores(await res.json()); } catch (e) { /* offline */ }
  }

  // ---- operator ---------------------------------------------------------------------------
  function renderOperatorPanel() {
    // without a configured PIN every operator action is refused: say so instead of "wrong PIN"
    const off = !!ui.state && ui.state.operator === false;
    $("opoff").hidden = !off;
    $("opforms").hidden = off;
  }
  async function operate(action) {
    const params = {};
    if (action === "change_game") params.game = $("opgame").value;
    if (action === "correct_card") params.card = $("opcard").value.trim();
    if (action === "set_hand") { params.seat = Number($("opseat").value) - 1; params.cards = Number($("opcards").value); }
    const msg = $("opmsg");
    const r = await post(`/api/operator/${action}`, params, { "X-Operator-Pin": $("pin").value });
    msg.className = `oprow ${r.ok ? "ok" : "err"}`;
    msg.textContent = r.ok ? `${action.replace(/_/g, " ")}: done` : r.status === 403 ? "Wrong or missing PIN" : (r.data.error || `failed (${r.status})`);
  }

  // ---- wiring -------------------------------------------------------------------------------
  $("frame").addEventListener("load", () => frameDone(true));
  $("frame").addEventListener("error", () => frameDone(false));
  $("joinbtn").addEventListener("pointerdown", (e) => { e.preventDefault(); join(); });
  $("slapbtn").addEventListener("pointerdown", (e) => { e.preventDefault(); act("slap"); });
  $("pressbtn").addEventListener("pointerdown", (e) => { e.preventDefault(); act("press"); });
  $("camera").addEventListener("pointerdown", () => { if (ui.mySeat !== null) act("slap"); });
  $("opbtn").addEventListener("click", () => {
    renderOperatorPanel();
    $("oppanel").hidden = false;
    if (!$("opforms").hidden) $("pin").focus();
  });
  $("opclose").addEventListener("click", () => { $("oppanel").hidden = true; $("pin").value = ""; });
  for (const key of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "⌫"]) {   // touch screens have no keyboard
    const b = el("button", null, key);
    b.type = "button";
    b.addEventListener("click", () => { const pin = $("pin"); pin.value = key === "⌫" ? pin.value.slice(0, -1) : pin.value + key; });
    $("keypad").appendChild(b);
  }
  for (const b of document.querySelectorAll("#oppanel [data-action]")) b.addEventListener("click", () => operate(b.dataset.action));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.repeat) return;
    if (!$("oppanel").hidden) { if (e.key === "Escape") $("opclose").click(); return; }
    if (e.key === "j" || e.key === "J") { if (ui.mySeat === null) join(); }
    else if (e.key === " ") { e.preventDefault(); act("slap"); }
    else if (e.key === "p" || e.key === "P") act("press");
  });
  connect();
  refreshScores();
})();
