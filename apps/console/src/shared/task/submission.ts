import { useState } from 'react';

/**
 * A new submission id (`clientRequestId`, CLIENT_REQUEST_ID_PATTERN): 32 hex digits from the browser's
 * random source (`crypto.randomUUID` exists only on secure origins; a gateway may be served over plain HTTP).
 */
export function newSubmissionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * One submission's id, for a form or a button that submits a task: made when the user submits, kept while
 * that submission is retried after a failure (a network error may hide a task the gateway made: the same id
 * then answers that task instead of making a second), dropped after a success or when the form changes.
 */
export function useSubmissionId() {
  const [submission] = useState(() => {
    let id: string | null = null;
    return {
      /** The id of the submission under way, made on first use. */
      take: () => (id ??= newSubmissionId()),
      /** The next submission is a new one. */
      reset: () => {
        id = null;
      },
    };
  });
  return submission;
}
