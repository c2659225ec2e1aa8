// The playground's Chat tab: edit a conversation and see what it costs in prompt tokens. For OpenAI
// chat models the count is the rule OpenAI's cookbook documents (countChat), taken apart into the
// messages' text and the per-message overheads; for gpt-oss and for open models with a chat template
// (applyChatTemplate) the rendered prompt is shown token by token, with the assistant mask (the
// tokens a fine-tune learns from) marked. A module of its own: app.mjs only gives it its panel and
// the bundle's address. Every number and id comes from the Python core; this file only draws them.
import { createTokenizer, listTokenizers } from "./bytepair/bytepair.mjs";

const OPENAI = [
  ["gpt-4o", "gpt-4o"], ["gpt-4o-mini", "gpt-4o-mini"], ["gpt-4", "gpt-4"], ["gpt-3.5-turbo", "gpt-3.5-turbo"],
  ["gpt-oss-120b", "gpt-oss-120b / 20b (harmony)"],
];
const TEMPLATED = { qwen2_5: "Qwen 2.5", qwen3: "Qwen 3", llama3: "Llama 3", deepseek_v3: "DeepSeek V3" };
const ROLES = ["system", "user", "assistant", "tool"];
const SHOWN_TOKENS = 4000; // tokens drawn; the count always covers the whole prompt
const DEBOUNCE_MS = 200;
const WEATHER_TOOL = [{
  type: "function",
  function: {
    name: "get_weather", description: "Look up the weather in a city.",
    parameters: { type: "object", properties: { city: { type: "string", description: "The city's name" } }, required: ["city"] },
  },
}];
const SAMPLES = {
  short: { label: "Short chat", messages: [
    { role: "system", content: "You are a concise assistant." },
    { role: "user", content: "What is a token?" },
    { role: "assistant", content: "A piece of text, often part of a word, that a model reads as one unit." },
    { role: "user", content: "How many are in this sentence?" },
  ] },
  names: { label: "Few-shot names", messages: [
    { role: "system", content: "Translate English into French." },
    { role: "system", name: "example_user", content: "Good morning." },
    { role: "system", name: "example_assistant", content: "Bonjour." },
    { role: "user", content: "Thank you very much." },
  ] },
  literal: { label: "Special-token literal", messages: [
    { role: "user", content: "What does <|im_end|> mean in a prompt?" },
    { role: "assistant", content: "It ends a message in the ChatML format." },
  ] },
  tools: { label: "Tools", tools: WEATHER_TOOL, messages: [
    { role: "user", content: "Is it raining in Lyon?" },
    { role: "tool", name: "get_weather", content: "{\"city\": \"Lyon\", \"rain\": false}" },
    { role: "assistant", content: "No, it is dry in Lyon right now." },
  ] },
};

