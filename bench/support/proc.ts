import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';

/** Starts a process and resolves with the first JSON line it prints (its address), plus the handle. */
export function startJsonProcess<T>(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; info: T }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    const rl = readline.createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      if (line.startsWith('{')) {
        rl.close();
        resolve({ child, info: JSON.parse(line) as T });
      }
    });
    child.once('exit', (code) => reject(new Error(`${cmd} exited early with ${code}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}
