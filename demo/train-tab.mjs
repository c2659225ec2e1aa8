// The playground's Train tab: train a tokenizer in the page (bytepair's train(), in a worker of its
// own: byte-level BPE, or WordPiece, Unigram, WordLevel with HF's trainers), watch the merges as they
// are learned (the vocabulary once trained, for the families without merges), then use it in the main
// view, compare it with o200k_base, or download its tokenizer.json. A module of its own so that app.mjs only lends it
// two hooks: the main box's text, and a way to put a tokenizer into the main view.
import { train } from "./bytepair/bytepair.mjs";

const MERGES_LISTED = 200; // the newest merges listed; the rest are in the downloaded file
const $ = (id) => document.getElementById(id);
const number = new Intl.NumberFormat("en");

/** ByteLevel stand-in character -> byte (GPT-2's table: printable Latin-1 bytes stand for themselves,
 * the other bytes for U+0100 onwards in byte order). */
const BYTE_OF = new Map();
for (let b = 0, next = 0; b < 256; b++) {
  const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
  BYTE_OF.set(String.fromCodePoint(printable ? b : 256 + next++), b);
}
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const WS = { " ": "·", "\n": "↵", "\t": "→", "\r": "\\r" };

/** Each model choice: what the status line says of it, and whether it has a pattern, a minimum count, merges. */
const MODELS = {
  bpe: { about: "Byte-level BPE with Hugging Face's merges", min: "Minimum pair count", merges: true, least: 257 },
  wordpiece: { about: "WordPiece (BertNormalizer, BertPreTokenizer, ## continuations) with Hugging Face's trainer", min: "Minimum pair count", merges: true, least: 2 },
  unigram: { about: "Unigram (Metaspace, ▁ for a space) with Hugging Face's EM trainer", min: null, merges: false, least: 2 },
  wordlevel: { about: "WordLevel (Whitespace-split words, the most frequent kept) with Hugging Face's trainer", min: "Minimum word count", merges: false, least: 2 },
};
const ABOUT_SUFFIX = ", trained here in a worker of its own.";

/** A token as text, whitespace made visible; a token that is part of a character stays in its
 * ByteLevel form ("Ġ" a space) and a special token as it is. */
function visible(token) {
  const bytes = Array.from(token, (c) => BYTE_OF.get(c));
  if (bytes.some((b) => b === undefined)) return token;
  try {
    return strict.decode(new Uint8Array(bytes)).replace(/[ \n\t\r]/g, (c) => WS[c]);
  } catch {
    return token;
  }
}

/** A token of a model that is not byte-level: its text, whitespace made visible. */
const plain = (token) => token.replace(/[ \n\t\r]/g, (c) => WS[c]);

function code(text) {
  const el = document.createElement("code");
  el.textContent = text;
  return el;
}

/** Wire the tab. `mainText()` is the main box's text; `useInMainView(tok, { compare })` picks the
 * trained tokenizer in the main view (and `compare` in "Compare with"). */
