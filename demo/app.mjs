// The playground page: DOM and URL glue around bytepair's JavaScript API. Every token, count, offset
// and error comes from the Python core (bytepair.mjs runs it in a Web Worker); this file only shows
// them and keeps the page state in the URL. One picker holds both families: the OpenAI encodings and
// the open-model tokenizers prepared in the bundle (each fetched only when picked), and any other
// tokenizer.json opened from a file (read in the page; its content never goes into the link).
import { createTokenizer, listEncodings, listTokenizers } from "./bytepair/bytepair.mjs";
import { setupTrainTab } from "./train-tab.mjs";
import { setupAnalyse } from "./analyse.mjs";
import { setupChat } from "./chat.mjs";

const ASSETS = new URL("./bytepair/", import.meta.url).href;
const DEFAULT_ENCODING = "o200k_base";
// Names shown for the prepared open-model tokenizers (others show their own name).
const LABELS = {
  llama3: "Llama 3", qwen2_5: "Qwen 2.5", qwen3: "Qwen 3", deepseek_v3: "DeepSeek V3", gpt2: "GPT-2",
  bert_minilm: "BERT · WordPiece (all-MiniLM-L6-v2)", unigram_botchan: "Unigram · SentencePiece (botchan, 1k)",
};
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
  loading: $("loading"), progress: $("load-progress"), loadDetail: $("load-detail"), loadElapsed: $("load-elapsed"),
  encoding: $("encoding"), model: $("model"), modelNote: $("model-note"), compare: $("compare"),
  openFile: $("open-file"), file: $("file"), fileNote: $("file-note"), specialNote: $("special-note"), drop: $("drop"),
  copyLink: $("copy-link"), linkNote: $("link-note"),
  text: $("text"), backdrop: $("text-backdrop"), stateNote: $("state-note"), openText: $("open-text"), textFile: $("text-file"),
  count: $("token-count"), chars: $("char-count"), words: $("word-count"), cpt: $("chars-per-token"), bpt: $("bytes-per-token"),
  specialFound: $("special-found"), specialFoundText: $("special-found-text"),
  compareStats: $("compare-stats"), compareALabel: $("compare-a-label"), compareBLabel: $("compare-b-label"),
  compareA: $("compare-a-count"), compareB: $("compare-b-count"), compareDiff: $("compare-diff"),
  compareATpw: $("compare-a-tpw"), compareBTpw: $("compare-b-tpw"), compareACpt: $("compare-a-cpt"), compareBCpt: $("compare-b-cpt"),
  compareSpans: $("compare-spans"), compareSummary: $("compare-summary"), compareExamples: $("compare-examples"),
  busy: $("busy"), error: $("error"), live: $("count-live"),
  tokens: $("tokens"), tokensB: $("tokens-b"), tokenIds: $("token-ids"), paneB: $("pane-b"),
  paneAHead: $("pane-a-head"), paneBHead: $("pane-b-head"),
  tokensMore: $("tokens-more"), tokensShown: $("tokens-shown"), showMore: $("show-more"), tooltip: $("tooltip"),
  idsOut: $("ids-out"), copyIds: $("copy-ids"), copyStatus: $("copy-status"),
  idsIn: $("ids-in"), decodeError: $("decode-error"), decoded: $("decoded"),
};

const state = { encoding: DEFAULT_ENCODING, compare: "", model: "", special: "error", view: "tokens", shown: PAGE_TOKENS };
const TEXT_POLICY = { disallowedSpecial: [] };
const tokenizers = new Map(); // picker value -> Promise<Tokenizer>
// Picker values of the open-model tokenizers in the bundle: their names, or "hf:<name>" for a name
// that is also an encoding's (GPT-2's tokenizer.json is "hf:gpt2"; "gpt2" is OpenAI's encoding).
let prepared = [];
const opened = new Map(); // picker value "file:N" -> the opened file's name
let openedCount = 0;
let runtimeReady = false; // the first tokenizer has loaded (later loads skip Pyodide's start)
let touched = false; // the link is written only once the user has changed something
let noteKind = null; // what the note under the box is about: "large", "cr", "edited", "file", "link" or "state"
let sequence = 0; // increases with every edit; stale results are dropped

// The two token panes: "a" for the picked tokenizer, "b" for the one compared with. `data` is the
// last inspection shown there (with its text, tokenizer, policy and each token's byte offset); `spans`
// and `idSpans` are the drawn tokens and ids by index, `slices` the blocks they are drawn in.
const panes = {
  a: { el: els.tokens, idsEl: els.tokenIds, head: els.paneAHead, data: null, displayed: null, differs: new Set(), slices: [], spans: [], idSpans: [], drawing: 0 },
  b: { el: els.tokensB, idsEl: null, head: els.paneBHead, data: null, displayed: null, differs: new Set(), slices: [], spans: [], idSpans: [], drawing: 0 },
};

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

// ---------------------------------------------------------------- the text counted and the text shown
// Usually the text counted is the box's value. Two kinds of text are held here instead, exactly:
// a text too large for the box (the box shows its beginning, read-only), and a text with CR line ends
// (a textarea turns CRLF and CR into LF, which would change the count: a 10 kB CRLF file counts 10
// tokens fewer). `crs` are the offsets of the CRs the box drops, to map offsets between the two.
let held = null; // null | { text, kind: "large" | "cr", from, name, crs, boxCrs, limit }

function currentText() {
  return held?.text ?? els.text.value;
}

/** Offsets (UTF-16) of each CR followed by LF: the characters the box drops. */
function droppedCrs(text) {
  const crs = [];
  for (let i = text.indexOf("\r\n"); i !== -1; i = text.indexOf("\r\n", i + 2)) crs.push(i);
  return crs;
}

