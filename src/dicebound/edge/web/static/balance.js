// The Balance tab: a character's exact odds of every band at every ladder step, one
// SVG chart per check, and what if the tag carried other attributes (before and after,
// side by side). A chart is drawn at the width it is shown at, so its text stays 12 px
// on a phone: there a step's label stands above its bar instead of beside it. A tap
// (or a click, or Enter on a focused step) shows the step's exact fractions under the
// chart; hovering a band shows its own. Under each chart, a folded table holds every
// band's chance at every step, exactly; a band too narrow for its letters has them on a
// line under its bar.

import { Refused, api, gamePath, state, who } from "./api.js";
import { $, el, say, trying } from "./dom.js";
import { counted } from "./words.js";

let shown = null; // the report the charts draw, which what-if starts from
let whatIf = null; // the last what-if drawn: {row, extra, cells}

const SVG = "http://www.w3.org/2000/svg";
const NARROW = 480; // px: narrower than this, a step's label stands above its bar
const CHAR = 7; // px a character of 12 px text takes, about
const BAR = 28; // px: a bar's height

// text on a band: white on a dark colour, black on a light one
function inkOn(colour) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b < 140 ? "#fff" : "#000";
}

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children.flat(Infinity)) if (child) node.append(child);
  return node;
}

function fraction(text) {
  if (!text.includes("/")) return Number(text);
  const [n, d] = text.split("/").map(Number);
  return n / d;
}

const percent = (p) => `${(p * 100).toFixed(p < 0.1 && p > 0 ? 1 : 0)}%`;

// a short name for each band, unique among them: the initials of its words ("Critical
// success" CS), then more letters of its last word where two would read the same, then
// its place where even that cannot tell them apart
export function abbreviations(labels) {
  const words = labels.map((label) => label.split(/[\s/_-]+/).filter(Boolean));
  const initial = (w) => w.slice(0, 1).toUpperCase();
  const grown = words.map(() => 1);
  const make = (i) => {
    const ws = words[i];
    if (!ws.length) return "?";
    const last = ws[ws.length - 1];
    return ws.slice(0, -1).map(initial).join("") + initial(last) + last.slice(1, grown[i]);
  };
  let short = labels.map((_, i) => make(i));
  for (let round = 0; round < 24; round++) {
    const seen = new Map();
    short.forEach((s) => seen.set(s.toLowerCase(), (seen.get(s.toLowerCase()) || 0) + 1));
    const clash = short.map((s) => seen.get(s.toLowerCase()) > 1);
    if (!clash.some(Boolean)) return short;
    clash.forEach((c, i) => {
      if (c) grown[i] += 1;
    });
    short = labels.map((_, i) => make(i));
  }
  // the same label twice: told apart by its place
  const count = new Map();
  return short.map((s) => {
    const n = (count.get(s) || 0) + 1;
    count.set(s, n);
    return n > 1 ? `${s}${n}` : s;
  });
}

// a label held to `room` px, cut with "…" (the whole label is in the row's title)
function fit(label, room) {
  const most = Math.max(3, Math.floor(room / CHAR));
  return label.length <= most ? label : `${label.slice(0, most - 1)}…`;
}

// the width a chart is drawn at: the width it is shown at
function widthOf(where) {
  const room = where.clientWidth || document.documentElement.clientWidth || 640;
  return Math.max(260, Math.floor(room - 20));
}

