// <bytepair-counter>: an exact token counter to embed in documentation with one module script.
//
//   <script type="module" src="https://your.site/bytepair/bytepair-counter.mjs"></script>
//   <bytepair-counter encoding="o200k_base">Text whose tokens are counted.</bytepair-counter>
//   <bytepair-counter model="gpt-4o" editable placeholder="Type to count"></bytepair-counter>
//   <bytepair-counter for="my-textarea"></bytepair-counter>   (counts another element's text as it changes)
//   <bytepair-counter tokenizer="llama3">…</bytepair-counter>  (a tokenizer.json prepared in the bundle)
//   <bytepair-counter tokenizer-json="/models/my/tokenizer.json">…</bytepair-counter>  (any BPE tokenizer.json)
//
// From the npm package: `import "bytepair/counter";` (an app that bundles it sets `assets`).
//
// Attributes: one of encoding, model, tokenizer and tokenizer-json (none: o200k_base; two: the
// "invalid settings" error), editable, for, placeholder, assets (where bytepair's bundle is served;
// default: this module's folder: dist/ carries it beside bytepair.mjs). A tokenizer-json URL is read
// against the page's address, as a link would be; a tokenizer.json counts as HF `tokenizers` does
// with add_special_tokens=False (no BOS), its special tokens matched in the text. Counting runs in bytepair's
// Web Worker, shared by all counters on the page; the count is the Python core's. A for= target is
// followed through its input events, changes to its text (a MutationObserver) and assignments to its
// `value` property; the counter lets go of all of that when it leaves the page. It may be loaded from
// another origin than the page's (the worker then starts from a blob: URL) if that origin sends
// Access-Control-Allow-Origin: a failure shows a short note ("cannot load"), never a Python message.
// Where there are no custom elements (Node, a server-side render) importing it defines nothing.
import { createTokenizer } from "./bytepair.mjs";

const DEFAULT_ASSETS = new URL("./", import.meta.url).href;
const STYLE = `
  :host { display: inline-block; font: inherit; }
  :host([editable]) { display: block; }
  textarea { display: block; width: 100%; min-height: 5rem; box-sizing: border-box; font: inherit; padding: 0.4rem; }
  .count { font-variant-numeric: tabular-nums; }
  .badge { display: inline-flex; gap: 0.35rem; align-items: baseline; padding: 0.1rem 0.5rem; border-radius: 999px;
           border: 1px solid color-mix(in srgb, currentColor 30%, transparent); font-size: 0.9em; }
  .error { color: #b00020; }
`;

/** What a reader sees when counting fails (the full error goes to the `count-error` event). */
const SHORT_ERRORS = {
  UnknownModelError: "unknown model",
  UnknownEncodingError: "unknown encoding",
  UnknownTokenizerError: "unknown tokenizer",
  VocabFormatError: "not a tokenizer.json",
  UnsupportedTokenizerError: "unsupported tokenizer",
  InvalidInputError: "invalid settings",
  DisallowedSpecialTokenError: "special token in text",
  AssetError: "cannot load",
  IntegrityError: "cannot load",
  WorkerError: "cannot start",
  DisposedError: "stopped",
};

// (Object where there is no DOM, so that the module loads there; the class is then never used.)
class BytepairCounter extends (globalThis.HTMLElement ?? Object) {
  static observedAttributes = ["encoding", "model", "tokenizer", "tokenizer-json", "assets"];

  constructor() {
    super();
    this.attachShadow({ mode: "open" }).innerHTML =
      `<style>${STYLE}</style>` +
      `<span class="badge" part="badge" role="status" aria-live="polite"><span class="count" part="count">…</span>` +
      `<span class="label" part="label">tokens</span></span>`;
    this.countEl = this.shadowRoot.querySelector(".count");
    this.labelEl = this.shadowRoot.querySelector(".label");
    this.sequence = 0;
  }

  connectedCallback() {
    if (this.hasAttribute("editable") && !this.input) {
      this.input = document.createElement("textarea");
      this.input.setAttribute("part", "input");
      this.shadowRoot.prepend(this.input);
      this.input.setAttribute("aria-label", this.getAttribute("aria-label") ?? "Text to count");
      this.input.placeholder = this.getAttribute("placeholder") ?? "";
      this.input.value = this.textContent.trim();
      this.input.addEventListener("input", () => this.refresh());
    }
    this.follow(this.getAttribute("for"));
    this.refresh();
  }

