import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { LeaseRepository } from '../../db/lease.repository';
import { TaskPoller } from './task-poller';

const quiet = { info: () => {}, warn: () => {} };

/** One poller per center across replicas, through the lease table, on both engines. */
describe.each(engines)('poller leases (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('a lease has one holder until it runs out, then the next taker gets it', async () => {
    const leases = new LeaseRepository(t.app.ctx.db);
    expect(await leases.acquire('x', 'a', 1000, 500)).toBe(true);
    expect(await leases.acquire('x', 'b', 1200, 500)).toBe(false);
    expect(await leases.acquire('x', 'a', 1300, 500)).toBe(true); // renewed until 1800
    expect(await leases.acquire('x', 'b', 1700, 500)).toBe(false);
    expect(await leases.acquire('x', 'b', 1801, 500)).toBe(true);
    expect(await leases.acquire('x', 'a', 1900, 500)).toBe(false);
    await leases.release('x', 'a'); // not the holder: no effect
    expect(await leases.acquire('x', 'a', 1950, 500)).toBe(false);
    await leases.release('x', 'b');
    expect(await leases.acquire('x', 'a', 1960, 500)).toBe(true);
  });

  it('two replicas: exactly one polls each center; when it dies the other takes over after the lease', async () => {
    let now = 10_000;
    const clock = () => now;
    const polls: string[] = [];
    const make = (holder: string) =>
      new TaskPoller(['c1', 'c2'], new LeaseRepository(t.app.ctx.db), async (id) => void polls.push(`${holder}:${id}`), clock, quiet, { holder, leaseMs: 6000 });
    const p1 = make('g1');
    const p2 = make('g2');
    await p1.tick();
    await p2.tick();
    for (let i = 0; i < 5; i++) {
      now += 1000;
      await Promise.all([p1.tick(), p2.tick()]);
    }
    expect(p1.isLeading('c1') && p1.isLeading('c2')).toBe(true);
    expect(p2.isLeading('c1') || p2.isLeading('c2')).toBe(false);
    expect(polls.filter((x) => x.startsWith('g2'))).toEqual([]);
    expect(polls.filter((x) => x === 'g1:c1')).toHaveLength(6);

    // g1 dies without handing over (SIGKILL): g2 takes both centers once the lease has run out.
    polls.length = 0;
    let takeover = -1;
    for (let s = 1; s <= 10; s++) {
      now += 1000;
      await p2.tick();
      if (takeover < 0 && p2.isLeading('c1') && p2.isLeading('c2')) takeover = s;
    }
    expect(takeover).toBeGreaterThan(0);
    expect(takeover).toBeLessThanOrEqual(7);
    expect(polls).toContain('g2:c1');

    // A clean stop hands over at once.
    await p2.stop();
    await p1.tick();
    expect(p1.isLeading('c1')).toBe(true);
    await p1.stop();
  });
});
