import type { JobSpec } from '../executor';

/** Single-quotes a word for bash. */
export const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command prefix an image runs under (`{uri}` quoted), or '' without image or launcher. */
export function launcherPrefix(imageLauncher: string | undefined, image: JobSpec['image']): string {
  if (!imageLauncher || !image) return '';
  return `${imageLauncher.split('{uri}').join(shq(image.uri))} `;
}

/**
 * The batch script slurmrestd gets. `workers`: one srun step runs the user's script once per task with the
 * torch.distributed variables (MASTER_ADDR = first host of the allocation, MASTER_PORT from the job id so
 * jobs sharing a node differ, WORLD_SIZE/RANK/NODE_RANK/LOCAL_RANK from Slurm's task layout). `batch`: the
 * user's script run by bash (its `#SBATCH` lines were read by sbatchOptions; under the image launcher when the
 * task has an image and the center one). Either way the exit code is written to `$SUANLI_EXIT_FILE`.
 * The user's script travels base64-encoded in the environment of the steps: no quoting of user text.
 */
export function batchScript(spec: JobSpec, imageLauncher?: string): string {
  const launcher = launcherPrefix(imageLauncher, spec.image);
  const encoded = Buffer.from(spec.script, 'utf8').toString('base64');
  const lines = ['#!/bin/bash', `# suanli task ${spec.taskId} (${spec.launch})`];
  lines.push(`export SUANLI_SCRIPT="$(printf '%s' '${encoded}' | base64 -d)"`);
  if (spec.launch === 'batch') {
    lines.push(`${launcher}bash -c "$SUANLI_SCRIPT" suanli-batch`);
  } else {
    const worker = [
      'export RANK="$SLURM_PROCID" NODE_RANK="$SLURM_NODEID" LOCAL_RANK="$SLURM_LOCALID"',
      `exec ${launcher}bash -c "$SUANLI_SCRIPT" suanli-worker`,
    ].join('\n');
    lines.push(
      'MASTER_ADDR="$(scontrol show hostnames "$SLURM_JOB_NODELIST" 2>/dev/null | head -n 1)"',
      'export MASTER_ADDR="${MASTER_ADDR:-$(hostname)}"',
      'export MASTER_PORT=$((20000 + SLURM_JOB_ID % 20000))',
      'export WORLD_SIZE="${SLURM_NTASKS:-1}"',
      `srun --kill-on-bad-exit=1 bash -c ${shq(worker)}`,
    );
  }
  // The exit code, written where the platform reads it: accounting (dbv0.0.38) reports a wrong one for
  // failed jobs, and a job that leaves slurmctld while no gateway polls is settled from accounting.
  lines.push(
    'rc=$?',
    'if [ -n "$SUANLI_EXIT_FILE" ]; then printf \'%s\\n\' "$rc" > "$SUANLI_EXIT_FILE.$$" && mv -f "$SUANLI_EXIT_FILE.$$" "$SUANLI_EXIT_FILE"; fi',
    'exit "$rc"',
  );
  return `${lines.join('\n')}\n`;
}
