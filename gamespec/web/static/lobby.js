// The lobby: pick a spec, players, options, seed and who sits where; POST /api/tables.
"use strict";
let specs = [], kinds = [];
const $ = (id) => document.getElementById(id);
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function current() { return specs.find((s) => s.id === $("spec").value); }
function drawSeats() {
  const n = Number($("players").value), box = $("seats"), old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.textContent = "";
  for (let p = 0; p < n; p++) {
    const lab = el("label", {}, `Seat ${p} `), sel = el("select", {id: `seat-${p}`, "data-seat": p});
    for (const k of kinds) sel.append(el("option", {value: k}, k === "person" ? "a person" : `bot: ${k}`));
    sel.value = old[p] || (p === 0 ? "person" : "random");
    lab.append(sel); box.append(lab);
  }
}
function drawSpec() {
  const s = current(), errs = $("spec-errors"), pl = $("players"), opts = $("options");
  pl.textContent = ""; opts.textContent = "";
  errs.hidden = !s.errors.length; errs.textContent = s.errors.join("\n");
  $("create").disabled = !!s.errors.length;
  $("undo").checked = !!s.undo;
  if (s.errors.length) { $("seats").textContent = ""; return; }
  for (let n = s.min_players; n <= s.max_players; n++) pl.append(el("option", {value: n}, String(n)));
  for (const [name, o] of Object.entries(s.options)) {
    const lab = el("label", {}, `${name} `);
    let input;
    if (typeof o.default === "boolean") {
      input = el("input", {type: "checkbox", id: `opt-${name}`, "data-option": name});
      input.checked = o.default;
    } else if (!o.values.length && o.range) {       // a whole number from lo to hi (the spec's range)
      input = el("input", {type: "number", id: `opt-${name}`, "data-option": name, min: o.range[0], max: o.range[1],
                           step: 1, value: o.default, required: ""});
    } else {
      input = el("select", {id: `opt-${name}`, "data-option": name});
      for (const v of (o.values.length ? o.values : [o.default])) input.append(el("option", {value: JSON.stringify(v)}, String(v)));
      input.value = JSON.stringify(o.default);
    }
    lab.append(input);
    if (o.doc) lab.append(el("span", {class: "option-doc muted"}, ` — ${o.doc}`));   // what it does, in the spec's words
    opts.append(lab);
  }
  drawSeats();
}
async function create(ev) {
  ev.preventDefault();
  const s = current(), options = {};
  for (const i of $("options").querySelectorAll("[data-option]"))
    options[i.dataset.option] = i.type === "checkbox" ? i.checked : JSON.parse(i.value);
  const seed = $("seed").value.trim();
  const body = {spec: s.id, players: Number($("players").value), options,
                seed: seed === "" ? null : (/^\d+$/.test(seed) ? Number(seed) : seed),
                seats: [...$("seats").querySelectorAll("select")].map((x) => x.value), undo: $("undo").checked};
  const r = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const d = await r.json();
  if (!r.ok) { $("error").hidden = false; $("error").textContent = d.message; return; }
  $("error").hidden = true;
  const ul = $("links"); ul.textContent = "";
  ul.append(el("li", {class: "muted"}, d.seed === null ? `${d.game}, a random seed (kept secret)` : `${d.game}, seed ${d.seed}`));
  for (const seat of d.seats) {
    const li = el("li");
    if (seat.link) {
      const a = el("a", {href: seat.link, target: "_blank", class: "seat-link", "data-seat": seat.seat}, `Seat ${seat.seat}: ${location.origin}${seat.link}`);
      li.append(a);
    } else li.textContent = `Seat ${seat.seat}: bot (${seat.kind})`;
    ul.append(li);
  }
  const w = el("li", {class: "muted"}, "Spectators (the public view, no seat): ");
  w.append(el("a", {href: d.watch, target: "_blank", class: "watch-link"}, `${location.origin}${d.watch}`));
  ul.append(w);
  $("made").hidden = false;
}
async function start() {
  const d = await (await fetch("/api/specs")).json();
  specs = d.specs; kinds = d.bots;
  for (const s of specs) $("spec").append(el("option", {value: s.id}, s.name ? `${s.name} (${s.file})` : `${s.file} (has errors)`));
  $("spec").addEventListener("change", drawSpec);
  $("players").addEventListener("change", drawSeats);
  $("new-table").addEventListener("submit", create);
  drawSpec();
}
start();
