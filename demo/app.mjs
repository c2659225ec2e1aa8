// The playground page: DOM and URL glue around bytepair's JavaScript API. Every token, count, offset
// and error comes from the Python core (bytepair.mjs runs it in a Web Worker); this file only shows
// them and keeps the page state in the URL. One picker holds both families: the OpenAI encodings and
// the open-model tokenizers prepared in the bundle (each fetched only when picked), and any other
// tokenizer.json opened from a file (read in the page; its content never goes into the link).
import { createTokenizer, listEncodings, listTokenizers } from "./bytepair/bytepair.mjs";

const ASSETS = new URL("./bytepair/", import.meta.url).href;
const DEFAULT_ENCODING = "o200k_base";
// Names shown for the prepared open-model tokenizers (others show their own name).
const LABELS = { llama3: "Llama 3", qwen2_5: "Qwen 2.5", qwen3: "Qwen 3", deepseek_v3: "DeepSeek V3", gpt2: "GPT-2" };
const PAGE_TOKENS = 2000; // tokens rendered at a time; counts always cover the whole text
const URL_TEXT_LIMIT = 150_000; // characters of (compressed, base64) text kept in the link
// Browsers take seconds to lay out a textarea holding megabytes (about 1.5 s per MB here), freezing
// the page. A paste that would make the text larger than this is kept in memory instead: the box
// shows the beginning, read-only, and every count covers the whole text.
const LARGE_TEXT_CHARS = 2_000_000;
const PREVIEW_CHARS = 20_000;
const SAMPLES = {
  english:
    "Tokenizers split text into pieces that a language model can read. Most English words are a single token, " +
    "but rarer ones (like \"antidisestablishmentarianism\") are split into several. Numbers such as 1234567 are " +
    "grouped three digits at a time, and   extra   spaces   count too.",
  chinese:
    "分词器把文本切分成模型能够读取的片段。常见的汉字和词语往往是一个词元，而罕见的字可能被拆成多个字节。\n" +
    "同一段话，在不同的编码下，词元的数量也不一样。",
  code:
    "def fibonacci(n: int) -> list[int]:\n" +
    "    \"\"\"Return the first n Fibonacci numbers.\"\"\"\n" +
    "    seq = [0, 1]\n" +
    "    while len(seq) < n:\n" +
    "        seq.append(seq[-1] + seq[-2])\n" +
    "    return seq[:n]\n\n" +
    "print(fibonacci(10))  # [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]\n",
  emoji: "Emoji are often several tokens: 🙂 🫠 👩‍👩‍👧 🏳️‍🌈 🇫🇷 ✌🏽 and a rarer one: 🦜. Even one character can be split: 𠀀.",
};

const $ = (id) => document.getElementById(id);
const els = {
  loading: $("loading"), progress: $("load-progress"), loadDetail: $("load-detail"),
  encoding: $("encoding"), model: $("model"), modelNote: $("model-note"), compare: $("compare"),
  openFile: $("open-file"), file: $("file"), fileNote: $("file-note"), specialNote: $("special-note"), drop: $("drop"),
  text: $("text"), stateNote: $("state-note"),
  count: $("token-count"), chars: $("char-count"), words: $("word-count"), cpt: $("chars-per-token"), bpt: $("bytes-per-token"),
  compareStats: $("compare-stats"), compareALabel: $("compare-a-label"), compareBLabel: $("compare-b-label"),
  compareA: $("compare-a-count"), compareB: $("compare-b-count"), compareDiff: $("compare-diff"),
  busy: $("busy"), error: $("error"),
  tokens: $("tokens"), tokensMore: $("tokens-more"), tokensShown: $("tokens-shown"), showMore: $("show-more"), tooltip: $("tooltip"),
  idsOut: $("ids-out"), copyIds: $("copy-ids"), copyStatus: $("copy-status"),
  idsIn: $("ids-in"), decodeError: $("decode-error"), decoded: $("decoded"),
};

