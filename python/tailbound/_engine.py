"""Finding and running the Go engine (the ``tailbound`` binary)."""

import json
import os
import shutil
import subprocess
import threading

__all__ = ["TailboundError", "binary"]

_BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "tailbound")


class TailboundError(Exception):
    """An error reported by the engine: ``message`` is its one-line error
    (e.g. ``tailbound simulate: trace.jsonl:2: field "prompt": must be ≥ 1
    token, got -4``), ``returncode`` its exit status (1 for bad input, 2
    for a usage error)."""

    def __init__(self, message, returncode=1):
        super().__init__(message)
        self.message = message
        self.returncode = returncode


def binary():
    """The path of the engine: ``$TAILBOUND_BIN`` if set, else the binary
    built into the package by ``pip install ./python``, else ``tailbound``
    on ``PATH``. Raises TailboundError (one line) when there is none."""
    env = os.environ.get("TAILBOUND_BIN")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise TailboundError("tailbound: TAILBOUND_BIN=%s is not an executable file" % env)
        return env
    if os.path.isfile(_BUNDLED) and os.access(_BUNDLED, os.X_OK):
        return _BUNDLED
    found = shutil.which("tailbound")
    if found:
        return found
    raise TailboundError(
        "tailbound: no engine binary: reinstall with Go ≥ 1.26 on PATH (pip install ./python builds it), "
        "or put tailbound on PATH, or set TAILBOUND_BIN")


def _last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1].strip() if lines else ""


def run(args, feed=None, json_output=True, on_error=None):
    """Runs the engine with args. feed, if given, is an iterable of byte
    chunks written to its standard input (streamed from a thread while its
    output is read); otherwise its input is empty. Returns the parsed JSON
    document (json_output) or the raw stdout bytes. An exit status other
    than 0 raises TailboundError with the engine's last stderr line (passed
    first through on_error(message) if given, which may raise instead).
    An interrupt (KeyboardInterrupt) ends the engine before propagating."""
    cmd = [binary()] + [str(a) for a in args]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if feed is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err_chunks = []
    feed_error = []

    def read_err():
        err_chunks.append(proc.stderr.read())

    def write_in():
        try:
            for chunk in feed:
                proc.stdin.write(chunk)
        except BrokenPipeError:
            pass  # the engine stopped reading: its exit status says why
        except BaseException as e:  # the feed failed (e.g. a bad DataFrame)
            feed_error.append(e)
        finally:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass

    threads = [threading.Thread(target=read_err, daemon=True)]
    if feed is not None:
        threads.append(threading.Thread(target=write_in, daemon=True))
    for t in threads:
        t.start()
    try:
        out = proc.stdout.read()
        code = proc.wait()
    except BaseException:
        _stop(proc)
        raise
    for t in threads:
        t.join()
    if feed_error:
        raise feed_error[0]
    if code != 0:
        msg = _last_line(b"".join(err_chunks).decode("utf-8", "replace")) or "tailbound %s: exit status %d" % (args[0] if args else "", code)
        if on_error is not None:
            on_error(msg, code)
        raise TailboundError(msg, code)
    if not json_output:
        return out
    try:
        return json.loads(out)
    except ValueError as e:
        raise TailboundError("tailbound %s: output is not JSON (%s)" % (args[0] if args else "", e)) from None


def _stop(proc):
    """Ends the engine: SIGTERM (it cancels and removes partial outputs),
    then SIGKILL after 3 s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(3)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
