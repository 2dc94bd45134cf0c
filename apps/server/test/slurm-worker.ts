import { inject } from 'vitest';
import type { SlurmHarness } from './slurm-harness';

/**
 * The Slurm harness of this test file's worker. The `server-slurm` project's globalSetup starts one harness
 * per worker (apps/server/test/slurm-harness.ts) and vitest numbers the workers running at the same time
 * 1…maxWorkers (`VITEST_POOL_ID`): files that run side by side never share clusters, accounts or cards, while
 * the files of one worker use its harness one after another (as the whole tier once shared one).
 */
export function workerSlurmHarness(): SlurmHarness {
  const harnesses = inject('slurmHarnesses');
  if (!harnesses?.length) throw new Error('slurm-worker: no Slurm harness provided (the server-slurm project starts them in its globalSetup)');
  const pool = Number(process.env.VITEST_POOL_ID);
  if (!Number.isInteger(pool) || pool < 1 || pool > harnesses.length) {
    // Sharing a harness with a file running at the same time would make queueing assertions race: refuse.
    throw new Error(`slurm-worker: worker VITEST_POOL_ID=${process.env.VITEST_POOL_ID} has no harness of its own (${harnesses.length} started)`);
  }
  return harnesses[pool - 1];
}
