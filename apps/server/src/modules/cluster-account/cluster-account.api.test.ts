import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CenterStorages, type CenterStorage } from '../../center-storage/center-storage';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { ClusterAccountRepository } from './cluster-account.repository';
import { ClusterAccountService } from './cluster-account.service';

describe.each(engines)('cluster accounts: the home (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());
  afterEach(() => vi.useRealTimers());

  it('asks the center for the home once per re-check window, and a storage down for a moment does not refuse a home seen before', async () => {
    // The real center storage, with its ensureHome counted and, on demand, failing as a file service that is down would.
    let calls = 0;
    let down = false;
    const storages = new CenterStorages(t.app.ctx.centers, (c) => {
      const real = t.app.ctx.storage.of(c);
      return new Proxy(real, {
        get: (target, prop, receiver) =>
          prop === 'ensureHome'
            ? async (account: string) => {
                calls++;
                if (down) throw new Error('file service down');
                return target.ensureHome(account);
              }
            : Reflect.get(target, prop, receiver),
      }) as CenterStorage;
    });
    const service = new ClusterAccountService(new ClusterAccountRepository(t.app.ctx.db), t.app.ctx.centers, t.app.ctx.clock, storages);
    const u = await t.app.users.createAccount({ username: `home_${engine}_${Date.now()}`, password: 'Passw0rd-test', nickname: '' });

    // First use: the account is made, then its home (through the storage, once).
    const acc = await service.ensure(u!.id, 'sz-a100');
    expect(calls).toBe(1);
    const center = t.app.ctx.centers.find((c) => c.id === 'sz-a100')!;
    expect((await t.app.ctx.storage.of(center).stat(acc.account, '/'))?.type).toBe('dir');
    // Seen in place a moment ago: not asked again, even while the storage is down.
    down = true;
    expect((await service.ensure(u!.id, 'sz-a100')).account).toBe(acc.account);
    expect(calls).toBe(1);
    // After the window it is asked again; down, the home seen before is not a reason to refuse.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 6 * 60_000);
    expect((await service.ensure(u!.id, 'sz-a100')).account).toBe(acc.account);
    expect(calls).toBe(2);
    // A home this process has never seen, with the storage down: refused (nothing is made without it).
    const fresh = new ClusterAccountService(new ClusterAccountRepository(t.app.ctx.db), t.app.ctx.centers, t.app.ctx.clock, storages);
    await expect(fresh.ensure(u!.id, 'sz-a100')).rejects.toThrow('file service down');
    down = false;
    expect((await fresh.ensure(u!.id, 'sz-a100')).account).toBe(acc.account);
  });
});
