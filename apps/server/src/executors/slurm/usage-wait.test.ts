import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CenterConfig } from '../../centers/centers';
import type { JobRef } from '../executor';
import usageRecord from './fixtures/dbv0038-jobs-usage.json';
import { SlurmExecutor } from './slurm-executor';

/**
 * How an ended job's end meets its accounting record (issue 23): the executor asks slurmdbd about jobs the
 * controller says ended and waits up to 15 s for the record that carries their usage. The harness cannot take
 * slurmdbd away (only up.sh may touch it), so a stand-in slurmrestd on loopback answers with the recorded
 * v0.0.38 shapes: the controller's entry of the over-memory job, accounting's recorded record, or an error.
 */

const END = 1_795_802_581; // the recorded job's end (unix seconds)
const ref: JobRef = { jobId: '1', taskId: 't1', account: { name: 'sla0001', uid: 61001, home: '/home/sla0001' } };
const recorded = { ...(usageRecord.jobs as any[]).find((j) => j.name === 'over-mem'), name: 'suanli-t1', comment: { job: 'suanli:t1' } };

describe('an ended job waits for its accounting record (stand-in slurmrestd)', () => {
  let server: http.Server;
  let dir: string;
  let url: string;
  /** What the stand-in answers: the controller holds the job (ended) or not; accounting has it, not yet, or fails. */
  let controller: 'ended' | 'gone';
  let accounting: 'record' | 'none' | 'error';
  let accountingCalls = 0;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-usage-wait-'));
    fs.writeFileSync(path.join(dir, 'jwt.key'), Buffer.alloc(32, 7));
    server = http.createServer((req, res) => {
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url?.startsWith('/slurm/v0.0.38/jobs')) {
        const job = { job_id: 1, name: 'suanli-t1', comment: 'suanli:t1', user_name: 'sla0001', job_state: 'FAILED', state_reason: 'JobLaunchFailure', exit_code: 9, submit_time: END - 3, start_time: END - 2, end_time: END, nodes: 'a-node1' };
        return send(200, { jobs: controller === 'ended' ? [job] : [], errors: [] });
      }
      if (req.url?.startsWith('/slurmdb/v0.0.38/jobs')) {
        accountingCalls++;
        if (accounting === 'error') return send(500, { errors: [{ error: 'Unable to connect to database', error_number: 7000 }] });
        if (accounting === 'none') return send(200, { jobs: [], errors: [{ error: 'Nothing found with query', error_number: 9003 }] });
        return send(200, { jobs: [recorded], errors: [] });
      }
      send(404, { errors: [{ error: 'unknown path' }] });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    accountingCalls = 0;
  });

  const executor = (nowMs: number) =>
    new SlurmExecutor(
      {
        id: 'slurm-a',
        scheduler: { kind: 'slurm', cluster: 'c1', restUrl: url, apiVersion: 'v0.0.38', jwtKeyFile: path.join(dir, 'jwt.key'), account: 'suanli' },
        accounts: { prefix: 'sla', uidStart: 61001, size: 1 },
        cardTypes: [],
      } as unknown as CenterConfig,
      { now: () => nowMs },
    );

  it('ends with the record\'s usage; the memory watch\'s kill reads OutOfMemory', async () => {
    controller = 'ended';
    accounting = 'record';
    const s = (await executor(END * 1000 + 1000).states([ref])).get('1');
    expect(s).toMatchObject({ phase: 'FAILED', reason: 'OutOfMemory', signal: 9, exitCode: 137, usage: { maxRssMB: 112, requestedMemMB: 60, cpus: 1 } });
    expect(accountingCalls).toBe(1);
  });

  it('holds the end while accounting has no record yet, for at most 15 s; then it ends without usage', async () => {
    controller = 'ended';
    for (const fault of ['none', 'error'] as const) {
      accounting = fault;
      // A failing slurmdbd is no reason to fail the poll of a job the controller already settled.
      expect((await executor(END * 1000 + 5_000).states([ref])).has('1')).toBe(false);
      const late = (await executor(END * 1000 + 16_000).states([ref])).get('1');
      expect(late).toMatchObject({ phase: 'FAILED', reason: 'JobLaunchFailure', signal: 9 });
      expect(late?.usage).toBeUndefined();
    }
  });

  it('a job the controller no longer holds still needs accounting: its error fails the poll (retried)', async () => {
    controller = 'gone';
    accounting = 'error';
    await expect(executor(END * 1000 + 1000).states([ref])).rejects.toThrow(/accounting jobs/);
    accounting = 'record';
    expect((await executor(END * 1000 + 1000).states([ref])).get('1')).toMatchObject({ phase: 'FAILED', reason: 'OutOfMemory', usage: { maxRssMB: 112 } });
  });
});
