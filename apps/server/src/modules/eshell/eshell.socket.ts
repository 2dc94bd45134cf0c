import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WebSocket } from 'ws';
import { SHELL_WS_PATH, SOCKET_CLOSE_BAD_TOKEN, SOCKET_CLOSE_TOO_MANY_FRAMES, WS_BASE, type ShellClientFrame } from '@suanli/contracts';
import type { socketGuards } from '../../realtime/ws';
import type { EshellService, LiveShell } from './eshell.service';

/** Typing and pasting make many small frames; a client far above this is cut off (4029). */
const MAX_FRAMES_PER_SECOND = 400;
/** Frames kept while the shell is still connecting. */
const MAX_PENDING = 256;

/**
 * `SHELL_WS_PATH?token=…&centerId=…&cwd=…&cols=…&rows=…` (contracts/eshell.ts): registered under WS_BASE
 * in the scope with @fastify/websocket. Origin and token as the live-updates socket (socketGuards); the
 * shell itself is the caller's own (their cluster account, their home), so there is nothing of anyone
 * else's to address.
 */
export function eshellSocketRoutes(service: EshellService, guards: ReturnType<typeof socketGuards>): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(SHELL_WS_PATH.slice(WS_BASE.length), { websocket: true, ...guards.options }, (socket, req) => {
      const c = guards.caller(req);
      if (!c.ok) {
        socket.close(SOCKET_CLOSE_BAD_TOKEN, String(c.code));
        return;
      }
      let shell: LiveShell | undefined;
      let gone = false;
      const pending: (Buffer | string | ShellClientFrame)[] = [];
      let frames = 0;
      let windowStart = Date.now();

      const apply = (m: Buffer | string | ShellClientFrame) => {
        // Typed while the shell is being opened: kept (a bounded amount) and replayed once it is there.
        if (!shell) return void (pending.length < MAX_PENDING && pending.push(m));
        if (typeof m === 'string' || Buffer.isBuffer(m)) shell.input(m);
        else if (m.type === 'data') shell.input(m.data);
        else if (m.type === 'resize') shell.resize(m.cols, m.rows);
      };
      socket.on('message', (raw: Buffer, isBinary: boolean) => {
        const now = Date.now();
        if (now - windowStart >= 1_000) {
          windowStart = now;
          frames = 0;
        }
        if (++frames > MAX_FRAMES_PER_SECOND) {
          shell?.end('error');
          socket.close(SOCKET_CLOSE_TOO_MANY_FRAMES, 'too many frames');
          return;
        }
        if (isBinary) return apply(raw);
        let m: ShellClientFrame;
        try {
          m = JSON.parse(raw.toString()) as ShellClientFrame;
        } catch {
          return;
        }
        if (m && (m.type === 'data' ? typeof m.data === 'string' : m.type === 'resize')) apply(m);
      });
      socket.on('close', () => {
        gone = true;
        shell?.end('closed');
      });

      const q = req.query as Record<string, unknown>;
      void service
        .open(
          // The token the guards verified: the center's file service installs the platform key with it.
          { userId: c.userId, sessionId: c.sessionId, roles: c.roles, tokenHash: c.tokenHash, token: String(q.token) },
          { centerId: q.centerId, cwd: q.cwd, cols: q.cols, rows: q.rows },
          {
            status: (f) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(f)),
            output: (chunk) => socket.readyState === WebSocket.OPEN && socket.send(chunk, { binary: true }),
            close: (code, reason) => socket.readyState === WebSocket.OPEN && socket.close(code, reason),
            backlog: () => socket.bufferedAmount,
          },
          req.ip,
        )
        .then((s) => {
          shell = s;
          if (gone) return s.end('closed');
          for (const m of pending.splice(0)) apply(m);
        });
    });
  };
}
