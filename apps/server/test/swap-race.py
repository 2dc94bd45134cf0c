#!/usr/bin/env python3
"""Swaps two directory entries atomically, as fast as it can, for a number of seconds or until SIGTERM:
renameat2(a, b, RENAME_EXCHANGE) — the attacker's move in the file service's symlink race (issue 7).
Run as the user who owns the entries (tests drop to the cluster account).
    swap-race.py <a> <b> <seconds>
Prints the number of swaps done when it stops."""
import ctypes, os, signal, sys, time

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_EXCHANGE = 2
a, b, seconds = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), float(sys.argv[3])
end = time.monotonic() + seconds
stop = False
def on_term(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, on_term)
n = 0
while time.monotonic() < end and not stop:
    for _ in range(200):
        if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            err = ctypes.get_errno()
            sys.exit(f"renameat2: {os.strerror(err)}")
        n += 1
# Leave them as they started (an even number of swaps).
if n % 2:
    libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    n += 1
print(n)
