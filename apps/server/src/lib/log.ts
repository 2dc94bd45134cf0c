import type { FastifyRequest } from 'fastify';

/**
 * Credentials that travel in URLs: the socket's `?token=` (browsers cannot set headers on a WebSocket), the
 * download ticket in `/file/download/t/<ticket>` (a browser navigation), and whatever query parameter a
 * future caller names like a secret. The log keeps the path and the parameter's name, never the value.
 */
const SECRET_PARAM = /^(token|ticket|code|password|secret|key|signature|sig|access_token|auth)$/i;
const SECRET_PATH = /(\/download\/t\/)[^/?#]+/g;
export const REDACTED = '[REDACTED]';

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(SECRET_PATH, `$1${REDACTED}`);
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name);
      } catch {
        // Malformed escapes: judged on the raw name.
      }
      return SECRET_PARAM.test(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

/**
 * The logger options of the gateway and of the standalone file service: credential headers censored, and
 * the request line logged through `redactUrl` (Fastify's default serializer logs `req.url` verbatim).
 */
export function loggerOptions(level: string, stream?: NodeJS.WritableStream) {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: ['req.headers.token', 'req.headers.authorization', 'req.headers["agent-token"]', 'req.headers.cookie'],
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        url: redactUrl(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  };
}