/** How many of the sorted numbers are below x. */
function countBelow(sorted, x) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An offset in the counted text as an offset in the box (null if the box does not show it). */
function toBox(offset) {
  if (!held) return offset;
  if (held.limit !== null && offset > held.limit) return null;
  return offset - countBelow(held.crs, offset);
}

/** An offset in the box as an offset in the counted text (a box LF that stands for CRLF maps to the CR). */
function fromBox(offset) {
  if (!held) return offset;
  if (held.limit !== null && offset > held.limit) return null;
  return offset + countBelow(held.boxCrs, offset);
}

/** Put a text in the box; `from` ("file", "link", "paste" or "sample") and `name` say where it came from. */
function setText(text, { from = "sample", name = "" } = {}) {
  unmarkText();
  const large = text.length > LARGE_TEXT_CHARS;
  if (large || text.includes("\r")) {
    const crs = droppedCrs(text);
    held = { text, kind: large ? "large" : "cr", from, name, crs, boxCrs: crs.map((p, i) => p - i), limit: large ? PREVIEW_CHARS : null };
    els.text.value = large ? `${text.slice(0, PREVIEW_CHARS)}\n…` : text;
    els.text.readOnly = large;
    if (large) {
      note("large", `Large text (${number.format(text.length)} characters): the box shows only its beginning ` +
        "and cannot be edited, but every count covers the whole text; the link keeps only the settings. Clear to start over.");
    } else {
      note("cr", `${crSource()} has ${lineEnds()} line ends: counting as in the ${from === "link" ? "link" : "file"}…`);
    }
  } else {
    for (const kind of ["large", "cr", "edited", "file"]) note(kind, null);
    held = null;
    els.text.readOnly = false;
    els.text.value = text;
  }
}

function crSource() {
  if (held?.from === "file") return held.name;
  return held?.from === "link" ? "The text in the link" : "The pasted text";
}

function lineEnds() {
  const crlf = held.crs.length;
  const lone = (held.text.match(/\r/g)?.length ?? 0) - crlf;
  return lone === 0 ? "CRLF" : crlf === 0 ? "CR" : "CRLF and CR";
}

/** After a count: say that a CR text was counted as held, not as the box shows it. */
function showCrNote(count) {
  if (held?.kind !== "cr") return;
  const where = held.from === "link" ? "link" : held.from === "file" ? "file" : "paste";
  note("cr", `${crSource()} has ${lineEnds()} line ends: counted as in the ${where} (${number.format(count)} tokens); ` +
    "the text box shows LF.");
}

// ---------------------------------------------------------------- tokenizers and progress
/** A picker value as people read it: "Llama 3", "o200k_base", or an opened file's name (OpenAI's
 * "gpt2" stays "gpt2": "GPT-2" is the prepared tokenizer.json, "hf:gpt2"). */
function label(name) {
  return opened.get(name) ?? (isTokenizerJson(name) ? LABELS[preparedName(name)] : undefined) ?? name;
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
    const promise = createTokenizer({ ...what, assetsUrl: ASSETS, onProgress: (p) => showProgress(p, name) });
    promise.then(() => (runtimeReady = true), () => tokenizers.delete(name));
    tokenizers.set(name, promise);
  }
  return tokenizers.get(name);
}

let loadTimer = 0;
/** The progress bar counts bytes; once they are all in, the runtime reports its phases (compiling
 * the WebAssembly module, starting Python, building the first ranks: 1-2 s more on a cold start), and
 * the note names the one under way, with the time so far. */
function showProgress({ loaded, total, phase, wireLoaded, wireTotal, wireKnown }, name = state.encoding) {
  if (!total) return;
  // What the network carries (the server sends Brotli copies: 7.5 MB where the files hold 30 MB),
  // once every file's response has said its length.
  if (wireTotal) {
    if (!wireKnown && (phase === undefined || phase === "fetching")) {
      els.loadDetail.textContent = "connecting…";
      return;
    }
    [loaded, total] = [wireLoaded, wireTotal];
  }
  els.progress.max = total;
  els.progress.value = loaded;
  els.loading.classList.remove("done");
  const mb = (n) => (n / 1e6).toFixed(1);
  if (loaded < total && (phase === undefined || phase === "fetching")) {
    clearInterval(loadTimer);
    els.loadElapsed.textContent = "";
    els.loadDetail.textContent = `${mb(loaded)} of ${mb(total)} MB`;
    return;
  }
  const data = isTokenizerJson(name) ? `reading the ${label(name)} tokenizer.json` : `loading the ${label(name)} ranks`;
  const step = {
    compiling: "compiling WebAssembly",
    starting: "starting Python",
    ranks: data,
    ready: "ready",
  }[phase] ?? (runtimeReady ? data : `compiling WebAssembly, starting Python, ${data}`);
  const text = `${mb(total)} MB fetched; ${step}…`;
  if (els.loadDetail.textContent === text) return;
  els.loadDetail.textContent = text;
  clearInterval(loadTimer);
  const since = performance.now();
  loadTimer = setInterval(() => (els.loadElapsed.textContent = `${((performance.now() - since) / 1000).toFixed(1)} s`), 100);
}

function loadingDone() {
  clearInterval(loadTimer);
  els.loading.classList.add("done");
}

function policy() {
  if (state.special === "allow") return { allowedSpecial: "all" };
  if (state.special === "text") return TEXT_POLICY;
  return {};
}

// ---------------------------------------------------------------- the main update
/** Inspect under the chosen policy; while asking ("error"), a special token found in the text is
 * reported and the text counted as plain text meanwhile, so that the counts stay in view. */
