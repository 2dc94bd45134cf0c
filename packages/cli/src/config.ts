import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What `suanli login` keeps between runs: the gateway's address and the session token. */
export interface Saved {
  server: string;
  token: string;
  username: string;
}

/**
 * `~/.config/suanli/` (or `$XDG_CONFIG_HOME/suanli`; `SUANLI_CONFIG_DIR` overrides both — the tests, a second
 * account). The token is a credential: the directory is 0700 and the file 0600, set again on every write in
 * case the file was created by hand with a looser mode.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SUANLI_CONFIG_DIR) return env.SUANLI_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'suanli');
}

export const configFile = (env?: NodeJS.ProcessEnv) => path.join(configDir(env), 'config.json');

export function readSaved(env?: NodeJS.ProcessEnv): Partial<Saved> {
  try {
    return JSON.parse(fs.readFileSync(configFile(env), 'utf8')) as Partial<Saved>;
  } catch {
    return {};
  }
}

export function writeSaved(saved: Partial<Saved>, env?: NodeJS.ProcessEnv): void {
  const dir = configDir(env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const file = configFile(env);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(saved, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}
