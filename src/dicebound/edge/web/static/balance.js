// The Balance tab: a character's exact odds of every band at every ladder step, one
// SVG chart per check, and what if the tag carried other attributes.

import { Refused, api, gamePath, who } from "./api.js";
import { $, el, say, trying } from "./dom.js";

let shown = null; // the report the charts draw, which what-if starts from

// text on a band: white on a dark colour, black on a light one
function inkOn(colour) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b < 140 ? "#fff" : "#000";
}
const SVG = "http://www.w3.org/2000/svg";

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
const letter = (label) => label.slice(0, 2);

function chart(title, steps, outcomes, cells) {
  const width = 640;
  const barHeight = 26;
  const left = 110;
  const height = steps.length * (barHeight + 8) + 8;
  const groups = steps.map((step, i) => {
    const cell = cells[i];
    const y = 8 + i * (barHeight + 8);
    const parts = [svg("text", { x: "4", y: String(y + barHeight * 0.68) }, step.label)];
    if (!cell || cell.not_rolled) {
      parts.push(svg("text", { x: String(left), y: String(y + barHeight * 0.68) }, `not rolled: ${cell ? cell.not_rolled : "?"}`));
    } else {
      let x = left;
      cell.probabilities.forEach((p, band) => {
        const share = fraction(p);
        const w = share * (width - left - 4);
        if (w <= 0) return;
        const label = `${step.label}, ${outcomes[band].label}: ${p} (${percent(share)})`;
        parts.push(
          svg(
            "rect",
            { x: String(x), y: String(y), width: String(w), height: String(barHeight), fill: outcomes[band].colour, stroke: "#fff", "data-band": outcomes[band].label, "data-probability": p },
            svg("title", {}, label),
          ),
        );
        if (w > 34) {
          parts.push(svg("text", { x: String(x + 3), y: String(y + barHeight * 0.68), fill: inkOn(outcomes[band].colour) }, `${letter(outcomes[band].label)} ${percent(share)}`));
        }
        x += w;
      });
    }
    const success = cell && cell.success ? `success ${cell.success}` : "not rolled";
    return svg("g", { class: "step", "data-step": step.label, role: "listitem", "aria-label": `${step.label}: ${success}` }, parts);
  });
  const figureId = `chart-${Math.random().toString(36).slice(2, 9)}`;
  return el(
    "figure",
    { "aria-labelledby": figureId },
    el("figcaption", { id: figureId, text: title }),
    svg("svg", { viewBox: `0 0 ${width} ${height}`, width: "100%", role: "list", "aria-label": `${title}: chance of each outcome at every step` }, groups),
  );
}

function legend(outcomes) {
  $("legend").replaceChildren(
    ...outcomes.map((o) =>
      el("span", {}, el("span", { class: "swatch", style: `background:${o.colour}` }), `${letter(o.label)} = ${o.label}`),
    ),
  );
}

async function showBalance() {
  const name = $("balance-character").value;
  const report = await api("GET", gamePath(`report?character=${who(name)}`));
  shown = report;
  legend(report.outcomes);
  $("charts").replaceChildren(
    ...report.rows.map((row) => chart(`${row.label} (${row.group})`, report.steps, report.outcomes, row.cells)),
  );
  $("whatif-check").replaceChildren(
    ...report.rows.map((row, i) => el("option", { value: String(i), text: `${row.label} (${row.group})` })),
  );
  say(`Odds of ${report.rows.length} checks for ${report.character}.`);
}

async function showWhatIf() {
  const report = shown;
  if (!report) throw new Refused(0, { detail: "Show a character's odds first." });
  const row = report.rows[Number($("whatif-check").value)];
  const extra = $("whatif-attrs").value.trim();
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
  const changes = row.cells
    .map((cell, i) => `${report.steps[i].label}: ${cell.success || "-"} → ${cells[i].success || "-"}`)
    .join("; ");
  $("whatif-chart").replaceChildren(chart(`What if ${row.label} ${extra || "(as it is)"}`, report.steps, report.outcomes, cells), el("p", { class: "whatif-change", text: `Chance of success: ${changes}` }));
  say(`What if ${row.label} ${extra}: ${changes}`);
}

export function setUpBalance() {
  $("balance-show").addEventListener("click", trying(showBalance));
  $("whatif").addEventListener("submit", trying(showWhatIf));
}
