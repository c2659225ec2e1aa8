// The playground's Analyse tab: bytepair.analysis.analyze on the tokenizers picked in the page (the
// one shown and the one compared with), on the text box, a built-in sample of 13 languages or text
// files the user opens, drawn as SVG charts with tables beside them.
//
// Why a module of its own: the numbers all come from the Python core (Tokenizer.analyze runs
// bytepair.analysis in the Web Worker, part by part, so the page stays responsive and shows which
// part it is on); this file only draws them. Charts are plain SVG made here, nothing is fetched but
// the sample, and every chart has a <title>, per-bar <title>s and a table with the same numbers.
// Each number drawn carries it raw in a data-value attribute (the tests compare them with Python).
//
//   import { setupAnalyse } from "./analyse.mjs";
//   setupAnalyse({ panel, names: () => ["o200k_base"], open: (name) => tokenizerPromise, label, text: () => "…" });

const SVG = "http://www.w3.org/2000/svg";
const SAMPLE_URL = new URL("./analyse-sample.json", import.meta.url);
const number = new Intl.NumberFormat("en");
const METRICS = {
  tokens_per_word: "Tokens per word (lower is cheaper)",
  chars_per_token: "Characters per token (higher is cheaper)",
  bytes_per_token: "Bytes per token",
};
const MAX_LENGTH_BAR = 24; // token lengths above this share the last bar
const SCRIPT_BARS = 12; // script classes drawn; the rest share one bar
const FILE_LIMIT = 8_000_000; // characters of opened files analysed at most (memory in the worker)

let uid = 0;
const nextId = (prefix) => `${prefix}-${++uid}`;

/** An element with attributes and children (strings become text). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== undefined && value !== null) el.setAttribute(key, value);
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== undefined && value !== null) el.setAttribute(key, String(value));
  el.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return el;
}

const fmt = (value, digits = 2) => (value === null || value === undefined ? "–" : Number.isInteger(value) ? number.format(value) : value.toFixed(digits));

/** A token's text as people can read it: control characters and line breaks escaped (as in JSON). */
function shown(text) {
  return JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"');
}

function code(text) {
  return h("code", { class: "an-token" }, shown(text));
}

// ---------------------------------------------------------------- charts
/** An SVG chart with its <title> (and aria-labelledby pointing at it). */
function chart(title, width, height, className) {
  const id = nextId("chart-title");
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": id, class: `an-chart ${className}`,
    preserveAspectRatio: "xMinYMin meet" });
  svg.append(s("title", { id }, title));
  return svg;
}

/** Horizontal bars: rows of { label, bars: [{ value, text, series, data }] }, grouped per row. */
function barChart(title, rows, { max, className = "" } = {}) {
  const labelW = 92;
  const valueW = 62;
  const width = 360;
  const barH = 14;
  const groupGap = 7;
  const perRow = Math.max(1, ...rows.map((r) => r.bars.length));
  const rowH = perRow * barH + groupGap;
  const height = rows.length * rowH + 4;
  const top = max ?? Math.max(1e-9, ...rows.flatMap((r) => r.bars.map((b) => b.value ?? 0)));
  const svg = chart(title, width, height, `an-bars ${className}`);
  rows.forEach((row, i) => {
    const y0 = i * rowH + 2;
    svg.append(s("text", { x: labelW - 6, y: y0 + (row.bars.length * barH) / 2 + 4, "text-anchor": "end", class: "an-label" }, row.label));
    row.bars.forEach((bar, j) => {
      const y = y0 + j * barH;
      const w = bar.value ? Math.max(1, ((width - labelW - valueW) * bar.value) / top) : 0;
      const rect = s("rect", { x: labelW, y, width: w.toFixed(1), height: barH - 2, rx: 2, class: `an-bar series-${bar.series ?? 0}`, ...bar.data },
        s("title", {}, bar.text));
      svg.append(rect, s("text", { x: labelW + w + 4, y: y + barH - 3, class: "an-value" }, bar.short ?? fmt(bar.value)));
    });
  });
  return svg;
}

