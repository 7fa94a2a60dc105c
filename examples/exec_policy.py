#!/usr/bin/env python3
"""Reference client of tailbound's exec protocol (conversation level).

    tailbound simulate --policies 'exec:python3 examples/exec_policy.py lru'
    tailbound simulate --policies 'exec:python3 examples/exec_policy.py tlru'
    tailbound simulate --level block --capacity 32768 \
        --policies 'exec:python3 examples/exec_policy.py block-lru'

Reads the header line, then one JSON line per turn from standard input, and
answers each with {"keep": tokens, "shrink": [[conv, tokens], ...]} on
standard output (see `go doc ./models/execpolicy`). Standard library only.

The two policies are tailbound's LRU and T-LRU, decision for decision:

  LRU   keep the served conversation's whole history (max_keep); while over
        capacity, cut the least recently used conversation by the excess
        (rounded up to whole blocks), and so on.
  T-LRU the same keep; while over capacity, first cut, least recently used
        first, the conversations holding blocks beyond their TEL-safe
        budget ceil((H + Q - xi)+ / B) * B down toward it, where Q is the
        running mean of the prompts seen (or the header's qhat); then LRU.

With forced caching the served conversation is never cut. The client keeps
its own copy of every conversation's cached amount and history: they change
only by its answers and the turns it is sent.

At the block level (`--level block`, see `go doc ./models/blockext`) each
request line is answered with {"evict": [block ids]}; block-lru is the
prefix cache's LRU: among the evictable leaves (cached, no cached child, not
the request's hit tail), the one whose latest use is oldest, the deepest
among blocks last used by the same request.
"""

import json
import math
import sys
from collections import OrderedDict


class Cache:
    """The client's copy of the cache: amounts and histories, in tokens."""

    def __init__(self, header):
        self.capacity = header["capacity"]
        self.block = header["block"]
        self.forced = header["forced"]
        self.cached = {}
        self.history = {}
        self.total = 0
        # conversations holding tokens, least recently served first
        self.order = OrderedDict()

    def set(self, conv, tokens, out):
        old = self.cached.get(conv, 0)
        self.cached[conv] = tokens
        self.total += tokens - old
        if tokens == 0:
            self.order.pop(conv, None)
        return out

    def evict(self, conv, tokens, shrink):
        """Cut conv by tokens rounded up to whole blocks (at most all)."""
        blocks = (tokens + self.block - 1) // self.block
        n = min(blocks * self.block, self.cached[conv])
        self.set(conv, self.cached[conv] - n, None)
        shrink.append([conv, self.cached[conv]])

    def over(self):
        return max(self.total - self.capacity, 0)


def budget(h, q, xi, block):
    v = float(h) + q - xi
    if v <= 0:
        return 0
    return int(math.ceil(v / float(block))) * block


class LRU:
    def __init__(self, header):
        self.c = Cache(header)

    def keep(self, turn):
        return turn["max_keep"]

    def budget_phase(self, turn, shrink):
        pass

    def decide(self, turn):
        c = self.c
        conv = turn["conv"]
        c.history[conv] = turn["history"]
        keep = self.keep(turn)
        c.set(conv, keep, None)
        if keep > 0:
            c.order[conv] = True
            c.order.move_to_end(conv)
        shrink = []
        if c.over() > 0:
            self.budget_phase(turn, shrink)
        while c.over() > 0:
            victim = next((v for v in c.order if not (c.forced and v == conv)), None)
            if victim is None:
                raise SystemExit("turn %d: over capacity with nothing to evict" % turn["turn"])
            c.evict(victim, c.over(), shrink)
        return {"keep": keep, "shrink": shrink}


class TLRU(LRU):
    def __init__(self, header):
        super().__init__(header)
        self.xi = float(header["xi"])
        self.qhat = float(header["qhat"])
        self.sum = 0.0
        self.n = 0.0

    def q(self):
        if self.qhat > 0 or self.n == 0:
            return self.qhat
        return self.sum / self.n

    def keep(self, turn):
        self.sum += float(turn["prompt"])
        self.n += 1
        return turn["max_keep"]

    def budget_phase(self, turn, shrink):
        c = self.c
        theta = float(c.block) - self.xi + self.q()
        while c.over() > 0:
            victim = None
            for v in c.order:
                if c.forced and v == turn["conv"]:
                    continue
                if float(c.cached[v] - c.history[v]) >= theta:
                    victim = v
                    break
            if victim is None:
                return
            cut = min(c.cached[victim] - budget(c.history[victim], self.q(), self.xi, c.block), c.over())
            if cut <= 0:
                raise SystemExit("turn %d: conversation %d over budget but within it" % (turn["turn"], victim))
            c.evict(victim, cut, shrink)


class BlockLRU:
    """The prefix cache's LRU over the client's copy of the prefix tree."""

    def __init__(self, header):
        self.capacity = header["capacity"]  # blocks
        self.cached = set()
        self.parent = {}
        self.kids = {}
        self.depth = {}
        self.last = {}  # request index of the latest use
        self.leaves = set()  # cached blocks without a cached child

    def decide(self, req):
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
            self.remove(v)
            evict.append(v)
        room = self.capacity - len(self.cached)
        for b in blocks[hit:hit + room]:
            self.add(b, now)
        return {"evict": evict}

    def remove(self, b):
        self.cached.discard(b)
        self.leaves.discard(b)
        p = self.parent[b]
        if p is not None:
            self.kids[p] -= 1
            if self.kids[p] == 0:
                self.leaves.add(p)

    def add(self, b, now):
        self.cached.add(b)
        self.kids[b] = 0
        self.leaves.add(b)
        self.last[b] = now
        p = self.parent[b]
        if p is not None:
            self.kids[p] += 1
            self.leaves.discard(p)


def main():
    policies = {"lru": LRU, "tlru": TLRU, "block-lru": BlockLRU}
    if len(sys.argv) != 2 or sys.argv[1] not in policies:
        sys.exit("usage: exec_policy.py lru|tlru|block-lru")
    header = json.loads(sys.stdin.readline())
    level = "block" if sys.argv[1] == "block-lru" else "turn"
    if header.get("tailbound") != "exec/1" or header.get("level") != level:
        sys.exit("exec_policy.py %s: speaks exec/1 at the %s level, got %r" % (sys.argv[1], level, header))
    policy = policies[sys.argv[1]](header)
    out = sys.stdout
    for line in sys.stdin:
        out.write(json.dumps(policy.decide(json.loads(line)), separators=(",", ":")))
        out.write("\n")
        out.flush()


if __name__ == "__main__":
    main()
