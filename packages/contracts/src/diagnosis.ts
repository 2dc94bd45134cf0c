import { Type, type Static } from '@sinclair/typebox';
import { Id } from './common';

/**
 * Why a task failed or stopped, and what to change (issue 23 item 1): worked out by the gateway from the
 * scheduler's accounting and the log's last lines (apps/server/src/modules/task/diagnosis/).
 */
export const DIAGNOSIS_CAUSES = [
  'memory',
  'gpuMemory',
  'timeLimit',
  'missingModule',
  'missingFile',
  'pythonException',
  'killed',
  'nodeFailure',
  'launchFailure',
  'cancelledOutside',
  'exitCode',
] as const;
export const DiagnosisCause = Type.Union(DIAGNOSIS_CAUSES.map((c) => Type.Literal(c)));
export type DiagnosisCause = Static<typeof DiagnosisCause>;

/** One fact the cause rests on: a figure from accounting, or a line of the log (1-based, to open it there). */
export const DiagnosisEvidence = Type.Object({
  text: Type.String(),
  logLine: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type DiagnosisEvidence = Static<typeof DiagnosisEvidence>;

/** What 按建议重新提交 changes in the task's parameters (absent: the suggestion is advice, not a change). */
export const DiagnosisChange = Type.Object({
  maxDurationMinutes: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Slurm scripts: the `#SBATCH --mem` to ask for, in MiB. */
  memoryMB: Type.Optional(Type.Integer({ minimum: 1 })),
  cardNum: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type DiagnosisChange = Static<typeof DiagnosisChange>;

export const Diagnosis = Type.Object({
  cause: DiagnosisCause,
  /** The cause in one Chinese sentence. */
  title: Type.String(),
  evidence: Type.Array(DiagnosisEvidence),
  /** One suggestion, in Chinese. */
  suggestion: Type.String(),
  change: Type.Optional(DiagnosisChange),
});
export type Diagnosis = Static<typeof Diagnosis>;

/**
 * seff-like report of an ended task (issue 23 item 3): CPU efficiency (CPU time ÷ elapsed × CPUs), peak memory
 * ÷ requested, card-hours allocated. A figure the center did not report is null. Accelerator use is reported
 * by no center yet (`acceleratorReported: false`: the console says so).
 */
export const Efficiency = Type.Object({
  elapsedSeconds: Type.Number(),
  cpus: Type.Union([Type.Integer(), Type.Null()]),
  cpuSeconds: Type.Union([Type.Number(), Type.Null()]),
  /** 0–1 (may pass 1 a little when the job used more cores than it was given). */
  cpuEfficiency: Type.Union([Type.Number(), Type.Null()]),
  maxRssMB: Type.Union([Type.Integer(), Type.Null()]),
  requestedMemMB: Type.Union([Type.Integer(), Type.Null()]),
  /** Peak ÷ requested, 0–1+. */
  memoryEfficiency: Type.Union([Type.Number(), Type.Null()]),
  /** 卡时 allocated (cards × elapsed hours), two decimals. */
  cardHours: Type.String(),
  acceleratorReported: Type.Boolean(),
  /** One concrete hint for a task that used little of what it asked for, in Chinese. */
  hint: Type.Union([Type.String(), Type.Null()]),
});
export type Efficiency = Static<typeof Efficiency>;

/**
 * 原任务 of a resubmitted task (issue 23 item 2): the task it was made from by 重新提交, 按建议重新提交 or a
 * copy in the training form — the owner's own task of the same family; `type` makes its detail path.
 */
export const TaskOrigin = Type.Object({ id: Id, type: Type.String(), name: Type.String() });
export type TaskOrigin = Static<typeof TaskOrigin>;
