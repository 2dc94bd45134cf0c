import { ErrorCode, SLURM_BASE, isTerminal, type JobState, type SlurmTaskCreate, type SlurmTemplateSave } from '@suanli/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

/** 科学计算 over HTTP on both engines: templates (platform + own), Slurm tasks run on the local executor. */

const userTemplate: SlurmTemplateSave = {
  name: '参数回显',
  description: '把参数写进日志',
  category: '测试',
  script: '#!/bin/bash\necho "title=" {{title}}\necho "n=" {{n}}\necho "mode=" {{mode}}\necho "dir=" {{dir}}\necho done-$((  {{n}} * 2 ))\n',
  params: [
    { name: 'title', label: '标题', type: 'text', required: true },
    { name: 'n', label: '次数', type: 'number', required: true, default: 3, min: 1, max: 100 },
    { name: 'mode', label: '模式', type: 'select', required: true, options: ['fast', 'exact'], default: 'fast' },
    { name: 'dir', label: '目录', type: 'path', required: false },
  ],
  defaults: { cardNum: 1, nodeNum: 1, maxDurationMinutes: 5 },
};

const taskBase = { subCenterId: 'sz-a100', cardTypeId: 'cpu-std', cardNum: 1, nodeNum: 1, workDir: '/', env: [], maxDurationMinutes: 5 } satisfies Partial<SlurmTaskCreate>;