// one bar: a check's chance of each band at one step, or why it is not rolled; a band
// too narrow for its letters is named on a line under the bar instead (so every band
// drawn keeps a label). Gives the parts and the height they take.
function bar(step, cell, outcomes, short, x, y, width, name) {
  const parts = [];
  const base = name ? `${step.label} (${name})` : step.label;
  if (!cell || cell.not_rolled) {
    const why = `not rolled: ${cell ? cell.not_rolled : "?"}`;
    parts.push(svg("text", { x: String(x), y: String(y + BAR * 0.65) }, fit(why, width)));
    return { parts, height: BAR };
  }
  let at = x;
  const unlabelled = []; // [band, its letters and percentage]
  cell.probabilities.forEach((p, band) => {
    const share = fraction(p);
    const w = share * width;
    if (w <= 0) return;
    const outcome = outcomes[band];
    const words = `${base}, ${outcome.label}: ${p} (${percent(share)})`;
    parts.push(
      svg(
        "rect",
        { x: String(at), y: String(y), width: String(w), height: String(BAR), fill: outcome.colour, stroke: "#fff", "data-band": outcome.label, "data-probability": p },
        svg("title", {}, words),
      ),
    );
    const text = `${short[band]} ${percent(share)}`;
    const onBand = (shown) => svg("text", { x: String(at + 3), y: String(y + BAR * 0.65), class: "on-band", fill: inkOn(outcome.colour), "pointer-events": "none", "data-band": outcome.label }, shown);
    if (w > text.length * CHAR + 6) parts.push(onBand(text));
    else if (w > short[band].length * CHAR + 6) parts.push(onBand(short[band]));
    else unlabelled.push([outcome.label, text]);
    at += w;
  });
  // the narrow bands' letters and percentages, as many lines as they take under the bar
  const lines = [];
  for (const [label, text] of unlabelled) {
    const line = lines[lines.length - 1];
    const room = (line ? line.chars + 3 : 0) + text.length;
    if (line && room * CHAR <= width) {
      line.items.push([label, text]);
      line.chars = room;
    } else lines.push({ items: [[label, text]], chars: text.length });
  }
  lines.forEach((line, i) => {
    const spans = line.items.map(([label, text], j) => svg("tspan", { "data-band": label }, `${j ? " · " : ""}${text}`));
    parts.push(svg("text", { x: String(x), y: String(y + BAR + 13 + i * 15), class: "small-bands", "pointer-events": "none" }, spans));
  });
  return { parts, height: BAR + lines.length * 15 + (lines.length ? 3 : 0) };
}

