import path from 'node:path';
import type { EnvVar, TaskMount } from '@suanli/contracts';
import { jobHomeOf } from '../../center-storage/center-storage';
import type { CenterConfig } from '../../centers/centers';
import { notFound } from '../../errors';
import { platformEnv, type JobRef, type JobSpec } from '../../executors/executor';
import { uidOfAccount } from '../cluster-account/cluster-account.service';
import type { TaskRow } from './task.repository';

/** Image lookup for names and the launcher URI (the training module's catalogue). */
export type ImageLookup = (id: string) => { name: string; uri: string } | undefined;

/**
 * What a stored task is to its center's executor: the job it runs (`specOf`, rebuilt from the row, so a retry
 * after a restart sends the same job) and how a job is named to the executor (`refOf`). Also where the job
 * writes beside its log — the files the log/metrics reader (task-files.ts) reads.
 */
export class JobSpecs {
  constructor(
    private readonly centers: ReadonlyMap<string, CenterConfig>,
    private readonly images: ImageLookup,
  ) {}

  center(subCenterId: string): CenterConfig {
    const c = this.centers.get(subCenterId);
    if (!c) throw notFound('算力分中心');
    return c;
  }

  /** The account's home as its jobs see it (JobSpec.account.home; the center's path, whether or not the gateway has the disk). */
  homeOf(row: Pick<TaskRow, 'sub_center_id' | 'account'>): string {
    return jobHomeOf(this.center(row.sub_center_id), row.account);
  }

  accountOf(row: Pick<TaskRow, 'sub_center_id' | 'account'>) {
    return { name: row.account, uid: uidOfAccount(this.center(row.sub_center_id), row.account), home: this.homeOf(row) };
  }

  refOf(row: TaskRow): JobRef {
    return { jobId: row.job_id!, taskId: row.id, account: this.accountOf(row) };
  }

  /** What the executor runs: rebuilt from the stored row, so a retry after a restart sends the same job. */
  specOf(row: TaskRow): JobSpec {
    const center = this.center(row.sub_center_id);
    const cardType = center.cardTypes.find((c) => c.id === row.card_type_id)!;
    const account = this.accountOf(row);
    const workDir = path.join(account.home, row.work_dir);
    const outputPath = path.join(account.home, row.log_path);
    const env: Record<string, string> = {};
    for (const v of JSON.parse(row.env) as EnvVar[]) env[v.name] = v.value;
    const image = row.image_id ? this.images(row.image_id) : undefined;
    const mounts = mountsOf(row);
    return {
      taskId: row.id,
      name: row.name,
      account,
      workDir,
      script: row.kind === 'training' ? `#!/bin/bash\n${row.type === 'develop' ? IDE_PREAMBLE : ''}${row.command}\n` : row.command,
      launch: row.kind === 'training' ? 'workers' : 'batch',
      env: {
        ...env,
        ...platformEnv({ taskId: row.id, workDir }, { metrics: path.join(account.home, metricsPath(row)), exit: path.join(account.home, exitPath(row)) }),
        ...(row.type === 'develop' ? this.ideEnv(row, account.home) : {}),
        ...Object.fromEntries(mounts.map((m) => [m.env, m.path])),
      },
      readOnly: mounts.map((m) => m.path),
      cardType,
      cardsPerNode: row.card_num,
      nodes: row.node_num,
      tasksPerNode: row.kind === 'training' && row.type === 'distributed' ? Math.max(1, row.card_num) : 1,
      timeLimitMinutes: row.max_duration_min,
      outputPath,
      image: image ? { id: row.image_id, uri: image.uri } : undefined,
    };
  }

  /**
   * A develop job's IDE variables: where to write its endpoint, and — on the local executor, whose jobs all
   * run on this host — the loopback address to listen on (a Slurm job looks up its node's NodeAddr itself,
   * IDE_PREAMBLE: the address the gateway will connect to).
   */
  private ideEnv(row: TaskRow, home: string): Record<string, string> {
    const env: Record<string, string> = { SUANLI_ENDPOINT_FILE: path.join(home, endpointPath(row)) };
    if (this.center(row.sub_center_id).scheduler.kind === 'local') env.SUANLI_IDE_HOST = '127.0.0.1';
    return env;
  }
}

// ---- what a job writes beside its log (paths in the owner's home) ----------------------------------------

/** Training curves: JSON lines of numbers ($SUANLI_METRICS_FILE). */
export const metricsPath = (row: Pick<TaskRow, 'log_path'>) => row.log_path.replace(/\.log$/, '.metrics.jsonl');
/** Where the job's wrapper writes its exit code (the Slurm executor's batch script). */
export const exitPath = (row: Pick<TaskRow, 'log_path'>) => row.log_path.replace(/\.log$/, '.exit');
/** Where a develop task's job writes its IDE's address (IDE_PREAMBLE; read by task-files.ts, parseIdeEndpoint). */
export const endpointPath = (row: Pick<TaskRow, 'log_path'>) => row.log_path.replace(/\.log$/, '.endpoint');

/**
 * Runs before a develop task's command: picks the address to listen on (SUANLI_IDE_HOST: loopback on the
 * local executor; on Slurm the node's NodeAddr, which is where the gateway connects — never all
 * interfaces), a free port and a random token, exports them (SUANLI_IDE_HOST, SUANLI_IDE_PORT,
 * SUANLI_IDE_TOKEN) and writes `<port> <token>` to SUANLI_ENDPOINT_FILE (mode 0600 in the account's home) for
 * the gateway's proxy, which adds the token to every request. The token is only ever in the environment and
 * that file — never on a command line, which every account on a shared node can read in /proc/<pid>/cmdline
 * (`printf` is a bash builtin; `od`/`tr` only see the random bytes on a pipe).
 */
const IDE_PREAMBLE = [
  'if [ -z "${SUANLI_IDE_HOST:-}" ]; then',
  '  SUANLI_IDE_HOST=$(scontrol show node "${SLURMD_NODENAME:-$(hostname -s)}" 2>/dev/null | tr " " "\\n" | sed -n "s/^NodeAddr=//p" | head -n 1)',
  'fi',
  'if [ -z "$SUANLI_IDE_HOST" ]; then echo "开发环境启动失败：无法确定本节点的地址（scontrol show node）" >&2; exit 1; fi',
  'SUANLI_IDE_PORT=$(python3 -c \'import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])\' "$SUANLI_IDE_HOST")',
  'SUANLI_IDE_TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d " \\n")',
  'export SUANLI_IDE_HOST SUANLI_IDE_PORT SUANLI_IDE_TOKEN',
  '(umask 077; printf "%s %s\\n" "$SUANLI_IDE_PORT" "$SUANLI_IDE_TOKEN" > "$SUANLI_ENDPOINT_FILE.tmp" && mv -f "$SUANLI_ENDPOINT_FILE.tmp" "$SUANLI_ENDPOINT_FILE")',
  '',
].join('\n');

/** The mounts stored on a task row (older rows have none). */
export function mountsOf(r: Pick<TaskRow, 'mounts'>): TaskMount[] {
  try {
    return JSON.parse(r.mounts ?? '[]') as TaskMount[];
  } catch {
    return [];
  }
}