const state = { encoding: DEFAULT_ENCODING, compare: "", special: "error", view: "tokens", shown: PAGE_TOKENS };
const tokenizers = new Map(); // picker value -> Promise<Tokenizer>
// Picker values of the open-model tokenizers in the bundle: their names, or "hf:<name>" for a name
// that is also an encoding's (GPT-2's tokenizer.json is "hf:gpt2"; "gpt2" is OpenAI's encoding).
let prepared = [];
const opened = new Map(); // picker value "file:N" -> the opened file's name
let openedCount = 0;
let latest = null; // the last inspection result shown
let largeText = null; // the whole text while it is too large for the box (see LARGE_TEXT_CHARS)
let noteKind = null; // what the note under the box is about: "large", "link" or "state"

/** Show (or, with text null, remove) the note under the box; a kind only removes its own note. */
function note(kind, text) {
  if (text === null) {
    if (noteKind !== kind) return;
    noteKind = null;
    els.stateNote.hidden = true;
    return;
  }
  noteKind = kind;
  els.stateNote.hidden = false;
  els.stateNote.textContent = text;
}

function currentText() {
  return largeText ?? els.text.value;
}

function setText(text) {
  if (text.length > LARGE_TEXT_CHARS) {
    largeText = text;
    els.text.value = `${text.slice(0, PREVIEW_CHARS)}\n…`;
    els.text.readOnly = true;
    note("large", `Large text (${number.format(text.length)} characters): the box shows only its beginning ` +
      "and cannot be edited, but every count covers the whole text; the link keeps only the settings. Clear to start over.");
  } else {
    note("large", null);
    largeText = null;
    els.text.readOnly = false;
    els.text.value = text;
  }
}
let sequence = 0; // increases with every edit; stale results are dropped

// ---------------------------------------------------------------- tokenizers and progress
/** A picker value as people read it: "Llama 3", "o200k_base", or an opened file's name. */
function label(name) {
  return opened.get(name) ?? LABELS[preparedName(name)] ?? name;
}

/** The prepared tokenizer a picker value stands for (see `prepared`). */
function preparedName(value) {
  return value.startsWith("hf:") ? value.slice(3) : value;
}

/** Whether a picker value is a tokenizer.json (prepared or opened), not an OpenAI encoding. */
function isTokenizerJson(name) {
  return opened.has(name) || prepared.includes(name);
}

function tokenizer(name) {
  if (!tokenizers.has(name)) {
    const what = prepared.includes(name) ? { tokenizer: preparedName(name) } : { encoding: name };
    const promise = createTokenizer({ ...what, assetsUrl: ASSETS, onProgress: showProgress });
    promise.catch(() => tokenizers.delete(name));
    tokenizers.set(name, promise);
  }
  return tokenizers.get(name);
}

function showProgress({ loaded, total }) {
  if (!total) return;
  els.progress.max = total;
  els.progress.value = loaded;
  els.loadDetail.textContent = loaded < total
    ? `${(loaded / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`
    : `${(total / 1e6).toFixed(1)} MB fetched; preparing the tokenizer…`;
  els.loading.classList.remove("done");
}

function policy() {
  if (state.special === "allow") return { allowedSpecial: "all" };
  if (state.special === "text") return { disallowedSpecial: [] };
  return {};
}

// ---------------------------------------------------------------- the main update
async function update() {
  const id = ++sequence;
  const text = currentText();
  const busyTimer = setTimeout(() => { if (id === sequence) els.busy.hidden = false; }, 120);
  try {
    const tok = await tokenizer(state.encoding);
    const [result, other] = await Promise.all([
      tok.inspect(text, { ...policy(), maxTokens: state.shown }),
      state.compare ? tokenizer(state.compare).then((t) => t.count(text, policy())) : null,
    ]);
    if (id !== sequence) return; // a newer edit is on its way
    latest = { ...result, text, tok };
    showError(null);
    renderStats(result, other);
    renderTokens();
    if (state.view === "ids") renderIds();
    els.loading.classList.add("done");
  } catch (err) {
    if (id !== sequence) return;
    showError(explain(err));
    els.loading.classList.add("done");
  } finally {
    clearTimeout(busyTimer);
    if (id === sequence) els.busy.hidden = true;
  }
}

function explain(err) {
  if (err.name === "DisallowedSpecialTokenError") {
    const token = /'(.+?)'/.exec(err.message)?.[1] ?? "a special token";
    return `The text contains the special token ${token}. Choose “encode as special tokens” to count it as one ` +
      "token, or “treat as plain text” to count its characters.";
  }
  if (err.name === "VocabFormatError" || err.name === "UnsupportedTokenizerError") {
    return `This tokenizer.json cannot be used: ${err.message}`;
  }
  if (err.name === "IntegrityError" || err.name === "AssetError") {
    return `The tokenizer could not be loaded: ${err.message}`;
  }
  return `${err.name}: ${err.message}`;
}

