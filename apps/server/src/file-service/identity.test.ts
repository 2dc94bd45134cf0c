import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CenterConfig } from '../centers/centers';
import type { AppError } from '../errors';
import { RemoteIdentity } from './identity';

const center = { id: 'c1', storageRoot: '/srv/c1' } as CenterConfig;
const envelope = (code: number, data: unknown) => JSON.stringify({ message: { code, message: code ? `err ${code}` : '操作成功' }, data });

/** A stand-in gateway answering `GET /agent/user/get` from a token → answer table, counting calls. */
describe('RemoteIdentity', () => {
  let server: Server;
  let url: string;
  const answers = new Map<string, string>();
  const calls: string[] = [];
  const teamLeft = new Set<string>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const token = String(req.headers.token);
      calls.push(`${req.url} ${token}`);
      res.setHeader('content-type', 'application/json');
      // The team module's agent route: a member of t1 gets their account, anyone else 1205.
      if (req.url?.startsWith('/gateway/team/api/v1/agent/team/space')) {
        const team = new URL(req.url, 'http://x').searchParams.get('teamId');
        return res.end(token === 'good' && team === 't1' && !teamLeft.has(team) ? envelope(0, { account: 'acct01', status: 'active' }) : envelope(1205, null));
      }
      res.end(answers.get(token) ?? envelope(10133, null));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    answers.set('good', envelope(0, [{ subCenterId: 'c1', subCenterName: 'C1', account: 'acct01', uid: 1, homeDir: '/elsewhere/acct01', status: 'active' }]));
    answers.set('other-center', envelope(0, [{ subCenterId: 'c2', account: 'x', uid: 1, homeDir: '/x', status: 'active' }]));
    answers.set('disabled', envelope(0, [{ subCenterId: 'c1', account: 'acct02', uid: 2, homeDir: '/x', status: 'disabled' }]));
    answers.set('evil', envelope(0, [{ subCenterId: 'c1', account: '../root', uid: 2, homeDir: '/', status: 'active' }]));
    answers.set('revoked', envelope(10307, null));
    answers.set('garbage', 'not json');
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const codeOf = (p: Promise<unknown>) => p.then(() => 0, (e: AppError) => e.code);

  it('asks the gateway for this center and derives the home from its own storage root', async () => {
    const id = new RemoteIdentity({ gatewayUrl: url, center, clock: () => 0 });
    expect(await id.resolve('good')).toEqual({ account: 'acct01', homeDir: path.join('/srv/c1', 'home', 'acct01') });
    expect(calls.at(-1)).toBe('/gateway/user/api/v1/agent/user/get?subCenterId=c1 good');
  });

  it('reuses a positive answer for 4 s only, and never caches a refusal', async () => {
    let now = 1_000;
    const id = new RemoteIdentity({ gatewayUrl: url, center, clock: () => now });
    calls.length = 0;
    await id.resolve('good');
    now += 3_999;
    await id.resolve('good');
    expect(calls).toHaveLength(1);
    now += 2;
    await id.resolve('good');
    expect(calls).toHaveLength(2);

    answers.set('flip', envelope(10307, null));
    expect(await codeOf(id.resolve('flip'))).toBe(10307);
    answers.set('flip', answers.get('good')!);
    expect(await id.resolve('flip')).toMatchObject({ account: 'acct01' });
    // And a revocation after a positive answer is seen once the entry expires.
    answers.set('flip', envelope(10307, null));
    expect(await codeOf(id.resolve('flip'))).toBe(0);
    now += 4_001;
    expect(await codeOf(id.resolve('flip'))).toBe(10307);
  });

  it('passes session errors through and maps everything else to internal-component codes', async () => {
    const id = new RemoteIdentity({ gatewayUrl: url, center, clock: () => 0 });
    expect(await codeOf(id.resolve(undefined))).toBe(10133);
    expect(await codeOf(id.resolve('unknown'))).toBe(10133);
    expect(await codeOf(id.resolve('revoked'))).toBe(10307);
    expect(await codeOf(id.resolve('disabled'))).toBe(1020);
    expect(await codeOf(id.resolve('other-center'))).toBe(1403);
    expect(await codeOf(id.resolve('evil'))).toBe(1405);
    expect(await codeOf(id.resolve('garbage'))).toBe(1405);
    const down = new RemoteIdentity({ gatewayUrl: 'http://127.0.0.1:1', center, clock: () => 0 });
    expect(await codeOf(down.resolve('good'))).toBe(1403);
  });

  it('resolves a team\'s folder through the team module\'s agent route, cached per token and team, refusals never', async () => {
    let now = 0;
    const id = new RemoteIdentity({ gatewayUrl: url, center, clock: () => now });
    calls.length = 0;
    expect(await id.resolve('good', 'team:t1')).toEqual({ account: 'acct01', homeDir: path.join('/srv/c1', 'teams', 't1'), team: 't1' });
    expect(calls.at(-1)).toBe('/gateway/team/api/v1/agent/team/space?teamId=t1&subCenterId=c1 good');
    // The home and the team are separate entries; the team's answer is reused within 4 s.
    expect(await id.resolve('good')).toEqual({ account: 'acct01', homeDir: path.join('/srv/c1', 'home', 'acct01') });
    await id.resolve('good', 'team:t1');
    expect(calls).toHaveLength(2);
    expect(await codeOf(id.resolve('good', 'team:t2'))).toBe(1205);
    expect(await codeOf(id.resolve('good', 'team:t2'))).toBe(1205);
    expect(calls).toHaveLength(4);
    // Left the team: noticed once the 4 s are over.
    teamLeft.add('t1');
    expect(await codeOf(id.resolve('good', 'team:t1'))).toBe(0);
    now += 4_001;
    expect(await codeOf(id.resolve('good', 'team:t1'))).toBe(1205);
    // A malformed space never reaches the gateway.
    expect(await codeOf(id.resolve('good', 'team:../x'))).toBe(1005);
    expect(await codeOf(id.resolve('good', 'home'))).toBe(1005);
    expect(calls).toHaveLength(5);
  });
});
