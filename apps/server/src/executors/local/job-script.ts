import path from 'node:path';
import { isAccelerator, type CenterCardType } from '../../centers/centers';
import type { JobSpec } from '../executor';
import { parseSbatchOptions } from '../slurm/sbatch-options';
import type { Alloc } from './inventory';

/**
 * The bash the local executor runs (local-executor.ts). Every job runs under `supervise.sh` (SUPERVISOR), which
 * runs detached (its own session, so a gateway stop or restart does not touch it) and starts `job.sh` in a
 * second new session: the job's process group, which cancel and the time limit signal (SIGTERM, then SIGKILL
 * after the grace period) without reaching the supervisor. When the group's leader ends, the supervisor kills
 * what is left of the group (like Slurm ending a job's step) and writes the exit file. `job.sh` (`jobScript`)
 * sets the job's environment and its cards, then runs the script once (batch) or once per worker.
 */

export const SUPERVISOR = `#!/bin/bash
# suanli local executor: supervises one job (see apps/server/src/executors/local/job-script.ts).
# $1 = job directory, $2 = output file (stdout and stderr of the job, appended).
d="$1"
setsid bash "$d/job.sh" >>"$2" 2>&1 </dev/null &
job=$!
echo "$job" >"$d/pid.tmp" && mv -f "$d/pid.tmp" "$d/pid"
# What the job uses (issue 23): its session's resident memory, sampled, with the peak kept in peak-rss (KiB);
# over mem-limit (MiB, the script's #SBATCH --mem) the group is killed as Slurm's cgroup would, and oom says so.
limit=0; [ -f "$d/mem-limit" ] && limit=$(( $(<"$d/mem-limit") * 1024 ))
(
  peak=0
  page_kib=$(( $(getconf PAGESIZE) / 1024 ))
  # The resident memory of the job's session (what \`ps -o rss= -s\` sums), read from /proc/*/stat by bash alone:
  # forking a subshell, ps and awk three times a second cost ~40 ms of CPU a second per running job — 5 % of a whole
  # CI run's CPU (issue 26). After the command name: field 4 is the session, 22 the resident pages.
  session_rss() {
    rss=0
    local f line
    for f in /proc/[0-9]*/stat; do
      { read -r line <"$f"; } 2>/dev/null || continue
      set -- \${line##*) }
      [ "$4" = "$job" ] && rss=$(( rss + \${22} * page_kib ))
    done
  }
  # While the job's leader lives: its pid exists from the fork, while its process group exists only once setsid
  # ran in the child — a sampler asking for the group first could find none and stop before sampling anything.
  while kill -0 "$job" 2>/dev/null; do
    session_rss
    # Renamed into place: the sampler is killed when the job ends, maybe mid-write, and a reader must never see
    # the file truncated and empty (the peak then went missing from a finished task).
    if [ "$rss" -gt "$peak" ]; then peak=$rss; echo "$peak" >"$d/peak-rss.tmp" && mv -f "$d/peak-rss.tmp" "$d/peak-rss"; fi
    if [ "$limit" -gt 0 ] && [ "$rss" -gt "$limit" ]; then date +%s%3N >"$d/oom"; kill -KILL -- "-$job" 2>/dev/null; break; fi
    sleep 0.3
  done
) &
sampler=$!
wait "$job"
code=$?
# CPU time of the job: the children this shell has reaped (the sampler is not yet one of them). \`times\` runs in
# this shell itself (a command substitution's subshell would report its own, empty, children).
times >"$d/cpu"
kill -KILL -- "-$job" 2>/dev/null
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
echo "$code $(date +%s%3N)" >"$d/exit.tmp" && mv -f "$d/exit.tmp" "$d/exit"
`;

/** Only root may make a private mount namespace and bind mounts without mapping the job's user. */
const CAN_BIND = process.getuid?.() === 0;

const VISIBLE_DEVICES: Record<string, string> = {
  nvidia: 'CUDA_VISIBLE_DEVICES',
  huawei: 'ASCEND_RT_VISIBLE_DEVICES',
  hygon: 'HIP_VISIBLE_DEVICES',
};