function showError(message) {
  els.error.hidden = !message;
  els.error.textContent = message ?? "";
  if (!message) return;
  // Nothing on screen may describe an earlier text.
  for (const el of [els.count, els.chars, els.words, els.cpt, els.bpt, els.compareA, els.compareB, els.compareDiff]) el.textContent = "–";
  latest = null;
  displayed = null;
  els.tokens.replaceChildren();
  els.tokensMore.hidden = true;
  els.idsOut.value = "";
  hideTooltip();
}

const number = new Intl.NumberFormat("en");

function renderStats(result, other) {
  els.count.textContent = number.format(result.count);
  els.chars.textContent = number.format(result.codePoints);
  els.words.textContent = number.format(result.words);
  els.cpt.textContent = result.count ? (result.codePoints / result.count).toFixed(2) : "–";
  els.bpt.textContent = result.count ? (result.utf8Bytes / result.count).toFixed(2) : "–";
  els.compareStats.hidden = !state.compare;
  if (state.compare && other !== null) {
    els.compareALabel.textContent = label(state.encoding);
    els.compareBLabel.textContent = label(state.compare);
    els.compareA.textContent = number.format(result.count);
    els.compareB.textContent = number.format(other);
    const diff = other - result.count;
    const pct = result.count ? ` (${diff >= 0 ? "+" : ""}${((100 * diff) / result.count).toFixed(1)}%)` : "";
    els.compareDiff.textContent = `${diff > 0 ? "+" : ""}${number.format(diff)}${pct}`;
  }
}

// ---------------------------------------------------------------- token spans
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const WS = { " ": "·", "\t": "→", "\n": "↵", "\r": "␍" };
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00a0\u3000]/u;

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, "0")).join(" ");
}

/** A token's bytes as runs of whole characters (strings) and stray bytes of split characters
 * (Uint8Arrays), so that " 🫠" cut after its first two bytes shows as "·" + "F0 9F". */
function byteRuns(raw) {
  const runs = [];
  let i = 0;
  while (i < raw.length) {
    const lead = raw[i];
    const size = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
    let text = null;
    if (size && i + size <= raw.length) {
      try {
        text = strict.decode(raw.subarray(i, i + size));
      } catch {
        // not a valid sequence: bytes
      }
    }
    const last = runs.at(-1);
    if (text !== null) {
      if (typeof last === "string") runs[runs.length - 1] = last + text;
      else runs.push(text);
      i += size;
    } else {
      if (last instanceof Uint8Array) runs[runs.length - 1] = raw.subarray(i - last.length, i + 1);
      else runs.push(raw.subarray(i, i + 1));
      i += 1;
    }
  }
  return runs;
}

/** Append `text` to `parent`, with whitespace and invisible characters made visible. */
function appendVisible(parent, text) {
  let plain = "";
  const flush = () => {
    if (plain) parent.append(plain);
    plain = "";
  };
  for (const ch of text) {
    if (ch in WS || INVISIBLE.test(ch)) {
      flush();
      const mark = document.createElement("span");
      mark.className = "ws";
      mark.textContent = WS[ch] ?? `⟨U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`;
      parent.append(mark);
      if (ch === "\n") parent.append("\n");
    } else {
      plain += ch;
    }
  }
  flush();
}

let displayed = null; // { ids, key } of the token spans on screen, to redraw only what changed

function tokenSpan(i, raw, specials) {
  const { text, ids, starts, ends } = latest;
  const span = document.createElement("span");
  span.className = `tok c${i % 7}`;
  span.tabIndex = i === 0 ? 0 : -1;
  span.dataset.index = String(i);
  const runs = byteRuns(raw);
  const whole = runs.length === 1 && typeof runs[0] === "string" ? runs[0] : null;
  if (whole === null) span.classList.add("partial");
  else if (specials.has(whole)) span.classList.add("special");
  for (const run of runs) {
    if (typeof run === "string") {
      appendVisible(span, run);
    } else {
      const bytesEl = document.createElement("span");
      bytesEl.className = "bytes";
      bytesEl.textContent = hex(run);
      span.append(bytesEl);
    }
  }
  const shown = whole === null ? `bytes ${hex(raw)}, part of “${text.slice(starts[i], ends[i])}”` : JSON.stringify(whole);
  span.setAttribute("aria-label", `token ${ids[i]}: ${shown}`);
  return span;
}

