// The Sheet form's lists (rows of typed columns: a WoD character's specialties, a Fate
// character's aspects) and wound tracks (a mark of a kind of harm per rung or box), drawn
// from the service's description of the form and read back into the character file.
// Their controls carry `data-part`, so sheet.js's reading of the plain inputs skips them,
// and `data-path` as the service names a problem's place, so a refused save marks them.

import { el, numberInput } from "./dom.js";

// ── lists ────────────────────────────────────────────────────────────────────

function cellControl(column, value) {
  if (column.type === "number") return numberInput("", column.min, column.max, value);
  if (column.type === "boolean") return el("input", { type: "checkbox", checked: value ? true : null });
  if (column.type === "enum") {
    const blank = el("option", { value: "", text: "(none)" });
    const control = el("select", {}, blank, column.values.map((v) => el("option", { value: v.value, text: v.label })));
    control.value = value ?? column.default ?? "";
    return control;
  }
  const control = column.type === "longtext" ? el("textarea", { rows: "2" }) : el("input", {});
  control.maxLength = column.max_length;
  control.value = value ?? "";
  return control;
}

// one row: a control per column, and a button that takes the row out; cells the form
// does not show (a catalog's `_catalog` mark) ride along unchanged
function listRow(list, row) {
  const shown = new Set(list.columns.map((c) => c.id));
  const node = el("div", { class: "list-row", "data-list": list.id });
  node._kept = Object.fromEntries(Object.entries(row).filter(([key]) => !shown.has(key)));
  for (const column of list.columns) {
    const control = cellControl(column, row[column.id]);
    control.dataset.part = "list";
    control.dataset.column = column.id;
    if (list.required.includes(column.id)) control.required = true;
    node.append(el("div", { class: "field" }, el("label", { text: column.label }), control));
  }
  const remove = () => {
    const rows = node.parentElement;
    node.remove();
    number(list, rows);
    rows.parentElement.querySelector(".add-row").focus();
  };
  node.append(el("button", { type: "button", class: "quiet", onclick: remove }, "Remove"));
  return node;
}

// every row's labels, ids and places numbered again (after a row comes or goes)
function number(list, rows) {
  [...rows.children].forEach((row, i) => {
    for (const field of row.querySelectorAll(".field")) {
      const [label, control] = [field.querySelector("label"), field.querySelector("[data-column]")];
      const column = list.columns.find((c) => c.id === control.dataset.column);
      control.id = `sheet-list-${list.id}-${i}-${column.id}`;
      control.dataset.path = `sheet.build.lists.${list.id}[${i}].${column.id}`;
      label.htmlFor = control.id;
      label.textContent = `${column.label} ${i + 1}`;
    }
    row.querySelector("button").setAttribute("aria-label", `Remove ${list.label} row ${i + 1}`);
  });
  rows.parentElement.querySelector(".add-row").disabled = rows.children.length >= list.max_items;
}

function listSet(list, rows) {
  const holder = el("div", { class: "list-rows" });
  const add = el("button", { type: "button", class: "quiet add-row" }, `Add to ${list.label}`);
  const set = el("fieldset", { class: "sheet-list", "data-list": list.id }, el("legend", { text: `${list.label} (up to ${list.max_items})` }), holder, add);
  add.addEventListener("click", () => {
    holder.append(listRow(list, {}));
    number(list, holder);
    holder.lastElementChild.querySelector("[data-column]").focus();
  });
  holder.append(...rows.map((row) => listRow(list, row)));
  number(list, holder);
  return set;
}

function readRow(row) {
  const out = { ...row._kept };
  for (const control of row.querySelectorAll("[data-column]")) {
    if (control.type === "checkbox") out[control.dataset.column] = control.checked;
    else if (control.value === "") continue;
    else out[control.dataset.column] = control.type === "number" ? Number(control.value) : control.value;
  }
  return out;
}

// ── wound tracks ─────────────────────────────────────────────────────────────

const kindWords = (kind) => (kind.label === kind.id ? kind.label : `${kind.label} (${kind.id})`);

function markSelect(track, value) {
  const clear = track.fill === "indexed" ? "(clear box)" : "(no mark)";
  const select = el("select", { "data-part": "wounds", "data-path": `live.wounds.${track.id}` }, el("option", { value: "", text: clear }), track.kinds.map((k) => el("option", { value: k.id, text: kindWords(k) })));
  select.value = value || "";
  return select;
}

// the marks' selects, one per rung or box; a track whose room the sheet decides always
// keeps one more select free for the next mark
function woundSet(track, marks) {
  const holder = el("div", { class: "marks" });
  const order = track.fill === "indexed" ? "one per box, in order" : "the engine keeps them most severe first";
  const set = el("fieldset", { class: "sheet-wounds", "data-wounds": track.id }, el("legend", { text: `${track.label}: marks (${order})` }), holder);
  const slots = track.max ?? marks.length + 1;
  const add = (value) => {
    const select = markSelect(track, value);
    const i = holder.children.length;
    select.id = `sheet-wound-${track.id}-${i}`;
    holder.append(el("div", { class: "field" }, el("label", { for: select.id, text: `${track.label} mark ${i + 1}` }), select));
    if (track.max === null) {
      select.addEventListener("change", () => {
        if (select.value && select.parentElement === holder.lastElementChild) add("");
      });
    }
  };
  for (let i = 0; i < slots; i += 1) add(marks[i]);
  return set;
}

function readWounds(set) {
  const values = [...set.querySelectorAll("select")].map((s) => s.value);
  const indexed = set._track.fill === "indexed";
  const marks = indexed ? values : values.filter(Boolean);
  while (marks.length && !marks[marks.length - 1]) marks.pop(); // trailing clear boxes say nothing
  return marks;
}

// ── the form's parts, drawn and read ─────────────────────────────────────────

// the fieldsets of `described`'s lists and wound tracks, filled from a character's build
// and live state
export function sheetParts(described, build, live) {
  const lists = (described.lists || []).map((list) => listSet(list, (build.lists || {})[list.id] || []));
  const wounds = (described.wounds || []).map((track) => {
    const set = woundSet(track, ((live.wounds || {})[track.id] || {}).marks || []);
    set._track = track;
    set._overflow = ((live.wounds || {})[track.id] || {}).overflow;
    return set;
  });
  return [...lists, ...wounds];
}

// the lists and wound marks into a character file's `body` (what sheet.js read)
export function readParts(form, body) {
  const lists = {};
  for (const set of form.querySelectorAll("fieldset.sheet-list")) {
    const rows = [...set.querySelectorAll(".list-row")].map(readRow);
    if (rows.length) lists[set.dataset.list] = rows;
  }
  body.sheet.build.lists = lists;
  const wounds = {};
  for (const set of form.querySelectorAll("fieldset.sheet-wounds")) {
    const marks = readWounds(set);
    if (!marks.length) continue;
    wounds[set.dataset.wounds] = set._overflow ? { marks, overflow: set._overflow } : { marks };
  }
  if (Object.keys(wounds).length) body.live.wounds = wounds;
  else delete body.live.wounds;
}
