import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { serverEntryArgs } from './server-bundle';

/**
 * Child processes for tests and benchmarks: a second gateway, a standalone file service, a baseline
 * server. `ready` is called with every stdout line and resolves the start once it returns a value.
 */
export function startProcess<T>(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; ready: (line: string) => T | undefined; timeoutMs?: number; uid?: number; gid?: number },
): Promise<{ child: ChildProcess; info: T }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'inherit'], uid: opts.uid, gid: opts.gid });
    // A test or benchmark that dies halfway (an uncaught error skips its stop calls) must not leave its
    // servers running: they kept benchmark data and CPU for the rest of the session.
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    child.once('exit', () => process.off('exit', killOnExit));
    const name = args.find((a) => /\.(m?[jt]s)$/.test(a)) ?? cmd;
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${opts.timeoutMs ?? 30_000} ms`)), opts.timeoutMs ?? 30_000);
    const rl = readline.createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      const info = opts.ready(line);
      if (info === undefined) return;
      clearTimeout(timer);
      rl.close();
      child.stdout!.resume(); // keep draining so the child never blocks on a full pipe
      resolve({ child, info });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited early with ${code}`));
    });
  });
}

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** A second gateway in its own process (`apps/server/src/main.ts`, bundled: server-bundle.ts), configured by `env`; resolves once it listens. */
export async function startGateway(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<{ child: ChildProcess; port: number }> {
  const { child, info } = await startProcess(process.execPath, await serverEntryArgs('main.ts'), { cwd: repoRoot, env, ready: listeningPort, timeoutMs });
  return { child, port: info };
}

/** Fastify's start-up log line → the port it listens on. */
export function listeningPort(line: string): number | undefined {
  const m = /Server listening at http:\/\/[^\s:]+:(\d+)/.exec(line);
  return m ? Number(m[1]) : undefined;
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}

/** A port free right now on loopback (for a process that must be restarted on the same port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}
