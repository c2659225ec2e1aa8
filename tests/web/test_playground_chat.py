"""The playground's Chat tab in headless Chromium, held against the native core: the gpt-4o count of
the cookbook's conversation (and its parts), the harmony ids of gpt-oss, Qwen 2.5's rendered ids and
assistant mask equal to ``Tokenizer.apply_chat_template``, the three special-text policies on a typed
``<|im_end|>``, editing by the buttons, and a phone-width, dark layout.

Screenshots land in test-results/ (looked at by a person)."""

from __future__ import annotations

import json

import pytest

import bytepair
from bytepair.llm.chat_count import harmony_ids

from tests.browser import ARTIFACTS, Guard, guarded_context
from tests.hf_reference import hf_folder
from tests.llm.test_chat_count import COOKBOOK_MESSAGES, COOKBOOK_TOOL_MESSAGES, COOKBOOK_TOOLS

pytestmark = pytest.mark.browser
OUT = '[data-testid="chat-out"]'
COUNT = '[data-testid="chat-count"]'
CONVERSATION = [
    {"role": "system", "content": "Answer in one line."},
    {"role": "user", "content": "Übersetze: 日本語 🫠 and  spaces"},
    {"role": "assistant", "content": "Japanese, a melting face, and spaces."},
    {"role": "user", "content": "Thanks!\n\nOne more?"},
    {"role": "assistant", "content": "\nSure: 1 2 3."},
]
LITERAL = [{"role": "user", "content": "What does <|im_end|> mean?"}, {"role": "assistant", "content": "It ends a message."}]


@pytest.fixture(scope="module")
def qwen() -> bytepair.Tokenizer:
    return bytepair.Tokenizer.from_pretrained(hf_folder("qwen2_5"))


def open_chat(browser, site_server, **options):
    guard = Guard()
    context = guarded_context(browser, guard, **options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_server + "#v=chat")
    settle(page)
    return context, page, guard, errors


def settle(page) -> None:
    """Wait until the result of the last edit is shown (the results region is aria-busy until then)."""
    page.wait_for_function(f"document.querySelector('{OUT}')?.getAttribute('aria-busy') === 'false'", timeout=120_000)


def count(page) -> int | None:
    text = page.text_content(COUNT).replace(",", "")
    return None if text == "–" else int(text)


def load(page, messages, tools=None) -> None:
    """Paste a conversation into the JSON box, as a user would (a plain list would keep the tools)."""
    box = page.get_by_label("The conversation as JSON")
    if not box.is_visible():
        page.get_by_text("Conversation as JSON", exact=True).click()
    box.fill(json.dumps({"messages": messages, "tools": tools}))
    settle(page)


def shown_tokens(page) -> tuple[list[int], list[int]]:
    """The drawn tokens' ids and whether each is marked as in the assistant mask."""
    return page.eval_on_selector_all(
        '[data-testid="chat-tokens"] .tok',
        "els => [els.map(e => Number(e.dataset.id)), els.map(e => e.classList.contains('masked') ? 1 : 0)]",
    )


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"playground-chat-{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def chat(browser, site_server):
    context, page, guard, errors = open_chat(browser, site_server, viewport={"width": 1366, "height": 768})
    yield page
    context.close()
    assert not guard.violations, guard.violations
    assert not errors, errors


def breakdown(page) -> dict[str, int]:
    rows = page.eval_on_selector_all(
        '[data-testid="chat-breakdown"] tr', "rows => rows.map(r => [r.cells[0].textContent, r.cells[1].textContent])"
    )
    return {what: int(n.replace(",", "")) for what, n in rows}


def test_gpt4o_counts_the_cookbook_conversation_as_python(chat, tiktoken_ref) -> None:
    chat.select_option('[data-testid="chat-model"]', "gpt-4o")
    load(chat, COOKBOOK_MESSAGES)
    assert count(chat) == bytepair.count_chat(COOKBOOK_MESSAGES, model="gpt-4o") == 124
    enc = tiktoken_ref("o200k_base")
    parts = breakdown(chat)
    assert parts == {
        "Message text (each field's value: role, name, content)": sum(len(enc.encode_ordinary(v)) for m in COOKBOOK_MESSAGES for v in m.values()),
        "3 per message × 6": 18,
        "1 per name × 4": 4,
        "3 to prime the assistant's reply": 3,
        "Prompt tokens": 124,
    }
    per_message = chat.eval_on_selector_all('[data-testid="chat-msg-tokens"]', "els => els.map(e => e.textContent)")
    assert per_message == [
        f"{sum(len(enc.encode_ordinary(v)) for v in m.values())} + {3 + ('name' in m)} tokens" for m in COOKBOOK_MESSAGES
    ]
    shot(chat, "gpt-4o")
    chat.select_option('[data-testid="chat-model"]', "gpt-4")
    settle(chat)
    assert count(chat) == bytepair.count_chat(COOKBOOK_MESSAGES, model="gpt-4") == 129
    chat.select_option('[data-testid="chat-model"]', "gpt-4o")
    load(chat, COOKBOOK_TOOL_MESSAGES, COOKBOOK_TOOLS)
    assert count(chat) == bytepair.count_chat(COOKBOOK_TOOL_MESSAGES, model="gpt-4o", tools=COOKBOOK_TOOLS) == 101
    assert breakdown(chat)["Tools (the cookbook's function recipe)"] == 101 - bytepair.count_chat(COOKBOOK_TOOL_MESSAGES, model="gpt-4o")
    assert chat.is_hidden('[data-testid="chat-tokens"]')  # OpenAI publishes a count, not the ids