/** Draw the shown tokens. Spans before the first token that changed are kept: an edit redraws only
 * from there on (nothing at all when it lies beyond the tokens shown). */
function renderTokens() {
  const { ids, starts, lengths, bytes, count, tok } = latest;
  const n = starts.length;
  const key = `${tok.key}|${state.special}`;
  let keep = 0;
  if (displayed?.key === key) {
    const limit = Math.min(n, displayed.ids.length, els.tokens.children.length);
    while (keep < limit && displayed.ids[keep] === ids[keep]) keep++;
  }
  if (keep < els.tokens.children.length) {
    const range = document.createRange();
    range.setStartBefore(els.tokens.children[keep]);
    range.setEndAfter(els.tokens.lastChild);
    range.deleteContents();
  }
  // A tokenizer.json always reads its special tokens as such (as HF does); an OpenAI encoding when allowed.
  const matched = tok.info.family === "tokenizer.json" || state.special === "allow";
  const specials = matched ? new Set(tok.info.specialTokens) : new Set();
  const fragment = document.createDocumentFragment();
  let offset = 0;
  for (let i = 0; i < keep; i++) offset += lengths[i];
  for (let i = keep; i < n; i++) {
    fragment.append(tokenSpan(i, bytes.subarray(offset, offset + lengths[i]), specials));
    offset += lengths[i];
  }
  els.tokens.append(fragment);
  displayed = { ids: ids.slice(0, n), key };
  els.tokensMore.hidden = n >= count;
  els.tokensShown.textContent = `Showing the first ${number.format(n)} of ${number.format(count)} tokens.`;
  hideTooltip();
}

