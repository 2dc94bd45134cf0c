import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BASE, DATASET_BASE, MODEL_BASE, type AssetDetail, type AssetPage } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { registerAndLogin } from '../../../test/users';

type Who = { token: string; username: string; id: string };

/**
 * 审核 of publication requests (issue 20) on both engines: operators only (1020 for users, nothing changes),
 * each decision one `asset.review` audit entry with before/after in the transaction of the state change, a
 * message to the requester, a rejection's reason required and shown to the owner, nothing written for a
 * refused review.
 */
describe.each(engines)('publication review (%s)', (engine) => {
  let t: TestApp;
  let owner: Who;
  let other: Who;
  let op: Who;

  beforeAll(async () => {
    t = await createTestApp(engine);
    const [ro, rx, rop] = [await registerAndLogin(t.app), await registerAndLogin(t.app), await registerAndLogin(t.app)];
    owner = { token: ro.token, username: ro.user.username, id: ro.user.id };
    other = { token: rx.token, username: rx.user.username, id: rx.user.id };
    op = { token: rop.token, username: rop.user.username, id: rop.user.id };
    await t.app.ctx.access.grant(op.id, 'operator');
    const acc = await t.app.ctx.clusterAccounts.ensure(owner.id, 'sz-a100');
    const dir = path.join(t.dataDir, 'centers/sz-a100/home', acc.account, 'data/pub');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'x.txt'), 'x');
  });
  afterAll(() => t.close());

  const call = (base: string) => (method: 'GET' | 'POST', url: string, who: Who | null, payload?: object) =>
    t.app.inject({ method, url: `${base}${url}`, payload, headers: who ? { token: who.token } : {} }).then((r) => body(r));
  const ds = call(DATASET_BASE);
  const md = call(MODEL_BASE);
  const entries = async (id: string) =>
    (await call(ADMIN_BASE)('POST', '/audit-logs/action/page', op, { target: id })).data.list as { action: string; actorName: string; targetType: string; targetName: string; before: string; after: string; reason: string }[];
  const messages = (userId: string, businessId: string) =>
    t.app.ctx.db.selectFrom('messages').select(['title', 'content']).where('user_id', '=', userId).where('business_id', '=', businessId).execute();
  /** A dataset (or model) of the owner's with a ready v1, asked to be published. */
  const requested = async (name: string, kind: 'dataset' | 'model' = 'dataset') => {
    const api = kind === 'dataset' ? ds : md;
    const made = (await api('POST', `/${kind}s`, owner, { name, source: { subCenterId: 'sz-a100', path: '/data/pub' } })).data as AssetDetail;
    await t.app.assets.datasets.idle();
    await t.app.assets.models.idle();
    expect((await api('POST', `/${kind}s/${made.id}/publish`, owner)).data).toMatchObject({ publishState: 'pending', publishReason: '' });
    return made.id;
  };
  const state = async (id: string, kind: 'dataset' | 'model' = 'dataset') => {
    const a = (await (kind === 'dataset' ? ds : md)('GET', `/${kind}s/${id}`, owner)).data as AssetDetail;
    return { publishState: a.publishState, visibility: a.visibility, publishReason: a.publishReason };
  };

  it('refuses users with 1020 on every operator route of both kinds, and nothing changes', async () => {
    const d = await requested('审核-拒绝用户');
    const m = await requested('审核-模型', 'model');
    for (const [api, kind, id] of [[ds, 'datasets', d], [md, 'models', m]] as const) {
      for (const who of [owner, other]) {
        expect((await api('GET', `/${kind}/action/pending-publication`, who)).message.code).toBe(1020);
        // Refused before validation: a body that would be invalid says nothing either.
        expect((await api('POST', `/${kind}/${id}/publish/review`, who, { approve: true })).message.code).toBe(1020);
        expect((await api('POST', `/${kind}/${id}/publish/review`, who, {})).message.code).toBe(1020);
      }
      expect((await api('GET', `/${kind}/action/pending-publication`, null)).message.code).toBe(10133);
    }
    expect(await state(d)).toEqual({ publishState: 'pending', visibility: 'private', publishReason: '' });
    expect(await state(m, 'model')).toEqual({ publishState: 'pending', visibility: 'private', publishReason: '' });
    expect(await entries(d)).toEqual([]);
    expect(await messages(owner.id, d)).toEqual([]);
    // The operator sees both requests, each under its kind.
    expect(((await ds('GET', '/datasets/action/pending-publication', op)).data as { id: string }[]).map((x) => x.id)).toContain(d);
    expect(((await md('GET', '/models/action/pending-publication', op)).data as { id: string }[]).map((x) => x.id)).toEqual([m]);
  });

  it('an approval publishes into the hall with one audit entry and a message to the requester', async () => {
    const id = await requested('审核-通过');
    const r = await ds('POST', `/datasets/${id}/publish/review`, op, { approve: true, reason: '资料完整' });
    expect(r.data).toMatchObject({ publishState: 'published', visibility: 'public' });
    expect((await entries(id)).map((e) => [e.action, e.actorName, e.targetType, e.targetName, JSON.parse(e.before), JSON.parse(e.after), e.reason])).toEqual([
      ['asset.review', op.username, 'dataset', '审核-通过', { publishState: 'pending', visibility: 'private' }, { publishState: 'published', visibility: 'public' }, '资料完整'],
    ]);
    expect((await messages(owner.id, id)).map((m) => m.title)).toEqual(['数据集已公开']);
    const hall = (await ds('POST', '/datasets/action/page', other, { scope: 'public', keyword: '审核-通过' })).data as AssetPage;
    expect(hall.list.map((a) => a.name)).toEqual(['审核-通过']);
    // Decided: a second review is refused and writes nothing.
    expect((await ds('POST', `/datasets/${id}/publish/review`, op, { approve: false, reason: '重复' })).message.code).toBe(1205);
    expect(await entries(id)).toHaveLength(1);
    expect(await messages(owner.id, id)).toHaveLength(1);
  });

  it('a rejection needs its reason, which the owner is told and sees until asking again', async () => {
    const id = await requested('审核-驳回', 'model');
    // Without a reason: 1005 on `reason`, and nothing happens.
    const bare = await md('POST', `/models/${id}/publish/review`, op, { approve: false, reason: '  ' });
    expect(bare.message.code).toBe(1005);
    expect(JSON.stringify(bare)).toContain('reason');
    expect(await state(id, 'model')).toEqual({ publishState: 'pending', visibility: 'private', publishReason: '' });
    expect(await entries(id)).toEqual([]);
    expect(await messages(owner.id, id)).toEqual([]);

    expect((await md('POST', `/models/${id}/publish/review`, op, { approve: false, reason: '缺少模型说明' })).data).toMatchObject({ publishState: 'none', visibility: 'private' });
    expect(await state(id, 'model')).toEqual({ publishState: 'none', visibility: 'private', publishReason: '缺少模型说明' });
    expect((await entries(id)).map((e) => [e.action, e.targetType, JSON.parse(e.before), JSON.parse(e.after), e.reason])).toEqual([
      ['asset.review', 'model', { publishState: 'pending', visibility: 'private' }, { publishState: 'none', visibility: 'private' }, '缺少模型说明'],
    ]);
    const told = await messages(owner.id, id);
    expect(told.map((m) => m.title)).toEqual(['模型的公开申请未通过']);
    expect(told[0].content).toContain('缺少模型说明');
    // Not in the hall; asking again clears the reason.
    expect(((await md('POST', '/models/action/page', other, { scope: 'public', keyword: '审核-驳回' })).data as AssetPage).list).toEqual([]);
    expect((await md('POST', `/models/${id}/publish`, owner)).data).toMatchObject({ publishState: 'pending', publishReason: '' });
  });

  it('the state change and its entry commit together: when the entry cannot be written the request stays pending', async () => {
    const id = await requested('审核-回滚');
    const trail = t.app.ctx.audit;
    const record = trail.record;
    trail.record = async () => {
      throw new Error('audit write failed');
    };
    try {
      expect((await ds('POST', `/datasets/${id}/publish/review`, op, { approve: true })).message.code).not.toBe(0);
    } finally {
      trail.record = record;
    }
    expect(await state(id)).toEqual({ publishState: 'pending', visibility: 'private', publishReason: '' });
    expect(await entries(id)).toEqual([]);
    expect(await messages(owner.id, id)).toEqual([]);
  });
});