/**
 * job.sh: the job's environment and its one batch run or its workers (the first failing worker ends it). `job`
 * is the job's id, its directory (which holds `script.sh`, the spec's script) and its spec; `imageLauncher` is
 * the center's (`{uri}` replaced by the image's).
 */
export function jobScript(
  job: { id: string; dir: string; spec: JobSpec },
  type: CenterCardType,
  alloc: Alloc[],
  nodes: string[],
  masterPort: number,
  imageLauncher: string | undefined,
): string {
  const { spec } = job;
  const script = path.join(job.dir, 'script.sh');
  const visible = VISIBLE_DEVICES[type.vendor.toLowerCase()];
  const lines = ['#!/bin/bash', `# ${job.id} (task ${spec.taskId}), written by the suanli local executor`];
  if (spec.readOnly?.length && CAN_BIND) {
    // Mounted versions read-only even for a job running as their owner (or as root, as in tests): the job
    // re-runs itself in a private mount namespace (same pid, so the supervisor still signals its group)
    // and binds each folder onto itself read-only. Without privileges the files' modes are the guard.
    lines.push(
      'if [ -z "${SUANLI_MOUNT_NS:-}" ]; then export SUANLI_MOUNT_NS=1; exec unshare -m --propagation private bash "$0"; fi',
      ...spec.readOnly.map((d) => `mount --bind -o ro -- ${q(d)} ${q(d)} || exit 1`),
      'unset SUANLI_MOUNT_NS',
    );
  }
  lines.push(`cd -- ${q(spec.workDir)} || exit 1`);
  const env: Record<string, string> = {
    ...(spec.launch === 'batch' ? slurmEnv(job.id, spec, type, nodes) : {}),
    ...spec.env,
    SUANLI_JOB_ID: job.id,
    SUANLI_NODELIST: nodes.join(','),
  };
  if (spec.image) env.SUANLI_IMAGE = spec.image.uri;
  for (const [k, v] of Object.entries(env)) lines.push(`export ${k}=${q(v)}`);
  const launcher = imageLauncher && spec.image ? `${imageLauncher.replaceAll('{uri}', q(spec.image.uri))} ` : '';
  const place = (i: number) => {
    const vars = [`SUANLI_NODE=${q(nodes[i])}`];
    if (visible) vars.push(`${visible}=${q(alloc[i].cards.join(','))}`);
    return vars.join(' ');
  };
  if (spec.launch === 'batch') {
    // The batch script runs once, on the first node, and leads the job's process group itself.
    lines.push(`export ${place(0)}`, `exec ${launcher}bash ${q(script)}`);
    return lines.join('\n') + '\n';
  }
  const perNode = Math.max(1, spec.tasksPerNode ?? 1);
  const world = nodes.length * perNode;
  lines.push(`export MASTER_ADDR=127.0.0.1 MASTER_PORT=${masterPort} WORLD_SIZE=${world}`, 'pids=()');
  for (let n = 0; n < nodes.length; n++) {
    for (let l = 0; l < perNode; l++) {
      lines.push(`${place(n)} NODE_RANK=${n} LOCAL_RANK=${l} RANK=${n * perNode + l} ${launcher}bash ${q(script)} &`, 'pids+=($!)');
    }
  }
  // SIGTERM (cancel, time limit) reaches the workers through the group; this shell keeps waiting for them
  // so they get the whole grace period. The first worker to fail ends the others.
  // Bash can lose a worker's status to `wait -n` when it ends while the TERM trap runs (wait -n answers
  // 127 with workers left): those are collected by pid, whose statuses bash keeps. A stopped job that still
  // ends 0 reports the signal (143), as Slurm reports a cancelled job's signal — never "exit 0".
  lines.push(
    "term=; trap 'term=1' TERM",
    'code=0',
    'left=${#pids[@]}',
    'while [ "$left" -gt 0 ]; do',
    '  id=; wait -n -p id; c=$?',
    '  if [ -z "$id" ]; then [ "$c" -eq 127 ] && break; continue; fi',
    '  left=$((left - 1))',
    '  if [ "$c" -ne 0 ] && [ "$code" -eq 0 ]; then code=$c; kill -TERM "${pids[@]}" 2>/dev/null; fi',
    'done',
    'if [ "$left" -gt 0 ]; then for p in "${pids[@]}"; do wait "$p" 2>/dev/null; c=$?; [ "$c" -ne 127 ] && [ "$c" -ne 0 ] && [ "$code" -eq 0 ] && code=$c; done; fi',
    '[ "$code" -eq 0 ] && [ -n "$term" ] && code=143',
    'exit "$code"',
  );
  return lines.join('\n') + '\n';
}

