import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';

/**
 * Starts a process and resolves, with the handle, once it prints its ready line: by default the first JSON
 * line (its address); `readyWhen` picks another (e.g. a log line), parsed as JSON when it is JSON.
 */
export function startJsonProcess<T>(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  readyWhen: (line: string) => boolean = (line) => line.startsWith('{'),
): Promise<{ child: ChildProcess; info: T }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    const rl = readline.createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      if (readyWhen(line)) {
        rl.close();
        child.stdout!.resume();
        let info = {} as T;
        try {
          info = JSON.parse(line) as T;
        } catch {
          /* a plain ready line */
        }
        resolve({ child, info });
      }
    });
    child.once('exit', (code) => reject(new Error(`${cmd} exited early with ${code}`)));
  });
}

export function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}
