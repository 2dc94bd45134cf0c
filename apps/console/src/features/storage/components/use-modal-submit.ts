import { useState } from 'react';

/**
 * The submit of a storage dialog: busy while it runs, closes on success, stays open on failure (the request
 * pipeline already showed the reason, and the user can correct and retry).
 */
export function useModalSubmit<T>(onSubmit: (value: T) => Promise<unknown>, onClose: () => void) {
  const [busy, setBusy] = useState(false);
  const run = async (value: T) => {
    setBusy(true);
    try {
      await onSubmit(value);
      onClose();
    } catch {
      // Shown by the pipeline; keep the dialog.
    } finally {
      setBusy(false);
    }
  };
  return { busy, run };
}
