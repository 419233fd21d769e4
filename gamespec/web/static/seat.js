// A seat's page (or a spectator's): draws the messages of /ws/TOKEN as a card table (my area at the
// bottom, the others' around, the shared zones in the middle), shows each move, sends the seat's moves.
"use strict";
const token = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
let ws = null, last = null, retries = 0;
let stagePath = [], stageAt = null;        // the stages chosen so far in this decision (msg.stages)
let roundSeen = null;                       // the round end the person closed (its "at")

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function faceKey(f) { return f === null ? "back" : JSON.stringify(f, Object.keys(f).sort()); }
function parseLabel(label) {       // "hand[1]" -> {name: "hand", key: "1"}; "deck" -> {name: "deck", key: null}
  const m = /^([^[]+)\[(.*)\]$/.exec(label);
  return m ? {name: m[1], key: m[2]} : {name: label, key: null};
}
// During play another person is "player N", oneself "you" (docs/play.md); "seat" is for the lobby.
function seatName(p, me) { return p === me ? "You" : `Player ${p}`; }
function who(p, me) { return p === me ? "you" : `player ${p}`; }
function namer(msg) {
  const names = new Map();
  for (const c of msg.cards) names.set(faceKey(c.face), c.label);
  return (f) => (f === null ? "a hidden card" : names.get(faceKey(f)) || Object.values(f).join(" "));
}
function zoneHint(msg, name) {
  return (msg.presentation.zones || {})[name] || {name: name.replace(/_/g, " "), show: true, area: "shared",
    group: null, per_player: false, family: false};
}
function varHint(msg, name) {
  return (msg.presentation.variables || {})[name] || {name: name.replace(/_/g, " "), show: true};
}

// -- one zone: its cards as SVG, grouped so that a large zone stays small ------------------------
function zoneSlots(z, name) {
  // [{face, count, marks, label}] in the order they are drawn
  const slots = [];
  // card by card where a card carries a set mark (marks tell cards apart); else as any other zone
  const marked = (m) => Object.values(m || {}).some((v) => v);
  if (z.marks && (z.marks.some(marked) || (z.hidden_marks || []).some(marked))) {
    z.cards.forEach((c, i) => slots.push({face: c, count: 1, marks: z.marks[i], label: c === null ? null : name(c)}));
    (z.hidden_marks || []).forEach((m) => slots.push({face: null, count: 1, marks: m}));
    return slots;
  }
  const pile = z.hidden === undefined;
  if (pile) {
    if (z.cards.length <= 6) { z.cards.forEach((c) => slots.push({face: c, count: 1, label: c === null ? null : name(c)})); return slots; }
    const top = z.cards[z.cards.length - 1];      // a tall pile: its top card on a stack, with the count
    slots.push({face: top, count: z.cards.length, label: top === null ? null : name(top), pile: true});
    return slots;
  }
  const groups = new Map();                         // a set: one card per face, with its count
  for (const c of z.cards) {
    const k = faceKey(c);
    if (!groups.has(k)) groups.set(k, {face: c, count: 0, label: name(c)});
    groups.get(k).count++;
  }
  slots.push(...groups.values());
  if (z.hidden) slots.push({face: null, count: z.hidden});
  return slots;
}

function drawZone(msg, label, z, name, title) {
  const box = el("div", {class: "zone", "data-zone": label});
  const head = el("div", {class: "zone-name"}, title);
  head.append(el("span", {class: "zone-size"}, ` ${z.size}`));
  box.append(head);
  const row = el("div", {class: "cards"});
  if (!z.size) row.append(el("div", {class: "card empty"}));
  for (const s of zoneSlots(z, name)) {
    const k = faceKey(s.face);
    row.append(cardBox(s.face, msg.presentation, {label: s.label, count: s.count, marks: s.marks, key: k}));
  }
  if (z.size > 6 && z.hidden === undefined) box.classList.add("tall");
  box.append(row);
  return box;
}

function displayValue(v, name, player, me, words, pub) {
  // the spec's word for the value (its hint's "words", keyed as wordKey keys them); a player-typed
  // variable (its hint's "player") names a person: "You", "Player N"
  if (words && !Array.isArray(v) && (v === null || typeof v !== "object") && Object.hasOwn(words, wordKey(v))) return words[wordKey(v)];
  if (player && Number.isInteger(v) && v >= 0) return seatName(v, me);
  if (player && Array.isArray(v)) return v.length ? v.map((x) => displayValue(x, name, player, me, words)).join(", ") : "none";
  if (v === null || v === undefined) return pub ? "–" : "?";     // every seat sees it: no value, not hidden
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (Array.isArray(v)) return v.length ? v.map((x) => displayValue(x, name, false, me, words)).join(", ") : "none";
  if (typeof v === "object") return name(v);
  return String(v);
}

function chip(label, value) {
  const c = el("span", {class: "chip"});
  c.append(el("span", {class: "chip-name"}, label + " "), el("b", {}, value));
  return c;
}

// -- the whole table ------------------------------------------------------------------------------
function layout(msg, name) {
  const me = msg.seat, P = msg.players;
  const seats = Array.from({length: P}, () => ({zones: [], vars: []}));
  const groups = new Map(), order = [];
  for (const [label, z] of Object.entries(msg.zones)) {
    const {name: zn, key} = parseLabel(label);
    const h = zoneHint(msg, zn);
    if (h.show === false) continue;
    const perPlayer = h.per_player && key !== null && /^\d+$/.test(key) && Number(key) < P;
    if (perPlayer && h.area !== "shared") { seats[Number(key)].zones.push([label, z, h.name]); continue; }
    const title = key === null ? h.name : perPlayer ? `${h.name}: ${seatName(Number(key), me)}` : `${h.name} ${key}`;
    const g = h.group || (h.family ? h.name : label);
    if (!groups.has(g)) { groups.set(g, {title: h.group || (h.family ? h.name : null), zones: []}); order.push(g); }
    groups.get(g).zones.push([label, z, title]);
  }
  const globals = [];
  for (const [vn, v] of Object.entries(msg.variables)) {
    const h = varHint(msg, vn);
    if (h.show === false) continue;
    if (h.per_player && Array.isArray(v) && v.length === P) v.forEach((x, p) => seats[p].vars.push([h.name, displayValue(x, name, h.player, me, h.words, h.public)]));
    else globals.push([h.name, displayValue(v, name, h.player, me, h.words, h.public)]);
  }
  return {seats, groups: order.map((g) => groups.get(g)), globals};
}

function seatArea(msg, p, s, name, mine) {
  const me = msg.seat;
  const area = el("section", {class: "seat" + (mine ? " mine" : "") + (msg.to_move === p && !msg.terminal ? " to-move" : ""), "data-seat": p});
  const head = el("div", {class: "seat-head"});
  head.append(el("span", {class: "seat-name"}, mine ? "You" : `${seatName(p, me)}`));
  head.append(el("span", {class: "seat-kind muted"}, msg.seats[p] === "person" ? "" : ` ${msg.seats[p]}`));
  if (msg.to_move === p && !msg.terminal) head.append(el("span", {class: "turn-dot", title: "to move"}, " ● to move"));
  const chips = el("span", {class: "chips"});
  for (const [n, v] of s.vars) chips.append(chip(n, v));
  if (msg.scores) chips.append(chip("score", String(msg.scores[p])));
  if (msg.winners && msg.winners.includes(p)) chips.append(el("span", {class: "chip winner"}, "winner"));
  head.append(chips);
  area.append(head);
  const zones = el("div", {class: "seat-zones"});
  for (const [label, z, title] of s.zones) zones.append(drawZone(msg, label, z, name, title));
  area.append(zones);
  return area;
}

// -- showing a move: the cards that arrived glow, and fly in from where they were ---------------
function snapshot() {
  const out = new Map();
  for (const z of document.querySelectorAll(".zone")) {
    const m = new Map();
    for (const c of z.querySelectorAll(".card[data-key]")) {
      const n = c.classList.contains("stack") ? Number((c.querySelector(".count") || {}).textContent?.slice(1) || 1) : 1;
      const prev = m.get(c.dataset.key);
      m.set(c.dataset.key, {n: (prev ? prev.n : 0) + n, rect: c.getBoundingClientRect()});
    }
    out.set(z.dataset.zone, {cards: m, rect: z.getBoundingClientRect()});
  }
  return out;
}

function showMoves(before) {
  if (!before) return;
  const after = snapshot(), sources = [];
  for (const [zone, b] of before) {
    const a = after.get(zone);
    for (const [k, v] of b.cards) {
      const now = a && a.cards.get(k) ? a.cards.get(k).n : 0;
      if (now < v.n) sources.push({zone, key: k, rect: v.rect});
    }
  }
  for (const zel of document.querySelectorAll(".zone")) {
    const b = before.get(zel.dataset.zone);
    for (const c of zel.querySelectorAll(".card[data-key]")) {
      const k = c.dataset.key, a = after.get(zel.dataset.zone).cards.get(k);
      const was = b && b.cards.get(k) ? b.cards.get(k).n : 0;
      if (a.n <= was) continue;
      c.classList.add("moved");
      let i = sources.findIndex((s) => s.key === k && s.zone !== zel.dataset.zone);
      if (i < 0) i = sources.findIndex((s) => (s.key === "back" || k === "back") && s.zone !== zel.dataset.zone);
      if (i < 0 || !c.animate) continue;
      const from = sources.splice(i, 1)[0].rect, to = c.getBoundingClientRect();
      c.animate([{transform: `translate(${from.left - to.left}px, ${from.top - to.top}px)`}, {transform: "none"}],
        {duration: 450, easing: "ease-out"});
    }
  }
}

// -- drawing a message --------------------------------------------------------------------------
function draw(msg) {
  const before = last && last.at !== msg.at ? snapshot() : null;
  last = msg;
  const me = msg.seat, name = namer(msg), watching = me === null;
  document.title = watching ? `${msg.game}: watching` : `${msg.game}: player ${me}`;
  $("title").textContent = watching ? `${msg.game} — watching (the public view)` : `${msg.game} — you are player ${me} of ${msg.players}`;
  $("phase").textContent = msg.phase ? `phase: ${msg.phase.replace(/_/g, " ")}` : "";
  $("status").textContent = msg.terminal ? "game over" : msg.to_move === me ? "your move" :
    msg.to_move === null || msg.to_move === undefined ? "…" :
    (msg.thinks || [])[msg.to_move] ? `player ${msg.to_move} is thinking…` : `player ${msg.to_move} (${msg.seats[msg.to_move]}) to move`;
  $("errors").hidden = !msg.errors.length;
  $("errors").textContent = msg.errors.length ? "The spec has errors; the game goes on under the old rules:\n" + msg.errors.join("\n") : "";
  $("notice").hidden = true;
  const L = layout(msg, name);
  const others = $("others"); others.textContent = "";
  for (let k = 1; k <= msg.players; k++) {      // the others in playing order after me
    const p = watching ? k - 1 : (me + k) % msg.players;
    if (p === me) continue;
    others.append(seatArea(msg, p, L.seats[p], name, false));
  }
  const middle = $("middle"); middle.textContent = "";
  if (L.globals.length) {
    const g = el("div", {class: "chips globals"});
    for (const [n, v] of L.globals) g.append(chip(n, v));
    middle.append(g);
  }
  const frames = el("div", {class: "frames"});
  for (const g of L.groups) {
    const f = el("div", {class: "frame"});
    if (g.title) f.append(el("div", {class: "frame-title"}, g.title));
    const row = el("div", {class: "frame-zones"});
    for (const [label, z, title] of g.zones) row.append(drawZone(msg, label, z, name, g.title && title.startsWith(g.title) ? title.slice(g.title.length).trim() || title : title));
    f.append(row); frames.append(f);
  }
  middle.append(frames);
  const mine = $("me"); mine.textContent = "";
  if (!watching) mine.append(seatArea(msg, me, L.seats[me], name, true));
  if (msg.at !== stageAt) { stagePath = []; stageAt = msg.at; }
  $("act").hidden = !msg.actions.length && !msg.can_undo;
  $("act-title").textContent = msg.actions.length ? "Your move" : "Waiting for the others";
  drawActions(msg);
  drawRoundEnd(msg);
  $("undo").hidden = !msg.can_undo;
  $("undo").disabled = false;
  const tr = $("transcript"); tr.textContent = "";
  for (const line of msg.transcript) tr.append(el("li", line.startsWith("   ") ? {class: "sub"} : {}, line.trim()));
  tr.scrollTop = tr.scrollHeight;
  const decided = msg.transcript.filter((l) => /^\d+\. /.test(l));
  $("last").textContent = decided.length ? "Last move — " + decided[decided.length - 1].replace(/^\d+\. /, "") : "";
  const wasOver = !$("end").hidden;
  $("end").hidden = !msg.terminal;
  if (msg.terminal) {
    drawRanking(msg, me);
    const w = msg.winners.map((p) => who(p, me));
    $("end-title").textContent = !w.length ? "Game over: no winner" : msg.winners.includes(me) ? "Game over: you win!" :
      `Game over: ${w.join(" and ")} win${w.length === 1 && w[0] !== "you" ? "s" : ""}`;
    // the end is the first thing one sees (on a phone the page may be scrolled down to the actions)
    if (!wasOver) { window.scrollTo(0, 0); $("end").scrollIntoView({block: "start"}); }
  }
  showMoves(before);
}
// The final ranking in the spec's order (the server's `ranking`: winners first, then by score as the
// spec's scoring says), ties marked, and the tie-break used when it chose among tied seats.
function drawRanking(msg, me) {
  const name = (p) => who(p, me);
  const ol = $("scores"); ol.textContent = "";
  const rows = msg.ranking || msg.scores.map((s, p) => ({place: p + 1, seat: p, score: s, winner: msg.winners.includes(p), tied: false}));
  for (const r of rows) {
    ol.append(el("li", Object.assign({value: r.place, "data-seat": r.seat}, r.winner ? {class: "winner"} : {}),
      `${name(r.seat)}: ${r.score}${r.winner ? " (winner)" : ""}${r.tied ? " (tied)" : ""}`));
  }
  const tb = msg.tie_break;
  let how = msg.rule ? `Ranked as the rules score: ${msg.rule}.` : "";
  if (tb) {
    how += ` ${tb.among.map(name).join(", ")} tied on the best score; ` + (tb.rule.length
      ? `the tie-break (${tb.rule.join("; then ")}) chose ${tb.chosen.map(name).join(" and ")}.`
      : `the rules chose ${tb.chosen.map(name).join(" and ")}.`);
  }
  $("end-rule").textContent = how;
}
// The decision's buttons: every option, or, when there are many (msg.stages: the server's
// gamespec/table/stages.py), one stage at a time: its values with how many options each leads to,
// a back button; a value that is one option plays it.
function stageNode(msg) {
  let node = msg.stages;
  for (const k of stagePath) {
    const c = node && node.choices[k];
    if (!c || !c.next) { stagePath = []; return msg.stages; }
    node = c.next;
  }
  return node;
}
function choose(msg, k) {
  const c = stageNode(msg).choices[k];
  if (c.option !== undefined) { play(c.option); return; }
  stagePath.push(k);
  drawActions(msg);
}
function drawActions(msg) {
  const acts = $("actions"); acts.textContent = "";
  for (const c of document.querySelectorAll(".card.pickable")) {       // the old picks go
    const fresh = c.cloneNode(true);
    fresh.classList.remove("pickable");
    for (const a of ["role", "tabindex", "aria-label", "title"]) fresh.removeAttribute(a);
    c.replaceWith(fresh);
  }
  const where = $("stage");
  if (!msg.stages || !msg.actions.length) {
    where.hidden = true;
    msg.actions.forEach((a, i) => {
      const b = el("button", {type: "button", class: "action option", "data-index": i}, a.label);
      b.addEventListener("click", () => play(i));
      acts.append(b);
    });
    pickableCards(msg);
    return;
  }
  const node = stageNode(msg);
  where.hidden = false;
  where.textContent = "";
  const trail = node.path.length ? node.path.join(" · ") + " — " : `${msg.actions.length} options, in stages: `;
  where.append(el("span", {class: "stage-path"}, trail), el("b", {}, `choose ${node.title}`));
  node.choices.forEach((c, k) => {
    const leaf = c.option !== undefined;
    const b = el("button", Object.assign({type: "button", class: "action " + (leaf ? "option" : "stage"), "data-choice": k},
      leaf ? {"data-index": c.option, title: c.full} : {}), c.label);
    if (!leaf) { b.append(el("span", {class: "stage-count"}, ` ${c.count}`)); b.title = `${c.count} options`; }
    b.addEventListener("click", () => choose(msg, k));
    acts.append(b);
  });
  if (stagePath.length) {
    const back = el("button", {type: "button", class: "secondary stage-back"}, "← back");
    back.addEventListener("click", () => { stagePath.pop(); drawActions(msg); });
    acts.append(back);
  }
  // a card on the table picks the value of a card stage
  const by = new Map();
  node.choices.forEach((c, k) => { if (c.face) { const f = faceKey(c.face); by.set(f, by.has(f) ? -1 : k); } });
  markPickable(by, (k) => node.choices[k].full || node.choices[k].label, (k) => choose(msg, k));
}
// The last round end this seat saw (msg.round_end: gamespec/table/round_end.py, the terminal's
// block): a panel until the person closes it or decides again.
function drawRoundEnd(msg) {
  const r = msg.round_end, box = $("round-end");
  if (!r || r.at === roundSeen || msg.terminal && r.at < msg.at) { box.hidden = true; return; }
  box.hidden = false;
  const lines = $("round-lines"); lines.textContent = "";
  for (const x of r.lines) {
    if (x.kind === "title") {
      const t = x.text.replace(/^─+ | ─+$/g, "");
      $("round-title").textContent = t.charAt(0).toUpperCase() + t.slice(1);
      continue;
    }
    lines.append(el("div", {class: "round-" + x.kind}, x.text.replace(/^ {2}/, "")));
  }
  $("round-close").onclick = () => { roundSeen = r.at; box.hidden = true; };
}
// A decision that is "pick a card": each card face offered by exactly one action (of one card
// parameter) can be clicked on the table to play that action; the buttons stay.
function pickableCards(msg) {
  const by = new Map();
  msg.actions.forEach((a, i) => {
    const cards = Object.entries(a.action).filter(([k, v]) => k !== "action" && v && typeof v === "object" && !Array.isArray(v));
    const others = Object.keys(a.action).filter((k) => k !== "action").length;
    if (cards.length !== 1 || others !== 1) return;
    const k = faceKey(cards[0][1]);
    by.set(k, by.has(k) ? -1 : i);
  });
  markPickable(by, (i) => msg.actions[i].label, play);
}
function markPickable(by, label, pick) {
  for (const c of document.querySelectorAll(".card[data-key]")) {
    const i = by.get(c.dataset.key);
    if (i === undefined || i < 0) continue;
    c.classList.add("pickable");
    c.setAttribute("role", "button");
    c.setAttribute("tabindex", "0");
    c.setAttribute("aria-label", label(i));
    c.title = label(i);
    c.addEventListener("click", () => pick(i));
    c.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); pick(i); } });
  }
}
function busy() { for (const b of document.querySelectorAll("#act button")) b.disabled = true; }
function play(i) {
  if (!ws || ws.readyState !== WebSocket.OPEN || !last) return;
  if (last.round_end) { roundSeen = last.round_end.at; $("round-end").hidden = true; }   // decided: seen
  busy();
  ws.send(JSON.stringify({type: "act", at: last.at, index: i}));
}
$("undo").addEventListener("click", () => {
  if (!ws || ws.readyState !== WebSocket.OPEN || !last) return;
  busy();
  ws.send(JSON.stringify({type: "undo", at: last.at}));
});
function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/ws/${token}`);
  ws.onopen = () => { retries = 0; };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "view") draw(msg);
    else if (msg.type === "error") {
      $("notice").hidden = false; $("notice").textContent = msg.message;
      for (const b of document.querySelectorAll("#act button")) b.disabled = false;
    }
  };
  ws.onclose = (ev) => {
    if (ev.code === 4404) { $("status").textContent = "no such seat"; return; }
    if (ev.code === 4410) { $("status").textContent = "this table was closed"; return; }
    $("status").textContent = "disconnected: reconnecting…";
    if (retries++ < 20) setTimeout(connect, Math.min(5000, 300 * retries));
  };
}
if (window.matchMedia && window.matchMedia("(max-width: 600px)").matches) $("history-box").open = false;
connect();
