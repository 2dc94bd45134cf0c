/**
 * The file-access launcher of one center (production: runs as root, or with CAP_SETUID, CAP_SETGID and
 * CAP_CHOWN only, next to the file service; see docs/adr/0004-files-as-the-user.md).
 *
 *   LAUNCHER_SOCKET   Unix socket path (the file service's FS_LAUNCHER_SOCKET)
 *   CLIENT_USER       the file service's user: only it may connect
 *   STORAGE_ROOT      the center's storage root (homes under home/<account>)
 *   ACCOUNT_UID_MIN, ACCOUNT_UID_MAX   the uids of the center's cluster accounts
 */
import { execFileSync } from 'node:child_process';
import { startLauncher } from './launcher';

const env = process.env;
function required(name: string): string {
  const v = env[name];
  if (!v) {
    console.error(`launcher: ${name} is required`);
    process.exit(2);
  }
  return v;
}
const clientUser = required('CLIENT_USER');
const id = (flag: string) => Number(execFileSync('id', [flag, clientUser]).toString().trim());
const launcher = await startLauncher({
  socketPath: required('LAUNCHER_SOCKET'),
  clientUid: id('-u'),
  clientGid: id('-g'),
  storageRoot: required('STORAGE_ROOT'),
  uidMin: Number(required('ACCOUNT_UID_MIN')),
  uidMax: Number(required('ACCOUNT_UID_MAX')),
  log: (m) => console.log(`launcher: ${m}`),
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void launcher.close().then(() => process.exit(0)));