function tooltipText(i) {
  const { text, ids, starts, ends, lengths, bytes } = latest;
  let offset = 0;
  for (let k = 0; k < i; k++) offset += lengths[k];
  const raw = bytes.subarray(offset, offset + lengths[i]);
  const lines = [`id ${ids[i]}`, `bytes ${hex(raw)}`, `offsets [${starts[i]}, ${ends[i]}) (UTF-16)`];
  if (byteRuns(raw).some((run) => run instanceof Uint8Array)) {
    const chars = [...text.slice(starts[i], ends[i])].filter((ch) => ch.codePointAt(0) > 0x7f);
    const names = chars.map((ch) => `${ch} U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
    lines.push(`holds part of: ${names.join(", ")}`);
  }
  return lines.join("\n");
}

function showTooltip(span) {
  els.tooltip.textContent = tooltipText(Number(span.dataset.index));
  els.tooltip.hidden = false;
  const box = span.getBoundingClientRect();
  const tip = els.tooltip.getBoundingClientRect();
  const top = box.bottom + 6 + tip.height > innerHeight ? box.top - tip.height - 6 : box.bottom + 6;
  els.tooltip.style.top = `${Math.max(4, top)}px`;
  els.tooltip.style.left = `${Math.min(Math.max(4, box.left), innerWidth - tip.width - 8)}px`;
}

function hideTooltip() {
  els.tooltip.hidden = true;
}

els.tokens.addEventListener("mouseover", (e) => e.target.closest?.(".tok") && showTooltip(e.target.closest(".tok")));
els.tokens.addEventListener("mouseleave", hideTooltip);
els.tokens.addEventListener("focusin", (e) => e.target.classList?.contains("tok") && showTooltip(e.target));
els.tokens.addEventListener("focusout", hideTooltip);
els.tokens.addEventListener("keydown", (e) => {
  const current = e.target.closest?.(".tok");
  if (!current) return;
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: -Infinity, End: Infinity }[e.key];
  if (e.key === "Escape") return hideTooltip();
  if (step === undefined) return;
  e.preventDefault();
  const spans = els.tokens.children;
  const index = Math.min(spans.length - 1, Math.max(0, Number(current.dataset.index) + step));
  current.tabIndex = -1;
  spans[index].tabIndex = 0;
  spans[index].focus();
});
els.showMore.addEventListener("click", () => {
  state.shown += PAGE_TOKENS;
  update();
});

// ---------------------------------------------------------------- ids and ids -> text
/** The ids view holds every id: fetched (a full encode) only while that view is open. */
let idsSequence = 0;
async function renderIds() {
  const id = ++idsSequence;
  if (!latest) return;
  const { text, tok, count } = latest;
  const ids = count <= latest.ids.length ? latest.ids : await tok.encode(text, policy()).catch(() => null);
  if (id === idsSequence && ids) els.idsOut.value = JSON.stringify(Array.from(ids));
}

els.copyIds.addEventListener("click", async () => {
  await renderIds();
  try {
    await navigator.clipboard.writeText(els.idsOut.value);
    els.copyStatus.textContent = "Copied.";
  } catch {
    els.idsOut.select();
    els.copyStatus.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
  }
});

function parseIds(source) {
  const text = source.trim();
  if (!text) return [];
  if (text.startsWith("[")) {
    const value = JSON.parse(text);
    if (!Array.isArray(value)) throw new Error("expected a JSON array of token ids");
    return value;
  }
  return text.split(/[\s,]+/).map((part) => {
    const value = Number(part);
    if (part === "" || Number.isNaN(value)) throw new Error(`“${part}” is not a number`);
    return value;
  });
}

let decodeSequence = 0;
async function decodeIds() {
  const id = ++decodeSequence;
  let ids;
  try {
    ids = parseIds(els.idsIn.value);
  } catch (err) {
    return showDecode(null, `Cannot read the ids: ${err.message}.`);
  }
  try {
    const text = await (await tokenizer(state.encoding)).decode(ids);
    if (id === decodeSequence) showDecode(text, null);
  } catch (err) {
    if (id === decodeSequence) showDecode(null, `${err.name}: ${err.message}`);
  }
}

function showDecode(text, error) {
  els.decoded.textContent = text ?? "";
  els.decodeError.hidden = !error;
  els.decodeError.textContent = error ?? "";
}

els.idsIn.addEventListener("input", debounce(decodeIds, 100));

// ---------------------------------------------------------------- tabs
const tabs = ["tokens", "ids", "decode"];
function selectView(view, focus = false) {
  state.view = tabs.includes(view) ? view : "tokens";
  for (const name of tabs) {
    const tab = $(`tab-${name}`);
    const selected = name === state.view;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(`panel-${name}`).hidden = !selected;
    if (selected && focus) tab.focus();
  }
  if (state.view === "ids") renderIds();
  saveState();
}
for (const name of tabs) {
  const tab = $(`tab-${name}`);
  tab.addEventListener("click", () => selectView(name));
  tab.addEventListener("keydown", (e) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (step) selectView(tabs[(tabs.indexOf(name) + step + tabs.length) % tabs.length], true);
  });
}

// ---------------------------------------------------------------- state in the URL
function base64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unbase64url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function pipe(bytes, stream) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}

async function encodeText(text) {
  const utf8 = new TextEncoder().encode(text);
  if (utf8.length < 512) return ["t", base64url(utf8)];
  return ["z", base64url(await pipe(utf8, new CompressionStream("deflate-raw")))];
}

async function decodeText(key, value) {
  const bytes = unbase64url(value);
  const utf8 = key === "z" ? await pipe(bytes, new DecompressionStream("deflate-raw")) : bytes;
  return new TextDecoder("utf-8", { fatal: true }).decode(utf8);
}

let saveTimer = 0;
function saveState() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(async () => {
    const params = new URLSearchParams();
    // An opened file is not kept in the link (its content never leaves the page): the link then
    // holds the other settings only.
    if (!opened.has(state.encoding)) params.set("e", state.encoding);
    if (state.compare && !opened.has(state.compare)) params.set("c", state.compare);
    if (state.special !== "error") params.set("s", state.special);
    if (state.view !== "tokens") params.set("v", state.view);
    // Compressed text takes about 0.45 characters of link per character; skip the work when it
    // cannot fit (compressing a megabyte costs the page a noticeable pause).
    const fits = largeText === null && els.text.value.length <= URL_TEXT_LIMIT * 2;
    const [key, value] = fits ? await encodeText(els.text.value) : ["t", null];
    if (largeText !== null) {
      // the large-text note stays; it says the link keeps only the settings
    } else if (value !== null && value.length <= URL_TEXT_LIMIT) {
      params.set(key, value);
      note("link", null);
    } else {
      note("link", "This text is too long to keep in the link; the link keeps only the settings.");
    }
    history.replaceState(null, "", `#${params}`);
  }, 250);
}

