import { ErrorCode, errorMessage } from '@suanli/contracts';

/**
 * A business failure. Services throw it; the one error handler (plugins/envelope.ts) turns it into
 * `{message:{code,message}, data}` (`data` null unless the error carries some) with HTTP 200, as the console's request pipeline expects.
 */
export class AppError extends Error {
  constructor(
    readonly code: number,
    message?: string,
    /** HTTP status for transport-level failures only (429, 413…); business errors stay 200. */
    readonly httpStatus = 200,
    /** The envelope's `data` (null when absent): what a client needs to act on the error (2507: what to buy). */
    readonly data?: unknown,
  ) {
    super(message ?? errorMessage(code));
  }
}

/** 1005 naming the field, e.g. `参数校验失败：password 长度应为 8–64 位`. */
export function invalid(field: string, reason: string): AppError {
  return new AppError(ErrorCode.PARAM_INVALID, `${errorMessage(ErrorCode.PARAM_INVALID)}：${field} ${reason}`);
}

export const forbidden = () => new AppError(ErrorCode.NO_PERMISSION);
export const notFound = (what?: string) =>
  new AppError(ErrorCode.NOT_FOUND, what ? `${what}不存在` : undefined);
