// Chat through the JavaScript API under Node: countChat/encodeChat/applyChatTemplate against what the
// native core computed (tests/web/test_web_chat.py writes it into BYTEPAIR_FIXTURE's "chat"; the native
// apply_chat_template is checked against transformers in tests/llm/test_chat_template.py, count_chat
// against the OpenAI cookbook's printed numbers in tests/llm/test_chat_count.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { nativeFixture } from "./fixture.mjs";

const bp = await import(new URL("../../dist/bytepair.mjs", import.meta.url).href);
const fixture = nativeFixture().chat;

test("applyChatTemplate gives the native ids, masks and text (qwen2_5, llama3)", async () => {
  for (const [name, cases] of Object.entries(fixture.templates)) {
    const tok = await bp.createTokenizer({ tokenizer: name });
    try {
      for (const { options, ids, mask, text } of cases) {
        const got = await tok.applyChatTemplate(fixture.messages, { ...options, returnAssistantMask: true, returnText: true });
        assert.ok(got.ids instanceof Uint32Array && got.assistantMask instanceof Uint8Array);
        assert.deepEqual(Array.from(got.ids), ids, `${name} ${JSON.stringify(options)}`);
        assert.deepEqual(Array.from(got.assistantMask), mask, name);
        assert.equal(got.text, text, name);
        assert.deepEqual(Array.from(await tok.encodeChat(fixture.messages, options)), ids, name);
        assert.equal(await tok.countChat(fixture.messages, options), ids.length, name);
        assert.deepEqual(Object.keys(await tok.applyChatTemplate(fixture.messages, options)), ["ids"]);
      }
    } finally {
      tok.dispose();
    }
  }
});

test("countChat is count_chat for OpenAI models (the cookbook's example, with tools)", async () => {
  const { messages, tool_messages: toolMessages, tools, counts } = fixture.cookbook;
  for (const [model, { plain, with_tools: withTools }] of Object.entries(counts)) {
    const tok = await bp.createTokenizer({ model });
    try {
      assert.equal(await tok.countChat(messages), plain, model);
      assert.equal(await tok.countChat(toolMessages, { tools }), withTools, model);
    } finally {
      tok.dispose();
    }
  }
  const enc = await bp.createTokenizer({ encoding: "o200k_base" });
  try {
    assert.equal(await enc.countChat(messages, { model: "gpt-4o" }), counts["gpt-4o"].plain);
    await assert.rejects(enc.countChat(messages), bp.InvalidInputError); // which model: the overheads differ
    await assert.rejects(enc.countChat(messages, { model: "gpt-4" }), bp.InvalidInputError); // gpt-4 is cl100k
    await assert.rejects(enc.encodeChat(messages, { model: "gpt-4o" }), bp.UnsupportedTokenizerError);
    await assert.rejects(enc.applyChatTemplate(messages), bp.UnsupportedTokenizerError);
    await assert.rejects(enc.countChat(messages, { model: "gpt-4.1" }), bp.UnknownModelError);
  } finally {
    enc.dispose();
  }
});

test("encodeChat for gpt-oss is the harmony format", async () => {
  const tok = await bp.createTokenizer({ model: "gpt-oss-20b" });
  try {
    assert.deepEqual(Array.from(await tok.encodeChat(fixture.messages)), fixture.harmony);
    assert.equal(await tok.countChat(fixture.messages), fixture.harmony.length);
  } finally {
    tok.dispose();
  }
});

test("template errors and reserved literals arrive as typed errors", async () => {
  const tok = await bp.createTokenizer({ tokenizer: "qwen2_5" });
  try {
    const literal = [{ role: "user", content: "stop here<|im_end|>" }];
    const err = await tok.applyChatTemplate(literal, { specialText: "reject" }).catch((e) => e);
    assert.ok(err instanceof bp.ReservedLiteralError && err instanceof bp.BytepairError, String(err));
    assert.equal(err.token, "<|im_end|>");
    assert.match(err.message, /message 0/);
    // escape (the default) encodes the literal as text: no special id from content
    const ends = async (messages) => Array.from(await tok.encodeChat(messages)).filter((id) => id === fixture.im_end).length;
    assert.equal(await ends(literal), await ends([{ role: "user", content: "stop here" }])); // the template's own only
    const bad = await tok.applyChatTemplate(literal, { chatTemplate: "{{ raise_exception('roles must alternate') }}" }).catch((e) => e);
    assert.ok(bad instanceof bp.TemplateError, String(bad));
    assert.match(bad.message, /roles must alternate/);
    await assert.rejects(tok.applyChatTemplate([{ content: "no role" }]), bp.InvalidInputError);
    await assert.rejects(tok.applyChatTemplate(literal, { nonsense: 1 }), bp.InvalidInputError);
    await assert.rejects(tok.applyChatTemplate("hello"), bp.InvalidInputError);
    await assert.rejects(tok.applyChatTemplate([{ role: "user", content: 1n }]), bp.InvalidInputError);
  } finally {
    tok.dispose();
  }
});

test("a tokenizerJson takes its chat template from tokenizerConfig", async () => {
  const { path, config, ids } = fixture.custom;
  const tok = await bp.createTokenizer({ tokenizerJson: path, tokenizerConfig: config });
  const bare = await bp.createTokenizer({ tokenizer: "gpt2" }); // its tokenizer_config.json has no template
  try {
    assert.deepEqual(Array.from(await tok.encodeChat(fixture.messages)), ids);
    const err = await bare.encodeChat(fixture.messages).catch((e) => e);
    assert.ok(err instanceof bp.TemplateError && /tokenizerConfig/.test(err.message), String(err));
  } finally {
    tok.dispose();
    bare.dispose();
  }
});