async function inspectAsking(tok, text) {
  try {
    return { result: await tok.inspect(text, { ...policy(), maxTokens: state.shown }), policy: policy(), found: null };
  } catch (err) {
    if (err.name !== "DisallowedSpecialTokenError") throw err;
    const result = await tok.inspect(text, { ...TEXT_POLICY, maxTokens: state.shown });
    return { result, policy: TEXT_POLICY, found: err.token ?? /'(.+?)'/.exec(err.message)?.[1] ?? "a special token" };
  }
}

/** A pane's data: the inspection with what it was made from, and each shown token's byte offset. */
function paneData({ result, policy: used }, text, tok) {
  const offsets = new Uint32Array(result.lengths.length + 1);
  for (let i = 0; i < result.lengths.length; i++) offsets[i + 1] = offsets[i] + result.lengths[i];
  return { ...result, text, tok, policy: used, offsets };
}

async function update() {
  const id = ++sequence;
  const text = currentText();
  const busyTimer = setTimeout(() => { if (id === sequence) els.busy.hidden = false; }, 120);
  try {
    const [tok, otherTok] = await Promise.all([tokenizer(state.encoding), state.compare ? tokenizer(state.compare) : null]);
    const [a, b] = await Promise.all([inspectAsking(tok, text), otherTok ? inspectAsking(otherTok, text) : null]);
    const foundIn = a.found ? [tok, a.found] : b?.found ? [otherTok, b.found] : null;
    const asSpecial = foundIn ? await foundIn[0].count(text, { allowedSpecial: "all" }) : null;
    if (id !== sequence) return; // a newer edit is on its way
    panes.a.data = paneData(a, text, tok);
    panes.b.data = b ? paneData(b, text, otherTok) : null;
    showError(null);
    renderStats();
    renderSpecialFound(foundIn, asSpecial);
    renderTokens(panes.a);
    renderTokens(panes.b);
    renderDiff();
    if (state.view === "ids") renderIds();
    showCrNote(a.result.count);
    announce();
    loadingDone();
  } catch (err) {
    if (id !== sequence) return;
    showError(explain(err));
    loadingDone();
  } finally {
    clearTimeout(busyTimer);
    if (id === sequence) els.busy.hidden = true;
  }
}

function explain(err) {
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
  for (const pane of Object.values(panes)) {
    pane.data = null;
    pane.displayed = null;
    pane.el.replaceChildren();
    pane.idsEl?.replaceChildren();
  }
  els.specialFound.hidden = true;
  els.tokensMore.hidden = true;
  els.idsOut.value = "";
  els.live.textContent = message;
  hideTooltip();
}

const number = new Intl.NumberFormat("en");
const ratio = (x, y) => (y ? (x / y).toFixed(2) : "–");

function renderStats() {
  const a = panes.a.data;
  const b = panes.b.data;
  els.count.textContent = number.format(a.count);
  els.chars.textContent = number.format(a.codePoints);
  els.words.textContent = number.format(a.words);
  els.cpt.textContent = ratio(a.codePoints, a.count);
  els.bpt.textContent = ratio(a.utf8Bytes, a.count);
  els.compareStats.hidden = !b;
  els.compareSummary.hidden = !b;
  els.paneB.hidden = !b;
  els.paneAHead.hidden = !b;
  if (!b) return;
  els.compareALabel.textContent = label(state.encoding);
  els.compareBLabel.textContent = label(state.compare);
  els.compareA.textContent = number.format(a.count);
  els.compareB.textContent = number.format(b.count);
  els.compareATpw.textContent = ratio(a.count, a.words);
  els.compareBTpw.textContent = ratio(b.count, b.words);
  els.compareACpt.textContent = ratio(a.codePoints, a.count);
  els.compareBCpt.textContent = ratio(b.codePoints, b.count);
  const diff = b.count - a.count;
  const pct = a.count ? ` (${diff >= 0 ? "+" : ""}${((100 * diff) / a.count).toFixed(1)}%)` : "";
  els.compareDiff.textContent = `${diff > 0 ? "+" : ""}${number.format(diff)}${pct}`;
  panes.a.head.textContent = `${label(state.encoding)}: ${number.format(a.count)} tokens`;
  panes.b.head.textContent = `${label(state.compare)}: ${number.format(b.count)} tokens`;
}

/** While asking, a special token in the text: say how it was counted and offer both choices. */
function renderSpecialFound(foundIn, asSpecial) {
  els.specialFound.hidden = !foundIn;
  if (!foundIn) return;
  const [tok, token] = foundIn;
  const asText = (tok === panes.a.data.tok ? panes.a.data : panes.b.data).count;
  const who = tok === panes.a.data.tok ? "" : ` (${label(state.compare)})`;
  const code = document.createElement("code");
  code.textContent = token;
  els.specialFoundText.replaceChildren("The text contains the special token ", code, `${who}. Counted as plain text for now: ` +
    `${number.format(asText)} tokens; encoded as special tokens it would be ${number.format(asSpecial)}.`);
}

let announceTimer = 0;
/** Tell screen readers the count once typing pauses (the live region is polite). */
function announce() {
  clearTimeout(announceTimer);
  const a = panes.a.data;
  const b = panes.b.data;
  const text = b
    ? `${number.format(a.count)} tokens with ${label(state.encoding)}, ${number.format(b.count)} with ${label(state.compare)}`
    : `${number.format(a.count)} tokens`;
  announceTimer = setTimeout(() => (els.live.textContent = text), 500);
}

