"""A real pseudo-terminal for the web shell's local transport (embedded default; node-pty is native).

Usage: python3 pty-bridge.py COLS ROWS CWD SHELL [ARGS...]
- stdin: bytes typed in the terminal (EOF ends the shell: SIGHUP to its process group);
- stdout: everything the terminal prints;
- fd 3: control lines "COLS ROWS\n": TIOCSWINSZ on the master, so the shell's foreground job gets SIGWINCH.
Exits with the shell's exit status once the shell has exited and its output is drained.
"""
import errno
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios


def winsize(fd, cols, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))


def main():
    cols, rows, cwd, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    pid, master = pty.fork()
    if pid == 0:
        try:
            winsize(0, cols, rows)
            if 'SUANLI_PS1' in os.environ:
                os.environ['PS1'] = os.environ.pop('SUANLI_PS1')
            os.chdir(cwd)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)

    def hangup(*_):
        try:
            os.killpg(pid, signal.SIGHUP)
        except OSError:
            pass

    signal.signal(signal.SIGTERM, lambda *_: (hangup(), sys.exit(129)))
    winsize(master, cols, rows)
    stdin, ctl = 0, 3
    inputs = [master, stdin, ctl]
    ctl_buf = b''
    status = None
    while True:
        try:
            ready, _, _ = select.select(inputs, [], [], 0.5 if status is not None else None)
        except InterruptedError:
            continue
        if not ready and status is not None:
            break
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError as e:
                if e.errno != errno.EIO:
                    raise
                data = b''
            if not data:
                break
            os.write(1, data)
        # Resizes before input: the browser sends a resize before what is typed next, and the gateway writes
        # them in that order, so when both pipes are ready the resize came first (a `stty size` typed after a
        # resize must see the new size).
        if ctl in ready:
            data = os.read(ctl, 4096)
            if not data:
                inputs.remove(ctl)
            ctl_buf += data
            while b'\n' in ctl_buf:
                line, ctl_buf = ctl_buf.split(b'\n', 1)
                parts = line.split()
                if len(parts) == 2:
                    winsize(master, int(parts[0]), int(parts[1]))
        if stdin in ready:
            data = os.read(stdin, 65536)
            if not data:
                inputs.remove(stdin)
                hangup()
            else:
                view = memoryview(data)
                while view:
                    view = view[os.write(master, view):]
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
    if status is None:
        _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, 'waitstatus_to_exitcode') else 0)


if __name__ == '__main__':
    main()
