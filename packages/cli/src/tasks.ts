import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import {
  AUTO_PLACEMENT,
  DatasetApi,
  ModelApi,
  SlurmApi,
  SlurmTaskApi,
  TrainingApi,
  TrainingTaskApi,
  ErrorCode,
  isTerminal,
  type JobState,
  type Task,
  type TaskApi,
} from '@suanli/contracts';
import { call, CliError, type Target } from './api';
import { gateway, int, out, pairs, required, type Opts } from './args';
import { findCenter, parseRemote } from './files';
import { formatBytes, formatTime, printJson, table } from './output';

export const STATE_NAMES: Record<JobState, string> = {
  CREATED: '已创建',
  SUBMITTING: '提交中',
  SUBMIT_FAILED: '提交失败',
  QUEUED: '排队中',
  STARTING: '启动中',
  RUNNING: '运行中',
  STOPPING: '停止中',
  STOPPED: '已停止',
  SUCCEEDED: '已完成',
  FAILED: '失败',
  UNDERPOWERED: '算力不足',
};

const taskRow = (t: Task) => [t.id, t.name, t.kind === 'training' ? `训练/${t.type}` : `科学计算/${t.type === 'template' ? '模板' : '脚本'}`, t.subCenterName, STATE_NAMES[t.state] ?? t.state, formatTime(t.createTime)];
const TASK_HEADERS = ['ID', '名称', '类型', '分中心', '状态', '创建时间'];

/** The family a task id belongs to: each family's calls only see their own tasks (1205 for the other's). */
async function taskFamily(g: Target, id: string): Promise<{ api: TaskApi; task: Task }> {
  try {
    return { api: TrainingTaskApi, task: await call(g, TrainingTaskApi.detail, { params: { id } }) };
  } catch (err) {
    if (!(err instanceof CliError) || err.code !== ErrorCode.NOT_FOUND) throw err;
  }
  return { api: SlurmTaskApi, task: await call(g, SlurmTaskApi.detail, { params: { id } }) };
}

