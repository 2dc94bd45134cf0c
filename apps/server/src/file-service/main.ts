/**
 * The standalone file service of one center (production: runs next to that center's storage).
 *
 *   CENTER_ID      id of the center in the centers file (required)
 *   CENTERS_FILE   the same centers YAML the gateway reads (default config/centers.yaml)
 *   DATA_DIR       base of relative storage roots (default ./data)
 *   GATEWAY_URL    origin of the gateway that issues and checks tokens (required)
 *   HOST, PORT     listen address (default 0.0.0.0:8081)
 *   ALLOWED_ORIGINS  console origins allowed by CORS, comma-separated
 *   LOG_LEVEL      pino level (default info)
 *   FS_LAUNCHER_SOCKET  the launcher's socket when the center's accounts are real POSIX users: every file
 *                  operation then runs in a worker with the account's uid/gid (docs/adr/0004-files-as-the-user.md)
 *   IDENTITY_CACHE_MS  how long the gateway's positive answer for a token (and a team membership) is reused
 *                  (default 4000, at most 60000)
 *
 * Checked by FileServiceEnv (env.ts) and the centers file's schema (centers/centers-file.ts) before it starts.
 */
import path from 'node:path';
import v8 from 'node:v8';
import { loadCentersFile } from '../centers/centers-file';
import { FileServiceEnv, readEnv } from '../env';
import { ConfigError, exitOnConfigError } from '../lib/config-check';
import { buildFileService } from './app';
import { WorkerAccounts } from './accounts/worker-accounts';
import { RemoteIdentity } from './identity';
import { HttpSyncSource } from './sync-clients';
import { AppError } from '../errors';
import { ErrorCode } from '@suanli/contracts';

// Streaming uploads allocate ~1 GiB of short-lived socket buffers per GiB received. V8 counts that external
// memory against the old generation's limit, and with the default growth (limit ≈ 2–3× a ~20 MB live heap)
// it kept starting full mark-compacts: 20–50 per GiB in half of the runs, ~1.4 CPU-s/GiB. A 5× limit
// leaves room for the buffers to die in scavenges: 1–4 mark-compacts per 2 GiB, file-service RSS unchanged
// (~185 MiB peak). Read by V8 at every limit computation, so setting it here (before any load) works.
v8.setFlagsFromString('--heap-growing-percent=400');

const repoRoot = path.resolve(import.meta.dirname, '../../../..');

// The environment and the centers file are checked before anything starts; a mistake ends the process with
// the field's name (exit code 2).
const { env, centers, center } = await exitOnConfigError('file service', () => {
  const env = readEnv(FileServiceEnv, process.env);
  const dataDir = path.resolve(env.DATA_DIR ?? path.join(repoRoot, 'data'));
  const centersFile = path.resolve(env.CENTERS_FILE ?? path.join(repoRoot, 'config/centers.yaml'));
  const { centers } = loadCentersFile(centersFile, dataDir);
  const center = centers.find((c) => c.id === env.CENTER_ID);
  if (!center) throw new ConfigError('environment', [`CENTER_ID ${env.CENTER_ID} is not a center of ${centersFile} (known: ${centers.map((c) => c.id).join(', ')})`]);
  return { env, centers, center };
});
const gatewayUrl = env.GATEWAY_URL;

const app = await buildFileService({
  center,
  identity: new RemoteIdentity({ gatewayUrl, center, clock: Date.now, ttlMs: env.IDENTITY_CACHE_MS }),
  // Another center's file service: its own URL from the centers file, or the gateway's embedded one.
  syncSourceFor: (id, grant) => {
    const source = centers.find((c) => c.id === id);
    if (!source) throw new AppError(ErrorCode.INTERNAL_FAILED, `未知的源分中心：${id}`);
    return new HttpSyncSource(source.fileServiceUrl ?? `${gatewayUrl.replace(/\/$/, '')}/file-service/${id}`, grant);
  },
  accounts: env.FS_LAUNCHER_SOCKET ? new WorkerAccounts({ launcherSocket: env.FS_LAUNCHER_SOCKET }) : undefined,
  logger: { level: env.LOG_LEVEL ?? 'info' },
  allowedOrigins: (env.ALLOWED_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
});
await app.listen({ host: env.HOST ?? '0.0.0.0', port: env.PORT ?? 8081 });
app.log.info(`file service of ${center.id} (${center.name}) · storage ${center.storageRoot} · gateway ${gatewayUrl}`);

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
