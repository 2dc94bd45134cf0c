import { ERROR_MESSAGES, type EnvelopeOf } from '@suanli/contracts';

/** The success envelope. Every JSON handler returns `ok(data)`; the type provider checks `data` against the route's response schema. */
export function ok<T>(data: T): EnvelopeOf<T> {
  return { message: { code: 0, message: ERROR_MESSAGES[0] }, data };
}
