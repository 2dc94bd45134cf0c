import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IMAGE_BASE, REGISTRY_TOKEN_PATH } from '@suanli/contracts';
import { body, createTestApp } from './harness';
import { freePort, stopProcess } from './process';
import { registerAndLogin } from './users';

/**
 * Debian's `docker-registry` (CNCF distribution 2.8) on a loopback port, with token authentication whose
 * issuer is the gateway at `gatewayUrl` (its certificate in `certFile`), its storage in a temp dir, deletes
 * enabled. Resolves once the registry answers /v2/ (with 401: it wants a token).
 */
export async function startRegistry(o: { port: number; gatewayUrl: string; certFile: string; service: string; issuer: string }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-registry-'));
  const config = path.join(dir, 'config.yml');
  fs.writeFileSync(
    config,
    [
      'version: 0.1',
      'log: { level: warn }',
      'storage:',
      `  filesystem: { rootdirectory: ${path.join(dir, 'data')} }`,
      '  delete: { enabled: true }',
      'http:',
      `  addr: 127.0.0.1:${o.port}`,
      'auth:',
      '  token:',
      `    realm: ${o.gatewayUrl}${REGISTRY_TOKEN_PATH}`,
      `    service: ${o.service}`,
      `    issuer: ${o.issuer}`,
      `    rootcertbundle: ${o.certFile}`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with ${child.exitCode}`);
    const status = await fetch(`http://127.0.0.1:${o.port}/v2/`).then((r) => r.status, () => 0);
    if (status === 401) break;
    if (Date.now() > deadline) throw new Error('docker-registry did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${o.port}`,
    dataDir: path.join(dir, 'data'),
    async stop() {
      await stopProcess(child);
      process.off('exit', killOnExit);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RegistryUser {
  id: string;
  token: string;
  username: string;
  /** The registry namespace (the username in lower case). */
  ns: string;
  /** The user's registry password (reset through the API). */
  password: string;
}

/**
 * A gateway (SQLite, real clock, listening on loopback) configured for a registry on a free port, that
 * registry started with the gateway as its token issuer, and `users` accounts each with a registry password.
 */
export async function startGatewayWithRegistry(users: number, namePrefix: string) {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const settings = { url: `http://${address}`, address, service: 'suanli-registry', issuer: 'suanli-gateway' };
  const t = await createTestApp('sqlite', { registry: settings, clock: Date.now });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const gw = t.app.server.address() as { port: number };
  const registry = await startRegistry({ port, gatewayUrl: `http://127.0.0.1:${gw.port}`, certFile: t.app.images.tokenCertFile!, service: settings.service, issuer: settings.issuer });
  const made: RegistryUser[] = [];
  for (let i = 0; i < users; i++) {
    const u = await registerAndLogin(t.app, { username: `${namePrefix}_${i}_${Date.now().toString(36)}` });
    const cred = body<{ password: string }>(await t.app.inject({ method: 'POST', url: `${IMAGE_BASE}/registry/credential/reset`, headers: { token: u.token } })).data;
    made.push({ id: u.user.id, token: u.token, username: u.user.username, ns: u.user.username.toLowerCase(), password: cred.password });
  }
  return {
    t,
    registry,
    address,
    users: made,
    async close() {
      await registry.stop();
      await t.close();
    },
  };
}
