import { Type, type Static } from '@sinclair/typebox';

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
