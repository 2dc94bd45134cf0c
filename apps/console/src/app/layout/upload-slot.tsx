import { lazy, Suspense } from 'react';

/*
 * SLOT — the header's task panel button (./task-panel.tsx: uploads from `src/shared/upload`, cross-center
 * syncs from `src/features/sync`). It loads lazily so the uploader (hashing, chunking, its table) and the
 * sync list never weigh on the header's first paint.
 */
const TaskPanelButton = lazy(() => import('./task-panel').then((m) => ({ default: m.TaskPanelButton })));

export function UploadSlot() {
  return (
    <Suspense fallback={null}>
      <TaskPanelButton />
    </Suspense>
  );
}
