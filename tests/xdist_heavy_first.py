"""Test files that need most memory start first, each on a fresh worker of its own.

``make test`` runs the suite with ``pytest-xdist --dist loadfile``: a worker takes a file at a time,
in order of the number of tests. Two files hold the biggest open models at once (gemma3's HF and
bytepair tokenizers: ~600 MB together, with copies made in the round-trip checks) and each peaks
near 1.35 GB on its own. Run one after the other in one worker, the first leaves its heap
fragmented (~700 MB resident with ~20 MB of live objects) and the second took the worker to 1.8 GB.

This scheduler is ``LoadFileScheduling`` with two rules: the files in ``HEAVY`` go to the front of
the queue (so each starts on a worker that has run nothing yet), and a worker that has run one heavy
file is given a light one next while any light file is left. Registered by the root conftest when
xdist is present (the other interpreters' venvs run without it).
"""

from __future__ import annotations

from collections import OrderedDict

import pytest
from xdist.scheduler import LoadFileScheduling

HEAVY = (
    "tests/pipeline/test_tokenizer_json.py",
    "tests/llm/test_chat_template.py",
)


class HeavyFilesApart(LoadFileScheduling):
    """``--dist loadfile`` with the ``HEAVY`` files first and never two on one worker while a light
    file waits."""

    def __init__(self, config: pytest.Config, log=None) -> None:
        super().__init__(config, log)
        self.ran_heavy: set[object] = set()

    def schedule(self) -> None:
        if self.collection is None and self.collection_is_completed:
            self._heavy_first_once()
        super().schedule()

    def _heavy_first_once(self) -> None:
        # The base class fills the queue from the collection in schedule(), by assigning each file's
        # key: keys already in the queue keep their place, so filling it first sets the order.
        if not self._check_nodes_have_same_collection():
            return
        collection = list(next(iter(self.registered_collections.values())))
        units: dict[str, dict[str, bool]] = {}
        for nodeid in collection:
            units.setdefault(self._split_scope(nodeid), {})[nodeid] = False
        ordered = sorted(units.items(), key=lambda item: (item[0] not in HEAVY, -len(item[1])))
        self.workqueue = OrderedDict(ordered)

    def _assign_work_unit(self, node) -> None:
        scope = next(iter(self.workqueue))
        if node in self.ran_heavy:
            scope = next((s for s in self.workqueue if s not in HEAVY), scope)
        if scope in HEAVY:
            self.ran_heavy.add(node)
        self.workqueue.move_to_end(scope, last=False)
        super()._assign_work_unit(node)


class HeavyApartPlugin:
    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log) -> LoadFileScheduling | None:
        return HeavyFilesApart(config, log) if config.getvalue("dist") == "loadfile" else None
