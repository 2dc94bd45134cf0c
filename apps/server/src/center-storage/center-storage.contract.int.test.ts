import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORAGE_AGENT_GRANT_PATH, STORAGE_GRANT_HEADER } from '@suanli/contracts';
import { createTestApp, type TestApp } from '../../test/harness';
import { centerStorageContract, type ContractSubject } from '../../test/center-storage-contract';
import { listeningPort, startProcess, stopProcess } from '../../test/process';
import { HttpCenterStorage } from './http-center-storage';
import { LocalCenterStorage } from './local-center-storage';
import { StorageGrants } from './storage-grants';
import { serverEntryArgs } from '../../test/server-bundle';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
const RACE_SECONDS = Number(process.env.RACE_SECONDS ?? 4);

/**
 * The CenterStorage contract (test/center-storage-contract.ts) against both implementations on one center's
 * disk: in this process (`LocalCenterStorage`, the embedded default) and over HTTP (`HttpCenterStorage`) to the
 * center's file service running as its own OS process (`file-service/main.ts`), which knows the gateway only
 * through its URL and checks the storage grant there (ADR 0016).
 */
describe('CenterStorage contract', () => {
  let t: TestApp;
  let gatewayUrl: string;
  let fsProc: { child: ChildProcess; port: number } | undefined;
  let grants: StorageGrants;
  const root = () => t.app.ctx.centers.find((c) => c.id === 'sz-a100')!.storageRoot;

  beforeAll(async () => {
    t = await createTestApp('sqlite', { clock: Date.now });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    gatewayUrl = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    // The same key file as the gateway's (its data dir): the grants it would send.
    grants = new StorageGrants(t.dataDir, Date.now);
    const { child, info } = await startProcess(process.execPath, await serverEntryArgs('file-service/main.ts'), {
      cwd: repoRoot,
      env: { CENTER_ID: 'sz-a100', CENTERS_FILE: t.config.centersFile, DATA_DIR: t.dataDir, GATEWAY_URL: gatewayUrl, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
      ready: listeningPort,
    });
    fsProc = { child, port: info };
  }, 60_000);
  afterAll(async () => {
    if (fsProc) await stopProcess(fsProc.child);
    await t?.close();
  });

  const http = (grant: () => string = () => grants.grantFor('sz-a100')) =>
    new HttpCenterStorage({ centerId: 'sz-a100', centerName: '深圳算力分中心', url: `http://127.0.0.1:${fsProc!.port}`, grant });

  describe('in process (LocalCenterStorage)', () => {
    let subject: ContractSubject;
    beforeAll(() => {
      subject = { storage: new LocalCenterStorage(t.app.ctx.centers.find((c) => c.id === 'sz-a100')!), root: root() };
    });
    centerStorageContract(() => subject, RACE_SECONDS);
  });

  describe('over HTTP to the file service process (HttpCenterStorage)', () => {
    let subject: ContractSubject;
    beforeAll(() => {
      subject = { storage: http(), root: root() };
    });
    centerStorageContract(() => subject, RACE_SECONDS);

    it('refuses calls without the gateway\'s grant for this center: none, forged, expired, another center\'s', async () => {
      const valid = grants.grantFor('sz-a100');
      const [center, exp, mac] = valid.split('.');
      const expired = new StorageGrants(t.dataDir, () => Date.now() - 10 * 60_000).grantFor('sz-a100');
      const cases: [string, string][] = [
        ['none', ''],
        ['forged', `${center}.${exp}.${'A'.repeat(mac.length)}`],
        ['a later expiry with the old signature', `${center}.${Number(exp) + 60_000}.${mac}`],
        ['expired', expired],
        ["another center's", grants.grantFor('gz-ascend')],
      ];
      for (const [what, grant] of cases) {
        const code = await http(() => grant)
          .stat('ctrefused', '/')
          .then(
            () => 0,
            (e: { code: number }) => e.code,
          );
        expect(code, what).toBe(10133);
      }
      // The gateway's own answer to the file service's question.
      const answer = await fetch(`${gatewayUrl}${STORAGE_AGENT_GRANT_PATH}?subCenterId=sz-a100`, { headers: { [STORAGE_GRANT_HEADER]: valid } }).then((r) => r.json());
      expect(answer).toMatchObject({ message: { code: 0 }, data: { subCenterId: 'sz-a100' } });
      const other = await fetch(`${gatewayUrl}${STORAGE_AGENT_GRANT_PATH}?subCenterId=gz-ascend`, { headers: { [STORAGE_GRANT_HEADER]: valid } }).then((r) => r.json());
      expect(other.message.code).toBe(10133);
    });

    it('a file service that cannot be reached is 1403, naming the center', async () => {
      const gone = new HttpCenterStorage({ centerId: 'sz-a100', centerName: '深圳算力分中心', url: 'http://127.0.0.1:9', grant: () => grants.grantFor('sz-a100') });
      await expect(gone.stat('ct1', '/')).rejects.toMatchObject({ code: 1403, message: expect.stringContaining('无法连接深圳算力分中心的文件服务') });
      await expect(gone.openFile('ct1', '/x')).rejects.toMatchObject({ code: 1403 });
    });
  });
});