// every step's chance of every band, exactly, as a table under the chart (folded: a tap
// opens it); its column heads name each band with its letters, as the legend does
function chancesTable(title, steps, outcomes, bars) {
  const short = abbreviations(outcomes.map((o) => o.label));
  const rows = steps.flatMap((step, i) =>
    bars(i).map(({ name, cell }) =>
      el(
        "tr",
        { "data-step": step.label, "data-bar": name || null },
        el("th", { scope: "row", text: name ? `${step.label} (${name})` : step.label }),
        !cell || cell.not_rolled
          ? el("td", { colspan: String(outcomes.length), text: `not rolled: ${cell ? cell.not_rolled : "?"}` })
          : cell.probabilities.map((p, band) =>
              el("td", { "data-band": outcomes[band].label }, el("span", { class: "exact", text: p }), " ", el("span", { class: "pct", text: `(${percent(fraction(p))})` })),
            ),
      ),
    ),
  );
  const table = el(
    "table",
    { class: "chances-table" },
    el("caption", { text: `${title}: the chance of each outcome, exactly` }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Step" }), outcomes.map((o, i) => el("th", { scope: "col", "data-band": o.label, text: `${o.label} (${short[i]})` })))),
    el("tbody", {}, rows),
  );
  return el(
    "details",
    { class: "chances" },
    el("summary", { text: "Every chance, exactly (a table)" }),
    el("div", { class: "table-scroll", role: "region", tabindex: "0", "aria-label": `${title}: every chance, exactly` }, table),
  );
}

// a step's exact chances in words, for the line under the chart
function stepWords(step, bars, outcomes) {
  return bars
    .map(({ name, cell }) => {
      const head = name ? `${step.label} (${name})` : step.label;
      if (!cell || cell.not_rolled) return `${head}: not rolled`;
      const bands = cell.probabilities
        .map((p, i) => (p === "0" ? null : `${outcomes[i].label} ${p} (${percent(fraction(p))})`))
        .filter(Boolean);
      return `${head}: ${bands.join(", ")}`;
    })
    .join("; ");
}

// one chart: for every step, its bars (`bars(i)` gives [{name, cell}]), each band with
// its letters and percentage where they fit
function chart(title, steps, outcomes, bars, width) {
  const short = abbreviations(outcomes.map((o) => o.label));
  const narrow = width < NARROW;
  const longest = Math.max(...steps.map((s) => s.label.length), 4);
  const named = bars(0).length > 1;
  const nameRoom = named ? 7 * CHAR : 0; // "before" / "after" beside each bar
  const left = narrow ? 0 : Math.min(longest * CHAR + 12, Math.floor(width * 0.35));
  const barX = left + nameRoom;
  const barWidth = width - barX - 4;
  const detail = el("p", { class: "band-detail", "aria-live": "polite" });
  let y = 6;
  const groups = steps.map((step, i) => {
    const these = bars(i);
    const parts = [svg("title", {}, step.label)];
    if (narrow) {
      parts.push(svg("text", { x: "2", y: String(y + 13), class: "step-label" }, fit(step.label, width - 4)));
      y += 18;
    } else {
      const middle = y + (these.length * (BAR + 4) - 4) / 2 + 4;
      parts.push(svg("text", { x: "2", y: String(middle), class: "step-label" }, fit(step.label, left - 8)));
    }
    for (const { name, cell } of these) {
      if (name) parts.push(svg("text", { x: String(left + 2), y: String(y + BAR * 0.65), class: "bar-name" }, name));
      const drawn = bar(step, cell, outcomes, short, barX, y, barWidth, name);
      parts.push(drawn.parts);
      y += drawn.height + 4;
    }
    y += 6;
    const success = these.map(({ name, cell }) => `${name ? `${name} ` : ""}${cell && cell.success ? `success ${cell.success}` : "not rolled"}`).join(", ");
    const group = svg("g", { class: "step", "data-step": step.label, role: "listitem", tabindex: "0", "aria-label": `${step.label}: ${success}` }, parts);
    const pick = (event) => {
      if (event.type === "keydown" && event.key !== "Enter" && event.key !== " ") return;
      if (event.type === "keydown") event.preventDefault();
      for (const other of group.ownerSVGElement.querySelectorAll(".picked")) other.classList.remove("picked");
      const band = event.target.closest ? event.target.closest("rect") : null;
      if (band) band.classList.add("picked");
      group.classList.add("picked");
      detail.textContent = stepWords(step, these, outcomes);
    };
    group.addEventListener("click", pick);
    group.addEventListener("keydown", pick);
    return group;
  });
  const figureId = `chart-${Math.random().toString(36).slice(2, 9)}`;
  return el(
    "figure",
    { "aria-labelledby": figureId },
    el("figcaption", { id: figureId, text: title }),
    svg("svg", { viewBox: `0 0 ${width} ${y}`, width: String(width), height: String(y), role: "list", "aria-label": `${title}: chance of each outcome at every step` }, groups),
    detail,
    chancesTable(title, steps, outcomes, bars),
  );
}

function legend(outcomes) {
  const short = abbreviations(outcomes.map((o) => o.label));
  $("legend").replaceChildren(
    ...outcomes.map((o, i) =>
      el("span", { "data-band": o.label }, el("span", { class: "swatch", style: `background:${o.colour}` }), `${short[i]} = ${o.label}`),
    ),
  );
}

function drawCharts() {
  const report = shown;
  if (!report) return;
  const width = widthOf($("charts"));
  $("charts").replaceChildren(
    ...report.rows.map((row) => chart(`${row.label} (${row.group})`, report.steps, report.outcomes, (i) => [{ name: "", cell: row.cells[i] }], width)),
  );
}

async function showBalance() {
  const name = $("balance-character").value;
  if (!state.game) throw new Refused(0, { detail: "Pick a game first (the Game list above the tabs)." }, () => !state.game);
  if (!name) throw new Refused(0, { detail: "Pick a character first: the odds are a character's." }, () => !$("balance-character").value);
  const report = await api("GET", gamePath(`report?character=${who(name)}`));
  shown = report;
  whatIf = null;
  legend(report.outcomes);
  drawCharts();
  $("whatif-chart").replaceChildren();
  $("whatif-check").replaceChildren(
    ...report.rows.map((row, i) => el("option", { value: String(i), text: `${row.label} (${row.group})` })),
  );
  say(`Odds of ${report.rows.length} checks for ${report.character}.`, "balance");
}

// the attributes typed for a what-if, by key; what is not `key="value"` is kept apart
function typedAttributes(text) {
  const keys = [];
  const rest = text.replace(/([A-Za-z][\w-]*)\s*=\s*("[^"]*"|[^\s"\]]+)/g, (_, key) => {
    keys.push(key);
    return " ";
  });
  return { keys, rest: rest.trim() };
}

// a sentence for every typed attribute the ruleset's tags do not take, or null
function attributeWarning(report, text) {
  const { keys, rest } = typedAttributes(text);
  const offered = new Set((report.attributes || []).map((k) => k.toLowerCase()));
  const sentences = [];
  const unknown = offered.size ? keys.filter((k) => !offered.has(k.toLowerCase())) : [];
  if (unknown.length) {
    const taken = (report.attributes || []).filter((k) => !["skill", "who"].includes(k)).join(", ");
    sentences.push(`This ruleset's checks do not take ${unknown.map((k) => `"${k}"`).join(", ")}: it changes nothing. They take: ${taken}.`);
  }
  if (rest) sentences.push(`"${rest}" is not written as key="value", so it is not read.`);
  return sentences.length ? sentences.join(" ") : null;
}

