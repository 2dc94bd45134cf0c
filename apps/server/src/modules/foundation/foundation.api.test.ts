import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DICTS } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { call, encryptPassword, login, registerAndLogin } from '../../../test/users';

describe.each(engines)('foundation api (%s)', (engine) => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp(engine);
    const { token: tk } = await t.app.ctx.sessions.create('u-test');
    token = tk;
  });
  afterAll(() => t.close());

  const get = (url: string, tk = token) =>
    t.app.inject({ method: 'GET', url, headers: tk ? { token: tk } : {} });

  it('lists the two demo sub-centers with different card types and a file service each', async () => {
    const res = await get('/gateway/foundation/api/v1/sub-centers/action/list');
    expect(res.statusCode).toBe(200);
    const { message, data } = body(res);
    expect(message).toEqual({ code: 0, message: '操作成功' });
    expect(data.map((c: any) => c.id)).toEqual(['sz-a100', 'gz-ascend']);
    expect(data[0].cardTypes.map((c: any) => c.name)).toContain('NVIDIA A100 80G');
    expect(data[1].cardTypes.map((c: any) => c.name)).toContain('昇腾 910B');
    expect(data[0].fileServiceUrl).toMatch(/\/file-service\/sz-a100$/);
    expect(data[0].cardTypes[0]).toMatchObject({ total: 32, available: 32 });
  });

  it('answers a center detail with partitions and scheduler kind', async () => {
    const { data } = body(await get('/gateway/foundation/api/v1/sub-centers/gz-ascend/detail'));
    expect(data).toMatchObject({ id: 'gz-ascend', schedulerKind: 'local', loginHost: '127.0.0.1', utilization: 0 });
    expect(data.partitions.map((p: any) => p.name)).toEqual(['npu-910b', 'dcu']);
  });

  it('answers 1205 for an unknown center', async () => {
    const { message } = body(await get('/gateway/foundation/api/v1/sub-centers/nope/detail'));
    expect(message.code).toBe(1205);
  });

  it('serves job_states exactly as the domain defines, and empty for unknown dicts', async () => {
    const { data } = body(await get('/gateway/foundation/api/v1/dicts/action/query/dict/job_states'));
    expect(data).toEqual(DICTS.job_states);
    expect(data.map((d: any) => d.dictValue)).toEqual([
      'CREATED', 'SUBMITTING', 'SUBMIT_FAILED', 'QUEUED', 'STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'SUCCEEDED', 'FAILED', 'UNDERPOWERED',
    ]);
    for (const name of ['task_types', 'order_states', 'workorder_states', 'workorder_types']) {
      expect(body(await get(`/gateway/foundation/api/v1/dicts/action/query/dict/${name}`)).data.length).toBeGreaterThan(0);
    }
    expect(body(await get('/gateway/foundation/api/v1/dicts/action/query/dict/unknown')).data).toEqual([]);
  });

  it('answers an empty dictionary, not HTTP 500, for names every JavaScript object inherits', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const res = await get(`/gateway/foundation/api/v1/dicts/action/query/dict/${name}`);
      expect(res.statusCode, name).toBe(200);
      expect(body(res), name).toEqual({ message: { code: 0, message: '操作成功' }, data: [] });
    }
  });

  it('refuses calls without a token (10133) and with an unknown one', async () => {
    expect(body(await get('/gateway/foundation/api/v1/sub-centers/action/list', '')).message.code).toBe(10133);
    expect(body(await get('/gateway/foundation/api/v1/sub-centers/action/list', 'forged')).message.code).toBe(10133);
  });

  it('expires idle (10157) and revoked (10307) sessions', async () => {
    const idle = await t.app.ctx.sessions.create('u-idle');
    t.clock.advance(31 * 60_000);
    expect(body(await get('/gateway/foundation/api/v1/sub-centers/action/list', idle.token)).message.code).toBe(10157);
    t.clock.advance(-31 * 60_000);
    const revoked = await t.app.ctx.sessions.create('u-rev');
    await t.app.ctx.sessions.revoke(revoked.sessionId, 'logout');
    expect(body(await get('/gateway/foundation/api/v1/sub-centers/action/list', revoked.token)).message.code).toBe(10307);
  });

  it('refuses a token after logout and after a password change (10307), for every foundation call', async () => {
    const urls = [
      '/gateway/foundation/api/v1/sub-centers/action/list',
      '/gateway/foundation/api/v1/sub-centers/sz-a100/detail',
      '/gateway/foundation/api/v1/dicts/action/query/dict/job_states',
    ];
    const { token: loggedOut, user, password } = await registerAndLogin(t.app);
    await call(t.app, 'GET', '/gateway/user/api/v1/user/logout', { token: loggedOut, query: { appClientId: 'test' } });
    const { token: other } = await login(t.app, user.username, password);
    const { token: changer } = await login(t.app, user.username, password);
    const changed = await call(t.app, 'POST', '/gateway/user/api/v1/user/password/update', {
      token: changer,
      payload: { oldPassword: await encryptPassword(t.app, password), newPassword: await encryptPassword(t.app, 'NewPassw0rd-x') },
    });
    expect(changed.message.code).toBe(0);
    for (const url of urls) {
      expect(body(await get(url, loggedOut)).message.code).toBe(10307);
      expect(body(await get(url, other)).message.code).toBe(10307);
      expect(body(await get(url, changer)).message.code).toBe(0);
    }
  });

  it('answers 1005 naming the field for invalid input', async () => {
    const { message } = body(await get(`/gateway/foundation/api/v1/dicts/action/query/dict/${'x'.repeat(80)}`));
    expect(message.code).toBe(1005);
    expect(message.message).toContain('dictName');
  });

  it('answers unknown routes with HTTP 404 and the envelope', async () => {
    const res = await get('/gateway/foundation/api/v1/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(body(res).message.code).toBe(1205);
  });

  it('sends security headers', async () => {
    const res = await get('/gateway/foundation/api/v1/sub-centers/action/list');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });
});
