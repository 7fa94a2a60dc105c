"""The exec client the engine starts for a Python Policy instance.

    python3 -S _relay.py SOCKET

It connects to the Unix socket the calling Python process listens on and
relays lines: each line the engine writes (the header, then one per turn
or request) goes to the parent, whose answer line comes back to the
engine. The policy itself runs in the parent process, so classes defined
in a notebook or a script work as they are. An answer starting with "!"
is the parent's report of an exception raised by the policy: the relay
writes it to standard error and exits 1, and the engine stops the run
with that last line. Standard library only; run with -S (no site import)
to start fast.
"""

import socket
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: _relay.py SOCKET")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(sys.argv[1])
    except OSError as e:
        sys.exit("tailbound policy relay: cannot reach the Python process at %s: %s" % (sys.argv[1], e))
    back = sock.makefile("rb")
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    header = stdin.readline()
    if not header:
        return
    sock.sendall(header)
    while True:
        line = stdin.readline()
        if not line:
            break  # the trace ended: closing the socket ends the parent's side
        sock.sendall(line)
        answer = back.readline()
        if not answer:
            sys.exit("tailbound policy relay: the Python process closed the connection")
        if answer[:1] == b"!":
            # the report runs to the end of the connection (the parent closes it)
            sys.stderr.write((answer[1:] + back.read()).decode("utf-8", "replace"))
            sys.stderr.flush()
            sys.exit(1)
        stdout.write(answer)
        stdout.flush()
    sock.close()


if __name__ == "__main__":
    main()