function drawWhatIf() {
  const report = shown;
  if (!report || !whatIf) return;
  const { row, extra, cells, warning } = whatIf;
  const width = widthOf($("whatif-chart"));
  const title = `What if ${row.label} ${extra || "(as it is)"}`;
  const figure = chart(title, report.steps, report.outcomes, (i) => [
    { name: "before", cell: row.cells[i] },
    { name: "after", cell: cells[i] },
  ], width);
  const pct = (cell) => (cell && cell.success ? percent(fraction(cell.success)) : "not rolled");
  const points = (cell, other) => {
    if (!cell || !cell.success || !other || !other.success) return "";
    const moved = Math.round((fraction(other.success) - fraction(cell.success)) * 1000) / 10;
    return `${moved > 0 ? "+" : moved < 0 ? "−" : "±"}${counted(Math.abs(moved), "point")}`;
  };
  const table = el(
    "table",
    { class: "whatif-table" },
    el("caption", { text: "Chance of success, before and after" }),
    el("thead", {}, el("tr", {}, ["Step", "Before", "After", "Change"].map((h) => el("th", { scope: "col", text: h })))),
    el(
      "tbody",
      {},
      report.steps.map((step, i) =>
        el(
          "tr",
          { "data-step": step.label },
          el("th", { scope: "row", text: step.label }),
          el("td", { class: "before", text: pct(row.cells[i]) }),
          el("td", { class: "after", text: pct(cells[i]) }),
          el("td", { text: points(row.cells[i], cells[i]) }),
        ),
      ),
    ),
  );
  const changes = row.cells.map((cell, i) => `${report.steps[i].label}: ${cell.success || "-"} → ${cells[i].success || "-"}`).join("; ");
  $("whatif-chart").replaceChildren(
    ...(warning ? [el("p", { class: "whatif-warning", role: "alert", text: warning })] : []),
    figure,
    table,
    el("p", { class: "whatif-change", text: `Chance of success, exactly: ${changes}` }),
  );
}

async function showWhatIf() {
  const report = shown;
  if (!report) throw new Refused(0, { detail: "Show a character's odds first." }, () => !shown);
  const row = report.rows[Number($("whatif-check").value)];
  const extra = $("whatif-attrs").value.trim();
  const warning = attributeWarning(report, extra);
  const cells = await Promise.all(
    row.cells.map(async (cell) => {
      if (!cell.tag) return cell;
      const tag = extra ? cell.tag.replace(/\]$/, ` ${extra}]`) : cell.tag;
      const odds = await api("POST", gamePath("odds"), { tag, who: report.character });
      const used = new Set();
      const probabilities = report.outcomes.map((o) => {
        const at = odds.outcomes.findIndex((x, i) => !used.has(i) && x.label === o.label);
        if (at < 0) return "0";
        used.add(at);
        return odds.outcomes[at].probability;
      });
      return { tag, not_rolled: null, probabilities, success: odds.success };
    }),
  );
  whatIf = { row, extra, cells, warning };
  drawWhatIf();
  const changes = row.cells.map((cell, i) => `${report.steps[i].label}: ${cell.success || "-"} → ${cells[i].success || "-"}`).join("; ");
  say(`What if ${row.label} ${extra}: ${changes}${warning ? ` (${warning})` : ""}`, "balance");
}

// the charts are drawn at the width they are shown at: again when that width changes
function redrawOnResize() {
  let last = 0;
  let pending = null;
  window.addEventListener("resize", () => {
    const now = widthOf($("charts"));
    if (Math.abs(now - last) < 8) return;
    last = now;
    clearTimeout(pending);
    pending = setTimeout(() => {
      drawCharts();
      drawWhatIf();
    }, 150);
  });
}

export function setUpBalance() {
  $("balance-show").addEventListener("click", trying(showBalance));
  $("whatif").addEventListener("submit", trying(showWhatIf));
  // the tab's width is 0 while hidden: the charts are drawn again when it is shown
  $("tab-balance").addEventListener("click", () => requestAnimationFrame(() => (drawCharts(), drawWhatIf())));
  redrawOnResize();
}