const SKELETON = `
<div class="chat">
  <div class="chat-head">
    <div class="field">
      <label for="chat-model">Chat model</label>
      <select id="chat-model" data-testid="chat-model"></select>
    </div>
    <div class="field" data-kind="template">
      <label for="chat-special">Special-token text in messages</label>
      <select id="chat-special" data-testid="chat-special">
        <option value="escape">escape: count it as plain text</option>
        <option value="reject">reject: refuse the message</option>
        <option value="allow">allow: the special token (trusted text only)</option>
      </select>
    </div>
    <label class="chat-check" data-kind="template"><input type="checkbox" id="chat-generation" data-testid="chat-generation" checked>
      End with the assistant's reply header</label>
    <div class="samples" role="group" aria-label="Example conversations"><span>Examples:</span></div>
  </div>
  <div class="chat-total">
    <dl class="numbers">
      <div class="primary"><dt>Prompt tokens</dt><dd id="chat-count" data-testid="chat-count">–</dd></div>
      <div><dt>Messages</dt><dd id="chat-messages-count">–</dd></div>
      <div data-kind="template"><dt>Assistant mask</dt><dd id="chat-masked" data-testid="chat-masked">–</dd></div>
    </dl>
    <p id="chat-busy" class="busy" role="status" hidden><span class="spinner" aria-hidden="true"></span> Counting…</p>
    <p id="chat-error" class="error" role="alert" data-testid="chat-error" hidden></p>
    <p id="chat-live" class="visually-hidden" role="status" aria-live="polite" data-testid="chat-live"></p>
  </div>
  <div class="chat-edit">
    <ol id="chat-list" class="chat-list" aria-label="Messages"></ol>
    <div class="row"><button type="button" id="chat-add" data-testid="chat-add">Add message</button></div>
    <details class="chat-more" id="chat-tools-box">
      <summary>Tools (JSON)</summary>
      <label for="chat-tools" class="visually-hidden">Tool definitions as JSON</label>
      <textarea id="chat-tools" data-testid="chat-tools" rows="5" spellcheck="false"
                placeholder='[{"type": "function", "function": {"name": "...", "description": "...", "parameters": {...}}}]'></textarea>
    </details>
    <details class="chat-more">
      <summary>Conversation as JSON</summary>
      <label for="chat-json" class="visually-hidden">The conversation as JSON</label>
      <textarea id="chat-json" data-testid="chat-json" rows="8" spellcheck="false"></textarea>
      <p class="note">Edit or paste a message list, or <code>{"messages": [...], "tools": [...]}</code>.</p>
      <p id="chat-json-error" class="error" data-testid="chat-json-error" hidden></p>
    </details>
  </div>
  <div class="chat-out" data-testid="chat-out" aria-busy="false">
    <div id="chat-breakdown" data-testid="chat-breakdown" hidden></div>
    <h3 id="chat-render-head" class="chat-render-head" hidden></h3>
    <p id="chat-legend" class="hint" hidden></p>
    <div id="chat-tokens" class="tokens chat-tokens" data-testid="chat-tokens" hidden></div>
    <p id="chat-more" class="note" hidden></p>
    <details id="chat-ids-box" class="chat-more" hidden>
      <summary>Ids</summary>
      <label for="chat-ids" class="visually-hidden">Token ids as JSON</label>
      <textarea id="chat-ids" data-testid="chat-ids" rows="4" readonly spellcheck="false"></textarea>
    </details>
  </div>
</div>`;

const number = new Intl.NumberFormat("en");
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const WS = { " ": "·", "\t": "→", "\n": "↵", "\r": "\\r" };

/** A message as the editor holds it: role, name and content, plus any other fields a pasted message
 * had (tool_calls, reasoning_content, ...), which go to the model as they were. */
function toEntry({ role = "user", name, content, ...rest }) {
  return { role: String(role), name: typeof name === "string" ? name : "", content: content ?? "", rest };
}

/** The message list sent to the core: an empty name is no name. */
function toMessage(entry) {
  return { role: entry.role, ...(entry.name ? { name: entry.name } : {}), content: entry.content, ...entry.rest };
}

/** A token's bytes as whole characters (strings) and the stray bytes of characters split between
 * tokens (Uint8Arrays): " 🫠" cut after two bytes is [" ", F0 9F]. */