// ---------------------------------------------------------------- token spans
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
// CR shows as "\r": fonts rarely have U+240D (␍).
const WS = { " ": "·", "\t": "→", "\n": "↵", "\r": "\\r" };
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

/** Append `text` to `parent` on one line, with whitespace and invisible characters made visible;
 * returns how many newlines it held (the caller breaks the line after the token). */
function appendVisible(parent, text) {
  let plain = "";
  let newlines = 0;
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
      if (ch === "\n") newlines += 1;
    } else {
      plain += ch;
    }
  }
  flush();
  return newlines;
}

/** One token's box, and how many line breaks follow it. */
function tokenSpan(data, i, specials) {
  const { text, ids, starts, ends, bytes, offsets } = data;
  const raw = bytes.subarray(offsets[i], offsets[i + 1]);
  const span = document.createElement("span");
  span.className = `tok c${i % 7}`;
  span.tabIndex = i === 0 ? 0 : -1;
  span.dataset.index = String(i);
  const runs = byteRuns(raw);
  const whole = runs.length === 1 && typeof runs[0] === "string" ? runs[0] : null;
  if (whole === null) span.classList.add("partial");
  else if (specials.has(whole)) span.classList.add("special");
  let newlines = 0;
  for (const run of runs) {
    if (typeof run === "string") {
      newlines += appendVisible(span, run);
    } else {
      const bytesEl = document.createElement("span");
      bytesEl.className = "bytes";
      bytesEl.textContent = hex(run);
      span.append(bytesEl);
    }
  }
  const shown = whole === null ? `bytes ${hex(raw)}, part of “${text.slice(starts[i], ends[i])}”` : JSON.stringify(whole);
  span.setAttribute("aria-label", `token ${ids[i]}: ${shown}`);
  return [span, newlines];
}

/** Tokens are drawn in slices: blocks that end where a line ends anyway (after a token holding a newline)
 * once they hold SLICE_TOKENS tokens; a long line with no newline is cut at 4 times that (the line then
 * ends early there, and the next slice opens with a continuation mark, class "cont"). Slices have
 * `content-visibility: auto` (style.css), so the browser styles, lays out and paints only those in view.
 * The first two slices of a redraw are drawn at once; the rest follow in later tasks, a few at a time,
 * with `content-visibility: hidden` (class "later"), and turn `auto` together once a frame has passed
 * (Chromium draws every newly inserted `auto` block in its first frame, in view or not).
 * Drawn as one run, 2,000 tokens and their ids held the page for 250 ms (5,500 elements in one line
 * layout) at every update of a long text, and for over 700 ms on a busy machine. */
const SLICE_TOKENS = 100;

/** Draw a pane's shown tokens (and, for the first pane, their ids). Slices wholly before the first token
 * that changed are kept: an edit redraws only from there on (nothing when it lies beyond the tokens shown). */
function renderTokens(pane) {
  const drawing = ++pane.drawing; // a later redraw stops this one's remaining slices
  const data = pane.data;
  const key = data && `${data.tok.key}|${JSON.stringify(data.policy)}`;
  let keep = 0;
  if (data && pane.displayed?.key === key) {
    const limit = Math.min(data.starts.length, pane.displayed.ids.length, pane.spans.length);
    while (keep < limit && pane.displayed.ids[keep] === data.ids[keep]) keep++;
  }
  let kept = 0;
  while (kept < pane.slices.length && pane.slices[kept].end <= keep) kept++;
  for (const slice of pane.slices.splice(kept)) {
    slice.el.remove();
    slice.idsEl?.remove();
  }
  let next = kept ? pane.slices[kept - 1].end : 0;
  pane.spans.length = next;
  pane.idSpans.length = next;
  pane.differs.clear();
  if (!data) {
    pane.displayed = null;
    return;
  }
  const { ids, starts, count, tok } = data;
  const n = starts.length;
  // A tokenizer.json always reads its special tokens as such (as HF does); an OpenAI encoding when allowed.
  const matched = tok.info.family === "tokenizer.json" || data.policy.allowedSpecial === "all";
  const specials = matched ? new Set(tok.info.specialTokens) : new Set();
  // Slices kept from a drawing that this one stopped before it showed them (class "later") are shown
  // with this drawing's own: else an edit arriving mid-drawing left them hidden for good.
  const later = pane.slices.flatMap((slice) => (slice.el.classList.contains("later") ? [slice.el, slice.idsEl] : []));
  const drawSlices = (most, className) => {
    const fragment = document.createDocumentFragment();
    const idFragment = document.createDocumentFragment();
    for (let k = 0; k < most && next < n; k++) {
      const previous = pane.slices[pane.slices.length - 1];
      const slice = { start: next, end: next, el: document.createElement("div"), idsEl: null, endsLine: false };
      // A slice that begins inside a line (the one before was cut at 4 × SLICE_TOKENS) starts on a new row
      // all the same: it is marked as the line's continuation, as editors mark a soft wrap.
      slice.el.className = previous && !previous.endsLine ? `${className} cont` : className;
      if (pane.idsEl) {
        slice.idsEl = document.createElement("div");
        slice.idsEl.className = className;
      }
      for (let i = next; i < n;) {
        const [span, newlines] = tokenSpan(data, i, specials);
        if (pane.differs.has(i)) span.classList.add("differs"); // renderDiff ran after the first slices
        slice.el.append(span);
        if (newlines) slice.el.append("\n".repeat(newlines));
        pane.spans.push(span);
        if (slice.idsEl) {
          const idEl = document.createElement("span");
          idEl.className = `tid c${i % 7}`;
          idEl.dataset.index = String(i);
          idEl.textContent = String(ids[i]);
          slice.idsEl.append(idEl);
          pane.idSpans.push(idEl);
        }
        slice.end = ++i;
        slice.endsLine = newlines > 0;
        if ((newlines && i - slice.start >= SLICE_TOKENS) || i - slice.start >= 4 * SLICE_TOKENS) break;
      }
      next = slice.end;
      pane.slices.push(slice);
      fragment.append(slice.el);
      if (slice.idsEl) idFragment.append(slice.idsEl);
      if (className !== "slice") later.push(slice.el, slice.idsEl);
    }
    pane.el.append(fragment);
    pane.idsEl?.append(idFragment);
  };
  const drawLater = () => {
    if (pane.drawing !== drawing) return;
    if (next < n) {
      drawSlices(4, "slice later");
      setTimeout(drawLater);
    } else {
      requestAnimationFrame(() => setTimeout(() => {
        if (pane.drawing === drawing) for (const el of later) el?.classList.remove("later");
      }));
    }
  };
  drawSlices(2, "slice");
  if (next < n || later.length) setTimeout(drawLater);
  pane.displayed = { ids: ids.slice(0, n), key };
  if (pane === panes.a) {
    els.tokensMore.hidden = n >= count && (panes.b.data?.starts.length ?? 0) >= (panes.b.data?.count ?? 0);
    els.tokensShown.textContent = `Showing the first ${number.format(n)} of ${number.format(count)} tokens.`;
  }
  hideTooltip();
  clearLinks();
}

