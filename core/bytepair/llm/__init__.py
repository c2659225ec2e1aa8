"""Around the ids, for language models: chat templates, chat prompt counts, padded batches.

* ``chat_template.py`` - ``Tokenizer.apply_chat_template``: transformers' rendering (Jinja in a
  sandbox), assistant masks, and a policy for special-token literals typed into messages;
* ``chat_count.py`` - ``count_chat``: the prompt tokens of an OpenAI chat request, before sending it;
* ``collate.py`` - ``collate``: id sequences of different lengths -> one padded batch with masks.

>>> collate([[1, 2, 3], [4]], pad_id=0)["attention_mask"]
[[1, 1, 1], [1, 0, 0]]
"""

from .chat_count import count_chat, harmony_ids
from .collate import collate

__all__ = ["collate", "count_chat", "harmony_ids"]