export function setupTrainTab({ assetsUrl, mainText, useInMainView }) {
  const els = {
    form: $("train-form"), text: $("train-text"), fromBox: $("train-from-box"), addFiles: $("train-add-files"),
    files: $("train-files"), filesNote: $("train-files-note"), drop: $("train-drop"),
    model: $("train-model"), patternField: $("train-pattern-field"), minField: $("train-min-field"), minLabel: $("train-min-label"),
    listHead: $("train-list-head"),
    vocab: $("train-vocab"), pattern: $("train-pattern"), special: $("train-special"), min: $("train-min"),
    start: $("train-start"), stop: $("train-stop"), progress: $("train-progress"), status: $("train-status"),
    error: $("train-error"), result: $("train-result"), summary: $("train-summary"),
    use: $("train-use"), compare: $("train-compare"), download: $("train-download"), merges: $("train-merges"),
  };
  let files = [];
  let controller = null;
  let trained = null;
  let learned = [];
  let frame = 0;
  let show = visible; // how a token is written: ByteLevel-decoded for "bpe"
  let current = "bpe"; // the model being trained

  const model = () => (MODELS[els.model.value] ? els.model.value : "bpe");
  const showModel = () => {
    const m = MODELS[model()];
    els.patternField.hidden = model() !== "bpe";
    els.minField.hidden = !m.min;
    if (m.min) els.minLabel.textContent = m.min;
    els.vocab.min = String(m.least);
    if (!controller) els.status.textContent = m.about + ABOUT_SUFFIX;
  };
  els.model.addEventListener("change", showModel);
  showModel();

  const showFiles = () => {
    const bytes = files.reduce((n, f) => n + f.size, 0);
    els.filesNote.textContent = files.length
      ? `${files.length} file${files.length > 1 ? "s" : ""} (${number.format(bytes)} bytes), read line by line: ` + files.map((f) => f.name).join(", ")
      : "";
  };
  const addFiles = (list) => {
    files = [...files, ...Array.from(list)];
    showFiles();
  };
  els.fromBox.addEventListener("click", () => (els.text.value = mainText()));
  els.addFiles.addEventListener("click", () => els.files.click());
  els.files.addEventListener("change", () => {
    addFiles(els.files.files);
    els.files.value = "";
  });
  els.drop.addEventListener("dragover", (e) => e.preventDefault());
  els.drop.addEventListener("drop", (e) => {
    if (!e.dataTransfer?.files?.length) return;
    e.preventDefault(); // the page's own drop handler (open a tokenizer.json) sees it taken
    addFiles(e.dataTransfer.files);
  });

  const prefix = "##"; // a WordPiece continuation's mark, left out where two pieces join
  const joined = ([left, right]) => left + (show === visible ? right : right.startsWith(prefix) ? right.slice(prefix.length) : right);

  /** The first tokens of a trained vocabulary, by id (Unigram with its score), for the families without merges. */
  const renderVocabulary = (tok) => {
    const vocab = tok.toJSON().model.vocab;
    const entries = Array.isArray(vocab) ? vocab.map(([piece, score], id) => [id, piece, score]) : Object.entries(vocab).map(([t, id]) => [id, t]);
    entries.sort((a, b) => a[0] - b[0]);
    els.merges.replaceChildren(...entries.slice(0, MERGES_LISTED).map(([id, token, score]) => {
      const li = document.createElement("li");
      li.value = id;
      li.append(code(plain(token)), ...(score === undefined ? [] : [` ${score.toFixed(3)}`]));
      return li;
    }));
  };

  const renderMerges = () => {
    frame = 0;
    const first = Math.max(0, learned.length - MERGES_LISTED);
    const items = [];
    for (let rank = learned.length - 1; rank >= first; rank--) {
      const pair = learned[rank];
      if (!pair) continue;
      const li = document.createElement("li");
      li.value = rank + 1;
      li.append(code(show(pair[0])), " + ", code(show(pair[1])), " → ", code(show(joined(pair))));
      items.push(li);
    }
    els.merges.replaceChildren(...items);
  };

  const onProgress = ({ phase, done, total, merges }) => {
    els.progress.hidden = false;
    els.progress.max = Math.max(total, 1);
    els.progress.value = done;
    if (phase === "counting") {
      els.status.textContent = `Counting ${current === "bpe" ? "pieces" : "words"}: ${Math.floor((100 * done) / Math.max(total, 1))}%`;
      return;
    }
    if (phase === "training") {
      els.status.textContent = current === "unigram"
        ? `Training (EM): step ${number.format(done)} of about ${number.format(total)}`
        : "Choosing the most frequent words";
      return;
    }
    merges.forEach((pair, i) => (learned[done - merges.length + i] = pair));
    els.status.textContent = `Merging: ${number.format(done)} of ${number.format(total)} merges`;
    if (!frame) frame = requestAnimationFrame(renderMerges);
  };

  const fail = (message) => {
    els.error.textContent = message;
    els.error.hidden = false;
  };

  els.form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (controller) return;
    els.error.hidden = true;
    const text = els.text.value;
    const texts = files.length ? [...(text ? [new Blob([text], { type: "text/plain" })] : []), ...files] : text;
    if (!texts.length) return fail("Paste some text or add files to train on.");
    const kind = model();
    const vocabSize = Number(els.vocab.value);
    if (kind === "bpe" && (!Number.isInteger(vocabSize) || vocabSize < 257)) return fail("The vocabulary size must be a whole number of at least 257 (256 bytes, then merges).");
    if (!Number.isInteger(vocabSize) || vocabSize < 2) return fail("The vocabulary size must be a whole number of at least 2.");
    const minFrequency = Number(els.min.value || 0);
    if (!Number.isInteger(minFrequency) || minFrequency < 0) return fail("The minimum pair count must be a whole number, 0 or more.");
    const specialTokens = els.special.value.split(/\s+/).filter(Boolean);
    controller = new AbortController();
    learned = [];
    show = kind === "bpe" ? visible : plain;
    current = kind;
    els.listHead.firstChild.textContent = MODELS[kind].merges ? "Merges " : "Vocabulary ";
    els.listHead.lastChild.textContent = MODELS[kind].merges ? "(newest first; · is a space, ↵ a newline)" : "(the first tokens by id, Unigram's with their scores; ▁ is a space)";
    renderMerges();
    els.result.hidden = true;
    els.start.disabled = true;
    els.stop.disabled = false;
    els.progress.hidden = false;
    els.progress.removeAttribute("value"); // indeterminate while the worker starts
    els.status.textContent = "Starting a training worker…";
    const t0 = performance.now();
    try {
      const options = kind === "bpe"
        ? { pattern: els.pattern.value, minFrequency, name: `trained (${els.pattern.value})` }
        : { model: kind, ...(MODELS[kind].min ? { minFrequency } : {}), name: `trained (${kind})` };
      const tok = await train(texts, { vocabSize, specialTokens, signal: controller.signal, onProgress, assetsUrl, ...options });
      const seconds = (performance.now() - t0) / 1000;
      cancelAnimationFrame(frame);
      if (MODELS[kind].merges) renderMerges();
      else renderVocabulary(tok);
      trained = tok;
      const count = await tok.count(typeof texts === "string" ? texts : text);
      els.status.textContent = `Done in ${seconds.toFixed(1)} s.`;
      els.summary.textContent = (kind === "bpe" ? "" : `${els.model.selectedOptions[0].textContent}: `) +
        (MODELS[kind].merges ? `${number.format(tok.merges)} merges, vocabulary ${number.format(tok.info.vocabSize)}` : `vocabulary ${number.format(tok.info.vocabSize)}`) +
        (specialTokens.length ? ` (special tokens: ${specialTokens.join(" ")})` : "") +
        (text ? `; the pasted text is ${number.format(count)} tokens with it.` : ".");
      URL.revokeObjectURL(els.download.href);
      els.download.href = URL.createObjectURL(new Blob([tok.save()], { type: "application/json" }));
      els.result.hidden = false;
    } catch (err) {
      els.progress.hidden = true;
      if (err.name === "AbortError") els.status.textContent = "Stopped; nothing was trained.";
      else {
        els.status.textContent = "";
        fail(err.name === "TrainingError" || err.name === "InputDecodeError" ? err.message : `${err.name}: ${err.message}`);
      }
    } finally {
      controller = null;
      els.start.disabled = false;
      els.stop.disabled = true;
    }
  });
  els.stop.addEventListener("click", () => controller?.abort());
  els.use.addEventListener("click", () => trained && useInMainView(trained, {}));
  els.compare.addEventListener("click", () => trained && useInMainView(trained, { compare: "o200k_base" }));
}
