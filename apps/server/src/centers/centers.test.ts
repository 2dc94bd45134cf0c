import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOfflinePayment } from '../modules/order/payment-config';
import { loadCenters } from './centers';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-centers-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A centers file of one center whose card types carry the given `packages` YAML. */
function file(packagesA: string, packagesB = '', extra = '') {
  const f = path.join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
  fs.writeFileSync(
    f,
    `centers:
  - id: c1
    cardTypes:
      - id: t1
        name: T1
${packagesA ? `        packages: ${packagesA}\n` : ''}      - id: t2
        name: T2
${packagesB ? `        packages: ${packagesB}\n` : ''}${extra}`,
  );
  return f;
}

describe('centers: packages (算力卡)', () => {
  it('reads the demo packages of config/centers.yaml', () => {
    const centers = loadCenters(path.join(repoRoot, 'config/centers.yaml'), dir);
    const a100 = centers.find((c) => c.id === 'sz-a100')!.cardTypes.find((t) => t.id === 'a100-80g')!;
    expect(a100.packages!.map((p) => [p.id, p.cardHours, p.price, p.validDays])).toEqual([
      ['sz-a100-10h', 10, 12800, 30],
      ['sz-a100-100h', 100, 118000, 90],
      ['sz-a100-1000h', 1000, 1080000, 365],
    ]);
  });

  it('a card type without packages sells nothing', () => {
    const [c] = loadCenters(file(''), dir);
    expect(c.cardTypes.map((t) => t.packages)).toEqual([[], []]);
  });

  it('refuses a package id used twice (orders name a package by id alone)', () => {
    const p = '[{ id: p1, name: P, cardHours: 1, price: 100, validDays: 30 }]';
    expect(() => loadCenters(file(p, p), dir)).toThrow(/duplicate package id p1/);
  });

  it('refuses prices, hours and validity that are not positive integers (分, 卡时, days)', () => {
    for (const bad of ['price: 12.5', 'price: 0', 'cardHours: -1', "cardHours: '10'", 'validDays: 0.5']) {
      const fields = { cardHours: 'cardHours: 1', price: 'price: 100', validDays: 'validDays: 30' };
      const key = bad.split(':')[0] as keyof typeof fields;
      fields[key] = bad;
      expect(() => loadCenters(file(`[{ id: p1, name: P, ${Object.values(fields).join(', ')} }]`), dir), bad).toThrow(new RegExp(`${key} must be a positive integer`));
    }
    expect(() => loadCenters(file('[{ id: P_1, name: P, cardHours: 1, price: 1, validDays: 1 }]'), dir)).toThrow(/id must match/);
    expect(() => loadCenters(file('{ id: p1 }'), dir)).toThrow(/packages must be a list/);
  });
});

describe('payment.offline', () => {
  it('reads the demo account; 24 h hold by default', () => {
    expect(loadOfflinePayment(path.join(repoRoot, 'config/centers.yaml'))).toMatchObject({ accountName: '示例算力科技有限公司', holdMs: 24 * 3600_000 });
  });

  it('absent: the offline channel is not offered; half filled: refused with the field', () => {
    expect(loadOfflinePayment(file(''))).toBeUndefined();
    expect(() => loadOfflinePayment(file('', '', 'payment:\n  offline:\n    bankName: B\n    accountName: A\n'))).toThrow(/payment.offline.accountNo is required/);
  });
});
