import { lazy, Suspense } from 'react';

/*
 * SLOT — the upload task panel button, built in `src/shared/upload` by the storage/upload work. It loads
 * lazily so the uploader (hashing, chunking, its table) never weighs on the header's first paint.
 */
const UploadPanelButton = lazy(() => import('../../shared/upload').then((m) => ({ default: m.UploadPanelButton })));

export function UploadSlot() {
  return (
    <Suspense fallback={null}>
      <UploadPanelButton />
    </Suspense>
  );
}
