import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';

/**
 * A request to the gateway on loopback as a browser on a task's IDE origin sends it: Host
 * `<task>.ide.localhost:<port>` (browsers resolve `*.localhost` to loopback; Node's resolver may not).
 */
export function ideRequest(
  port: number,
  taskId: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: { host: `${taskId}.ide.localhost:${port}`, ...init.headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * What another account on a shared node would try against a Jupyter it can reach on the network (issue 17):
 * every token-looking word of every command line it can read in /proc (what `ps` shows), each sent to
 * Jupyter's terminals API on `host:port`, and no token at all. Runs as `user`; answers the HTTP status of each
 * attempt (the first is the one without a token).
 */
export function probeAsOtherUser(user: string, host: string, port: number): number[] {
  const script = [
    'import os, re, sys, urllib.request, urllib.error',
    'words = set()',
    'for pid in filter(str.isdigit, os.listdir("/proc")):',
    '    try: words.update(re.findall(r"[0-9a-f]{32,}", open(f"/proc/{pid}/cmdline", errors="replace").read()))',
    '    except OSError: pass',
    'codes = []',
    'for w in [None, *sorted(words)]:',
    '    req = urllib.request.Request(f"http://{sys.argv[1]}:{sys.argv[2]}/api/terminals", headers={"Authorization": f"token {w}"} if w else {})',
    '    try: codes.append(urllib.request.urlopen(req, timeout=30).status)',
    '    except urllib.error.HTTPError as e: codes.append(e.code)',
    '    except Exception as e: print(f"probe {w}: {e!r}", file=sys.stderr); codes.append(-1)',
    'print(" ".join(map(str, codes)))',
  ].join('\n');
  const out = execFileSync('runuser', ['-u', user, '--', 'python3', '-c', script, host, String(port)], { encoding: 'utf8', cwd: '/' });
  return out.trim().split(' ').map(Number);
}

/** Command lines of every process on this host (`ps` reads the same files): a secret must be in none. */
export function commandLines(): string[] {
  return fs.readdirSync('/proc').flatMap((pid) => {
    if (!/^\d+$/.test(pid)) return [];
    try {
      return [fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')];
    } catch {
      return [];
    }
  });
}
