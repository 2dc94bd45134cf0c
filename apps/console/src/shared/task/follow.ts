import { isTerminal, METRICS_MAX_POINTS, type JobState, type MetricPoint, type TaskLog, type TaskMetrics } from '@suanli/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { RequestError } from '../../app/request';
import type { TaskCalls } from './task-calls';
import { ACTIVE_STATES } from './task-view';

/**
 * Following a running task's files (log, metrics) the way `tail -f` does: ask again from `nextOffset`.
 * This reads a growing file and never asks for the task's state — that arrives through the socket.
 * Before the job runs there is nothing to read; once it is terminal the rest is read until the end.
 */
type Phase = 'idle' | 'follow' | 'final';

const phaseOf = (s: JobState | undefined): Phase => (!s ? 'idle' : ACTIVE_STATES.includes(s) ? 'follow' : isTerminal(s) ? 'final' : 'idle');

const LOG_FOLLOW_MS = 2000;
const METRICS_FOLLOW_MS = 5000;
const LOG_CHUNK = 256 * 1024;
/** A log longer than this when first opened is shown from its last LOG_CHUNK bytes. */
const LOG_TAIL_JUMP = 2 * LOG_CHUNK;
/** Characters kept on screen; older lines drop off (the download has everything). */
const LOG_KEEP = 1024 * 1024;
/** Reads after the task ended that may still find nothing new before the panel stops asking. */
const FINAL_TRIES = 3;

const messageOf = (e: unknown) => (e instanceof RequestError || e instanceof Error ? e.message : '读取失败');

/** After one read: the wait before the next one (0: at once), or `done`. */
type Next = number | 'done';

/**
 * The loop both followers share: `read` then `take` the answer while the file can grow and, once the task
 * ended, until `take` says done or FINAL_TRIES reads in a row brought nothing (`lastTry()` counts them;
 * failures count too). A failure is shown and the next read waits twice as long. Both callbacks must be
 * stable (useCallback): a new one starts the loop again.
 */
function useFollow<R>(state: JobState | undefined, everyMs: number, read: () => Promise<R>, take: (answer: R, phase: Phase, lastTry: () => boolean) => Next) {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const phase = phaseOf(state);

  useEffect(() => {
    if (phase === 'idle' || done) return;
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let idleTries = 0;
    const lastTry = () => phase === 'final' && ++idleTries >= FINAL_TRIES;
    const next = (n: Next) => {
      if (n === 'done') setDone(true);
      else timer = setTimeout(tick, n);
    };
    async function tick() {
      // A hidden tab reads nothing; it catches up from the same offset once shown again.
      if (document.hidden && phase === 'follow') return next(everyMs);
      try {
        const answer = await read();
        if (!alive) return;
        setError(null);
        next(take(answer, phase, lastTry));
      } catch (e) {
        if (!alive) return;
        setError(messageOf(e));
        next(lastTry() ? 'done' : everyMs * 2);
      }
    }
    void tick();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [phase, done, everyMs, read, take]);

  return { error, following: phase !== 'idle' && !done };
}

export interface LogFollow {
  text: string;
  /** The beginning of the log is not on screen (long log, or older lines dropped). */
  omitted: boolean;
  following: boolean;
  error: string | null;
}

/** `read`: the family's log call (each family has it under its own base). */
export function useLogFollow(taskId: string, state: JobState | undefined, read: TaskCalls['readLog']): LogFollow {
  const [text, setText] = useState('');
  const [omitted, setOmitted] = useState(false);
  const offset = useRef(0);
  const first = useRef(true);

  const readNext = useCallback(() => read(taskId, { offset: offset.current, limit: LOG_CHUNK }, { silent: true }), [taskId, read]);
  const take = useCallback((log: TaskLog, _phase: Phase, lastTry: () => boolean): Next => {
    if (first.current) {
      first.current = false;
      if (log.size - log.nextOffset > LOG_TAIL_JUMP) {
        offset.current = log.size - LOG_CHUNK;
        setOmitted(true);
        return 0;
      }
    }
    offset.current = log.nextOffset;
    if (log.content) {
      setText((t) => {
        const next = t + log.content;
        if (next.length <= LOG_KEEP) return next;
        setOmitted(true);
        return next.slice(next.length - LOG_KEEP);
      });
    }
    if (log.eof) return 'done';
    if (log.nextOffset < log.size) return 0;
    return !log.content && lastTry() ? 'done' : LOG_FOLLOW_MS;
  }, []);

  return { text, omitted, ...useFollow(state, LOG_FOLLOW_MS, readNext, take) };
}

export interface MetricsFollow {
  points: MetricPoint[];
  truncated: boolean;
  error: string | null;
}

/** `read`: the family's metrics call. After the task ended, at most FINAL_TRIES more windows are read. */
export function useMetricsFollow(taskId: string, state: JobState | undefined, read: TaskCalls['readMetrics']): MetricsFollow {
  const [points, setPoints] = useState<MetricPoint[]>([]);
  const [truncated, setTruncated] = useState(false);
  const offset = useRef(0);

  const readNext = useCallback(() => read(taskId, { offset: offset.current }, { silent: true }), [taskId, read]);
  const take = useCallback((m: TaskMetrics, phase: Phase, lastTry: () => boolean): Next => {
    const moved = m.nextOffset !== offset.current;
    offset.current = m.nextOffset;
    if (m.truncated) setTruncated(true);
    if (m.points.length) setPoints((p) => (p.length >= METRICS_MAX_POINTS ? p : [...p, ...m.points].slice(0, METRICS_MAX_POINTS)));
    if (phase === 'final' && (!moved || lastTry())) return 'done';
    return moved && phase === 'final' ? 0 : METRICS_FOLLOW_MS;
  }, []);

  const { error } = useFollow(state, METRICS_FOLLOW_MS, readNext, take);
  return { points, truncated, error };
}