/**
 * What Slurm gives a batch script, for the Slurm templates a center without Slurm runs on this executor (issue
 * 22 item 7): templates read `$SLURM_JOB_ID` (a number: scripts do arithmetic with it), the node list, the
 * task and CPU counts. The counts follow the script's `#SBATCH` lines as sbatch would. Only batch jobs get
 * them: a training worker seeing SLURM_* would make frameworks (Lightning, torchrun's launchers) believe
 * Slurm placed it. The task's own variables (`spec.env`) still win.
 */
export function slurmEnv(jobId: string, spec: JobSpec, type: CenterCardType, nodes: string[]): Record<string, string> {
  const sb = parseSbatchOptions(spec.script);
  const perNode = sb.tasksPerNode ?? Math.max(1, spec.tasksPerNode ?? 1);
  const tasks = sb.tasks ?? nodes.length * perNode;
  // A CPU-only type's "cards" are cores; an accelerator brings its cores per card.
  const cpus = isAccelerator(type) ? spec.cardsPerNode * type.cpusPerCard : spec.cardsPerNode;
  const env: Record<string, string> = {
    SLURM_JOB_ID: /^local-(\d+)$/.exec(jobId)?.[1] ?? jobId,
    SLURM_JOB_NAME: spec.name,
    SLURM_SUBMIT_DIR: spec.workDir,
    SLURM_JOB_PARTITION: type.partition,
    SLURM_JOB_NODELIST: nodes.join(','),
    SLURM_JOB_NUM_NODES: String(nodes.length),
    SLURM_NTASKS: String(tasks),
    SLURM_CPUS_ON_NODE: String(Math.max(1, cpus)),
    SLURM_PROCID: '0',
    SLURM_NODEID: '0',
    SLURM_LOCALID: '0',
  };
  env.SLURM_JOBID = env.SLURM_JOB_ID;
  env.SLURM_NODELIST = env.SLURM_JOB_NODELIST;
  env.SLURM_NNODES = env.SLURM_JOB_NUM_NODES;
  env.SLURM_NPROCS = env.SLURM_NTASKS;
  if (sb.cpusPerTask) env.SLURM_CPUS_PER_TASK = String(sb.cpusPerTask);
  // MPI launchers that see SLURM_* hand the ranks to srun and read the allocation from Slurm, and there is no
  // srun here (Open MPI fails in ras_base_allocate): they are told to start the ranks themselves.
  Object.assign(env, { OMPI_MCA_plm: '^slurm', OMPI_MCA_ras: '^slurm', OMPI_MCA_ess: '^slurm', HYDRA_BOOTSTRAP: 'fork', I_MPI_HYDRA_BOOTSTRAP: 'fork' });
  return env;
}

/**
 * The memory a batch job may use on its node (its script's `#SBATCH --mem`, or `--mem-per-cpu` × its CPUs —
 * the supervisor enforces it as Slurm's cgroup would) and its CPUs (the efficiency report's denominator).
 * Training workers have no memory limit here.
 */
export function jobLimits(spec: JobSpec, type: CenterCardType): { memMB?: number; cpus: number } {
  const perNode = isAccelerator(type) ? spec.cardsPerNode * type.cpusPerCard : spec.cardsPerNode;
  const cpus = Math.max(1, perNode) * spec.nodes;
  if (spec.launch !== 'batch') return { cpus };
  const sb = parseSbatchOptions(spec.script);
  const memMB = sb.memoryPerNodeMB ?? (sb.memoryPerCpuMB ? sb.memoryPerCpuMB * Math.max(1, perNode) : undefined);
  // `--mem=0` (all of the node's memory) reads as 1 MiB: no limit, as for a script without one.
  return memMB && memMB > 1 ? { memMB, cpus } : { cpus };
}

/** Shell single-quoting. */
function q(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
