"""examples/exec_policy.py ported onto tailbound.Policy: LRU and T-LRU at
the conversation level and the prefix cache's LRU at the block level,
decision for decision equal to the built-in lru, tlru and block-level lru
(the tests assert every metric, evictions included)."""

import math

from ._policy import Policy

__all__ = ["LRU", "TLRU", "BlockLRU"]


class LRU(Policy):
    """tailbound's LRU: keep the served conversation's whole history
    (max_keep); while over capacity, cut the least recently served
    conversation by the excess rounded up to whole blocks, and so on."""

    name = "py-lru"

    def decide(self, turn):
        keep = turn["max_keep"]
        return keep, self.fit(turn, keep, self.recency(turn, keep))


def budget(h, q, xi, block):
    """T-LRU's TEL-safe budget ⌈(h + q − ξ)⁺ / B⌉·B, tokens."""
    v = float(h) + q - xi
    if v <= 0:
        return 0
    return int(math.ceil(v / float(block))) * block


class TLRU(Policy):
    """tailbound's T-LRU: LRU's keep; while over capacity, first cut the
    conversations holding blocks beyond their TEL-safe budget
    ⌈(H + Q̂ − ξ)⁺ / B⌉·B down toward it, least recently served first
    (Q̂ the running mean of the prompts seen, or the header's qhat); then
    LRU."""

    name = "py-tlru"

    def start(self):
        self.sum = 0.0
        self.n = 0.0

    def q(self):
        if self.qhat > 0 or self.n == 0:
            return float(self.qhat)
        return self.sum / self.n

    def decide(self, turn):
        self.sum += float(turn["prompt"])
        self.n += 1
        conv, keep, B = turn["conv"], turn["max_keep"], self.block
        held = {conv: keep}  # amounts changed by this answer
        over = self.total - turn["cached"] + keep - self.capacity
        shrink = []
        order = list(self.recency(turn, keep)) if over > 0 else []

        def cut(v, tokens):
            nonlocal over
            h = held.get(v, self.cached.get(v, 0))
            n = min(-(-tokens // B) * B, h)
            held[v] = h - n
            shrink.append((v, h - n))
            over -= n

        # budget phase: the first conversation (least recently served)
        # holding blocks beyond its budget, each time
        q = self.q()
        theta = float(B) - float(self.xi) + q
        while over > 0:
            victim = None
            for v in order:
                if self.forced and v == conv:
                    continue
                if held.get(v, self.cached.get(v, 0)) > 0 and float(held.get(v, self.cached.get(v, 0)) - self.history[v]) >= theta:
                    victim = v
                    break
            if victim is None:
                break
            c = min(held.get(victim, self.cached.get(victim, 0)) - budget(self.history[victim], q, float(self.xi), B), over)
            if c <= 0:
                raise RuntimeError("turn %d: conversation %d over budget but within it" % (turn["turn"], victim))
            cut(victim, c)
        # then LRU
        for v in order:
            if over <= 0:
                break
            if self.forced and v == conv:
                continue
            if held.get(v, self.cached.get(v, 0)) > 0:
                cut(v, over)
        return keep, shrink


class BlockLRU(Policy):
    """The prefix cache's LRU (block level): among the evictable leaves
    (cached, no cached child, not the request's hit tail), the one whose
    latest use is oldest, the deepest among blocks last used by the same
    request."""

    name = "py-block-lru"

    def start(self):
        self.in_cache = set()
        self.parent = {}
        self.kids = {}
        self.depth = {}
        self.last = {}  # request index of the latest use
        self.leaves = set()  # cached blocks without a cached child

    def victims(self, req):
        blocks, hit, need = req["blocks"], req["hit"], req["need"]
        now = req["request"]
        for d, b in enumerate(blocks):
            self.depth[b] = d
            self.parent[b] = blocks[d - 1] if d > 0 else None
        pinned = blocks[hit - 1] if hit > 0 else None
        for b in blocks[:hit]:
            self.last[b] = now
        evict = []
        while len(evict) < need:
            cands = [b for b in self.leaves if b != pinned]
            if not cands:
                break
            v = min(cands, key=lambda b: (self.last[b], -self.depth[b]))
            self._remove(v)
            evict.append(v)
        room = self.capacity - len(self.in_cache)
        for b in blocks[hit:hit + room]:
            self._add(b, now)
        return evict

    def _remove(self, b):
        self.in_cache.discard(b)
        self.leaves.discard(b)
        p = self.parent[b]
        if p is not None:
            self.kids[p] -= 1
            if self.kids[p] == 0:
                self.leaves.add(p)

    def _add(self, b, now):
        self.in_cache.add(b)
        self.kids[b] = 0
        self.leaves.add(b)
        self.last[b] = now
        p = self.parent[b]
        if p is not None:
            self.kids[p] += 1
            self.leaves.discard(p)