describe.each(engines)('slurm api (%s)', (engine) => {
  let t: TestApp;
  let tokenA: string;
  let tokenB: string;
  const userA = 'u-slurm-a';
  const userB = 'u-slurm-b';

  beforeAll(async () => {
    t = await createTestApp(engine);
    tokenA = (await t.app.ctx.sessions.create(userA)).token;
    tokenB = (await t.app.ctx.sessions.create(userB)).token;
  });
  afterAll(() => t.close());

  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, token: string | null = tokenA) =>
    body(await t.app.inject({ method, url: `${SLURM_BASE}${url}`, payload: payload as object, headers: token ? { token } : {} }));
  const page = (q: object = {}, token = tokenA) => call('POST', '/templates/action/page', { pageNum: 1, pageSize: 50, ...q }, token);
  const ownCount = async (token = tokenA) => (await page({ source: 'user' }, token)).data.total as number;
  const taskCount = async (token = tokenA) => (await call('POST', '/tasks/action/page', { pageNum: 1, pageSize: 50 }, token)).data.total as number;

  async function settle(id: string, token = tokenA, timeoutMs = 25_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { data } = await call('GET', `/tasks/${id}`, undefined, token);
      if (isTerminal(data.state as JobState)) return data;
      if (Date.now() > deadline) throw new Error(`task ${id} still ${data.state}: ${data.reason}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  const log = async (id: string, token = tokenA) => (await call('GET', `/tasks/${id}/log?offset=0`, undefined, token)).data.content as string;

  describe('templates', () => {
    it('lists the platform templates (read-only, from config) first, filtered by category, keyword and source', async () => {
      const all = await page();
      expect(all.message.code).toBe(0);
      expect(all.data.list.map((x: any) => x.id)).toEqual(['platform-lammps-melt', 'platform-mpi-pi', 'platform-numpy-pi']);
      expect(all.data.list.every((x: any) => x.source === 'platform')).toBe(true);
      expect((await page({ category: '分子动力学' })).data.list.map((x: any) => x.id)).toEqual(['platform-lammps-melt']);
      expect((await page({ keyword: 'NumPy' })).data.list.map((x: any) => x.id)).toEqual(['platform-numpy-pi']);
      expect((await page({ source: 'user' })).data).toMatchObject({ list: [], total: 0 });
      const one = await call('GET', '/templates/platform-mpi-pi');
      expect(one.data).toMatchObject({ id: 'platform-mpi-pi', source: 'platform', category: '并行计算' });
      expect(one.data.params.map((p: any) => p.name)).toEqual(['np', 'intervals']);
    });

    it('creates, reads, updates and deletes the caller\'s own template; pages join platform and own on the server', async () => {
      const created = await call('POST', '/templates', userTemplate);
      expect(created.message.code).toBe(0);
      expect(created.data).toMatchObject({ name: '参数回显', source: 'user', category: '测试', params: userTemplate.params });
      const id = created.data.id as string;
      const second = (await call('POST', '/templates', { ...userTemplate, name: '第二个', category: '其他' })).data.id as string;

      const p1 = await page({ pageSize: 2 });
      expect(p1.data.total).toBe(5);
      expect(p1.data.list.map((x: any) => x.id)).toEqual(['platform-lammps-melt', 'platform-mpi-pi']);
      const p2 = await page({ pageSize: 2, pageNum: 2 });
      expect(p2.data.list.map((x: any) => x.id)).toEqual(['platform-numpy-pi', second]);
      const p3 = await page({ pageSize: 2, pageNum: 3 });
      expect(p3.data.list.map((x: any) => x.id)).toEqual([id]);
      expect((await page({ source: 'user', category: '测试' })).data.list.map((x: any) => x.id)).toEqual([id]);
      expect((await page({ keyword: '第二' })).data.list.map((x: any) => x.id)).toEqual([second]);

      t.clock.advance(1000);
      const updated = await call('PUT', `/templates/${id}`, { ...userTemplate, description: '改过了' });
      expect(updated.data).toMatchObject({ id, description: '改过了' });
      expect(updated.data.updateTime).toBeGreaterThan(updated.data.createTime);
      expect((await call('GET', `/templates/${id}`)).data.description).toBe('改过了');

      expect((await call('DELETE', `/templates/${second}`)).message.code).toBe(0);
      expect((await call('GET', `/templates/${second}`)).message.code).toBe(ErrorCode.NOT_FOUND);
      expect(await ownCount()).toBe(1);
    });

    it('another user\'s template is 1205 for every call and never listed; platform templates are read-only (2102)', async () => {
      const id = (await page({ source: 'user' })).data.list[0].id as string;
      expect((await page({}, tokenB)).data.list.map((x: any) => x.id)).not.toContain(id);
      for (const [method, payload] of [['GET'], ['PUT', userTemplate], ['DELETE']] as const) {
        const r = await call(method, `/templates/${id}`, payload, tokenB);
        expect(r.message.code, method).toBe(ErrorCode.NOT_FOUND);
        expect(r.data).toBeNull();
      }
      expect((await call('GET', `/templates/${id}`)).data.name).toBe('参数回显');

      expect((await call('PUT', '/templates/platform-numpy-pi', userTemplate)).message.code).toBe(ErrorCode.TEMPLATE_READONLY);
      expect((await call('DELETE', '/templates/platform-numpy-pi')).message.code).toBe(ErrorCode.TEMPLATE_READONLY);
      expect((await call('GET', '/templates/platform-numpy-pi')).data.name).toContain('NumPy');
    });

    it('bad templates are 1005 naming the field, and nothing is stored', async () => {
      const before = await ownCount();
      const p = userTemplate.params;
      const cases: [Partial<SlurmTemplateSave>, string][] = [
        [{ params: [p[0], { ...p[1], name: 'title' }, p[2], p[3]] }, 'params[1].name'],
        [{ script: `${userTemplate.script}echo {{nope}}\n` }, '{{nope}}'],
        [{ params: [p[0], p[1], { ...p[2], options: [] }, p[3]] }, 'params[2].options'],
        [{ params: [p[0], { ...p[1], default: 1000 }, p[2], p[3]] }, 'params[1].default'],
        [{ script: 'echo no shebang' }, 'script'],
        [{ name: '' }, 'name'],
        [{ params: [{ ...p[0], name: '1bad' }] }, 'name'],
      ];
      for (const [patch, field] of cases) {
        const r = await call('POST', '/templates', { ...userTemplate, ...patch });
        expect(r.message.code, field).toBe(ErrorCode.PARAM_INVALID);
        expect(r.message.message, field).toContain(field);
      }
      expect(await ownCount()).toBe(before);
      // An update with a broken body leaves the template as it was.
      const id = (await page({ source: 'user' })).data.list[0].id as string;
      expect((await call('PUT', `/templates/${id}`, { ...userTemplate, script: 'x' })).message.code).toBe(ErrorCode.PARAM_INVALID);
      expect((await call('GET', `/templates/${id}`)).data.script).toBe(userTemplate.script);
    });

    it('needs a token', async () => {
      const r = body(await t.app.inject({ method: 'POST', url: `${SLURM_BASE}/templates/action/page`, payload: { pageNum: 1, pageSize: 10 } }));
      expect(r.message.code).toBe(ErrorCode.NOT_LOGGED_IN);
      expect(r.data).toBeNull();
    });
  });

  describe('tasks', () => {
    let templateId: string;
    let templateTaskId: string;
    beforeAll(async () => {
      templateId = (await call('POST', '/templates', { ...userTemplate, name: '回显任务模板' })).data.id;
    });

    it('a template task renders the values (text quoted, path absolute in the home) and runs to SUCCEEDED with its output in the log', async () => {
      const r = await call('POST', '/tasks', {
        ...taskBase,
        name: '模板任务',
        type: 'template',
        templateId,
        params: { title: "it's $(whoami)", n: '21', dir: 'results' },
      });
      expect(r.message.code, r.message.message).toBe(0);
      expect(r.data).toMatchObject({ kind: 'slurm', type: 'template', templateId, params: { title: "it's $(whoami)", n: 21, mode: 'fast', dir: '/results' } });
      expect(r.data.command).toContain(`echo "title=" 'it'\\''s $(whoami)'`);
      expect(r.data.command).toMatch(/echo "dir=" '\/.+\/home\/szu\d{4}\/results'/);
      templateTaskId = r.data.id;
      const done = await settle(templateTaskId);
      expect(done.state, done.reason).toBe('SUCCEEDED');
      expect(done.exitCode).toBe(0);
      const out = await log(templateTaskId);
      expect(out).toContain("title= it's $(whoami)");
      expect(out).toContain('n= 21');
      expect(out).toContain('mode= fast');
      expect(out).toContain('done-42');
    });

    let customTaskId: string;
    it('a custom script runs to SUCCEEDED with its output in the log', async () => {
      const r = await call('POST', '/tasks', { ...taskBase, name: '自定义脚本', type: 'custom', script: '#!/bin/bash\necho "custom $((6 * 7))"\necho "task=$SUANLI_TASK_ID"\n' });
      expect(r.message.code, r.message.message).toBe(0);
      expect(r.data).toMatchObject({ type: 'custom', templateId: null, params: null });
      customTaskId = r.data.id;
      const done = await settle(r.data.id);
      expect(done.state, done.reason).toBe('SUCCEEDED');
      const out = await log(r.data.id);
      expect(out).toContain('custom 42');
      expect(out).toContain(`task=${r.data.id}`);
      // Its notices name it as the menu does (科学计算 › 任务管理), not by the scheduler's name.
      const msgs = body(await t.app.inject({ method: 'POST', url: '/gateway/foundation/api/v1/message/query', payload: { pageNum: 1, pageSize: 50, type: 'task' }, headers: { token: tokenA } }));
      const titles = msgs.data.list.map((x: { title: string }) => x.title);
      expect(titles).toContain('科学计算任务「自定义脚本」运行成功');
      expect(JSON.stringify(msgs.data.list)).not.toContain('Slurm');
    });

    it('render and form errors name the parameter and create nothing', async () => {
      const before = await taskCount();
      const tpl = { ...taskBase, name: '坏参数', type: 'template', templateId };
      const cases: [object, number, string][] = [
        [{ ...tpl, params: { title: 'x', n: 101 } }, ErrorCode.TEMPLATE_PARAM_INVALID, 'params.n'],
        [{ ...tpl, params: { title: 'x', n: 'many' } }, ErrorCode.TEMPLATE_PARAM_INVALID, 'params.n'],
        [{ ...tpl, params: { title: 'x', mode: 'slow' } }, ErrorCode.TEMPLATE_PARAM_INVALID, 'params.mode'],
        [{ ...tpl, params: { title: 'x', extra: '1' } }, ErrorCode.TEMPLATE_PARAM_INVALID, 'extra'],
        [{ ...tpl, params: { title: 'x', dir: '../szu0002' } }, ErrorCode.ILLEGAL_PATH, '..'],
        [{ ...tpl, params: { n: 2 } }, ErrorCode.PARAM_INVALID, 'params.title'],
        [{ ...tpl, templateId: undefined }, ErrorCode.PARAM_INVALID, 'templateId'],
        [{ ...tpl, templateId: 'no-such-template' }, ErrorCode.NOT_FOUND, '模板'],
        [{ ...taskBase, name: '无脚本', type: 'custom' }, ErrorCode.PARAM_INVALID, 'script'],
        [{ ...taskBase, name: '无解释器', type: 'custom', script: 'echo hi' }, ErrorCode.PARAM_INVALID, 'script'],
        [{ ...taskBase, name: '环境变量', type: 'custom', script: '#!/bin/bash\n', env: [{ name: 'SUANLI_X', value: '1' }] }, ErrorCode.PARAM_INVALID, 'env'],
        [{ ...taskBase, name: '', type: 'custom', script: '#!/bin/bash\n' }, ErrorCode.PARAM_INVALID, 'name'],
      ];
      for (const [payload, code, text] of cases) {
        const r = await call('POST', '/tasks', payload);
        expect(r.message.code, text).toBe(code);
        expect(r.message.message, text).toContain(text);
      }
      // Another user's template cannot be used either.
      const r = await call('POST', '/tasks', { ...tpl, params: { title: 'x' } }, tokenB);
      expect(r.message.code).toBe(ErrorCode.NOT_FOUND);
      expect(await taskCount()).toBe(before);
      expect(await taskCount(tokenB)).toBe(0);
    });

    it('another user\'s task is 1205 (detail, log, save as template, resubmit), nothing leaked', async () => {
      for (const [method, url, payload] of [
        ['GET', `/tasks/${templateTaskId}`],
        ['GET', `/tasks/${templateTaskId}/log`],
        ['POST', `/tasks/${templateTaskId}/save-as-template`, {}],
        ['POST', `/tasks/${templateTaskId}/resubmit`],
      ] as const) {
        const r = await call(method, url, payload, tokenB);
        expect(r.message.code, url).toBe(ErrorCode.NOT_FOUND);
        expect(r.data, url).toBeNull();
      }
      expect(await ownCount(tokenB)).toBe(0);
      expect(await taskCount(tokenB)).toBe(0);
    });

    it('saves a task as a template of the caller\'s: a template task keeps its parameters (its values as defaults), a custom one its script', async () => {
      const saved = await call('POST', `/tasks/${templateTaskId}/save-as-template`, { name: '从任务保存', category: '测试' });
      expect(saved.message.code, saved.message.message).toBe(0);
      const task = (await call('GET', `/tasks/${templateTaskId}`)).data;
      expect(saved.data).toMatchObject({ source: 'user', name: '从任务保存', category: '测试', script: userTemplate.script });
      expect(saved.data.params.map((x: any) => [x.name, x.default])).toEqual([
        ['title', "it's $(whoami)"],
        ['n', 21],
        ['mode', 'fast'],
        ['dir', '/results'],
      ]);
      expect(saved.data.defaults).toMatchObject({ cardTypeId: 'cpu-std', cardNum: 1, nodeNum: 1, maxDurationMinutes: 5 });
      // Named after the task when no name is given; the category is the source template's.
      expect((await call('POST', `/tasks/${templateTaskId}/save-as-template`, {})).data).toMatchObject({ name: '模板任务', category: '测试' });
      // The saved template renders the same script as the task ran.
      const again2 = await call('POST', '/tasks', { ...taskBase, name: '用保存的模板', type: 'template', templateId: saved.data.id, params: {} });
      expect(again2.data.command).toBe(task.command);

      const custom = await call('POST', `/tasks/${customTaskId}/save-as-template`, { description: '自定义' });
      const customTask = (await call('GET', `/tasks/${customTaskId}`)).data;
      expect(custom.data).toMatchObject({ name: '自定义脚本', description: '自定义', script: customTask.command, params: [] });
      expect((await settle(again2.data.id)).state).toBe('SUCCEEDED');

      const again = await call('POST', `/tasks/${templateTaskId}/resubmit`);
      expect(again.message.code, again.message.message).toBe(0);
      expect(again.data.id).not.toBe(templateTaskId);
      expect(again.data).toMatchObject({ command: task.command, templateId, params: task.params });
      expect((await settle(again.data.id)).state).toBe('SUCCEEDED');
    });

    // The shipped platform templates really run on the local executor (the same ones run on real Slurm in
    // slurm.slurm.int.test.ts). Once is enough: the engine does not matter to the scripts, so it is only
    // declared on SQLite (not a skipped test on PostgreSQL).
    if (engine === 'sqlite') it('the platform templates run to SUCCEEDED on the local executor with their defaults', async () => {
      const ids = [];
      for (const id of ['platform-numpy-pi', 'platform-mpi-pi', 'platform-lammps-melt']) {
        const r = await call('POST', '/tasks', { ...taskBase, cardNum: 2, name: id, type: 'template', templateId: id, params: {} });
        expect(r.message.code, r.message.message).toBe(0);
        ids.push(r.data.id as string);
      }
      const [numpy, mpi, lammps] = await Promise.all(ids.map((id) => settle(id, tokenA, 60_000).then(async (d) => ({ d, out: await log(id) }))));
      for (const { d, out } of [numpy, mpi, lammps]) expect(d.state, `${d.name}: ${d.reason}\n${out}`).toBe('SUCCEEDED');
      expect(Number(/pi=(\d+\.\d+) samples/.exec(numpy.out)?.[1])).toBeCloseTo(3.14, 1);
      expect(numpy.out).toMatch(/matmul n=500 dtype=float64/);
      expect(mpi.out).toMatch(/rank 0 of 2 on /);
      expect(mpi.out).toMatch(/rank 1 of 2 on /);
      expect(Number(/pi=(\d+\.\d+) intervals/.exec(mpi.out)?.[1])).toBeCloseTo(Math.PI, 8);
      expect(lammps.out).toContain('Total wall time');
      expect(lammps.out).toMatch(/Loop time of [\d.]+ on 1 procs for 250 steps with 500 atoms/);
    }, 90_000);
  });
});