// ---------------------------------------------------------------- compare: which spans split differently
/** Walk both tokenizations' shown tokens by their end offsets: an offset where both have a token end
 * closes a span; a span that is not one same token on both sides is split differently. */
function splitDifferences(a, b) {
  const spans = [];
  let total = 0;
  let i = 0;
  let j = 0;
  let start = 0;
  let i0 = 0;
  let j0 = 0;
  while (i < a.ends.length && j < b.ends.length) {
    const ea = a.ends[i];
    const eb = b.ends[j];
    if (ea < eb) i++;
    else if (eb < ea) j++;
    else {
      while (i < a.ends.length && a.ends[i] === ea) i++;
      while (j < b.ends.length && b.ends[j] === ea) j++;
      total += 1;
      if (i - i0 !== 1 || j - j0 !== 1) spans.push({ start, end: ea, a: [i0, i], b: [j0, j] });
      start = ea;
      i0 = i;
      j0 = j;
    }
  }
  return { spans, total, complete: a.starts.length === a.count && b.starts.length === b.count };
}

function renderDiff() {
  const a = panes.a.data;
  const b = panes.b.data;
  els.compareExamples.replaceChildren();
  if (!a || !b) return;
  const { spans, total, complete } = splitDifferences(a, b);
  for (const span of spans) {
    for (let k = span.a[0]; k < span.a[1]; k++) panes.a.differs.add(k);
    for (let k = span.b[0]; k < span.b[1]; k++) panes.b.differs.add(k);
  }
  for (const pane of [panes.a, panes.b]) {
    pane.spans.forEach((span, k) => span.classList.toggle("differs", pane.differs.has(k)));
  }
  const scope = complete ? "" : " among the tokens shown";
  els.compareSpans.textContent = `${number.format(spans.length)} of ${number.format(total)} spans${scope} are split ` +
    `differently (underlined in both token lists)${spans.length ? "; the largest differences:" : "."}`;
  const largest = spans
    .map((span) => ({ ...span, na: span.a[1] - span.a[0], nb: span.b[1] - span.b[0] }))
    .sort((x, y) => Math.abs(y.na - y.nb) - Math.abs(x.na - x.nb) || y.end - y.start - (x.end - x.start))
    .slice(0, 5);
  for (const span of largest) {
    const item = document.createElement("li");
    item.dataset.start = String(span.start);
    item.dataset.end = String(span.end);
    const code = document.createElement("code");
    const excerpt = a.text.slice(span.start, Math.min(span.end, span.start + 40));
    appendVisible(code, excerpt + (span.end - span.start > 40 ? "…" : ""));
    // Spans with the same count on both sides come last (split at different places, no count difference).
    const counts = span.na === span.nb
      ? `${span.na} tokens on both sides, split at different places`
      : `${label(state.encoding)} ${span.na}, ${label(state.compare)} ${span.nb} tokens`;
    item.append(code, `: ${counts}`);
    els.compareExamples.append(item);
  }
}

// ---------------------------------------------------------------- linked highlighting
// Hovering or focusing a token marks its characters in the text box and its id (and, when comparing,
// the other side's tokens over the same characters); selecting text in the box marks its tokens.
const MIRROR_LIMIT = 50_000; // longer texts: no mark in the box (copying them into the backdrop costs layout)
let linked = [];

function clearLinks() {
  for (const el of linked) el.classList.remove("linked");
  linked = [];
  unmarkText();
}

/** Mark, in both panes, every token over any of the characters [start, end); returns the first. */
function linkRange(start, end) {
  let first = null;
  for (const pane of [panes.a, panes.b]) {
    const data = pane.data;
    if (!data) continue;
    for (let k = 0; k < data.starts.length; k++) {
      if (data.starts[k] >= end || data.ends[k] <= start) {
        if (data.starts[k] >= end) break;
        continue;
      }
      const els_ = [pane.spans[k], pane.idSpans[k]].filter(Boolean);
      for (const el of els_) el.classList.add("linked");
      linked.push(...els_);
      first ??= pane.spans[k];
    }
  }
  return first;
}

/** Scroll a list so that `el` is in view, without scrolling the page. */
function reveal(container, el) {
  if (!el) return;
  const box = container.getBoundingClientRect();
  const at = el.getBoundingClientRect();
  if (at.top < box.top || at.bottom > box.bottom) container.scrollTop += at.top - box.top - container.clientHeight / 3;
}

