import { isTerminal, METRICS_MAX_POINTS, type JobState, type MetricPoint, type TaskLog, type TaskLogQuery } from '@suanli/contracts';
import { useEffect, useRef, useState } from 'react';
import { RequestError } from '../../app/request';
import { ACTIVE_STATES } from '../../shared/task/task-view';
import { trainingTasks } from './api';

/**
 * Following a running task's files (log, metrics) the way `tail -f` does: ask again from `nextOffset`.
 * This reads a growing file and never asks for the task's state — that arrives through the socket.
 * Before the job runs there is nothing to read; once it is terminal the rest is read until the end.
 */
type Phase = 'idle' | 'follow' | 'final';

const phaseOf = (s: JobState | undefined): Phase => (!s ? 'idle' : ACTIVE_STATES.includes(s) ? 'follow' : isTerminal(s) ? 'final' : 'idle');

export const LOG_FOLLOW_MS = 2000;
export const METRICS_FOLLOW_MS = 5000;
const LOG_CHUNK = 256 * 1024;
/** A log longer than this when first opened is shown from its last LOG_CHUNK bytes. */
const LOG_TAIL_JUMP = 2 * LOG_CHUNK;
/** Characters kept on screen; older lines drop off (the download has everything). */
const LOG_KEEP = 1024 * 1024;
/** Reads after the task ended that may still find nothing new before the panel stops asking. */
const FINAL_TRIES = 3;

const messageOf = (e: unknown) => (e instanceof RequestError || e instanceof Error ? e.message : '读取失败');

export interface LogFollow {
  text: string;
  /** The beginning of the log is not on screen (long log, or older lines dropped). */
  omitted: boolean;
  following: boolean;
  error: string | null;
}

/** Reads one window of a task's log (each task family has the call under its own base). */
export type LogReader = (id: string, query: TaskLogQuery, opts: { silent?: boolean }) => Promise<TaskLog>;

export function useLogFollow(taskId: string, state: JobState | undefined, read: LogReader = trainingTasks.readLog): LogFollow {
  const [text, setText] = useState('');
  const [omitted, setOmitted] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const offset = useRef(0);
  const first = useRef(true);
  const phase = phaseOf(state);

  useEffect(() => {
    if (phase === 'idle' || done) return;
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let idleTries = 0;
    const later = (ms: number) => {
      if (alive) timer = setTimeout(tick, ms);
    };
    async function tick() {
      // A hidden tab reads nothing; it catches up from the same offset once shown again.
      if (document.hidden && phase === 'follow') return later(LOG_FOLLOW_MS);
      try {
        const log = await read(taskId, { offset: offset.current, limit: LOG_CHUNK }, { silent: true });
        if (!alive) return;
        setError(null);
        if (first.current) {
          first.current = false;
          if (log.size - log.nextOffset > LOG_TAIL_JUMP) {
            offset.current = log.size - LOG_CHUNK;
            setOmitted(true);
            return later(0);
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
        if (log.eof) return setDone(true);
        if (log.nextOffset < log.size) return later(0);
        if (phase === 'final' && !log.content && ++idleTries >= FINAL_TRIES) return setDone(true);
        later(LOG_FOLLOW_MS);
      } catch (e) {
        if (!alive) return;
        setError(messageOf(e));
        if (phase === 'final' && ++idleTries >= FINAL_TRIES) return setDone(true);
        later(LOG_FOLLOW_MS * 2);
      }
    }
    void tick();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [taskId, phase, done, read]);

  return { text, omitted, following: phase !== 'idle' && !done, error };
}

export interface MetricsFollow {
  points: MetricPoint[];
  truncated: boolean;
  error: string | null;
}

export function useMetricsFollow(taskId: string, state: JobState | undefined): MetricsFollow {
  const [points, setPoints] = useState<MetricPoint[]>([]);
  const [truncated, setTruncated] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const offset = useRef(0);
  const phase = phaseOf(state);

  useEffect(() => {
    if (phase === 'idle' || done) return;
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let idleTries = 0;
    async function tick() {
      if (document.hidden && phase === 'follow') {
        timer = setTimeout(tick, METRICS_FOLLOW_MS);
        return;
      }
      try {
        const m = await trainingTasks.readMetrics(taskId, { offset: offset.current }, { silent: true });
        if (!alive) return;
        setError(null);
        const moved = m.nextOffset !== offset.current;
        offset.current = m.nextOffset;
        if (m.truncated) setTruncated(true);
        if (m.points.length) setPoints((p) => (p.length >= METRICS_MAX_POINTS ? p : [...p, ...m.points].slice(0, METRICS_MAX_POINTS)));
        if (phase === 'final' && (!moved || ++idleTries >= FINAL_TRIES)) return setDone(true);
        timer = setTimeout(tick, moved && phase === 'final' ? 0 : METRICS_FOLLOW_MS);
      } catch (e) {
        if (!alive) return;
        setError(messageOf(e));
        if (phase === 'final' && ++idleTries >= FINAL_TRIES) return setDone(true);
        timer = setTimeout(tick, METRICS_FOLLOW_MS * 2);
      }
    }
    void tick();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [taskId, phase, done]);

  return { points, truncated, error };
}
