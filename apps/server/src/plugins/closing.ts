import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Lets `app.close()` (SIGTERM) finish as soon as the calls in flight have been answered. Node's
 * `server.close()` closes the keep-alive connections that are idle at that moment — once. A connection whose
 * answer was still in progress (an upload, a slow query, or a streamed download whose client already had
 * every byte while the file stream had not yet called `res.end()`: the old "close hangs after a download")
 * becomes idle only afterwards, and then stayed open until the client or the keep-alive timeout (72 s, which
 * undici honours) dropped it, holding the close up that long. So when
 * the app starts closing, each connection with an answer in progress is ended right after that answer has
 * been handed to the kernel ('finish'): the answer is complete, then the client sees the connection close.
 * (Not `closeIdleConnections()` in a loop: Node counts a connection idle once the request is received, and
 * would destroy one whose ended answer is still being flushed.) New requests on such a connection are refused
 * with 503 by Fastify meanwhile (`return503OnClosing`). Tracking is per connection, not per request.
 */
export function registerClosing(app: FastifyInstance): void {
  const sockets = new Set<Socket>();
  let closing = false;
  app.server.on('connection', (socket: Socket) => {
    // A connection opened while closing would only get 503s; one that never sends a request is not "idle"
    // to server.close() and held the close up until the client gave up (a keep-alive client reconnecting
    // right after an aborted download did exactly that).
    if (closing) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of sockets) {
      // The answer Node is currently writing on this connection (null between requests and once upgraded).
      const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (!res) continue; // idle: server.close() closes it
      if (res.writableFinished) socket.end();
      else res.once('finish', () => socket.end());
    }
  });
}
