import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, errorMessage } from '@suanli/contracts';
import type { DownloadPlan } from './download.service';
import { zipStream } from './storage/zip';

/**
 * The bytes of a download: one file (Content-Disposition, Range → 206 / 416) or a zip stream with its
 * length known up front. Errors before the first byte are envelopes (the routes' error pipeline).
 */
export async function sendDownload(req: FastifyRequest, reply: FastifyReply, plan: DownloadPlan) {
  reply.header('content-disposition', contentDisposition(plan.name)).header('x-content-type-options', 'nosniff').header('cache-control', 'private, no-store');
  if (plan.kind === 'zip') {
    const { stream, size } = zipStream(plan.items, plan.fs);
    stream.once('close', plan.release);
    const length = await size;
    if (length >= 0) reply.header('content-length', length);
    return reply.type('application/zip').send(stream);
  }
  const { file } = plan;
  const { stat } = file;
  const range = parseRange(req.headers.range, stat.size);
  reply.type('application/octet-stream').header('accept-ranges', 'bytes').header('last-modified', new Date(stat.mtimeMs).toUTCString());
  if (range === 'unsatisfiable') {
    await file.close();
    const body = { message: { code: ErrorCode.DOWNLOAD_FAILED, message: `${errorMessage(ErrorCode.DOWNLOAD_FAILED)}：请求的范围无效` }, data: null };
    return reply.code(416).removeHeader('content-disposition').header('content-range', `bytes */${stat.size}`).type('application/json; charset=utf-8').send(JSON.stringify(body));
  }
  if (stat.size === 0) {
    await file.close();
    return reply.header('content-length', 0).send(Buffer.alloc(0));
  }
  if (range) {
    reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${stat.size}`).header('content-length', range.end - range.start + 1);
    const body = file.read(range.start, range.end);
    void file.close();
    return reply.send(body);
  }
  // Exactly the bytes announced: a file still growing (a job's log) must not overrun Content-Length. With
  // `end` the stream also ends with its last byte instead of one more read that finds EOF, so the answer
  // is finished by the time the client has all of it.
  const body = file.read(0, stat.size - 1);
  void file.close();
  return reply.header('content-length', stat.size).send(body);
}

/**
 * One byte range (`bytes=a-b`, `bytes=a-`, `bytes=-n`). Several ranges or a malformed header are ignored
 * (the whole file is sent, which RFC 9110 allows); a range starting past the end is unsatisfiable (416).
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** RFC 6266 / 5987: an ASCII fallback plus the exact UTF-8 name, so Chinese names survive every browser. */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_') || 'download';
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