def test_gpt_oss_shows_the_harmony_ids(chat) -> None:
    chat.select_option('[data-testid="chat-model"]', "gpt-oss-120b")
    load(chat, CONVERSATION)
    ids, _ = shown_tokens(chat)
    assert ids == harmony_ids(CONVERSATION)
    assert count(chat) == len(ids) == bytepair.count_chat(CONVERSATION, model="gpt-oss-120b")
    load(chat, CONVERSATION, COOKBOOK_TOOLS)  # refused for gpt-oss: a short error
    error = chat.text_content('[data-testid="chat-error"]')
    assert chat.is_visible('[data-testid="chat-error"]') and "Traceback" not in error and len(error) < 300, error
    assert count(chat) is None


@pytest.mark.parametrize("generation", [True, False])
def test_qwen_ids_and_mask_equal_python(chat, qwen, generation) -> None:
    chat.select_option('[data-testid="chat-model"]', "qwen2_5")
    chat.get_by_label("End with the assistant's reply header").set_checked(generation)
    load(chat, CONVERSATION)
    expected = qwen.apply_chat_template(CONVERSATION, add_generation_prompt=generation, return_dict=True, return_assistant_tokens_mask=True)
    ids, mask = shown_tokens(chat)
    assert ids == expected["input_ids"]
    assert json.loads(chat.input_value('[data-testid="chat-ids"]')) == expected["input_ids"]
    assert mask == expected["assistant_masks"]
    assert count(chat) == len(ids)
    assert int(chat.text_content('[data-testid="chat-masked"]')) == sum(mask) > 0
    # the marked tokens are the two replies, each with its closing <|im_end|> (the second reply's "\n"
    # shares a token with the header's, which counts as the reply's)
    marked = qwen.decode([i for i, m in zip(ids, mask) if m], skip_special_tokens=False)
    assert marked == "Japanese, a melting face, and spaces.<|im_end|>\n\nSure: 1 2 3.<|im_end|>"
    if generation:
        shot(chat, "qwen")


def test_special_text_policies_on_a_typed_im_end(chat, qwen) -> None:
    chat.select_option('[data-testid="chat-model"]', "qwen2_5")
    chat.get_by_label("End with the assistant's reply header").set_checked(False)
    load(chat, LITERAL)
    im_end = qwen.token_to_id("<|im_end|>")
    got = {}
    for policy in ("escape", "allow"):
        chat.select_option('[data-testid="chat-special"]', policy)
        settle(chat)
        got[policy] = shown_tokens(chat)[0]
        assert got[policy] == qwen.apply_chat_template(LITERAL, special_text=policy)
    # the template's own ends are special either way; the typed one only with "allow"
    assert got["allow"].count(im_end) == got["escape"].count(im_end) + 1
    assert len(got["escape"]) > len(got["allow"])
    chat.select_option('[data-testid="chat-special"]', "reject")
    settle(chat)
    error = chat.text_content('[data-testid="chat-error"]')
    assert error.startswith("Message 1 (user) contains the special token <|im_end|>."), error
    assert "Traceback" not in error and count(chat) is None and chat.is_hidden('[data-testid="chat-tokens"]')
    chat.wait_for_function("want => document.querySelector('[data-testid=chat-live]').textContent === want", arg=error, timeout=5_000)
    shot(chat, "reject")
    chat.select_option('[data-testid="chat-special"]', "escape")
    settle(chat)


def test_editing_by_the_buttons_and_typing(chat) -> None:
    chat.select_option('[data-testid="chat-model"]', "gpt-4o")
    load(chat, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}])
    chat.get_by_role("button", name="Add message").click()
    chat.get_by_label("Message 3 role").select_option("assistant")
    chat.get_by_label("Message 3 content").press_sequentially("Hello there, friend!", delay=10)
    settle(chat)
    chat.get_by_role("button", name="Move message 3 up").click()
    chat.get_by_label("Message 1 name (optional)").fill("rules")
    chat.get_by_role("button", name="Remove message 3").click()  # the user's "Hi"
    settle(chat)
    messages = [{"role": "system", "name": "rules", "content": "Be brief."}, {"role": "assistant", "content": "Hello there, friend!"}]
    assert json.loads(chat.input_value('[data-testid="chat-json"]')) == messages
    assert count(chat) == bytepair.count_chat(messages, model="gpt-4o")
    chat.wait_for_function(
        "want => document.querySelector('[data-testid=chat-live]').textContent === want",
        arg=f"{count(chat)} prompt tokens", timeout=5_000,
    )


def test_phone_width_and_dark(browser, site_server, qwen) -> None:
    context, page, guard, errors = open_chat(
        browser, site_server, viewport={"width": 390, "height": 844}, color_scheme="dark", device_scale_factor=2,
    )
    try:
        page.select_option('[data-testid="chat-model"]', "qwen2_5")
        load(page, LITERAL)
        assert shown_tokens(page)[0] == qwen.apply_chat_template(LITERAL, add_generation_prompt=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        for selector in (COUNT, '[data-testid="chat-special"]', '[data-testid="chat-add"]'):
            box = page.locator(selector).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (selector, box)
        shot(page, "phone-dark")
        page.evaluate("window.scrollTo(0, 600)")  # the count stays in view while the messages scroll
        top = page.locator(COUNT).bounding_box()["y"]
        assert 0 <= top < 120, top
    finally:
        context.close()
    assert not guard.violations, guard.violations
    assert not errors, errors