/** Vertical bars of a histogram: [{ label, value, text, data }], labels under every `every`-th bar. */
function histogram(title, bins, { every = 1 } = {}) {
  const width = 360;
  const height = 170;
  const left = 40;
  const bottom = 22;
  const plotH = height - bottom - 8;
  const top = Math.max(1, ...bins.map((b) => b.value));
  const step = (width - left - 4) / bins.length;
  const svg = chart(title, width, height, "an-hist");
  for (const tick of [0, 0.5, 1]) {
    const y = 8 + plotH * (1 - tick);
    svg.append(s("line", { x1: left - 3, x2: width, y1: y, y2: y, class: "an-grid" }),
      s("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "an-axis" }, compact(top * tick)));
  }
  bins.forEach((bin, i) => {
    const hgt = bin.value ? Math.max(1, (plotH * bin.value) / top) : 0;
    const x = left + i * step;
    svg.append(s("rect", { x: (x + 1).toFixed(1), y: (8 + plotH - hgt).toFixed(1), width: Math.max(1, step - 2).toFixed(1), height: hgt.toFixed(1),
      class: "an-bar series-0", ...bin.data }, s("title", {}, bin.text)));
    if (i % every === 0 || i === bins.length - 1) {
      svg.append(s("text", { x: (x + step / 2).toFixed(1), y: height - 6, "text-anchor": "middle", class: "an-axis" }, bin.label));
    }
  });
  return svg;
}

function compact(value) {
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(value >= 1e4 ? 0 : 1)}k`;
  return String(Math.round(value));
}

/** A table (with caption) whose cells may carry raw values: cells are strings, Nodes or { text, value, data }. */
function table(caption, head, rows, className = "") {
  const cell = (tag, c) => {
    if (c !== null && typeof c === "object" && !(c instanceof Node)) {
      return h(tag, { "data-value": c.value === undefined ? undefined : String(c.value), ...c.data }, c.text ?? fmt(c.value));
    }
    return h(tag, {}, c);
  };
  return h("table", { class: `an-table ${className}` },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c, i) => (i === 0 ? cell("th", c) : cell("td", c)))))));
}

/** A chart with its table under a disclosure (the table is the same numbers as text). */
function figure(heading, svg, tableEl, note = null) {
  return h("figure", { class: "an-figure" }, h("figcaption", {}, heading), svg, note && h("p", { class: "note" }, note),
    h("details", { class: "an-details" }, h("summary", {}, "Table"), tableEl));
}

// ---------------------------------------------------------------- the report drawn
function drawFertility(report, names) {
  const fert = report.fertility;
  const box = h("div", { class: "an-fertility", "data-testid": "analysis-fertility" });
  const by = new Map(fert.rows.map((r) => [`${r.language}\u0000${r.tokenizer}`, r]));
  const legend = h("p", { class: "an-legend" }, fert.tokenizers.map((t, i) => h("span", { class: "an-key" },
    h("span", { class: `an-swatch series-${i}`, "aria-hidden": "true" }), names(t))));
  box.append(h("h3", {}, "Fertility by language"), legend);
  for (const [key, title] of Object.entries(METRICS)) {
    // One text: its row and the "all" row are the same, so the chart draws it once (the table has both).
    const drawn = fert.languages.length === 2 ? fert.languages.slice(0, 1) : fert.languages;
    const rows = drawn.map((lang) => ({
      label: lang,
      bars: fert.tokenizers.map((t, i) => {
        const value = by.get(`${lang}\u0000${t}`)[key];
        return { value, series: i, text: `${lang}, ${names(t)}: ${fmt(value)} ${title.split(" (")[0].toLowerCase()}`,
          data: { "data-metric": key, "data-language": lang, "data-tokenizer": t, "data-value": String(value) } };
      }),
    }));
    const tableRows = fert.languages.map((lang) => [lang, { value: by.get(`${lang}\u0000${fert.tokenizers[0]}`).words },
      ...fert.tokenizers.map((t) => ({ value: by.get(`${lang}\u0000${t}`)[key], data: { "data-metric": key, "data-language": lang, "data-tokenizer": t } }))]);
    box.append(figure(title, barChart(`${title}, per language and tokenizer`, rows),
      table(title, ["language", "words", ...fert.tokenizers.map(names)], tableRows)));
  }
  return box;
}

function drawLengths(v) {
  const bins = [];
  const over = { count: 0 };
  for (const { bytes, count } of v.lengths.histogram) {
    if (bytes > MAX_LENGTH_BAR) over.count += count;
    else bins[bytes - 1] = count;
  }
  const data = [];
  for (let n = 1; n <= Math.min(MAX_LENGTH_BAR, v.lengths.max_bytes); n++) {
    const count = bins[n - 1] ?? 0;
    data.push({ label: String(n), value: count, text: `${n} bytes: ${number.format(count)} tokens`, data: { "data-bytes": String(n), "data-value": String(count) } });
  }
  if (over.count) {
    data.push({ label: `>${MAX_LENGTH_BAR}`, value: over.count, text: `more than ${MAX_LENGTH_BAR} bytes: ${number.format(over.count)} tokens`,
      data: { "data-bytes": `>${MAX_LENGTH_BAR}`, "data-value": String(over.count) } });
  }
  const title = `Token lengths of ${v.name} in bytes`;
  return figure(title, histogram(title, data, { every: 2 }),
    table(title, ["bytes", "tokens"], v.lengths.histogram.map((b) => [String(b.bytes), { value: b.count }])),
    `Mean ${v.lengths.mean_bytes} bytes, longest ${v.lengths.max_bytes}; ${number.format(v.leading_space)} tokens start with a space.`);
}

function drawScripts(v) {
  const entries = Object.entries(v.scripts);
  const shownEntries = entries.slice(0, SCRIPT_BARS);
  const rest = entries.slice(SCRIPT_BARS).reduce((sum, [, c]) => sum + c, 0);
  const pct = (c) => `${((100 * c) / v.size).toFixed(1)}%`;
  const rows = shownEntries.map(([name, count]) => ({ label: name.toLowerCase(), bars: [{ value: count, short: number.format(count),
    text: `${name}: ${number.format(count)} tokens (${pct(count)})`, data: { "data-script": name, "data-value": String(count) } }] }));
  if (rest) {
    rows.push({ label: `${entries.length - SCRIPT_BARS} more`, bars: [{ value: rest, short: number.format(rest),
      text: `${entries.length - SCRIPT_BARS} other classes: ${number.format(rest)} tokens (${pct(rest)})`, data: { "data-script": "(rest)", "data-value": String(rest) } }] });
  }
  const title = `Script mix of ${v.name}'s tokens`;
  return figure(title, barChart(title, rows, { className: "an-scripts" }),
    table(title, ["class", "tokens", "share"], entries.map(([name, count]) => [name, { value: count }, pct(count)])),
    "Each token's class: the majority script of its letters, or digits, whitespace, other (punctuation, symbols), partial-utf8 (part of a character).");
}

function exampleList(items, render, empty = "none") {
  if (!items.length) return h("p", { class: "note" }, empty);
  return h("ul", { class: "an-examples" }, items.map((t) => h("li", {}, render(t))));
}

function drawVocabulary(v, label) {
  const u = v.unreachable;
  const sec = h("section", { class: "an-vocab", "aria-label": `Vocabulary of ${label}`, "data-testid": "analysis-vocab", "data-name": v.name,
    "data-size": String(v.size), "data-unreachable": String(u.count), "data-split-alone": String(v.split_alone.count),
    "data-punctuation-run": String(v.junk.punctuation_run.count), "data-mojibake": String(v.junk.mojibake.count),
    "data-digit-tokens": String(v.numbers.digit_tokens), "data-unused": v.unused ? String(v.unused.count) : undefined });
  sec.append(h("h3", {}, `${label}: ${number.format(v.size)} model tokens`));
  sec.append(drawLengths(v), drawScripts(v));
  const by = Object.entries(u.by_emitted ?? {}).map(([k, c]) => `${number.format(c)} ${k.replace("_", " ")}`).join(", ");
  sec.append(
    h("h4", {}, `Unreachable by merging: ${number.format(u.count)}`, by ? ` (${by})` : ""),
    exampleList(u.tokens, (t) => [`${t.id} `, code(t.token), ` (${t.emitted.replace("_", " ")})`]),
    h("h4", {}, `Cut by the pre-tokenizer when alone: ${number.format(v.split_alone.count)}`),
    exampleList(v.split_alone.tokens, (t) => [`${t.id} `, code(t.token), " → ", ...t.pieces.flatMap((p, i) => (i ? [" + ", code(p)] : [code(p)]))]),
  );
  for (const [kind, junk] of Object.entries(v.junk)) {
    sec.append(h("h4", {}, `Junk (${kind.replace("_", " ")}): ${number.format(junk.count)}`),
      exampleList(junk.examples.slice(0, 12), (t) => [`${t.id} `, code(t.token)]));
  }
  sec.append(drawNumbers(v.numbers));
  if (v.unused) {
    sec.append(h("h4", {}, `Never produced on this text: ${number.format(v.unused.count)} reachable tokens`),
      h("p", { class: "note" }, `${number.format(v.unused.seen)} distinct tokens seen in ${number.format(v.unused.corpus_chars)} characters; `
        + "the longest word-like ones never seen (under-trained candidates on a real corpus):"),
      exampleList(v.unused.longest_word_like.slice(0, 12), (t) => [`${t.id} `, code(t.token)]));
  }
  return sec;
}

function drawNumbers(n) {
  const have = n.single_tokens_0_999;
  const of = n.single_tokens_0_999_of;
  const summary = Object.keys(have).map((k) => `${have[k]}/${of[k]} ${k}-digit`).join(", ");
  const rows = Object.entries(n.splits).map(([sample, parts]) => [h("code", { class: "an-token" }, shown(sample)),
    { text: h("span", {}, parts.map((p) => code(p))), value: parts.length, data: { "data-sample": sample } }]);
  return h("div", { class: "an-numbers" },
    h("h4", {}, `Numbers: ${number.format(n.digit_tokens)} all-digit tokens, up to ${n.max_digits} digits`),
    h("p", { class: "note" }, `Numbers that are one token: ${summary}.`),
    table("How numbers split", ["number", "tokens"], rows, "an-splits"));
}

function drawSummary(report, names) {
  return table("Tokenizers analysed", ["tokenizer", "kind", "vocabulary", "merge rule", "sha256"],
    report.tokenizers.map((t) => [names(t.name), t.kind, { value: t.vocab_size, data: { "data-tokenizer": t.name } }, t.merge_rule,
      h("code", { title: t.sha256 }, t.sha256.slice(0, 16))]), "an-summary");
}

// ---------------------------------------------------------------- the tab
/** Wire the tab into `panel`. `names()` gives the picker values to analyse (first the one shown),
 * `open(name)` their tokenizers, `label(name)` their display names, `text()` the text box's text. */
export function setupAnalyse({ panel, names, open, label, text }) {
  const els = {};
  const sourceName = nextId("an-source");
  panel.append(
    h("p", { class: "hint" }, "Fertility on a text, and what each vocabulary holds (token lengths, scripts, unreachable, junk and unused tokens, "
      + "numbers), for the tokenizer picked above and the one it is compared with. Computed in this page by bytepair.analysis, "
      + "as ", h("code", {}, "bytepair analyze"), " does; the first report on a 200k vocabulary takes several seconds."),
    els.form = h("div", { class: "an-controls" },
      h("fieldset", { class: "an-source" }, h("legend", {}, "Text to analyse"),
        h("label", {}, h("input", { type: "radio", name: sourceName, value: "box", checked: "" }), " the text box"),
        h("label", {}, h("input", { type: "radio", name: sourceName, value: "sample" }), " built-in sample (13 languages, about 1,500 characters each)"),
        h("label", {}, h("input", { type: "radio", name: sourceName, value: "files" }), " text files: ",
          els.filesButton = h("button", { type: "button" }, "Choose…"),
          els.files = h("input", { type: "file", multiple: "", hidden: "", accept: "text/*,.txt,.md,.py,.js,.json,.csv" }),
          els.filesNote = h("span", { class: "note" }, "")),
      ),
      h("div", { class: "an-actions" },
        els.run = h("button", { type: "button", class: "an-run", "data-testid": "analyse-run" }, "Analyse"),
        els.json = h("button", { type: "button", disabled: "" }, "Download JSON"),
        els.markdown = h("button", { type: "button", disabled: "" }, "Copy Markdown"),
        els.copyNote = h("span", { class: "note", role: "status" }, ""))),
    els.status = h("p", { class: "an-status", role: "status", "aria-live": "polite", "data-testid": "analyse-status" }),
    els.error = h("p", { class: "error", role: "alert", hidden: "" }),
    els.out = h("div", { class: "an-out", "data-testid": "analysis" }),
  );
  const files = [];
  let result = null;
  let running = false;

  const source = () => panel.querySelector(`input[name="${sourceName}"]:checked`).value;
  els.filesButton.addEventListener("click", () => els.files.click());
  els.files.addEventListener("change", async () => {
    files.length = 0;
    let total = 0;
    for (const file of els.files.files) {
      const content = await file.text();
      total += content.length;
      if (total > FILE_LIMIT) break;
      files.push([file.name, content]);
    }
    els.filesNote.textContent = files.length ? `${files.length} file${files.length > 1 ? "s" : ""}: ${files.map(([n]) => n).join(", ")}` : "";
    panel.querySelector(`input[name="${sourceName}"][value="files"]`).checked = true;
    els.files.value = "";
  });

  async function corpus() {
    const which = source();
    if (which === "sample") {
      const response = await fetch(SAMPLE_URL);
      if (!response.ok) throw Object.assign(new Error(`cannot fetch the sample (HTTP ${response.status})`), { name: "AssetError" });
      return [await response.json(), "the built-in sample"];
    }
    if (which === "files") {
      if (!files.length) throw Object.assign(new Error("choose one or more text files first"), { name: "InvalidInputError" });
      return [Object.fromEntries(files), `${files.length} file${files.length > 1 ? "s" : ""}`];
    }
    const value = text();
    if (!value.trim()) throw Object.assign(new Error("the text box is empty: type or paste a text, or pick the built-in sample"), { name: "InvalidInputError" });
    return [{ text: value }, `the text box (${number.format(value.length)} characters)`];
  }

  async function run() {
    if (running) return;
    running = true;
    els.run.disabled = true;
    els.error.hidden = true;
    const since = performance.now();
    let step = "starting";
    const tick = () => (els.status.textContent = `Working… ${step} (${((performance.now() - since) / 1000).toFixed(0)} s); the rest of the page stays usable.`);
    tick();
    const timer = setInterval(tick, 500);
    els.status.classList.add("busy");
    try {
      const picked = names();
      const [texts, what] = await corpus();
      const [first, ...others] = await Promise.all(picked.map(open));
      const byName = new Map(picked.map((n, i) => [[first, ...others][i].encoding, label(n)]));
      const { report, markdown } = await first.analyze({
        compareWith: others, corpus: texts,
        onProgress: ({ done, total, step: now }) => { step = `step ${Math.min(done + 1, total)} of ${total}: ${now}`; tick(); },
      });
      result = { report, markdown };
      render(report, (n) => byName.get(n) ?? n);
      els.status.textContent = `Analysed ${picked.map(label).join(" and ")} on ${what} in ${((performance.now() - since) / 1000).toFixed(1)} s.`;
      els.json.disabled = els.markdown.disabled = false;
    } catch (err) {
      els.status.textContent = "";
      els.error.hidden = false;
      els.error.textContent = `${err.name}: ${err.message}`;
    } finally {
      clearInterval(timer);
      els.status.classList.remove("busy");
      els.run.disabled = false;
      running = false;
    }
  }

  function render(report, names) {
    const parts = [drawSummary(report, names)];
    if (report.fertility) parts.push(drawFertility(report, names));
    parts.push(h("div", { class: "an-vocabs" }, report.vocabulary.map((v) => drawVocabulary(v, names(v.name)))));
    els.out.replaceChildren(...parts);
  }

  els.run.addEventListener("click", run);
  els.json.addEventListener("click", () => {
    if (!result) return;
    const url = URL.createObjectURL(new Blob([JSON.stringify(result.report, null, 2) + "\n"], { type: "application/json" }));
    const a = h("a", { href: url, download: "bytepair-analysis.json" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  els.markdown.addEventListener("click", async () => {
    if (!result) return;
    try {
      await navigator.clipboard.writeText(result.markdown);
      els.copyNote.textContent = "Markdown copied.";
    } catch {
      // No clipboard permission: show the text to copy by hand.
      const area = h("textarea", { rows: "8", readonly: "", "aria-label": "The report as Markdown", class: "an-markdown" });
      area.value = result.markdown;
      els.out.prepend(area);
      area.select();
      els.copyNote.textContent = "Copy the selected Markdown (Ctrl+C).";
    }
  });
  return { run, get result() { return result; } };
}
