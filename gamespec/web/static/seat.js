// A seat's page: draws the messages of /ws/TOKEN (this seat's view only) and sends its moves.
"use strict";
const token = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
let ws = null, last = null, retries = 0;
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function faceKey(f) { return JSON.stringify(f, Object.keys(f).sort()); }
function owner(label) { const m = /\[(\d+)\]$/.exec(label); return m ? Number(m[1]) : null; }
function seatName(p, me) { return p === me ? "you" : `seat ${p}`; }
function cardsOf(msg) {
  const names = new Map();
  for (const c of msg.cards) names.set(faceKey(c.face), c.label);
  return (f) => f === null ? null : (names.get(faceKey(f)) || Object.values(f).join(" "));
}
function drawZone(label, z, name) {
  const box = el("div", {class: "zone", "data-zone": label});
  const hidden = z.hidden !== undefined ? z.hidden : z.cards.filter((c) => c === null).length;
  box.append(el("div", {class: "name"}, `${label}: ${z.size} card${z.size === 1 ? "" : "s"}` + (hidden ? `, ${hidden} face down` : "")));
  const row = el("div", {class: "cards"});
  if (!z.size) row.append(el("span", {class: "card empty"}, "empty"));
  if (z.marks) {      // per-card marks: each card on its own, with the marks this seat sees
    const tag = (m) => { const s = Object.entries(m).filter(([, v]) => v).map(([k, v]) => v === true ? k : `${k}=${v}`); return s.length ? ` [${s.join(", ")}]` : ""; };
    z.cards.forEach((c, i) => row.append(el("span", {class: c === null ? "card back" : "card"}, (c === null ? "?" : name(c)) + tag(z.marks[i]))));
    (z.hidden_marks || []).forEach((m) => row.append(el("span", {class: "card back"}, "?" + tag(m))));
    box.append(row);
    return box;
  }
  for (let i = 0; i < z.cards.length;) {       // a run of face-down cards is one back with its count
    let j = i;
    while (j < z.cards.length && z.cards[j] === null) j++;
    if (j - i > 3) { row.append(el("span", {class: "card back", title: "cards you cannot see"}, `×${j - i}`)); i = j; continue; }
    if (j > i) { for (; i < j; i++) row.append(el("span", {class: "card back", title: "a card you cannot see"}, "?")); continue; }
    const label = name(z.cards[i]);               // and so is a run of the same face
    let k = i;
    while (k < z.cards.length && z.cards[k] !== null && name(z.cards[k]) === label) k++;
    if (k - i > 3) { row.append(el("span", {class: "card", title: `${k - i} cards`}, `${label} ×${k - i}`)); i = k; continue; }
    row.append(el("span", {class: "card"}, label)); i++;
  }
  if (z.hidden) row.append(el("span", {class: "card back", title: "cards you cannot see"}, `×${z.hidden}`));
  box.append(row);
  return box;
}
function value(v, name) {
  if (v === null) return "?";
  if (typeof v === "object" && !Array.isArray(v)) return name(v);
  if (Array.isArray(v)) return "[" + v.map((x) => value(x, name)).join(", ") + "]";
  return String(v);
}
function draw(msg) {
  last = msg;
  const me = msg.seat, name = cardsOf(msg);
  document.title = `${msg.game}: seat ${me}`;
  $("title").textContent = `${msg.game} — you are seat ${me} of ${msg.players}`;
  $("phase").textContent = msg.phase ? `phase: ${msg.phase}` : "";
  $("status").textContent = msg.terminal ? "game over" : msg.to_move === me ? "your move" :
    msg.to_move === null || msg.to_move === undefined ? "…" : `seat ${msg.to_move} (${msg.seats[msg.to_move]}) to move`;
  $("errors").hidden = !msg.errors.length;
  $("errors").textContent = msg.errors.length ? "The spec has errors; the game goes on under the old rules:\n" + msg.errors.join("\n") : "";
  $("notice").hidden = true;
  const acts = $("actions"); acts.textContent = "";
  $("act").hidden = !msg.actions.length;
  msg.actions.forEach((a, i) => {
    const b = el("button", {type: "button", class: "action", "data-index": i}, a.label);
    b.addEventListener("click", () => play(i));
    acts.append(b);
  });
  const mine = $("mine"), table = $("table"); mine.textContent = ""; table.textContent = "";
  for (const [label, z] of Object.entries(msg.zones)) (owner(label) === me ? mine : table).append(drawZone(label, z, name));
  const vars = $("vars"); vars.textContent = "";
  const t = el("table", {class: "vars"}), head = el("tr");
  head.append(el("th", {}, ""));
  const per = Object.entries(msg.variables).filter(([, v]) => Array.isArray(v) && v.length === msg.players);
  const glob = Object.entries(msg.variables).filter(([, v]) => !(Array.isArray(v) && v.length === msg.players));
  for (const [n] of per) head.append(el("th", {}, n));
  if (msg.scores) head.append(el("th", {}, "score"));
  t.append(head);
  for (let p = 0; p < msg.players; p++) {
    const tr = el("tr", p === me ? {class: "me"} : {});
    tr.append(el("td", {}, `${seatName(p, me)} (${msg.seats[p]})`));
    for (const [, v] of per) tr.append(el("td", {}, value(v[p], name)));
    if (msg.scores) tr.append(el("td", {}, String(msg.scores[p])));
    t.append(tr);
  }
  vars.append(t);
  if (glob.length) {
    const g = el("table", {class: "vars"});
    for (const [n, v] of glob) { const tr = el("tr"); tr.append(el("th", {}, n), el("td", {}, value(v, name))); g.append(tr); }
    vars.append(g);
  }
  const tr = $("transcript"); tr.textContent = "";
  for (const line of msg.transcript) tr.append(el("li", {}, line));
  tr.scrollTop = tr.scrollHeight;
  $("end").hidden = !msg.terminal;
  if (msg.terminal) {
    const ol = $("scores"); ol.textContent = "";
    const order = msg.scores.map((s, p) => p).sort((a, b) => msg.winners.includes(b) - msg.winners.includes(a));
    for (const p of order) ol.append(el("li", msg.winners.includes(p) ? {class: "winner"} : {},
      `${seatName(p, me)}: ${msg.scores[p]}${msg.winners.includes(p) ? " (winner)" : ""}`));
  }
}
function play(i) {
  if (!ws || ws.readyState !== WebSocket.OPEN || !last) return;
  for (const b of document.querySelectorAll("button.action")) b.disabled = true;
  ws.send(JSON.stringify({type: "act", at: last.at, index: i}));
}
function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/ws/${token}`);
  ws.onopen = () => { retries = 0; };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "view") draw(msg);
    else if (msg.type === "error") {
      $("notice").hidden = false; $("notice").textContent = msg.message;
      for (const b of document.querySelectorAll("button.action")) b.disabled = false;
    }
  };
  ws.onclose = (ev) => {
    if (ev.code === 4404) { $("status").textContent = "no such seat"; return; }
    $("status").textContent = "disconnected: reconnecting…";
    if (retries++ < 20) setTimeout(connect, Math.min(5000, 300 * retries));
  };
}
connect();
