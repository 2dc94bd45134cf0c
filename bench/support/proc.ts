import type { ChildProcess } from 'node:child_process';
import { startProcess, stopProcess } from '../../apps/server/test/process';

export { freePort } from '../../apps/server/test/process';

/**
 * Starts a process and resolves, with the handle, once it prints its ready line: by default the first JSON
 * line (its address); `readyWhen` picks another (e.g. a log line), parsed as JSON when it is JSON.
 */
export function startJsonProcess<T>(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  // A JSON line that is not a log record (pino's carry "level"; a warning at start must not pass for the ready line).
  readyWhen: (line: string) => boolean = (line) => line.startsWith('{') && !line.includes('"level":'),
): Promise<{ child: ChildProcess; info: T }> {
  return startProcess(cmd, args, {
    env,
    timeoutMs: 120_000,
    ready: (line) => {
      if (!readyWhen(line)) return undefined;
      try {
        return JSON.parse(line) as T;
      } catch {
        return {} as T; // a plain ready line
      }
    },
  });
}

export const stop = stopProcess;
