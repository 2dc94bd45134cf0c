import { SLURM_BASE, isTerminal, type JobState, type SlurmTaskCreate } from '@suanli/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, createTestApp, engines, type TestApp } from '../../../../test/harness';

/**
 * Issue 23 acceptance 2 on the embedded default: real jobs on the local executor fail for each cause, and
 * the task's detail names the cause with its evidence (figures, log lines with their numbers) and one change;
 * 按建议重新提交 with the change succeeds (memory). Also the efficiency report of an ended task.
 */

const base = { subCenterId: 'sz-a100', cardTypeId: 'cpu-std', cardNum: 1, nodeNum: 1, workDir: '/', env: [], maxDurationMinutes: 5, type: 'custom' } satisfies Partial<SlurmTaskCreate>;
// Grows by 20 MiB every 0.1 s up to 400 MiB (bytearray zero-fills: resident), prints its progress, ends 0.
const GROW = 'python3 -c "\nimport time\nb = []\nfor i in range(20):\n    b.append(bytearray(20 << 20))\n    print(\'chunk\', i, flush=True)\n    time.sleep(0.1)\nprint(\'grown\')\n"';

describe.each(engines)('task diagnosis on the local executor (%s)', (engine) => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    // A minute of 最长运行时长 lasts 4 s here (the time-limit case); every other job ends well within 5 of them.
    t = await createTestApp(engine, { compute: { pollIntervalMs: 200, leaseMs: 3000, submitRetryMs: 1000, local: { minuteMs: 4000, killGraceMs: 1000 } } });
    token = (await t.app.ctx.sessions.create('u-diag')).token;
  });
  afterAll(() => t.close());

  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    body(await t.app.inject({ method, url: `${SLURM_BASE}${url}`, payload: payload as object, headers: { token } }));

  async function run(name: string, script: string, over: Partial<SlurmTaskCreate> = {}) {
    const r = await call('POST', '/tasks', { ...base, name, script: `#!/bin/bash\n${script}\n`, ...over });
    expect(r.message.code).toBe(0);
    return settle(r.data.id as string);
  }

  async function settle(id: string) {
    const deadline = Date.now() + 50_000;
    for (;;) {
      const { data } = await call('GET', `/tasks/${id}`);
      if (isTerminal(data.state as JobState)) return data;
      if (Date.now() > deadline) throw new Error(`task ${id} still ${data.state}: ${data.reason}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  it('memory over #SBATCH --mem: killed, diagnosed as memory with the peak against the request; resubmitted with the suggested memory it succeeds', async () => {
    const d = await run('内存超限', `#SBATCH --mem=80M\n${GROW}`);
    expect(d).toMatchObject({ state: 'FAILED', exitCode: 137 });
    expect(d.diagnosis).toMatchObject({ cause: 'memory', title: '内存超出限制，作业被系统终止', change: { memoryMB: 1024 } });
    expect(d.diagnosis.evidence[0].text).toMatch(/^内存峰值 \d+ MiB，申请 80 MiB$/);
    expect(d.diagnosis.evidence.map((e: any) => e.text)).toContain('作业因内存超出申请量被终止（内存不足）');
    expect(d.efficiency).toMatchObject({ requestedMemMB: 80, acceleratorReported: false });
    expect(d.efficiency.maxRssMB).toBeGreaterThan(80);

    const again = await call('POST', `/tasks/${d.id}/resubmit`, { change: d.diagnosis.change });
    expect(again.message.code).toBe(0);
    expect(again.data.command).toContain('#SBATCH --mem=1024M');
    expect(again.data.command).not.toContain('--mem=80M');
    const done = await settle(again.data.id);
    expect(done).toMatchObject({ state: 'SUCCEEDED', diagnosis: null, resubmittedFrom: { id: d.id, type: 'custom', name: '内存超限' } });
    expect(done.efficiency.maxRssMB).toBeGreaterThan(300);
    expect(done.efficiency.requestedMemMB).toBe(1024);
  }, 120_000);

  it('over the time limit: diagnosed as timeLimit with twice the limit as the change', async () => {
    const d = await run('超时', 'echo started\nsleep 600', { maxDurationMinutes: 1 });
    expect(d.state).toBe('FAILED');
    expect(d.diagnosis).toMatchObject({ cause: 'timeLimit', change: { maxDurationMinutes: 2 } });
    expect(d.diagnosis.evidence[0]).toEqual({ text: '运行时长达到上限 1 分钟' });
    const again = await call('POST', `/tasks/${d.id}/resubmit`, { change: d.diagnosis.change });
    expect(again.data.maxDurationMinutes).toBe(2);
  }, 120_000);

  it('a non-zero exit: its code and the last log line with its number', async () => {
    const d = await run('退出码', 'echo one\necho two\necho "fatal: bad input" >&2\nexit 3');
    expect(d).toMatchObject({ state: 'FAILED', exitCode: 3 });
    expect(d.diagnosis).toMatchObject({
      cause: 'exitCode',
      title: '命令以退出码 3 结束',
      evidence: [{ text: '退出码 3' }, { text: 'fatal: bad input', logLine: 3 }],
    });
  }, 60_000);

  it('a Python exception: the exception line and its innermost frame', async () => {
    const d = await run('异常', 'echo preparing\npython3 -c "\ndef load(n):\n    return int(n)\nload(\'x7\')\n"');
    expect(d.state).toBe('FAILED');
    expect(d.diagnosis.cause).toBe('pythonException');
    expect(d.diagnosis.title).toBe('程序抛出异常：ValueError');
    expect(d.diagnosis.evidence[0]).toMatchObject({ text: expect.stringMatching(/^ValueError: invalid literal for int\(\)/) });
    expect(d.diagnosis.evidence[1]).toMatchObject({ text: expect.stringMatching(/File "<string>", line 3, in load/) });
    expect(d.diagnosis.evidence[0].logLine).toBeGreaterThan(d.diagnosis.evidence[1].logLine);
  }, 60_000);

  it('a killed process: SIGKILL, the shell\'s Killed line', async () => {
    const d = await run('被杀', 'echo working\npython3 -c "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"');
    expect(d).toMatchObject({ state: 'FAILED', exitCode: 137 });
    expect(d.diagnosis).toMatchObject({ cause: 'killed', title: '进程被强制终止' });
    expect(d.diagnosis.evidence[0].text).toBe('进程收到 SIGKILL 信号');
    expect(d.diagnosis.evidence[1]).toMatchObject({ text: expect.stringMatching(/Killed/), logLine: 2 });
  }, 60_000);

  it('a task that succeeded has no diagnosis and an efficiency report: CPU time against elapsed × CPUs', async () => {
    const d = await run('成功', 'python3 -c "\nx = 0\nfor i in range(5_000_000): x += i\nprint(x)\n"');
    expect(d).toMatchObject({ state: 'SUCCEEDED', diagnosis: null });
    expect(d.efficiency).toMatchObject({ cpus: 1, acceleratorReported: false, requestedMemMB: null, hint: null });
    expect(d.efficiency.cpuSeconds).toBeGreaterThan(0.1);
    expect(d.efficiency.cpuEfficiency).toBeGreaterThan(0);
  }, 60_000);
});
