import { ERROR_MESSAGES } from '@suanli/contracts';

/** The success envelope. Every JSON handler returns `ok(data)`. */
export function ok<T>(data: T) {
  return { message: { code: 0, message: ERROR_MESSAGES[0] }, data };
}