  disconnectedCallback() {
    this.unfollow?.();
    this.unfollow = null;
    this.sequence += 1; // an answer still on its way is dropped
    const tok = this.tok;
    this.tok = null;
    tok?.then((t) => t.dispose(), () => {});
  }

  /** Count another element's text as it changes: input events, DOM changes, and `value` set by code. */
  follow(id) {
    const source = id ? document.getElementById(id) : null;
    this.source = source;
    if (!source) return;
    const refresh = () => this.refresh();
    source.addEventListener("input", refresh);
    const observer = new MutationObserver(refresh);
    observer.observe(source, { childList: true, characterData: true, subtree: true });
    // A value assigned by code fires no event: watch the property on this element only.
    const proto = Object.getPrototypeOf(source);
    const own = Object.getOwnPropertyDescriptor(source, "value");
    const inherited = Object.getOwnPropertyDescriptor(proto, "value");
    if (!own && inherited?.set) {
      Object.defineProperty(source, "value", {
        configurable: true,
        get() { return inherited.get.call(this); },
        set(v) { inherited.set.call(this, v); refresh(); },
      });
    }
    this.unfollow = () => {
      source.removeEventListener("input", refresh);
      observer.disconnect();
      if (!own && inherited?.set) delete source.value; // the prototype's accessor again
    };
  }

  /** A changed tokenizer attribute opens the new tokenizer. (Before connectedCallback, as when the
   * page is parsed, nothing is open yet: connectedCallback counts once with all attributes.) */
  attributeChangedCallback(_name, oldValue, newValue) {
    if (this.isConnected && this.tok && oldValue !== newValue) {
      this.tok.then((t) => t.dispose(), () => {});
      this.tok = null;
      this.refresh();
    }
  }

  text() {
    if (this.source) return this.source.value ?? this.source.textContent;
    if (this.hasAttribute("editable")) return this.input.value;
    return this.textContent;
  }

  /** createTokenizer's options from the attributes (createTokenizer refuses two tokenizers at once). */
  options() {
    const options = { assetsUrl: this.getAttribute("assets") ?? DEFAULT_ASSETS };
    for (const [attribute, option] of [["encoding", "encoding"], ["model", "model"], ["tokenizer", "tokenizer"], ["tokenizer-json", "tokenizerJson"]]) {
      if (this.hasAttribute(attribute)) options[option] = this.getAttribute(attribute);
    }
    if (options.tokenizerJson !== undefined) options.tokenizerJson = new URL(options.tokenizerJson, document.baseURI);
    if (!["encoding", "model", "tokenizer", "tokenizerJson"].some((k) => k in options)) options.encoding = "o200k_base";
    return options;
  }

  async tokenizer() {
    this.tok ??= createTokenizer(this.options());
    return this.tok;
  }

  async refresh() {
    const id = ++this.sequence;
    try {
      const tok = await this.tokenizer();
      const count = await tok.count(this.text(), { disallowedSpecial: [] });
      if (id !== this.sequence) return;
      this.countEl.textContent = count.toLocaleString("en");
      this.countEl.classList.remove("error");
      delete this.dataset.error;
      this.labelEl.textContent = `token${count === 1 ? "" : "s"} (${tok.encoding})`;
      this.dataset.count = String(count);
      this.dispatchEvent(new CustomEvent("count", { detail: { count, encoding: tok.encoding } }));
    } catch (err) {
      if (id !== this.sequence) return;
      this.countEl.textContent = /^Unknown(Model|Encoding|Tokenizer)Error$/.test(err.name) ? "?" : "!";
      this.countEl.classList.add("error");
      this.labelEl.textContent = SHORT_ERRORS[err.name] ?? "cannot count";
      this.dataset.error = err.name;
      this.dispatchEvent(new CustomEvent("count-error", { detail: { error: err } }));
      this.setAttribute("title", this.labelEl.textContent);
    }
  }
}

if (globalThis.customElements && !customElements.get("bytepair-counter")) customElements.define("bytepair-counter", BytepairCounter);
