/** An in-memory `SYNC_BASE` behind a stubbed `fetch`, for the panel tests (the server has its own api tests). */
import { SYNC_BASE, SYNC_FINAL_STATES, type SyncJob } from '@suanli/contracts';

export function syncJob(id: string, patch: Partial<SyncJob> = {}): SyncJob {
  const sourcePath = patch.sourcePath ?? `/data/${id}`;
  return {
    id,
    kind: 'path',
    label: '',
    sourceCenterId: 'sz',
    sourceCenterName: '深圳算力分中心',
    sourcePath,
    targetCenterId: 'gz',
    targetCenterName: '广州算力分中心',
    targetDir: '/inbox',
    targetPath: `/inbox/${sourcePath.split('/').pop()}`,
    state: 'RUNNING',
    bytesDone: 0,
    bytesTotal: 0,
    filesDone: 0,
    filesTotal: 0,
    message: '',
    retries: 0,
    createTime: 1_700_000_000_000,
    updateTime: 1_700_000_000_000,
    finishTime: null,
    ...patch,
  };
}

export function createFakeSync(initial: SyncJob[] = []) {
  const jobs = [...initial];
  const calls: { method: string; path: string; body: unknown }[] = [];
  const env = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), 'http://console.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ method, path: url.pathname, body });
    if (!url.pathname.startsWith(SYNC_BASE)) return env(null);
    const route = url.pathname.slice(SYNC_BASE.length);
    if (method === 'POST' && route === '/syncs/action/page') {
      const list = jobs
        .filter((j) => body.scope !== 'active' || !SYNC_FINAL_STATES.includes(j.state))
        .sort((a, b) => b.createTime - a.createTime)
        .slice(0, body.pageSize);
      return env({ list, total: list.length, pageNum: 1, pageSize: body.pageSize });
    }
    const cancel = /^\/syncs\/([^/]+)\/cancel$/.exec(route);
    if (method === 'POST' && cancel) {
      const job = jobs.find((j) => j.id === decodeURIComponent(cancel[1]));
      if (!job) return env(null, 1205, '查询结果为空');
      if (SYNC_FINAL_STATES.includes(job.state)) return env(null, 2351, '同步任务已结束');
      Object.assign(job, { state: 'CANCELLED', message: '已取消', finishTime: Date.now() });
      return env(job);
    }
    return env(null, 1205, '查询结果为空');
  };
  const callsTo = (suffix: string, method = 'POST') => calls.filter((c) => c.method === method && c.path.endsWith(suffix));
  return { fetch, jobs, calls, callsTo };
}