function linkToken(pane, index) {
  clearLinks();
  const data = pane.data;
  if (!data || index >= data.starts.length) return;
  linkRange(data.starts[index], data.ends[index]);
  reveal(pane.idsEl ?? pane.el, pane.idSpans[index]);
  markText(data.starts[index], data.ends[index]);
}

/** Copy the box's text into the backdrop with [start, end) (offsets in the counted text) marked, and
 * scroll the box to it. */
function markText(start, end) {
  const box = els.text;
  const from = toBox(start);
  const to = toBox(end);
  if (from === null || to === null || box.value.length > MIRROR_LIMIT) return;
  const style = getComputedStyle(box);
  const scrollbar = box.offsetWidth - box.clientWidth - parseFloat(style.borderLeftWidth) - parseFloat(style.borderRightWidth);
  els.backdrop.style.paddingRight = `calc(${style.paddingRight} + ${scrollbar}px)`;
  const mark = document.createElement("mark");
  mark.textContent = box.value.slice(from, to);
  els.backdrop.replaceChildren(box.value.slice(0, from), mark, `${box.value.slice(to)}\n`);
  const top = mark.offsetTop;
  if (top < box.scrollTop || top + mark.offsetHeight > box.scrollTop + box.clientHeight) {
    box.scrollTop = Math.max(0, top - box.clientHeight / 3);
  }
  els.backdrop.scrollTop = box.scrollTop;
}

function unmarkText() {
  if (els.backdrop.firstChild) els.backdrop.replaceChildren();
}

function onSelectText() {
  const box = els.text;
  if (document.activeElement !== box) return;
  const start = fromBox(box.selectionStart);
  const end = fromBox(box.selectionEnd);
  for (const el of linked) el.classList.remove("linked");
  linked = [];
  if (start === null || end === null || start === end) return;
  unmarkText(); // the selection shows the characters
  const first = linkRange(start, end);
  reveal(panes.a.el, first);
}

