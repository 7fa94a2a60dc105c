"""The exec client the engine starts for a Python Policy instance.

    python3 -S _relay.py SOCKET

It connects to the Unix socket the calling Python process listens on and
hands it its standard input and output (the engine's pipes, passed as
file descriptors with SCM_RIGHTS), so the policy runs in the calling
process — classes defined in a notebook or a script work as they are —
and the engine's lines reach it with no process in between. The relay
then only waits for the caller to close the connection: with nothing
said it exits 0; with a message starting with "!" (an exception the
policy raised, its traceback) it writes the message to standard error
and exits 1, and the engine stops the run with its last line. Standard
library only; run with -S (no site import) to start fast.
"""

import socket
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: _relay.py SOCKET")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(sys.argv[1])
        socket.send_fds(sock, [b"tailbound-relay/1"], [0, 1])
    except OSError as e:
        sys.exit("tailbound policy relay: cannot reach the Python process at %s: %s" % (sys.argv[1], e))
    chunks = []
    while True:
        try:
            b = sock.recv(65536)
        except OSError:
            break
        if not b:
            break
        chunks.append(b)
    msg = b"".join(chunks)
    if msg[:1] == b"!":
        sys.stderr.write(msg[1:].decode("utf-8", "replace"))
        sys.stderr.flush()
        sys.exit(1)


if __name__ == "__main__":
    main()
