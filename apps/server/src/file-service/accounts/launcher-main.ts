/**
 * The file-access launcher of one center (production: runs as root, or with CAP_SETUID, CAP_SETGID and
 * CAP_CHOWN only, next to the file service; see docs/adr/0004-files-as-the-user.md).
 *
 *   LAUNCHER_SOCKET   Unix socket path (the file service's FS_LAUNCHER_SOCKET)
 *   CLIENT_USER       the file service's user: only it may connect
 *   STORAGE_ROOT      the center's storage root (homes under home/<account>)
 *   ACCOUNT_UID_MIN, ACCOUNT_UID_MAX   the uids of the center's cluster accounts (never 0)
 *
 * Checked by LauncherEnv (env.ts) before it starts.
 */
import { execFileSync } from 'node:child_process';
import { startLauncher } from './launcher';
import { LauncherEnv, readEnv } from '../../env';
import { ConfigError, exitOnConfigError } from '../../lib/config-check';

const env = await exitOnConfigError('launcher', () => {
  const env = readEnv(LauncherEnv, process.env);
  if (env.ACCOUNT_UID_MAX < env.ACCOUNT_UID_MIN) throw new ConfigError('environment', [`ACCOUNT_UID_MAX (${env.ACCOUNT_UID_MAX}) is below ACCOUNT_UID_MIN (${env.ACCOUNT_UID_MIN})`]);
  return env;
});
const id = (flag: string) => Number(execFileSync('id', [flag, env.CLIENT_USER]).toString().trim());
const launcher = await startLauncher({
  socketPath: env.LAUNCHER_SOCKET,
  clientUid: id('-u'),
  clientGid: id('-g'),
  storageRoot: env.STORAGE_ROOT,
  uidMin: env.ACCOUNT_UID_MIN,
  uidMax: env.ACCOUNT_UID_MAX,
  log: (m) => console.log(`launcher: ${m}`),
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void launcher.close().then(() => process.exit(0)));