function tooltipText(data, i) {
  const { text, ids, starts, ends, bytes, offsets } = data;
  const raw = bytes.subarray(offsets[i], offsets[i + 1]);
  const lines = [`id ${ids[i]}`, `bytes ${hex(raw)}`, `offsets [${starts[i]}, ${ends[i]}) (UTF-16)`];
  if (byteRuns(raw).some((run) => run instanceof Uint8Array)) {
    const chars = [...text.slice(starts[i], ends[i])].filter((ch) => ch.codePointAt(0) > 0x7f);
    const names = chars.map((ch) => `${ch} U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
    lines.push(`holds part of: ${names.join(", ")}`);
  }
  return lines.join("\n");
}

const paneOf = (el) => (panes.b.el.contains(el) ? panes.b : panes.a);

function showTooltip(span) {
  const pane = paneOf(span);
  const index = Number(span.dataset.index);
  if (!pane.data) return;
  linkToken(pane, index);
  els.tooltip.textContent = tooltipText(pane.data, index);
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

function leaveToken() {
  hideTooltip();
  clearLinks();
}

for (const pane of [panes.a, panes.b]) {
  const list = pane.el;
  list.addEventListener("mouseover", (e) => e.target.closest?.(".tok") && showTooltip(e.target.closest(".tok")));
  list.addEventListener("mouseleave", leaveToken);
  list.addEventListener("focusin", (e) => e.target.classList?.contains("tok") && showTooltip(e.target));
  list.addEventListener("focusout", leaveToken);
  list.addEventListener("keydown", (e) => {
    const current = e.target.closest?.(".tok");
    if (!current) return;
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: -Infinity, End: Infinity }[e.key];
    if (e.key === "Escape") return leaveToken();
    if (step === undefined) return;
    e.preventDefault();
    const spans = pane.spans;
    const index = Math.min(spans.length - 1, Math.max(0, Number(current.dataset.index) + step));
    current.tabIndex = -1;
    spans[index].tabIndex = 0;
    spans[index].focus();
  });
}
els.tokenIds.addEventListener("mouseover", (e) => {
  const idEl = e.target.closest?.(".tid");
  if (!idEl) return;
  const index = Number(idEl.dataset.index);
  linkToken(panes.a, index);
  reveal(panes.a.el, panes.a.spans[index]);
});
els.tokenIds.addEventListener("mouseleave", clearLinks);
els.compareExamples.addEventListener("mouseover", (e) => {
  const item = e.target.closest?.("li");
  if (!item) return;
  clearLinks();
  const [start, end] = [Number(item.dataset.start), Number(item.dataset.end)];
  reveal(panes.a.el, linkRange(start, end));
  markText(start, end);
});
els.compareExamples.addEventListener("mouseleave", clearLinks);
els.text.addEventListener("scroll", () => (els.backdrop.scrollTop = els.text.scrollTop));
els.text.addEventListener("select", onSelectText);
document.addEventListener("selectionchange", onSelectText);
els.showMore.addEventListener("click", () => {
  state.shown += PAGE_TOKENS;
  update();
});

// ---------------------------------------------------------------- ids and ids -> text
/** The ids view holds every id: fetched (a full encode) only while that view is open. */
let idsSequence = 0;
async function renderIds() {
  const id = ++idsSequence;
  const data = panes.a.data;
  if (!data) return;
  const { text, tok, count } = data;
  const ids = count <= data.ids.length ? data.ids : await tok.encode(text, data.policy).catch(() => null);
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
// The tabs are the page's: each tab button's id is "tab-" + its name, its panel "panel-" + its name.
const tabs = Array.from(document.querySelectorAll('.tabs [role="tab"]'), (tab) => tab.id.slice("tab-".length));
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
  tab.addEventListener("click", () => {
    touched = true;
    selectView(name);
  });
  tab.addEventListener("keydown", (e) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (!step) return;
    touched = true;
    selectView(tabs[(tabs.indexOf(name) + step + tabs.length) % tabs.length], true);
  });
}

setupAnalyse({
  panel: $("panel-analyse"), open: tokenizer, label, text: currentText,
  names: () => [state.encoding, ...(state.compare && state.compare !== state.encoding ? [state.compare] : [])],
});

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
/** Write the state into the link after a pause; nothing is written before the user changes something
 * (a link someone opened stays as it was). */
function saveState() {
  clearTimeout(saveTimer);
  if (touched) saveTimer = setTimeout(writeState, 250);
}

async function writeState() {
  clearTimeout(saveTimer);
  const params = new URLSearchParams();
  // An opened file is not kept in the link (its content never leaves the page): the link then
  // holds the other settings only.
  if (!opened.has(state.encoding)) params.set("e", state.encoding);
  if (state.model) params.set("m", state.model);
  if (state.compare && !opened.has(state.compare)) params.set("c", state.compare);
  if (state.special !== "error") params.set("s", state.special);
  if (state.view !== "tokens") params.set("v", state.view);
  // Compressed text takes about 0.45 characters of link per character; skip the work when it
  // cannot fit (compressing a megabyte costs the page a noticeable pause). A text with CR line
  // ends is kept as it is counted, not as the box shows it.
  const large = held?.kind === "large";
  const text = currentText();
  const fits = !large && text.length <= URL_TEXT_LIMIT * 2;
  const [key, value] = fits ? await encodeText(text) : ["t", null];
  if (large) {
    // the large-text note stays; it says the link keeps only the settings
  } else if (value !== null && value.length <= URL_TEXT_LIMIT) {
    params.set(key, value);
    note("link", null);
  } else {
    note("link", "This text is too long to keep in the link; the link keeps only the settings.");
  }
  history.replaceState(null, "", `#${params}`);
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
  const model = params.get("m");
  if (model !== null) state.model = model; // checked when the runtime has started (resolveModel)
  const special = params.get("s");
  if (special !== null) {
    if (["error", "allow", "text"].includes(special)) state.special = special;
    else problems.push(`unknown special-token setting “${special}”`);
  }
  state.view = tabs.includes(params.get("v")) ? params.get("v") : "tokens";
  for (const key of ["t", "z"]) {
    if (!params.has(key)) continue;
    try {
      setText(await decodeText(key, params.get(key)), { from: "link" });
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
    const value = addOpened(tok, file.name);
    state.encoding = value;
    els.encoding.value = value;
    els.fileNote.textContent = `${file.name}: ${number.format(tok.info.vocabSize)} tokens, read in this page ` +
      "(nothing was sent anywhere; the link keeps the other settings, not the file).";
    showSpecialNote();
    state.shown = PAGE_TOKENS;
    state.model = "";
    touched = true;
    saveState();
    update();
  } catch (err) {
    els.fileNote.classList.add("failed");
    const unusable = err.name === "VocabFormatError" || err.name === "UnsupportedTokenizerError";
    els.fileNote.textContent = unusable ? `${file.name} cannot be used: ${err.message}` : `${file.name}: ${explain(err)}`;
  } finally {
    loadingDone();
  }
}

/** Add a tokenizer that lives only in this page (an opened file, a trained one) to both pickers. */
function addOpened(tok, name) {
  const value = `file:${++openedCount}`;
  opened.set(value, name);
  tokenizers.set(value, Promise.resolve(tok));
  for (const select of [els.encoding, els.compare]) {
    const group = select.querySelector("optgroup[data-opened]");
    group.append(new Option(name, value));
    group.hidden = false;
  }
  return value;
}

// ---------------------------------------------------------------- the Train tab's tokenizers
const trainedValues = new Map(); // trained tokenizer -> its picker value

/** Pick a tokenizer trained in the Train tab in the main view (and `compare` beside it), then show the tokens. */
function useTrained(tok, { compare }) {
  if (!trainedValues.has(tok)) trainedValues.set(tok, addOpened(tok, `${tok.info.name}, ${number.format(tok.info.vocabSize)} tokens`));
  state.encoding = trainedValues.get(tok);
  if (compare !== undefined) state.compare = compare;
  state.model = "";
  els.model.value = "";
  els.modelNote.textContent = "";
  state.shown = PAGE_TOKENS;
  applyStateToControls();
  els.compareStats.hidden = els.compareSummary.hidden = !state.compare;
  touched = true;
  selectView("tokens");
  update();
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
  const taken = e.defaultPrevented; // by a drop zone of its own (the Train tab's text files)
  e.preventDefault();
  dragDepth = 0;
  els.drop.hidden = true;
  if (!taken) openFile(e.dataTransfer.files[0]);
});

// ---------------------------------------------------------------- opening a text file
/** Count a text file exactly as its bytes are: decoded as UTF-8 (a BOM kept), CRLF kept (the box
 * would turn it into LF; see `held`). */
async function openTextFile(file) {
  if (!file) return;
  let text;
  try {
    text = strict.decode(await file.arrayBuffer());
  } catch {
    note("file", `${file.name} is not UTF-8 text, so it cannot be counted as text; save it as UTF-8 and open it again.`);
    return;
  }
  touched = true;
  note("file", null);
  setText(text, { from: "file", name: file.name });
  state.shown = PAGE_TOKENS;
  saveState();
  update();
}

els.openText.addEventListener("click", () => els.textFile.click());
els.textFile.addEventListener("change", () => {
  openTextFile(els.textFile.files[0]);
  els.textFile.value = "";
});

// ---------------------------------------------------------------- model names
/** The encoding a model name uses (the runtime maps it, as tiktoken does). The tokenizer made to ask
 * is kept for that encoding: disposing it could stop the runtime while nothing else holds it. */
async function resolveModel(model) {
  const tok = await createTokenizer({ model, assetsUrl: ASSETS, onProgress: (p) => showProgress(p, state.encoding) });
  const name = tok.encoding;
  if (tokenizers.has(name)) tok.dispose();
  else tokenizers.set(name, Promise.resolve(tok));
  runtimeReady = true;
  return name;
}

/** Pick the model's encoding; false (and the reason shown) if the model is unknown. */
async function applyModel(model) {
  try {
    const name = await resolveModel(model);
    state.model = model;
    state.encoding = name;
    els.encoding.value = name;
    showSpecialNote();
    els.model.setCustomValidity("");
    els.modelNote.textContent = `${model} uses ${name}.`;
    return true;
  } catch (err) {
    state.model = "";
    els.model.setCustomValidity(err.message);
    els.modelNote.textContent = err.name === "UnknownModelError"
      ? `Unknown model “${model}”: pick an encoding instead.`
      : `${err.name}: ${err.message}`;
    return false;
  }
}

async function onModel() {
  const model = els.model.value.trim();
  touched = true;
  if (!model) {
    // Emptied: no model any more, so no note about one (an unknown model's included); the encoding stays.
    state.model = "";
    els.model.setCustomValidity("");
    els.modelNote.textContent = "";
    saveState();
    return;
  }
  if (await applyModel(model)) {
    saveState();
    update();
  }
}

els.copyLink.addEventListener("click", async () => {
  touched = true;
  await writeState();
  try {
    await navigator.clipboard.writeText(location.href);
    els.linkNote.textContent = "Link copied.";
  } catch {
    els.linkNote.textContent = "Copy the address from the address bar.";
  }
});

async function main() {
  // The sample buttons work from the first moment: a sample picked while the manifest and the link's
  // state are still being read goes into the box, and the first count (end of main) is of it.
  let onEdit = null;
  for (const button of document.querySelectorAll("[data-sample]")) {
    button.addEventListener("click", () => {
      setText(SAMPLES[button.dataset.sample]);
      touched = true;
      onEdit?.();
    });
  }
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
  // The link's settings, on load and when a link is opened in this tab (its hash edited, or
  // followed from another page of the site): as a fresh load reads them (what it leaves out at the
  // defaults; the text kept if it holds none). The page's own link updates (replaceState) fire no
  // hashchange.
  const readLink = async () => {
    Object.assign(state, { encoding: DEFAULT_ENCODING, compare: "", model: "", special: "error" });
    await loadState([...encodings, ...prepared]);
    applyStateToControls();
    selectView(state.view);
    els.model.value = state.model;
    if (state.model && !(await applyModel(state.model))) note("state", `The link's model “${els.model.value}” is unknown; ${state.encoding} is used.`);
  };
  await readLink();
  els.encoding.disabled = els.compare.disabled = false;
  window.addEventListener("hashchange", async () => {
    await readLink();
    state.shown = PAGE_TOKENS;
    update();
  });

  onEdit = () => {
    touched = true;
    state.shown = PAGE_TOKENS;
    saveState();
    update();
  };
  els.text.addEventListener("input", () => {
    unmarkText();
    if (held?.kind === "cr") {
      // The box (LF line ends) is now the text counted.
      held = null;
      note("edited", "Edited: the counts are now for the text in the box, with LF line ends.");
    }
    onEdit();
  });
  els.text.addEventListener("paste", (e) => {
    const pasted = e.clipboardData?.getData("text/plain") ?? "";
    const box = els.text;
    if (box.value.length - (box.selectionEnd - box.selectionStart) + pasted.length <= LARGE_TEXT_CHARS) return;
    e.preventDefault();
    setText(box.value.slice(0, box.selectionStart) + pasted + box.value.slice(box.selectionEnd), { from: "paste" });
    onEdit();
  });
  els.encoding.addEventListener("change", () => {
    state.encoding = els.encoding.value;
    state.model = "";
    showSpecialNote();
    els.model.value = "";
    els.modelNote.textContent = "";
    els.model.setCustomValidity("");
    onEdit();
    if (els.idsIn.value) decodeIds();
  });
  els.compare.addEventListener("change", () => {
    state.compare = els.compare.value;
    els.compareStats.hidden = els.compareSummary.hidden = !state.compare;
    onEdit();
  });
  for (const radio of document.querySelectorAll('input[name="special"]')) {
    radio.addEventListener("change", () => {
      state.special = radio.value;
      onEdit();
    });
  }
  for (const [id, value] of [["special-allow", "allow"], ["special-text", "text"]]) {
    $(id).addEventListener("click", () => {
      state.special = value;
      applyStateToControls();
      onEdit();
    });
  }
  els.model.addEventListener("change", onModel);
  els.model.addEventListener("input", debounce(onModel, 250)); // as the user types, not only on leaving the field
  $("clear").addEventListener("click", () => {
    setText("");
    onEdit();
    els.text.focus();
  });
  setupTrainTab({ assetsUrl: ASSETS, mainText: currentText, useInMainView: useTrained });
  setupChat({ panel: $("panel-chat"), assetsUrl: ASSETS });
  if (!els.text.value && !location.hash) setText(SAMPLES.english);
  await update();
}

main();
