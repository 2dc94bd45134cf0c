import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ErrorCode, ERROR_MESSAGES, HTTP_STATUS_MESSAGES } from '@suanli/contracts';
import { AppError } from '../errors';

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
}

/** One Chinese reason per ajv keyword; the field name comes first so the user knows what to fix. */
function describe(e: AjvError, context: string | undefined): string {
  const field =
    e.keyword === 'required'
      ? String(e.params.missingProperty)
      : e.instancePath.replace(/^\//, '').replace(/\//g, '.') || context || '请求体';
  const p = e.params;
  switch (e.keyword) {
    case 'required':
      return `${field} 不能为空`;
    case 'type':
      return `${field} 类型错误，应为 ${String(p.type)}`;
    case 'minLength':
      return `${field} 长度不能少于 ${String(p.limit)} 个字符`;
    case 'maxLength':
      return `${field} 长度不能超过 ${String(p.limit)} 个字符`;
    case 'minimum':
      return `${field} 不能小于 ${String(p.limit)}`;
    case 'maximum':
      return `${field} 不能大于 ${String(p.limit)}`;
    case 'minItems':
      return `${field} 至少需要 ${String(p.limit)} 项`;
    case 'maxItems':
      return `${field} 不能超过 ${String(p.limit)} 项`;
    case 'pattern':
    case 'format':
      return `${field} 格式不正确`;
    default:
      return `${field} 取值不合法`;
  }
}

/** Pre-serialized so the route's success schema never touches an error body. */
function sendEnvelope(reply: FastifyReply, status: number, code: number, message: string, data: unknown = null) {
  return reply
    .status(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify({ message: { code, message }, data }));
}

/**
 * The one error pipeline: AppError → its code (HTTP 200); schema validation → 1005 naming the field;
 * transport failures (bad JSON, too large, rate limited, unknown route, crash) → their HTTP status with the
 * envelope and the closest code.
 */
export function registerEnvelope(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    if (err instanceof AppError) {
      return sendEnvelope(reply, err.httpStatus, err.code, err.message, err.data ?? null);
    }
    const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string };
    if (fe.validation) {
      const first = fe.validation.find((v) => v.keyword !== 'anyOf') ?? fe.validation[0];
      const text = `${ERROR_MESSAGES[ErrorCode.PARAM_INVALID]}：${describe(first, fe.validationContext)}`;
      return sendEnvelope(reply, 200, ErrorCode.PARAM_INVALID, text);
    }
    const status = fe.statusCode && fe.statusCode >= 400 ? fe.statusCode : 500;
    // A client that goes away mid-request (a reload during an upload) is normal, not a server fault.
    const clientGone = req.raw.destroyed || (fe as NodeJS.ErrnoException).code === 'ECONNRESET';
    if (status >= 500) {
      if (clientGone) req.log.info({ reason: fe.message }, 'client closed the request');
      else req.log.error({ err }, 'unhandled error');
    }
    const code =
      status === 429 ? ErrorCode.NO_PERMISSION : status === 413 ? ErrorCode.FILE_TOO_LARGE : status < 500 ? ErrorCode.PARAM_INVALID : ErrorCode.RESOURCE_FAILED;
    const text =
      status === 429 ? '请求过于频繁，请稍后再试' : status === 413 ? ERROR_MESSAGES[ErrorCode.FILE_TOO_LARGE] : (HTTP_STATUS_MESSAGES[status] ?? HTTP_STATUS_MESSAGES[500]);
    return sendEnvelope(reply, status, code, text);
  });

  app.setNotFoundHandler((req, reply) => {
    sendEnvelope(reply, 404, ErrorCode.NOT_FOUND, HTTP_STATUS_MESSAGES[404]);
  });
}
