"""Subword regularisation over a Unigram lattice: n-best paths, and paths drawn at random.

Why its own module: sampling is the one place the model is not deterministic, so it takes its
random source from the caller (a seeded ``random.Random``), never from global state.

* :func:`sample_path` draws a path with probability proportional to ``exp(alpha * score)``
  (forward filtering, backward sampling, as HF's ``Lattice::sample`` and sentencepiece's
  ``SampleEncode``);
* :func:`nbest_paths` gives the ``n`` best paths, best first (A* from the end with the Viterbi
  scores as the heuristic, as both do);
* :func:`sample_nbest` draws one of the n best with probability ``∝ exp(alpha * score)``.

>>> from .lattice import PieceTable, lattice_nodes
>>> nodes = lattice_nodes("ab", PieceTable({"a": (0, -1.0), "b": (1, -1.0), "ab": (2, -1.5)}), None, 0.0)
>>> [[token_id for _, _, token_id in path] for path, _ in nbest_paths(nodes, 2, 2)]
[[2], [0, 1]]
>>> from random import Random
>>> sample_path(nodes, 2, 0.0, Random(0)) in ([(0, 2, 2)], [(0, 1, 0), (1, 2, 1)])
True
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect
from itertools import accumulate
from random import Random

from .lattice import Node

__all__ = ["log_sum_exp", "nbest_paths", "sample_nbest", "sample_path"]


def log_sum_exp(values: list[float]) -> float:
    """``log(sum(exp(v)))`` without overflow (-inf for no values)."""
    if not values:
        return -math.inf
    top = max(values)
    if top == -math.inf:
        return top
    return top + math.log(sum(math.exp(v - top) for v in values))


def _ends(begins: list[list[Node]], n: int) -> list[list[Node]]:
    ends: list[list[Node]] = [[] for _ in range(n + 1)]
    for nodes in begins:
        for node in nodes:
            ends[node[1]].append(node)
    return ends


def forward(begins: list[list[Node]], n: int, theta: float = 1.0) -> list[float]:
    """``alpha[pos]``: log of the summed ``exp(theta * score)`` of every path from 0 to ``pos``."""
    alpha = [-math.inf] * (n + 1)
    alpha[0] = 0.0
    ends = _ends(begins, n)
    for pos in range(1, n + 1):
        alpha[pos] = log_sum_exp([alpha[s] + theta * score for s, _, _, score in ends[pos]])
    return alpha


def sample_path(begins: list[list[Node]], n: int, theta: float, rng: Random) -> list[tuple[int, int, int]]:
    """One path drawn with probability ``exp(theta * score(path)) / Z``; ``(start, end, id)`` each."""
    alpha = forward(begins, n, theta)
    if n and alpha[n] == -math.inf:
        return []
    ends = _ends(begins, n)
    path = []
    pos = n
    while pos > 0:
        choices = ends[pos]
        weights = [math.exp(alpha[s] + theta * score - alpha[pos]) for s, _, _, score in choices]
        cumulative = list(accumulate(weights))
        index = min(bisect(cumulative, rng.random() * cumulative[-1]), len(choices) - 1)
        start, end, token_id, _ = choices[index]
        path.append((start, end, token_id))
        pos = start
    path.reverse()
    return path


def nbest_paths(begins: list[list[Node]], n: int, count: int) -> list[tuple[list[tuple[int, int, int]], float]]:
    """The ``count`` best paths with their scores, best first (equal scores: in the order found)."""
    if count <= 0 or n == 0:
        return []
    ends = _ends(begins, n)
    # Viterbi scores from the start: the exact heuristic for the A* search from the end.
    best = [-math.inf] * (n + 1)
    best[0] = 0.0
    for pos in range(1, n + 1):
        best[pos] = max((best[s] + score for s, _, _, score in ends[pos]), default=-math.inf)
    if best[n] == -math.inf:
        return []
    tie = 0
    # (-(f), tie, pos, g, suffix): g = score of the nodes chosen after pos; f = best[pos] + g.
    agenda: list[tuple[float, int, int, float, tuple]] = [(-best[n], 0, n, 0.0, ())]
    out = []
    while agenda:
        neg_f, _, pos, g, suffix = heapq.heappop(agenda)
        if pos == 0:
            out.append((list(suffix), g))
            if len(out) == count:
                break
            continue
        for start, end, token_id, score in ends[pos]:
            if best[start] == -math.inf:
                continue
            tie += 1
            heapq.heappush(agenda, (-(best[start] + g + score), tie, start, g + score, ((start, end, token_id),) + suffix))
        if len(agenda) > 100_000:  # as HF and sentencepiece: keep the most promising part
            agenda = heapq.nsmallest(min(512, count * 10), agenda)
            heapq.heapify(agenda)
    return out


def sample_nbest(begins: list[list[Node]], n: int, count: int, theta: float, rng: Random) -> list[tuple[int, int, int]]:
    """One of the ``count`` best paths, drawn with probability ``∝ exp(theta * score)``."""
    paths = nbest_paths(begins, n, count)
    if not paths:
        return []
    top = max(score for _, score in paths)
    weights = list(accumulate(math.exp(theta * (score - top)) for _, score in paths))
    return paths[min(bisect(weights, rng.random() * weights[-1]), len(paths) - 1)][0]
