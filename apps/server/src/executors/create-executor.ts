import path from 'node:path';
import type { CenterConfig } from '../centers/centers';
import type { Executor } from './executor';
import { LocalExecutor, type LocalExecutorOptions } from './local/local-executor';
import { SlurmExecutor } from './slurm/slurm-executor';

export interface CreateExecutorOptions {
  /** The gateway's data directory: the local executor keeps its jobs in `<dataDir>/executor/<centerId>`. */
  dataDir: string;
  clock?: () => number;
  /** Test knobs of the local executor (poll interval, kill grace, minute length). */
  local?: Omit<LocalExecutorOptions, 'stateDir' | 'clock'>;
}

/** The executor of one center, from its `scheduler.kind` (config/centers.yaml). */
export function createExecutor(center: CenterConfig, opts: CreateExecutorOptions): Executor {
  switch (center.scheduler.kind) {
    case 'slurm':
      return new SlurmExecutor(center);
    case 'local':
      return new LocalExecutor(center, { ...opts.local, stateDir: path.join(opts.dataDir, 'executor', center.id), clock: opts.clock });
  }
}
