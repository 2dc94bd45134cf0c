import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { ORDER_BASE, TRAINING_BASE, type TaskDetail, type TrainingTaskCreate } from '@suanli/contracts';
import { newId } from '../src/lib/id';
import { body, type TestApp } from './harness';
import { trainingForm } from './training-form';

/**
 * Helpers of the metering tests (ADR 0015): a user with a work directory, grants and raw buckets, training
 * tasks through the API, and what was drawn as the tables hold it.
 */
export function meteringKit(t: () => TestApp) {
  const app = () => t().app;
  const call = (token: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    app()
      .inject({ method, url, payload, headers: { token } })
      .then((r) => body(r));

  return {
    call,
    /** A signed-in user with `/work` on the A100 center. */
    async user(id: string) {
      const token = (await app().ctx.sessions.create(id)).token;
      const acc = await app().ctx.clusterAccounts.ensure(id, 'sz-a100');
      fs.mkdirSync(path.join(acc.homeDir, 'work'), { recursive: true });
      return { id, token, home: acc.homeDir };
    },
    /** A bucket written as the credit writes one, expiring `expireIn` ms from now (negative: already expired). */
    async bucket(ownerId: string, cardSeconds: number, expireIn: number, card = 'a100-80g', center = 'sz-a100') {
      const id = newId();
      const now = app().ctx.clock();
      await app()
        .ctx.db.insertInto('comp_power_buckets')
        .values({ id, owner_id: ownerId, sub_center_id: center, card_type_id: card, granted: cardSeconds, remaining: cardSeconds, expire_time: now + expireIn, source: 'order', create_time: now })
        .execute();
      return id;
    },
    remaining: async (bucketId: string) => Number((await app().ctx.db.selectFrom('comp_power_buckets').select('remaining').where('id', '=', bucketId).executeTakeFirstOrThrow()).remaining),
    meter: (taskId: string) => app().ctx.db.selectFrom('task_meters').selectAll().where('task_id', '=', taskId).executeTakeFirst(),
    records: (taskId: string) => app().ctx.db.selectFrom('consume_records').selectAll().where('task_id', '=', taskId).orderBy('elapsed_from').execute(),
    /** Submits a training task (1 card, `sleep`-length command) and answers it. */
    async submit(token: string, over: Partial<TrainingTaskCreate> = {}) {
      return call(token, 'POST', `${TRAINING_BASE}/tasks`, trainingForm({ name: '计量任务', command: 'sleep 2', ...over }));
    },
    detail: async (token: string, id: string) => (await call(token, 'GET', `${TRAINING_BASE}/tasks/${id}`)).data as TaskDetail,
    async until(token: string, id: string, states: string[], timeout = 20_000) {
      let d: TaskDetail | undefined;
      await expect.poll(async () => (d = (await call(token, 'GET', `${TRAINING_BASE}/tasks/${id}`)).data as TaskDetail).state, { timeout, interval: 100 }).toSatisfy((s: string) => states.includes(s));
      return d!;
    },
    /** billedCards × the accounted runtime (whole seconds of the scheduler's start → end). */
    expected: (d: TaskDetail, cards: number) => cards * Math.floor((d.endTime! - d.startTime!) / 1000),
    records$: (token: string, q: object) => call(token, 'POST', `${ORDER_BASE}/records/action/page`, { type: 'consume', pageNum: 1, pageSize: 100, ...q }),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