/** How `task logs -f` ends: 0 for 已完成, the job's own exit code for a failure with one, else 1. */
export function resultExitCode(t: Pick<Task, 'state' | 'exitCode'>): number {
  if (t.state === 'SUCCEEDED') return 0;
  if (t.exitCode !== null && t.exitCode > 0 && t.exitCode < 256) return t.exitCode;
  return 1;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const clientRequestId = () => `cli-${randomBytes(12).toString('hex')}`;

export async function taskCommand([sub, id]: string[], opts: Opts, json: boolean): Promise<number> {
  const g = gateway(opts);
  switch (sub) {
    case 'list': {
      const body = { pageNum: int(opts.page, '--page', 1), pageSize: 20, ...(opts.state ? { state: opts.state as JobState } : {}), ...(opts.keyword ? { keyword: opts.keyword } : {}) };
      const [training, slurm] = await Promise.all([call(g, TrainingTaskApi.page, { body }), call(g, SlurmTaskApi.page, { body })]);
      const list = [...training.list, ...slurm.list].sort((a, b) => b.createTime - a.createTime);
      if (json) printJson({ list, total: training.total + slurm.total });
      else out(list.length ? table(TASK_HEADERS, list.map(taskRow)) : '暂无任务');
      return 0;
    }
    case 'submit': {
      const type = opts.type ?? 'train';
      if (type !== 'train' && type !== 'distributed' && type !== 'develop') throw new CliError(`任务类型应为 train、distributed 或 develop：${type}`);
      const task = await call(g, TrainingApi.create, {
        body: {
          name: required(opts.name, 'name'),
          type,
          subCenterId: opts.center ?? AUTO_PLACEMENT,
          cardTypeId: required(opts['card-type'], 'card-type'),
          cardNum: int(opts.cards, '--cards', 1),
          nodeNum: int(opts.nodes, '--nodes', 1),
          imageId: required(opts.image, 'image'),
          command: required(opts.command, 'command'),
          workDir: opts.workdir ?? '/',
          env: pairs(opts.env, '环境变量').map(([name, value]) => ({ name, value })),
          maxDurationMinutes: int(opts.duration, '--duration', 60),
          clientRequestId: clientRequestId(),
        },
      });
      if (json) printJson(task);
      else out(`已提交任务 ${task.id}（${task.name}，${task.subCenterName}）\n查看日志：suanli task logs ${task.id} -f`);
      return 0;
    }
    case 'logs': {
      if (!id) throw new CliError('用法：suanli task logs <任务ID> [-f]');
      const { api } = await taskFamily(g, id);
      const interval = int(opts.interval, '--interval', 1000);
      let offset = 0;
      let failures = 0;
      for (;;) {
        let log;
        try {
          log = await call(g, api.log, { params: { id }, query: { offset, limit: 256 * 1024 } });
          failures = 0;
        } catch (err) {
          // Following survives a short outage (a gateway restarting, a network blip): an answer without an
          // envelope code is transport, not a refusal. Five in a row end it.
          if (!opts.follow || !(err instanceof CliError) || err.code !== undefined || ++failures >= 5) throw err;
          await sleep(interval * 2 ** failures);
          continue;
        }
        if (log.content) process.stdout.write(log.content);
        const moved = log.nextOffset > offset;
        offset = log.nextOffset;
        if (!opts.follow) return 0;
        if (log.eof) {
          const task = await call(g, api.detail, { params: { id } });
          if (isTerminal(task.state)) {
            const code = resultExitCode(task);
            process.stderr.write(`任务${STATE_NAMES[task.state]}${task.exitCode !== null ? `，退出码 ${task.exitCode}` : ''}${task.reason ? `：${task.reason}` : ''}\n`);
            return code;
          }
        }
        if (!moved) await sleep(interval);
      }
    }
    case 'cancel': {
      if (!id) throw new CliError('用法：suanli task cancel <任务ID>');
      const { api } = await taskFamily(g, id);
      const task = await call(g, api.stop, { params: { id } });
      if (json) printJson(task);
      else out(`已停止任务 ${task.id}（${STATE_NAMES[task.state] ?? task.state}）`);
      return 0;
    }
    default:
      throw new CliError(`未知命令：task ${sub ?? ''}（可用：list、submit、logs、cancel）`);
  }
}

export async function slurmCommand([sub]: string[], opts: Opts, json: boolean): Promise<number> {
  const g = gateway(opts);
  switch (sub) {
    case 'templates': {
      const page = await call(g, SlurmApi.templatePage, { body: { pageNum: int(opts.page, '--page', 1), pageSize: 50, ...(opts.keyword ? { keyword: opts.keyword } : {}) } });
      if (json) printJson(page);
      else out(table(['ID', '名称', '类别', '来源', '参数'], page.list.map((t) => [t.id, t.name, t.category, t.source === 'platform' ? '平台' : '我的', t.params.map((p) => p.name).join('、')])));
      return 0;
    }
    case 'submit': {
      if (!!opts.template === !!opts.script) throw new CliError('请指定 --template <模板ID> 或 --script <脚本文件> 之一');
      let script: string | undefined;
      if (opts.script) {
        try {
          script = fs.readFileSync(opts.script, 'utf8');
        } catch {
          throw new CliError(`无法读取脚本文件：${opts.script}`);
        }
      }
      const params = Object.fromEntries(pairs(opts.param, '模板参数'));
      const task = await call(g, SlurmApi.create, {
        body: {
          name: required(opts.name, 'name'),
          type: opts.template ? 'template' : 'custom',
          ...(opts.template ? { templateId: opts.template, params } : { script }),
          subCenterId: required(opts.center, 'center'),
          cardTypeId: required(opts['card-type'], 'card-type'),
          cardNum: int(opts.cards, '--cards', 0),
          nodeNum: int(opts.nodes, '--nodes', 1),
          workDir: opts.workdir ?? '/',
          env: pairs(opts.env, '环境变量').map(([name, value]) => ({ name, value })),
          maxDurationMinutes: int(opts.duration, '--duration', 60),
          clientRequestId: clientRequestId(),
        },
      });
      if (json) printJson(task);
      else out(`已提交作业 ${task.id}（${task.name}，${task.subCenterName}）\n查看日志：suanli task logs ${task.id} -f`);
      return 0;
    }
    default:
      throw new CliError(`未知命令：slurm ${sub ?? ''}（可用：templates、submit）`);
  }
}

export async function assetCommand(kind: 'dataset' | 'model', [sub, a, b, c]: string[], opts: Opts, json: boolean): Promise<number> {
  const g = gateway(opts);
  const api = kind === 'dataset' ? DatasetApi : ModelApi;
  const what = kind === 'dataset' ? '数据集' : '模型';
  if (sub === 'list') {
    const scope = (opts.scope ?? 'own') as 'own' | 'shared' | 'public';
    if (!['own', 'shared', 'public'].includes(scope)) throw new CliError(`--scope 应为 own、shared 或 public：${scope}`);
    const page = await call(g, api.page, { body: { pageNum: int(opts.page, '--page', 1), pageSize: 50, scope, ...(opts.keyword ? { keyword: opts.keyword } : {}) } });
    if (json) printJson(page);
    else out(page.list.length ? table(['ID', '名称', '版本数', '最新大小', '所有者', '更新时间'], page.list.map((x) => [x.id, x.name, x.versionCount, formatBytes(x.latestSizeBytes), x.ownerName, formatTime(x.updateTime)])) : `暂无${what}`);
    return 0;
  }
  if (sub === 'version' && a === 'create') {
    if (!b || !c) throw new CliError(`用法：suanli ${kind} version create <${what}ID> <分中心>:<目录> [--note 说明]`);
    const r = parseRemote(c);
    const center = await findCenter(g, r.center);
    const v = await call(g, api.addVersion, { params: { id: b }, body: { subCenterId: center.id, path: r.path, ...(opts.note ? { note: opts.note } : {}) } });
    if (json) printJson(v);
    else out(`已创建${what}版本 v${v.version}（${v.id}）`);
    return 0;
  }
  throw new CliError(`未知命令：${kind} ${[sub, a].filter(Boolean).join(' ')}（可用：list、version create）`);
}

