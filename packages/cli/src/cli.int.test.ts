// Issue 24 item 4, acceptance 3 and 4: the built single-file CLI (dist/suanli.mjs, copied out of the repo so
// no node_modules can help it) run as a process against a real gateway listening on loopback.
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_BASE, SLURM_BASE, TRAINING_BASE } from '@suanli/contracts';
import { createTestApp, type TestApp } from '../../../apps/server/test/harness';
import { encryptPassword, call as injectCall, registerAndLogin } from '../../../apps/server/test/users';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const version = JSON.parse(fs.readFileSync(path.join(repoRoot, 'packages/cli/package.json'), 'utf8')).version as string;

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

describe('suanli CLI against a real gateway', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-cli-'));
  const guideDir = path.join(work, 'guide');
  // The CLI built for this test alone (not packages/cli/dist, which a build beside the tests may rewrite).
  const builtCli = path.join(work, 'build/suanli.mjs');
  const configDir = path.join(work, 'config');
  let t: TestApp;
  let server: string;
  let user: Awaited<ReturnType<typeof registerAndLogin>>;
  /** The CLI as a user gets it: downloaded from the gateway into a folder of its own. */
  let cli: string;

  /** Runs the CLI; `onStderr` sees its progress lines and may kill it. */
  function run(args: string[], opts: { onStderr?: (text: string, child: ReturnType<typeof spawn>) => void; timeoutMs?: number } = {}): Promise<Ran> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cli, ...args], { cwd: work, env: { ...process.env, SUANLI_CONFIG_DIR: configDir }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += String(c)));
      child.stderr.on('data', (c) => {
        stderr += String(c);
        opts.onStderr?.(stderr, child);
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr });
      });
    });
  }

  beforeAll(async () => {
    // What `npm run build` does for the CLI and the guide: the bundle lands in the built guide's downloads.
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build-guide.mjs'), guideDir], { stdio: 'ignore' });
    execFileSync(process.execPath, [path.join(repoRoot, 'packages/cli/build.mjs'), '--outfile', builtCli, '--copy-to', path.join(guideDir, 'downloads')], { stdio: 'ignore' });
    t = await createTestApp('sqlite', { guideDist: guideDir });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    server = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    user = await registerAndLogin(t.app);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('is offered by the guide page and the gateway serves it; the downloaded file runs here: --version, login, task list', async () => {
    const page = await fetch(`${server}/guide/cli.html`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('href="downloads/suanli.mjs"');
    const res = await fetch(`${server}/guide/downloads/suanli.mjs`);
    expect(res.status).toBe(200);
    const bin = path.join(work, 'bin');
    fs.mkdirSync(bin);
    cli = path.join(bin, 'suanli.mjs');
    fs.writeFileSync(cli, Buffer.from(await res.arrayBuffer()));
    expect(fs.readFileSync(cli).equals(fs.readFileSync(builtCli))).toBe(true);

    const v = await run(['--version']);
    expect(v).toMatchObject({ code: 0, stdout: `${version}\n` });

    const wrong = await run(['login', '--server', server, '--account', user.user.username, '--password', 'not-the-password']);
    expect(wrong.code).not.toBe(0);
    const refused = await injectCall(t.app, 'POST', 'user/login', { payload: { account: user.user.username, password: await encryptPassword(t.app, 'not-the-password') } });
    expect(refused.message.code).not.toBe(0);
    expect(wrong.stderr).toBe(`错误：${refused.message.message}\n`);

    const login = await run(['login', '--server', server, '--account', user.user.username, '--password', user.password]);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`用户 ${user.user.username}`);
    const saved = path.join(configDir, 'config.json');
    expect(fs.statSync(saved).mode & 0o777).toBe(0o600);
    expect(fs.statSync(configDir).mode & 0o777).toBe(0o700);

    const who = await run(['whoami', '--json']);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ id: user.user.id, username: user.user.username });

    const list = await run(['task', 'list']);
    expect(list).toMatchObject({ code: 0, stdout: '暂无任务\n' });
  });

  it('bad input gets the server’s Chinese message and a non-zero exit', async () => {
    const args = { name: '坏参数', cardTypeId: 'a100-80g', imageId: 'pytorch-2.3-cuda12', command: 'echo hi' };
    // The same submission through the API: what the server answers is what the CLI must print.
    const direct = await injectCall(t.app, 'POST', `${TRAINING_BASE}/tasks`, {
      token: user.token,
      payload: { ...args, type: 'train', subCenterId: 'no-such-center', cardNum: 1, nodeNum: 1, workDir: '/', env: [], maxDurationMinutes: 60 },
    });
    expect(direct.message.code).not.toBe(0);
    const r = await run(['task', 'submit', '--name', args.name, '--center', 'no-such-center', '--card-type', args.cardTypeId, '--image', args.imageId, '--command', args.command]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`错误：${direct.message.message}\n`);
    expect(direct.message.message).toMatch(/[\u4e00-\u9fa5]/);

    // A field the schema refuses (1005 naming it), and a task that does not exist.
    const big = await run(['task', 'submit', '--name', 'x', '--center', 'sz-a100', '--card-type', 'a100-80g', '--image', args.imageId, '--command', 'echo', '--cards', '999']);
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/^错误：.*cardNum/);
    const missing = await run(['task', 'logs', 'no-such-task']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^错误：[\u4e00-\u9fa5]/);
    // The CLI's own refusals are Chinese too.
    const unknown = await run(['frobnicate']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('未知命令：frobnicate');
    const option = await run(['task', 'list', '--bogus']);
    expect(option).toMatchObject({ code: 1, stderr: '错误：参数错误：未知选项 --bogus\n执行 suanli --help 查看用法\n' });
  });

  it('task submit, then logs -f follows the log to the end and exits with the task’s result', async () => {
    const submit = async (name: string, command: string) => {
      const r = await run(['task', 'submit', '--json', '--name', name, '--center', 'sz-a100', '--card-type', 'a100-80g', '--image', 'pytorch-2.3-cuda12', '--command', command]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { id: string };
    };
    const failing = await submit('会失败的任务', 'for i in 1 2 3; do echo "步骤 $i"; sleep 0.5; done; echo 出错了 >&2; exit 3');
    const f = await run(['task', 'logs', failing.id, '-f', '--interval', '200'], { timeoutMs: 90_000 });
    expect(f.stdout).toMatch(/步骤 1\n步骤 2\n步骤 3\n/);
    expect(f.stdout).toContain('出错了');
    expect(f.stderr).toContain('退出码 3');
    expect(f.code).toBe(3);

    const ok = await submit('会成功的任务', 'echo 开始; sleep 1; echo 完成');
    const s = await run(['task', 'logs', ok.id, '-f', '--interval', '200'], { timeoutMs: 90_000 });
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/开始\n完成\n/);

    const list = await run(['task', 'list', '--json']);
    expect(JSON.parse(list.stdout).list.map((x: { id: string; state: string }) => [x.id, x.state])).toEqual([
      [ok.id, 'SUCCEEDED'],
      [failing.id, 'FAILED'],
    ]);
  }, 200_000);

  it('slurm submit from a template and from a script; each followed to the end', async () => {
    const tpl = await injectCall(t.app, 'POST', `${SLURM_BASE}/templates`, {
      token: user.token,
      payload: { name: '回显', description: '', category: '测试', script: '#!/bin/bash\necho "n=" {{n}}\necho done-$(( {{n}} * 2 ))\n', params: [{ name: 'n', label: '次数', type: 'number', required: true, min: 1, max: 100 }], defaults: { cardNum: 1, nodeNum: 1, maxDurationMinutes: 5 } },
    });
    expect(tpl.message.code, tpl.message.message).toBe(0);
    const templates = await run(['slurm', 'templates']);
    expect(templates.code, templates.stderr).toBe(0);
    expect(templates.stdout).toMatch(new RegExp(`${tpl.data.id}\\s+回显\\s+测试\\s+我的\\s+n`));

    const base = ['--center', 'sz-a100', '--card-type', 'cpu-std', '--cards', '1', '--json'];
    const fromTemplate = await run(['slurm', 'submit', '--template', tpl.data.id, '--param', 'n=21', '--name', '模板作业', ...base]);
    expect(fromTemplate.code, fromTemplate.stderr).toBe(0);
    const a = JSON.parse(fromTemplate.stdout);
    expect(a).toMatchObject({ kind: 'slurm', type: 'template', params: { n: 21 } });
    const followA = await run(['task', 'logs', a.id, '-f', '--interval', '200'], { timeoutMs: 90_000 });
    expect(followA.code, followA.stderr).toBe(0);
    expect(followA.stdout).toContain('done-42');

    fs.writeFileSync(path.join(work, 'job.sh'), '#!/bin/bash\necho "custom $((6 * 7))"\nexit 5\n');
    const fromScript = await run(['slurm', 'submit', '--script', 'job.sh', '--name', '脚本作业', ...base]);
    expect(fromScript.code, fromScript.stderr).toBe(0);
    const b = JSON.parse(fromScript.stdout);
    expect(b).toMatchObject({ kind: 'slurm', type: 'custom' });
    const followB = await run(['task', 'logs', b.id, '-f', '--interval', '200'], { timeoutMs: 90_000 });
    expect(followB.stdout).toContain('custom 42');
    expect(followB.code).toBe(5);

    // Both ways of giving a job at once is refused before anything is sent.
    const both = await run(['slurm', 'submit', '--template', tpl.data.id, '--script', 'job.sh', '--name', 'x', ...base]);
    expect(both).toMatchObject({ code: 1, stderr: '错误：请指定 --template <模板ID> 或 --script <脚本文件> 之一\n' });
  }, 200_000);

  it('dataset and model: list, and version create from a folder uploaded with the CLI (with a progress bar on a terminal)', async () => {
    const local = path.join(work, 'digits.bin');
    fs.writeFileSync(local, randomBytes(24 * 1024 * 1024));
    // On a terminal (a pseudo-terminal made by util-linux `script`): the bar is redrawn in place.
    // Not execFileSync: the gateway runs in this process and must keep answering.
    const tty = await new Promise<string>((resolve, reject) => {
      const child = spawn('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} upload ${JSON.stringify(local)} sz-a100:/data/mnist`, '/dev/null'], {
        cwd: work,
        env: { ...process.env, SUANLI_CONFIG_DIR: configDir },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      child.stdout.on('data', (c) => (text += String(c)));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}: ${text}`))));
    });
    expect(tty).toMatch(/\r上传 digits\.bin \[#+\.*\]/);
    expect(tty).toMatch(/\[#{30}\] 100% 24\.0 MiB\/24\.0 MiB/);
    expect(tty).toContain('已上传 /data/mnist/digits.bin，24.0 MiB');

    // A small file goes in one request: nothing to resume, and it says so.
    fs.writeFileSync(path.join(work, 'labels.txt'), '0\n1\n2\n');
    const small = await run(['upload', 'labels.txt', 'sz-a100:/data/mnist', '--json']);
    expect(small.code, small.stderr).toBe(0);
    expect(JSON.parse(small.stdout)).toMatchObject({ instant: false, resumedBytes: 0, entry: { path: '/data/mnist/labels.txt', size: 6 } });
    const listed = JSON.parse((await run(['ls', 'sz-a100:/data/mnist', '--json'])).stdout);
    expect(listed.map((e: { name: string; size: number }) => [e.name, e.size])).toEqual([
      ['digits.bin', 24 * 1024 * 1024],
      ['labels.txt', 6],
    ]);

    const created = await injectCall(t.app, 'POST', `${DATASET_BASE}/datasets`, { token: user.token, payload: { name: '手写数字', source: { subCenterId: 'sz-a100', path: '/data/mnist' } } });
    expect(created.message.code, created.message.message).toBe(0);
    const list = await run(['dataset', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${created.data.id}\\s+手写数字\\s+1\\s`));
    expect(await run(['model', 'list'])).toMatchObject({ code: 0, stdout: '暂无模型\n' });

    const v = await run(['dataset', 'version', 'create', created.data.id, 'sz-a100:/data/mnist', '--note', '第二版', '--json']);
    expect(v.code, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ version: 2, sourcePath: '/data/mnist', subCenterId: 'sz-a100' });
    const missing = await run(['dataset', 'version', 'create', created.data.id, 'sz-a100:/no/such/dir']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^错误：[\u4e00-\u9fa5]/);
    const json = JSON.parse((await run(['dataset', 'list', '--json'])).stdout);
    expect(json.list[0]).toMatchObject({ id: created.data.id, versionCount: 2 });
  }, 120_000);

  it('a 1 GiB upload killed with SIGKILL resumes from the staged chunks and lands byte for byte (sha256)', async () => {
    const size = 1024 * 1024 * 1024;
    const local = path.join(work, 'big.bin');
    const fd = fs.openSync(local, 'w');
    const block = randomBytes(16 * 1024 * 1024);
    const hash = createHash('sha256');
    for (let i = 0; i < size / block.length; i++) {
      // Each block differs (its index in the first bytes), so no chunk repeats another.
      block.writeUInt32BE(i, 0);
      fs.writeSync(fd, block);
      hash.update(block);
    }
    fs.closeSync(fd);
    const expected = hash.digest('hex');

    const first = await run(['upload', local, 'sz-a100:/big'], {
      timeoutMs: 600_000,
      onStderr: (text, child) => {
        const pct = Math.max(0, ...[...text.matchAll(/上传 big\.bin (\d+)%/g)].map((m) => Number(m[1])));
        if (pct >= 30 && child.exitCode === null) child.kill('SIGKILL');
      },
    });
    expect(first.signal).toBe('SIGKILL');

    const ls = await run(['ls', 'sz-a100:/', '--json']);
    expect(ls.code, ls.stderr).toBe(0);

    const second = await run(['upload', local, 'sz-a100:/big', '--json'], { timeoutMs: 600_000 });
    expect(second.code, second.stderr).toBe(0);
    const result = JSON.parse(second.stdout);
    expect(result.instant).toBe(false);
    // It resumed: at least the 30 % the first run had stored stayed on the server and were not sent again.
    expect(result.resumedBytes).toBeGreaterThanOrEqual(size * 0.3);
    expect(result.resumedBytes).toBeLessThan(size);
    expect(result.entry).toMatchObject({ name: 'big.bin', path: '/big/big.bin', size });

    // The landed file, read back through the CLI's download, matches by sha256.
    const back = path.join(work, 'back.bin');
    const dl = await run(['download', 'sz-a100:/big/big.bin', back], { timeoutMs: 600_000 });
    expect(dl.code, dl.stderr).toBe(0);
    const got = createHash('sha256');
    for await (const c of fs.createReadStream(back, { highWaterMark: 4 * 1024 * 1024 })) got.update(c as Buffer);
    expect(got.digest('hex')).toBe(expected);
    fs.rmSync(back);
    fs.rmSync(local);

    // logout ends the session on the server as well, and forgets the token here.
    const { token } = JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8'));
    expect(await run(['logout'])).toMatchObject({ code: 0, stdout: '已退出登录\n' });
    expect(JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8'))).toEqual({ server });
    expect((await injectCall(t.app, 'GET', 'user', { token })).message.code).not.toBe(0);
    expect(await run(['whoami'])).toMatchObject({ code: 1, stderr: '错误：尚未登录：请先执行 suanli login\n' });
  }, 900_000);
});
