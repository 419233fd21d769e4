// Cards as SVG, from a face's attributes and the spec's presentation hints: the colour attribute
// colours the card, the value attribute is its corner number, the label its middle; a back for a
// card the seat cannot see; a pile as a stack with its count. No data but what the message holds.
"use strict";
const SVGNS = "http://www.w3.org/2000/svg";
const CARD_W = 64, CARD_H = 90;

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function luminance(hex) {
  const n = parseInt(hex.slice(1), 16), r = (n >> 16) & 255, g = (n >> 8) & 255, b = n & 255;
  return (0.299 * r + 0.587 * g + 0.114 * b) / 255;
}

function wrapLabel(text, max) {      // a label on at most 4 short lines
  const words = String(text).split(/\s+/).filter(Boolean), lines = [];
  let cur = "";
  for (const w of words) {
    if (cur && (cur + " " + w).length > max) { lines.push(cur); cur = w; } else cur = cur ? cur + " " + w : w;
  }
  if (cur) lines.push(cur);
  if (lines.length > 4) { lines.length = 4; lines[3] = lines[3].slice(0, max - 1) + "…"; }
  return lines.map((l) => (l.length > max + 2 ? l.slice(0, max + 1) + "…" : l));
}

// The key a value's word is found by in a hint's "words": a text as it is, any other value as JSON
// (gamespec/spec/presentation.py word_key: -1 -> "-1", true -> "true")
function wordKey(v) { return typeof v === "string" ? v : JSON.stringify(v); }

// One card: face (a dict) or null (its back). opts: {label, count, marks}
function cardSVG(face, hints, opts) {
  opts = opts || {};
  const svg = svgEl("svg", {viewBox: `0 0 ${CARD_W} ${CARD_H}`, class: "card-svg", role: "img"});
  const title = svgEl("title", {}, face === null ? "a card you cannot see" : opts.label);
  svg.append(title);
  if (face === null) {
    svg.classList.add("back");
    svg.append(svgEl("rect", {x: 1, y: 1, width: CARD_W - 2, height: CARD_H - 2, rx: 6, class: "back-body"}));
    svg.append(svgEl("rect", {x: 6, y: 6, width: CARD_W - 12, height: CARD_H - 12, rx: 4, class: "back-inner"}));
    svg.append(svgEl("path", {d: `M${CARD_W / 2} 16 L${CARD_W - 14} ${CARD_H / 2} L${CARD_W / 2} ${CARD_H - 16} L14 ${CARD_H / 2} Z`, class: "back-diamond"}));
  } else {
    const cattr = hints.colour, vattr = hints.value;
    const colour = cattr && face[cattr] !== undefined ? (hints.colours || {})[String(face[cattr])] : null;
    const fill = colour || "#fbfaf5";
    const ink = luminance(fill) < 0.5 ? "#ffffff" : "#1d1d1d";
    svg.append(svgEl("rect", {x: 1, y: 1, width: CARD_W - 2, height: CARD_H - 2, rx: 6, fill: "#fbfaf5", class: "face-body"}));
    if (colour) svg.append(svgEl("rect", {x: 4, y: 4, width: CARD_W - 8, height: CARD_H - 8, rx: 4, fill}));
    const value = vattr && typeof face[vattr] === "number" ? String(face[vattr]) : null;
    let label = opts.label || "";
    if (value !== null) {
      svg.append(svgEl("text", {x: 7, y: 17, class: "corner", fill: ink}, value));
      svg.append(svgEl("text", {x: CARD_W - 7, y: CARD_H - 8, class: "corner end", fill: ink}, value));
      if (label === value) label = "";
    }
    if (value !== null && !label) {
      svg.append(svgEl("text", {x: CARD_W / 2, y: CARD_H / 2 + 9, class: "big", fill: ink}, value));
    }
    const lines = wrapLabel(label, 10);
    const y0 = CARD_H / 2 - (lines.length - 1) * 6 + 3;
    lines.forEach((l, i) => {        // a long word is squeezed to the card's width, never cut by its edge
      const attrs = {x: CARD_W / 2, y: y0 + i * 12, class: "label", fill: ink};
      if (l.length > 9) Object.assign(attrs, {textLength: CARD_W - 10, lengthAdjust: "spacingAndGlyphs"});
      svg.append(svgEl("text", attrs, l));
    });
  }
  if (opts.marks) {
    const mh = hints.marks || {};      // the spec's word for a mark's value, else its name (and value)
    const tag = (k, v) => {
      const h = mh[k] || {};
      const w = (h.words || {})[wordKey(v)];
      if (w && Object.hasOwn(h.words, wordKey(v))) return w;
      return v === true ? (h.name || k) : `${h.name || k} ${v}`;
    };
    const shown = Object.entries(opts.marks).filter(([, v]) => v).map(([k, v]) => tag(k, v));
    if (shown.length) {
      svg.append(svgEl("rect", {x: 3, y: CARD_H - 22, width: CARD_W - 6, height: 14, rx: 3, class: "mark-band"}));
      svg.append(svgEl("text", {x: CARD_W / 2, y: CARD_H - 12, class: "mark"}, shown.join(", ").slice(0, 14)));
    }
  }
  return svg;
}

// A card in its slot: the SVG, a count badge for a stack of several, the data the animations use.
function cardBox(face, hints, opts) {
  opts = opts || {};
  const box = document.createElement("div");
  box.className = "card" + (face === null ? " back" : "") + (opts.count > 1 ? " stack" : "");
  box.dataset.key = opts.key;
  box.append(cardSVG(face, hints, opts));
  if (opts.count > 1) {
    const b = document.createElement("span");
    b.className = "count";
    b.textContent = `×${opts.count}`;
    box.append(b);
  }
  if (opts.label) box.title = opts.count > 1 ? `${opts.count} × ${opts.label}` : opts.label;
  return box;
}