function byteRuns(bytes) {
  const runs = [];
  for (let i = 0; i < bytes.length;) {
    const lead = bytes[i];
    const size = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    let text = null;
    try {
      text = strict.decode(bytes.subarray(i, i + size));
    } catch {
      // not a whole character
    }
    const last = runs.at(-1);
    if (text !== null && typeof last === "string") runs[runs.length - 1] = last + text;
    else if (text !== null) runs.push(text);
    else if (last instanceof Uint8Array) runs[runs.length - 1] = bytes.subarray(i - last.length, i + 1);
    else runs.push(bytes.subarray(i, i + 1));
    i += text === null ? 1 : size;
  }
  return runs;
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, "0")).join(" ");
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Wire the Chat tab into `panel` (empty). Nothing is loaded until the panel is first shown. */
export function setupChat({ panel, assetsUrl }) {
  panel.innerHTML = SKELETON;
  const $ = (id) => panel.querySelector(`#${id}`);
  const els = {
    model: $("chat-model"), special: $("chat-special"), generation: $("chat-generation"), samples: panel.querySelector(".samples"),
    count: $("chat-count"), messagesCount: $("chat-messages-count"), masked: $("chat-masked"),
    busy: $("chat-busy"), error: $("chat-error"), live: $("chat-live"),
    list: $("chat-list"), add: $("chat-add"), tools: $("chat-tools"), toolsBox: $("chat-tools-box"),
    json: $("chat-json"), jsonError: $("chat-json-error"),
    breakdown: $("chat-breakdown"), renderHead: $("chat-render-head"), legend: $("chat-legend"),
    tokens: $("chat-tokens"), more: $("chat-more"), idsBox: $("chat-ids-box"), ids: $("chat-ids"),
    out: panel.querySelector(".chat-out"),
  };
  let entries = SAMPLES.short.messages.map(toEntry);
  let started = false;
  let sequence = 0;
  let controller = null;
  let fieldIds = 0;
  const tokenizers = new Map(); // model -> Promise<Tokenizer>

  const templated = () => els.model.value in TEMPLATED;
  const harmony = () => els.model.value.startsWith("gpt-oss");

  function tokenizer(model) {
    if (!tokenizers.has(model)) {
      const what = model in TEMPLATED ? { tokenizer: model } : { model };
      const promise = createTokenizer({ ...what, assetsUrl });
      promise.catch(() => tokenizers.delete(model));
      tokenizers.set(model, promise);
    }
    return tokenizers.get(model);
  }

  // ------------------------------------------------------------ the conversation editor
  /** Draw every message card (after a change of the list itself; typing edits the entries only). */
  function renderList(focus = null) {
    els.list.replaceChildren(...entries.map((entry, i) => card(entry, i)));
    els.messagesCount.textContent = number.format(entries.length);
    if (focus) els.list.children[focus.index]?.querySelector(focus.selector)?.focus();
  }

  function card(entry, i) {
    const n = i + 1;
    const item = el("li", "chat-msg");
    item.dataset.role = entry.role;
    const head = el("div", "chat-msg-head");
    const roleId = `chat-f${++fieldIds}`;
    const roleLabel = el("label", "", `${n}.`);
    roleLabel.htmlFor = roleId;
    roleLabel.append(el("span", "visually-hidden", ` Message ${n} role`));
    const role = el("select", "chat-role");
    role.id = roleId;
    const roles = ROLES.includes(entry.role) ? ROLES : [...ROLES, entry.role];
    role.append(...roles.map((r) => new Option(r, r)));
    role.value = entry.role;
    role.addEventListener("change", () => {
      entry.role = role.value;
      item.dataset.role = role.value;
      changed();
    });
    const name = el("input", "chat-name");
    name.value = entry.name;
    name.placeholder = "name (optional)";
    name.spellcheck = false;
    name.setAttribute("aria-label", `Message ${n} name (optional)`);
    name.addEventListener("input", () => {
      entry.name = name.value;
      changed();
    });
    const tokens = el("span", "chat-msg-tokens note");
    tokens.dataset.testid = "chat-msg-tokens";
    const buttons = el("span", "chat-msg-buttons");
    const button = (text, label, action, disabled, selector) => {
      const b = el("button", selector, text);
      b.type = "button";
      b.setAttribute("aria-label", label);
      b.title = label;
      b.disabled = disabled;
      b.addEventListener("click", action);
      return b;
    };
    buttons.append(
      button("↑", `Move message ${n} up`, () => move(i, -1, "chat-up"), i === 0, "chat-up"),
      button("↓", `Move message ${n} down`, () => move(i, 1, "chat-down"), i === entries.length - 1, "chat-down"),
      button("✕", `Remove message ${n}`, () => remove(i), false, "chat-remove"),
    );
    head.append(roleLabel, role, name, tokens, buttons);
    const content = el("textarea", "chat-content");
    content.rows = 2;
    content.spellcheck = false;
    content.setAttribute("aria-label", `Message ${n} content`);
    content.value = typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content);
    content.readOnly = typeof entry.content !== "string";
    content.addEventListener("input", () => {
      entry.content = content.value;
      changed();
    });
    item.append(head, content);
    const extra = Object.keys(entry.rest);
    if (extra.length || content.readOnly) {
      const fields = [...(content.readOnly ? ["content (a list of parts: edit it as JSON)"] : []), ...extra];
      item.append(el("p", "note chat-extra", `Also sent: ${fields.join(", ")}.`));
    }
    return item;
  }

  function move(i, step, selector) {
    const j = i + step;
    [entries[i], entries[j]] = [entries[j], entries[i]];
    const stillThere = j + step >= 0 && j + step < entries.length;
    renderList({ index: j, selector: `.${stillThere ? selector : step < 0 ? "chat-down" : "chat-up"}` });
    changed();
  }

  function remove(i) {
    entries.splice(i, 1);
    renderList(entries.length ? { index: Math.min(i, entries.length - 1), selector: ".chat-content" } : null);
    if (!entries.length) els.add.focus();
    changed();
  }

  function add() {
    const last = entries.at(-1)?.role;
    entries.push(toEntry({ role: last === "user" ? "assistant" : "user", content: "" }));
    renderList({ index: entries.length - 1, selector: ".chat-content" });
    changed();
  }

  function loadSample(key) {
    const sample = SAMPLES[key];
    entries = sample.messages.map(toEntry);
    els.tools.value = sample.tools ? JSON.stringify(sample.tools, null, 2) : "";
    els.toolsBox.open = Boolean(sample.tools) || els.toolsBox.open;
    renderList();
    changed();
  }

  /** The tools box as a list (none when empty); a short error when it is not a JSON list. */
  function tools() {
    const text = els.tools.value.trim();
    if (!text) return null;
    let value;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new Error(`Tools: not valid JSON (${err.message}).`);
    }
    if (!Array.isArray(value)) throw new Error("Tools: give a JSON list of tool definitions, [{...}, ...].");
    return value.length ? value : null;
  }

  function writeJson() {
    if (document.activeElement === els.json) return; // the user is editing it
    els.json.value = JSON.stringify(entries.map(toMessage), null, 2);
    els.jsonError.hidden = true;
  }

  /** Take the conversation from the JSON box: a message list, or { messages, tools }. */
  function readJson() {
    let value;
    try {
      value = JSON.parse(els.json.value);
    } catch (err) {
      return showJsonError(`Not valid JSON yet (${err.message}).`);
    }
    const list = Array.isArray(value) ? value : value?.messages;
    if (!Array.isArray(list)) return showJsonError('Give a list of messages, or {"messages": [...], "tools": [...]}.');
    const bad = list.findIndex((m) => !m || typeof m !== "object" || Array.isArray(m) || typeof m.role !== "string");
    if (bad !== -1) return showJsonError(`Message ${bad + 1} is not an object with a "role" string.`);
    els.jsonError.hidden = true;
    entries = list.map(toEntry);
    if (!Array.isArray(value) && "tools" in value) {
      els.tools.value = value.tools ? JSON.stringify(value.tools, null, 2) : "";
      if (value.tools) els.toolsBox.open = true;
    }
    renderList();
    schedule();
  }

  function showJsonError(message) {
    els.jsonError.hidden = false;
    els.jsonError.textContent = message;
  }

  // ------------------------------------------------------------ counting
  let timer = 0;
  let waiting = false; // an update is scheduled and has not started
  function schedule() {
    els.out.setAttribute("aria-busy", "true"); // until the result of this edit is shown
    waiting = true;
    clearTimeout(timer);
    timer = setTimeout(update, DEBOUNCE_MS);
  }

  function changed() {
    writeJson();
    schedule();
  }

  function showKind() {
    for (const node of panel.querySelectorAll("[data-kind=template]")) node.hidden = !templated();
  }

  async function update() {
    if (!started) return;
    const id = ++sequence;
    waiting = false;
    clearTimeout(timer);
    els.out.setAttribute("aria-busy", "true");
    controller?.abort();
    controller = new AbortController();
    const { signal } = controller;
    const model = els.model.value;
    const busyTimer = setTimeout(() => { if (id === sequence) els.busy.hidden = false; }, 150);
    try {
      const messages = entries.map(toMessage);
      const defs = tools();
      const tok = await tokenizer(model);
      const result = templated() ? await renderTemplate(tok, messages, defs, signal) : await countOpenAI(tok, model, messages, defs, signal);
      result.bytes = await tok.decodeTokenBytes(result.ids?.subarray(0, SHOWN_TOKENS) ?? []);
      if (id !== sequence || waiting) return; // a newer edit is on its way
      show(result, new Set(tok.info.specialTokens));
    } catch (err) {
      if (id !== sequence || waiting || err.name === "AbortError") return;
      showError(err, entries.map(toMessage));
    } finally {
      clearTimeout(busyTimer);
      if (id === sequence) els.busy.hidden = true;
      if (id === sequence && !waiting) els.out.setAttribute("aria-busy", "false");
    }
  }

  /** countChat, and what it is made of: each field's text, 3 per message, 1 per name, 3 to prime the
   * reply, and the tools (countChat with them minus without). For gpt-oss, the harmony ids too. */
  async function countOpenAI(tok, model, messages, defs, signal) {
    const count = await tok.countChat(messages, { model, signal, ...(defs ? { tools: defs } : {}) });
    if (harmony()) return { count, ids: await tok.encodeChat(messages, { model, signal }), kind: "harmony" };
    const withoutTools = defs ? await tok.countChat(messages, { model, signal }) : count;
    const perMessage = [];
    for (const message of messages) {
      let text = 0;
      for (const value of Object.values(message)) text += await tok.count(value, { disallowedSpecial: [], signal });
      perMessage.push(text);
    }
    const names = messages.filter((m) => "name" in m).length;
    const text = perMessage.reduce((a, b) => a + b, 0);
    const adds = text + 3 * messages.length + names + 3 === withoutTools;
    return {
      count, ids: null, kind: "openai", perMessage: adds ? perMessage : null, text, names, tools: count - withoutTools, adds,
      overheads: messages.map((m) => 3 + ("name" in m ? 1 : 0)),
    };
  }

  /** applyChatTemplate with the mask; a template whose replies cannot be located gives no mask (said why). */
  async function renderTemplate(tok, messages, defs, signal) {
    const options = {
      addGenerationPrompt: els.generation.checked, specialText: els.special.value, returnText: true, signal,
      ...(defs ? { tools: defs } : {}),
    };
    try {
      const r = await tok.applyChatTemplate(messages, { ...options, returnAssistantMask: true });
      return { count: r.ids.length, ids: r.ids, mask: r.assistantMask, text: r.text, kind: "template" };
    } catch (err) {
      if (err.name !== "TemplateError") throw err;
      const r = await tok.applyChatTemplate(messages, options);
      return { count: r.ids.length, ids: r.ids, mask: null, maskError: err.message, text: r.text, kind: "template" };
    }
  }

  // ------------------------------------------------------------ showing the result
  function show(result, specials) {
    els.error.hidden = true;
    els.count.textContent = number.format(result.count);
    showBreakdown(result);
    showTokens(result, specials);
    const masked = result.mask ? result.mask.reduce((a, b) => a + b, 0) : null;
    els.masked.textContent = masked === null ? "–" : number.format(masked);
    announce(`${number.format(result.count)} prompt tokens` + (masked ? `, ${number.format(masked)} in the assistant mask` : ""));
  }

  function showBreakdown(result) {
    const counts = els.list.querySelectorAll(".chat-msg-tokens");
    counts.forEach((node, i) => {
      node.textContent = result.perMessage ? `${number.format(result.perMessage[i])} + ${result.overheads[i]} tokens` : "";
    });
    els.breakdown.hidden = result.kind !== "openai";
    if (result.kind !== "openai") return;
    const model = els.model.value;
    const n = result.overheads.length;
    const rows = [
      ["Message text (each field's value: role, name, content)", result.text],
      [`3 per message × ${number.format(n)}`, 3 * n],
      [`1 per name × ${number.format(result.names)}`, result.names],
      ["3 to prime the assistant's reply", 3],
      ...(result.tools ? [["Tools (the cookbook's function recipe)", result.tools]] : []),
    ];
    const table = el("table", "chat-sum");
    table.append(el("caption", "", `How ${model} bills this prompt`));
    const body = el("tbody");
    for (const [what, tokens] of rows) {
      const tr = el("tr");
      const th = el("th", "", what);
      th.scope = "row";
      tr.append(th, el("td", "", number.format(tokens)));
      body.append(tr);
    }
    const total = el("tr", "chat-sum-total");
    const th = el("th", "", "Prompt tokens");
    th.scope = "row";
    total.append(th, el("td", "", number.format(result.count)));
    body.append(total);
    table.append(body);
    const note = el("p", "note", "The rule OpenAI's cookbook documents and checks against the API (“How to count tokens " +
      "with tiktoken”); the API does not publish the ids of the chat format, only this count.");
    els.breakdown.replaceChildren(...(result.adds ? [table] : []), note);
    for (const node of [els.renderHead, els.legend, els.tokens, els.more, els.idsBox]) node.hidden = true;
  }

  function showTokens(result, specials) {
    if (!result.ids) return;
    const { ids, mask, bytes } = result;
    els.renderHead.hidden = els.legend.hidden = els.tokens.hidden = els.idsBox.hidden = false;
    els.renderHead.textContent = result.kind === "harmony" ? "The harmony rendering (o200k_harmony)" : "The rendered prompt";
    const legend = ["Each box is one token; special tokens are outlined; · is a space, ↵ a newline."];
    if (mask) legend.push("Tokens underlined in green are in the assistant mask: the reply tokens a fine-tune learns from.");
    else if (result.maskError) legend.push(`No assistant mask: ${result.maskError}`);
    els.legend.textContent = legend.join(" ");
    const frag = document.createDocumentFragment();
    for (let i = 0; i < bytes.length; i++) {
      const runs = byteRuns(bytes[i]);
      const text = runs.length === 1 && typeof runs[0] === "string" ? runs[0] : null;
      const span = el("span", `tok c${i % 7}`);
      span.dataset.id = String(ids[i]);
      if (text === null) span.classList.add("partial");
      else if (specials.has(text)) span.classList.add("special");
      for (const run of runs) {
        if (typeof run === "string") span.append(...visible(run));
        else span.append(el("span", "bytes", hex(run)));
      }
      if (mask?.[i]) span.classList.add("masked");
      span.title = `id ${ids[i]}${mask?.[i] ? ", assistant mask" : ""}`;
      frag.append(span);
      if (runs.some((run) => typeof run === "string" && run.includes("\n"))) frag.append(el("br"));
    }
    els.tokens.replaceChildren(frag);
    els.more.hidden = ids.length <= bytes.length;
    els.more.textContent = `The first ${number.format(bytes.length)} of ${number.format(ids.length)} tokens are shown.`;
    els.ids.value = JSON.stringify(Array.from(ids));
  }

  /** A token's text with whitespace shown as marks. */
  function visible(text) {
    const parts = [];
    let plain = "";
    for (const ch of text) {
      if (ch in WS) {
        if (plain) parts.push(plain);
        plain = "";
        parts.push(el("span", "ws", WS[ch]));
      } else {
        plain += ch;
      }
    }
    if (plain) parts.push(plain);
    return parts;
  }

  /** A short sentence for an error (never a traceback): the policy refusal names the message. */
  function showError(err, messages) {
    let message = `${err.name ?? "Error"}: ${String(err.message).split("\n")[0]}`;
    if (err.name === "ReservedLiteralError" && err.token) {
      const at = messages.findIndex((m) => Object.values(m).some((v) => typeof v === "string" && v.includes(err.token)));
      const where = at === -1 ? "The conversation" : `Message ${at + 1} (${messages[at].role})`;
      message = `${where} contains the special token ${err.token}. With “reject” it is refused: remove it, or choose ` +
        "“escape” to count it as plain text.";
    } else if (!err.name || err.name === "Error") {
      message = String(err.message);
    }
    els.error.hidden = false;
    els.error.textContent = message;
    els.count.textContent = els.masked.textContent = "–";
    els.breakdown.hidden = true;
    for (const node of [els.renderHead, els.legend, els.tokens, els.more, els.idsBox]) node.hidden = true;
    els.list.querySelectorAll(".chat-msg-tokens").forEach((node) => (node.textContent = ""));
    announce(message);
  }

  let announceTimer = 0;
  function announce(text) {
    clearTimeout(announceTimer);
    announceTimer = setTimeout(() => (els.live.textContent = text), 500);
  }

  // ------------------------------------------------------------ wiring
  const openai = el("optgroup");
  openai.label = "OpenAI (the API's count rule)";
  openai.append(...OPENAI.map(([value, text]) => new Option(text, value)));
  els.model.append(openai);
  for (const [key, sample] of Object.entries(SAMPLES)) {
    const b = el("button", "", sample.label);
    b.type = "button";
    b.dataset.sample = key;
    b.addEventListener("click", () => loadSample(key));
    els.samples.append(b);
  }
  els.add.addEventListener("click", add);
  els.model.addEventListener("change", () => {
    showKind();
    update();
  });
  els.special.addEventListener("change", update);
  els.generation.addEventListener("change", update);
  els.tools.addEventListener("input", changed);
  els.json.addEventListener("input", readJson);
  els.json.addEventListener("blur", writeJson);
  renderList();
  writeJson();
  showKind();

  /** Start on first show: list the bundle's templated models, then count. */
  async function start() {
    started = true;
    try {
      const names = (await listTokenizers({ assetsUrl })).filter((n) => n in TEMPLATED);
      if (names.length) {
        const group = el("optgroup");
        group.label = "Open models (chat template)";
        group.append(...names.map((n) => new Option(TEMPLATED[n], n)));
        els.model.append(group);
      }
    } catch {
      // no open models listed: the OpenAI models still work
    }
    update();
  }
  const observer = new MutationObserver(() => {
    if (!panel.hidden && !started) start();
  });
  observer.observe(panel, { attributes: true, attributeFilter: ["hidden"] });
  if (!panel.hidden) start();
}