/** Read the state in the URL's hash; a damaged part is reported and left at its default. */
async function loadState(names) {
  const params = new URLSearchParams(location.hash.slice(1));
  const problems = [];
  const encoding = params.get("e");
  if (encoding !== null) {
    if (names.includes(encoding)) state.encoding = encoding;
    else problems.push(`unknown tokenizer “${encoding}”`);
  }
  const compare = params.get("c");
  if (compare !== null) {
    if (names.includes(compare)) state.compare = compare;
    else problems.push(`unknown tokenizer “${compare}” to compare with`);
  }
  const special = params.get("s");
  if (special !== null) {
    if (["error", "allow", "text"].includes(special)) state.special = special;
    else problems.push(`unknown special-token setting “${special}”`);
  }
  state.view = tabs.includes(params.get("v")) ? params.get("v") : "tokens";
  for (const key of ["t", "z"]) {
    if (!params.has(key)) continue;
    try {
      setText(await decodeText(key, params.get(key)));
    } catch {
      problems.push("the saved text is damaged");
    }
  }
  if (problems.length) {
    note("state", `The link's saved state could not be fully read (${problems.join("; ")}); defaults are used instead.`);
  }
}

// ---------------------------------------------------------------- controls
function debounce(fn, ms) {
  let timer = 0;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** Fill a tokenizer picker: OpenAI encodings, then the prepared open models, then opened files. */
function fillPicker(select, encodings, extra = []) {
  const group = (title, names) => {
    const el = document.createElement("optgroup");
    el.label = title;
    el.append(...names.map((n) => new Option(label(n), n)));
    return el;
  };
  select.replaceChildren(...extra.map(([value, text]) => new Option(text, value)), group("OpenAI encodings", encodings));
  if (prepared.length) select.append(group("Open models (tokenizer.json)", prepared));
  const files = group("Opened files", []);
  files.dataset.opened = "";
  files.hidden = true;
  select.append(files);
}

function applyStateToControls() {
  els.encoding.value = state.encoding;
  els.compare.value = state.compare;
  for (const radio of document.querySelectorAll('input[name="special"]')) radio.checked = radio.value === state.special;
  showSpecialNote();
}

/** The special-token choices apply to OpenAI encodings only: say so while a tokenizer.json is picked. */
function showSpecialNote() {
  const json = isTokenizerJson(state.encoding);
  els.specialNote.hidden = !json;
  if (json) {
    els.specialNote.textContent = `${label(state.encoding)} always reads its special tokens in the text as special tokens ` +
      "(as Hugging Face tokenizers do); these choices apply to OpenAI encodings.";
  }
}

// ---------------------------------------------------------------- opening a tokenizer.json
/** Read a tokenizer.json File in this page (the runtime parses it; nothing is sent anywhere), add it
 * to both pickers and pick it. */
async function openFile(file) {
  if (!file) return;
  els.fileNote.classList.remove("failed");
  els.fileNote.textContent = `Reading ${file.name}…`;
  try {
    const tok = await createTokenizer({ tokenizerJson: file, name: file.name, assetsUrl: ASSETS, onProgress: showProgress });
    const value = `file:${++openedCount}`;
    opened.set(value, file.name);
    tokenizers.set(value, Promise.resolve(tok));
    for (const select of [els.encoding, els.compare]) {
      const group = select.querySelector("optgroup[data-opened]");
      group.append(new Option(file.name, value));
      group.hidden = false;
    }
    state.encoding = value;
    els.encoding.value = value;
    els.fileNote.textContent = `${file.name}: ${number.format(tok.info.vocabSize)} tokens, read in this page ` +
      "(nothing was sent anywhere; the link keeps the other settings, not the file).";
    showSpecialNote();
    state.shown = PAGE_TOKENS;
    saveState();
    update();
  } catch (err) {
    els.fileNote.classList.add("failed");
    const unusable = err.name === "VocabFormatError" || err.name === "UnsupportedTokenizerError";
    els.fileNote.textContent = unusable ? `${file.name} cannot be used: ${err.message}` : `${file.name}: ${explain(err)}`;
  } finally {
    els.loading.classList.add("done");
  }
}

els.openFile.addEventListener("click", () => els.file.click());
els.file.addEventListener("change", () => {
  openFile(els.file.files[0]);
  els.file.value = ""; // the same file may be opened again
});
const carriesFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes("Files");
let dragDepth = 0;
document.addEventListener("dragenter", (e) => {
  if (!carriesFiles(e)) return;
  dragDepth += 1;
  els.drop.hidden = false;
});
document.addEventListener("dragleave", (e) => {
  if (!carriesFiles(e)) return;
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) els.drop.hidden = true;
});
document.addEventListener("dragover", (e) => {
  if (carriesFiles(e)) e.preventDefault(); // lets the page take the drop instead of navigating to the file
});
document.addEventListener("drop", (e) => {
  if (!carriesFiles(e)) return;
  e.preventDefault();
  dragDepth = 0;
  els.drop.hidden = true;
  openFile(e.dataTransfer.files[0]);
});

