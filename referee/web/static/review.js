// The review page: journal games, a game's rulings (slap decisions first-class), evidence sheets as PNG.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let current = null;
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function fmtUs(us) {
    if (typeof us !== "number") return "";
    return Math.abs(us) < 1000 ? `${us} µs` : `${(us / 1000).toFixed(1)} ms`;
  }
  // From another machine the review needs the operator PIN (this screen does not): asked once, kept for the tab.
  async function authFetch(url) {
    const pin = () => ({ "X-Operator-Pin": sessionStorage.getItem("pin") || "" });
    let res = await fetch(url, { headers: pin() });
    if (res.status === 403) {
      const given = window.prompt("Operator PIN for the review");
      if (given) { sessionStorage.setItem("pin", given); res = await fetch(url, { headers: pin() }); }
    }
    return res;
  }
  async function getJSON(url) {
    const res = await authFetch(url);
    const data = await res.json();
    if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
    return data;
  }
  async function loadGames() {
    const box = $("games");
    let data;
    try { data = await getJSON("/api/review/games"); } catch (e) { box.innerHTML = ""; box.appendChild(el("div", "dim", String(e.message))); return; }
    box.textContent = "";
    if (!data.journal) { box.appendChild(el("div", "dim", data.error || "No journal at this table: nothing to review.")); return; }
    if (!data.games.length) { box.appendChild(el("div", "dim", "No games in the journal yet.")); return; }
    for (const g of data.games) {
      const b = el("button", "game", `Game ${g.game}: ${g.title || g.game_id}`);
      b.type = "button";
      b.dataset.game = g.game;
      const result = g.ended ? (g.winner_name ? `${g.winner_name} won` : "ended") : "in play";
      const info = el("small", null, `${g.players} players · ${g.rulings} rulings · ${result} · `);
      info.appendChild(el("span", "when", String(g.started_at || "").replace("T", " ").slice(0, 16)));
      b.appendChild(info);
      b.addEventListener("click", () => loadGame(g.game));
      box.appendChild(b);
    }
    loadGame(data.games[0].game);
  }
  async function loadGame(n) {
    current = n;
    for (const b of document.querySelectorAll(".game")) b.classList.toggle("sel", Number(b.dataset.game) === n);
    const box = $("disputes");
    let data;
    try { data = await getJSON(`/api/review/games/${n}`); } catch (e) { box.textContent = ""; box.appendChild(el("div", "dim", e.message)); return; }
    box.textContent = "";
    const all = $("all").checked;
    const rows = data.rulings.filter((r) => all || r.slap_decision);
    const title = el("div", "dim", `Game ${n} (${data.game.title || data.game.game_id}, ${data.game.players} players): ` +
      `${data.rulings.filter((r) => r.slap_decision).length} slap decisions` + (all ? `, ${data.rulings.length} rulings` : ""));
    box.appendChild(title);
    if (!rows.length) { box.appendChild(el("div", "dim", "No slap decisions in this game.")); return; }
    const table = el("table");
    const head = el("tr");
    for (const h of ["#", "time", "ruling", "who", "margin", "said", "evidence"]) head.appendChild(el("th", null, h));
    table.appendChild(head);
    for (const r of rows) {
      const tr = el("tr", r.slap_decision ? "slap" : "");
      tr.dataset.ruling = r.id;
      tr.appendChild(el("td", "num", String(r.id)));
      tr.appendChild(el("td", "num", `${r.t_s.toFixed(3)} s`));
      const kind = el("td", null, r.kind.replace(/_/g, " "));
      if (r.amended) {           // a first slap is ruled at once; its margin is added when the runner-up's slap arrives
        const note = el("small", "amended", " (margin added later)");
        note.title = "Ruled as soon as the first slap was certain; the margin to the runner-up was added when it arrived";
        kind.appendChild(note);
      }
      tr.appendChild(kind);
      tr.appendChild(el("td", null, r.who));
      tr.appendChild(el("td", "num", fmtUs(r.margin_us)));
      tr.appendChild(el("td", null, r.say));
      const td = el("td");
      const a = el("a", "sheetlink", "sheet");
      a.href = `/api/review/sheet/${n}/${r.id}.png`;
      a.addEventListener("click", (e) => { e.preventDefault(); openSheet(n, r); });
      td.appendChild(a);
      tr.appendChild(td);
      table.appendChild(tr);
    }
    box.appendChild(table);
  }
  function openSheet(n, r) {
    const url = `/api/review/sheet/${n}/${r.id}.png`;
    $("sheettitle").textContent = `Game ${n}, ruling #${r.id}: ${r.kind.replace(/_/g, " ")} ${r.who}`;
    $("sheetopen").href = url;
    $("sheetbox").hidden = false;
    authFetch(url).then((res) => res.ok ? res.blob() : Promise.reject(new Error(`HTTP ${res.status}`)))
      .then((blob) => { $("sheet").src = URL.createObjectURL(blob); })
      .catch((e) => { $("sheettitle").textContent += ` (${e.message})`; });
  }
  $("sheetclose").addEventListener("click", () => { $("sheetbox").hidden = true; $("sheet").removeAttribute("src"); });
  $("all").addEventListener("change", () => { if (current !== null) loadGame(current); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") $("sheetclose").click(); });
  loadGames();
})();
