"""Eviction policies written as Python classes, run through the engine's
exec door (README "Schedules and external policies", ``go doc
./models/execpolicy``)."""

import copy
import itertools
import json
import os
import shlex
import socket
import sys
import tempfile
import threading
import traceback
from collections import OrderedDict

from ._engine import TailboundError

__all__ = ["Policy", "PolicyError"]

#: how long close() waits for a listener's or a run's thread to end
#: (seconds); they end at once unless a policy's own code is still running
_JOIN_SECONDS = 5

_RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_relay.py")


class PolicyError(TailboundError):
    """A Python policy raised an exception: the run stopped. ``message`` is
    the engine's one-line error (it ends with the exception's last
    traceback line); the exception itself is ``__cause__``."""


class Policy:
    """Base class of an eviction policy written in Python.

    At the conversation level (``level="turn"``, the default) a subclass
    implements ``decide(turn)``; at the block level (``simulate(...,
    level="block")``) ``victims(request)``. Pass instances in
    ``policies=[MyPolicy(), "lru"]`` to ``simulate`` or ``gap``: every
    run (every grid point of ``gap``) works on its own deep copy of the
    instance, started with ``start()``, so instances are reusable.

    Attributes set before ``start()`` (from the exec header; lengths in
    tokens, at the block level capacity in blocks): ``capacity``,
    ``block`` (tokens; ``block_tokens`` of the block-level header), ``xi``, ``forced``, ``qhat`` (0: T-LRU's running mean),
    ``threshold``, ``options`` (the ``policy_opt`` settings, strings),
    ``level`` and ``header`` (the whole header dict).

    Kept by the base class at the turn level, updated from each turn and
    from the answers: ``cached`` (conversation id → tokens it holds),
    ``history`` (conversation id → its history, tokens, as of its latest
    turn) and ``total`` (tokens cached in all, before the current answer).
    Conversation ids are dense integers in order of first appearance.
    """

    #: label of the policy in result tables, set on the instance or the
    #: class itself (not inherited: a subclass is shown by its class name)
    name = None

    def start(self):
        """Called once per run, after the header attributes are set."""

    def decide(self, turn):
        """Decides after a served turn. turn is the exec protocol's dict:
        turn, conv, time (s), prompt, response, history (including this
        turn), cached (what the conversation holds), max_keep =
        min(⌊history/B⌋·B, capacity), total and free (tokens, before the
        answer). Returns keep (tokens the served conversation keeps, whole
        blocks) or (keep, shrink) with shrink a list of (conv, tokens it
        keeps) pairs applied in order, or the dict {"keep", "shrink"}."""
        raise NotImplementedError("%s.decide: the turn-level decision is not implemented" % type(self).__name__)

    def victims(self, request):
        """Block level: returns the list of block ids to evict to admit
        request (the exec protocol's dict: request, time, input, output,
        conv, blocks, hit, need, free); see ``go doc ./models/blockext``."""
        raise NotImplementedError("%s.victims: the block-level decision is not implemented" % type(self).__name__)

    # Helpers for subclasses (turn level).

    def recency(self, turn=None, keep=None):
        """The conversations holding tokens, least recently served first.
        With turn and keep: as they will be once the served conversation
        keeps keep tokens (it is last, or absent when keep is 0). Lazy:
        iterate it, do not hold it across answers."""
        if turn is None:
            return iter(self._order)
        conv = turn["conv"]
        rest = (v for v in self._order if v != conv)
        return itertools.chain(rest, (conv,)) if keep else rest

    def fit(self, turn, keep, order):
        """The shrink list that cuts conversations in order, each by the
        excess over the capacity rounded up to whole blocks (at most all
        it holds), until keep tokens for the served conversation fit.
        Under forced caching the served conversation is never cut."""
        conv = turn["conv"]
        over = self.total - turn["cached"] + keep - self.capacity
        shrink = []
        B = self.block
        for v in order:
            if over <= 0:
                break
            if v == conv and self.forced:
                continue
            held = keep if v == conv else self.cached.get(v, 0)
            cut = min(-(-over // B) * B, held)
            if cut <= 0:
                continue
            shrink.append((v, held - cut))
            over -= cut
        return shrink

    # The engine side (not for subclasses).

    def _begin(self, header):
        self.header = header
        self.level = header.get("level", "turn")
        self.capacity = header["capacity"]
        self.block = header["block"] if "block" in header else header.get("block_tokens")
        self.xi = header.get("xi", 0)
        self.forced = header.get("forced", False)
        self.qhat = header.get("qhat", 0)
        self.threshold = header.get("threshold", 0)
        self.options = header.get("options") or {}
        self.cached = {}
        self.history = {}
        self.total = 0
        self._order = OrderedDict()
        self.start()

    def _answer(self, msg):
        if self.level == "block":
            ev = self.victims(msg)
            return {"evict": [_int(b, "victims") for b in ev]}
        conv = msg["conv"]
        self.history[conv] = msg["history"]
        self.cached[conv] = msg["cached"]
        self.total = msg["total"]
        r = self.decide(msg)
        if isinstance(r, dict):
            keep, shrink = r.get("keep"), r.get("shrink") or []
        elif isinstance(r, tuple) and len(r) == 2:
            keep, shrink = r
        else:
            keep, shrink = r, []
        keep = _int(keep, "keep")
        shrink = [[_int(v, "shrink conversation"), _int(x, "shrink tokens")] for v, x in shrink]
        self._set(conv, keep)
        if keep > 0:
            self._order.move_to_end(conv)
        for v, x in shrink:
            self._set(v, x)
        return {"keep": keep, "shrink": shrink}

    def _set(self, conv, tokens):
        old = self.cached.get(conv, 0)
        self.cached[conv] = tokens
        self.total += tokens - old
        if tokens > 0:
            if conv not in self._order:
                self._order[conv] = True
        else:
            self._order.pop(conv, None)


def _int(x, what):
    if isinstance(x, bool) or not hasattr(x, "__index__"):
        raise TypeError("%s must be an integer number of tokens or an id, got %r" % (what, x))
    return int(x)


class _Served:
    """Serves one Policy instance to the engine over a Unix socket: one
    thread per connection (per run), each on a deep copy."""

    def __init__(self, policy, tmpdir, index):
        self.policy = policy
        # the instance's or its own class's name, not an inherited one
        self.label = policy.__dict__.get("name") or type(policy).__dict__.get("name") or type(policy).__name__
        self.path = os.path.join(tmpdir, "p%d.sock" % index)
        exe = sys.executable or "python3"
        self.command = "%s -S %s %s" % (shlex.quote(exe), shlex.quote(_RELAY), shlex.quote(self.path))
        # checked before anything is opened: a refusal leaves nothing behind
        if "," in self.command:
            raise TailboundError("tailbound: cannot run policy %s: the exec command %r contains a comma "
                                 "(set TMPDIR to a path without one)" % (self.label, self.command))
        self.conns = []
        self.workers = []
        self.error = None  # the first exception a copy raised
        self.lock = threading.Lock()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.listener.bind(self.path)
            self.listener.listen(16)
        except BaseException:
            self.listener.close()
            raise
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            w = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            with self.lock:
                self.conns.append(conn)
                self.workers.append(w)
            w.start()

    def _serve(self, conn):
        """Runs one copy of the policy on the engine's pipes, which the
        relay hands over (see _relay.py); the connection stays open until
        the run ends, and then carries an exception's report, if any."""
        failure = None
        rin = None
        wfd = -1
        try:
            _, fds, _, _ = socket.recv_fds(conn, 64, 2)
            if len(fds) != 2:
                for fd in fds:
                    os.close(fd)
                return
            rin, wfd = os.fdopen(fds[0], "rb", buffering=1 << 16), fds[1]
            header = rin.readline()
            if not header:
                return
            try:
                # a policy that cannot be copied (it holds a lock, a
                # generator) fails here, as its own exception
                p = copy.deepcopy(self.policy)
                p._begin(json.loads(header))
            except BaseException as e:  # SystemExit and KeyboardInterrupt too: they end only this run
                failure = self._fail(e)
            for line in rin:
                if failure is None:
                    try:
                        out = json.dumps(p._answer(json.loads(line)), separators=(",", ":")).encode("ascii") + b"\n"
                    except BaseException as e:
                        failure = self._fail(e)
                if failure is not None:
                    break
                while out:
                    out = out[os.write(wfd, out):]
        except OSError:
            pass  # the engine is gone (the run stopped): nothing to answer
        finally:
            # close the pipes first: the engine sees the end once the relay exits
            if rin is not None:
                rin.close()
            if wfd >= 0:
                os.close(wfd)
            try:
                if failure is not None:
                    conn.sendall(b"!" + failure.encode("utf-8"))
            except OSError:
                pass
            conn.close()

    def _fail(self, e):
        with self.lock:
            if self.error is None:
                self.error = e
        text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        last = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
        return text.rstrip("\n") + "\n" + last.replace("\n", " ") + "\n"

    def close(self):
        """Stops the listener and waits for its threads. Closing a listening
        socket from another thread does not wake a blocked accept() on
        Linux; shutting it down does (accept fails with EINVAL)."""
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        with self.lock:
            conns, workers = list(self.conns), list(self.workers)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.thread.join(_JOIN_SECONDS)
        for w in workers:
            w.join(_JOIN_SECONDS)
        for c in conns:
            c.close()


class Served:
    """The Python policies of one call: their exec commands, listeners
    and clean-up (a context manager)."""

    def __init__(self, policies):
        self.dir = tempfile.mkdtemp(prefix="tailbound-")
        if len(self.dir) > 80:  # a Unix socket's path is limited to 107 bytes
            os.rmdir(self.dir)
            self.dir = tempfile.mkdtemp(prefix="tailbound-", dir="/tmp")
        self.items = []
        self.names = {}  # engine name "exec:CMD" → label
        try:
            labels = set()
            for i, p in enumerate(policies):
                s = _Served(p, self.dir, i)
                self.items.append(s)
                label = s.label
                if label in labels:
                    label = "%s#%d" % (label, i)
                labels.add(label)
                self.names["exec:" + s.command] = label
        except BaseException:
            self.close()
            raise

    def commands(self):
        return ["exec:" + s.command for s in self.items]

    def rename(self, text):
        """Replaces the exec commands in text by the policies' labels."""
        for k, v in self.names.items():
            text = text.replace(k, v)
        return text

    def error(self):
        for s in self.items:
            if s.error is not None:
                return s.error
        return None

    def close(self):
        for s in self.items:
            s.close()
        for s in self.items:
            try:
                os.unlink(s.path)
            except OSError:
                pass
        try:
            os.rmdir(self.dir)
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