async function onModel() {
  const model = els.model.value.trim();
  if (!model) return;
  try {
    const tok = await createTokenizer({ model, assetsUrl: ASSETS, onProgress: showProgress });
    const name = tok.encoding;
    tok.dispose();
    state.encoding = name;
    els.encoding.value = name;
    showSpecialNote();
    els.model.setCustomValidity("");
    els.modelNote.textContent = `${model} uses ${name}.`;
    saveState();
    update();
  } catch (err) {
    els.model.setCustomValidity(err.message);
    els.modelNote.textContent = err.name === "UnknownModelError"
      ? `Unknown model “${model}”: pick an encoding instead.`
      : `${err.name}: ${err.message}`;
  }
}

async function main() {
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("./sw.js").catch((err) => console.warn("offline mode unavailable:", err));
  }
  let encodings = [DEFAULT_ENCODING];
  try {
    [encodings, prepared] = await Promise.all([listEncodings({ assetsUrl: ASSETS }), listTokenizers({ assetsUrl: ASSETS })]);
    prepared = prepared.map((name) => (encodings.includes(name) ? `hf:${name}` : name));
  } catch (err) {
    els.loading.classList.add("failed");
    els.loadDetail.textContent = `cannot read the tokenizer's manifest (${err.message})`;
  }
  fillPicker(els.encoding, encodings);
  fillPicker(els.compare, encodings, [["", "nothing"]]);
  await loadState([...encodings, ...prepared]);
  applyStateToControls();
  selectView(state.view);
  els.encoding.disabled = els.compare.disabled = false;

  const onEdit = () => {
    state.shown = PAGE_TOKENS;
    saveState();
    update();
  };
  els.text.addEventListener("input", onEdit);
  els.text.addEventListener("paste", (e) => {
    const pasted = e.clipboardData?.getData("text/plain") ?? "";
    const box = els.text;
    if (box.value.length - (box.selectionEnd - box.selectionStart) + pasted.length <= LARGE_TEXT_CHARS) return;
    e.preventDefault();
    setText(box.value.slice(0, box.selectionStart) + pasted + box.value.slice(box.selectionEnd));
    onEdit();
  });
  els.encoding.addEventListener("change", () => {
    state.encoding = els.encoding.value;
    showSpecialNote();
    els.model.value = "";
    els.modelNote.textContent = "";
    els.model.setCustomValidity("");
    onEdit();
    if (els.idsIn.value) decodeIds();
  });
  els.compare.addEventListener("change", () => {
    state.compare = els.compare.value;
    els.compareStats.hidden = !state.compare;
    onEdit();
  });
  for (const radio of document.querySelectorAll('input[name="special"]')) {
    radio.addEventListener("change", () => {
      state.special = radio.value;
      onEdit();
    });
  }
  els.model.addEventListener("change", onModel);
  for (const button of document.querySelectorAll("[data-sample]")) {
    button.addEventListener("click", () => {
      setText(SAMPLES[button.dataset.sample]);
      onEdit();
    });
  }
  $("clear").addEventListener("click", () => {
    setText("");
    onEdit();
    els.text.focus();
  });
  if (!els.text.value && !location.hash) setText(SAMPLES.english);
  await update();
}

main();
