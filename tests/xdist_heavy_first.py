"""Test files that need most memory run first, while the workers' heaps are small.

``make test`` runs the suite with ``pytest-xdist --dist loadfile``: a worker takes a file at a time,
in order of the number of tests. A worker's resident size only grows over the files it runs (what
a file frees mostly stays resident: ~480 MB after the first file below, ~850 MB some forty files
later), so a file that loads a big open model beside another peaks at that baseline plus its own
need. The files in ``HEAVY`` hold gemma3's HF and bytepair tokenizers at once (~600 MB together)
and each adds 500-700 MB to its worker; run late, one took a worker to 1.38 GB.

This scheduler is ``LoadFileScheduling`` with the files in ``HEAVY`` put at the front of the queue,
in that order: the first two start on the two fresh workers, the third goes to the first of them to
finish (at ~480 MB). Registered by the root conftest when xdist is present (the other
interpreters' venvs run without it).
"""

from __future__ import annotations

from collections import OrderedDict

import pytest
from xdist.scheduler import LoadFileScheduling

HEAVY = (
    "tests/pipeline/test_tokenizer_json.py",
    "tests/llm/test_chat_template.py",
    "tests/pipeline/test_pretokenized.py",
)


class HeavyFilesFirst(LoadFileScheduling):
    """``--dist loadfile`` with the ``HEAVY`` files first."""

    def schedule(self) -> None:
        if self.collection is None and self.collection_is_completed and self._check_nodes_have_same_collection():
            # The base class fills the queue from the collection by assigning each file's key: keys
            # already in the queue keep their place, so filling it first sets the order.
            units: dict[str, dict[str, bool]] = {}
            for nodeid in next(iter(self.registered_collections.values())):
                units.setdefault(self._split_scope(nodeid), {})[nodeid] = False
            rank = {name: i for i, name in enumerate(HEAVY)}
            self.workqueue = OrderedDict(sorted(units.items(), key=lambda item: (rank.get(item[0], len(HEAVY)), -len(item[1]))))
        super().schedule()


class HeavyFilesFirstPlugin:
    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log) -> LoadFileScheduling | None:
        return HeavyFilesFirst(config, log) if config.getvalue("dist") == "loadfile" else None
