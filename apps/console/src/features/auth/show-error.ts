import { toast } from '../../app/feedback';
import { RequestError } from '../../app/request';

/**
 * The pipeline already told the user about request failures; anything else (e.g. the RSA helper refusing a
 * value) is shown here so a submit never fails silently.
 */
export function showLocalError(error: unknown): void {
  if (error instanceof RequestError) return;
  toast.error(error instanceof Error ? error.message : String(error));
}
