/**
 * An in-memory gateway + file service behind a stubbed `fetch`, for page tests. It speaks the envelope and
 * the listing contract closely enough to drive the pages; the real service has its own api tests.
 */
import { idToPath, pathToId, SYNC_BASE, TEAM_BASE, type FileEntry, type SubCenter, type SyncJob, type Team } from '@suanli/contracts';
import { syncJob } from '../../sync/test/fake-sync';

export interface FakeCall {
  method: string;
  url: URL;
  body: unknown;
  /** The `x-file-space` header (a team's folder), if sent. */
  space?: string;
}

export const CENTERS: SubCenter[] = [
  { id: 'sz', name: '深圳算力分中心', region: '广东·深圳', description: 'A100', status: 'online', fileServiceUrl: 'http://fs.test/file-service/sz', cardTypes: [] },
  { id: 'gz', name: '广州算力分中心', region: '广东·广州', description: '910B', status: 'online', fileServiceUrl: 'http://fs.test/file-service/gz', cardTypes: [] },
];

export function createFakeBackend() {
  const calls: FakeCall[] = [];
  /** Sync jobs created through the gateway (`POST {SYNC_BASE}/syncs`), oldest first. */
  const syncs: SyncJob[] = [];
  /** center (or `center~team:<id>` for a team's folder there) → path → entry */
  const trees: Record<string, Map<string, FileEntry>> = { sz: new Map(), gz: new Map() };
  /** The user's teams (团队管理's list); a team's folder answers only while its id is here (1205 otherwise). */
  const teams: Team[] = [];
  const put = (center: string, path: string, type: 'dir' | 'file' | 'link', size = 0, updateTime = 1_700_000_000_000) => {
    const name = path.split('/').pop()!;
    (trees[center] ??= new Map()).set(path, { id: pathToId(path), name, path, type, size, updateTime });
  };
  const children = (center: string, dir: string) =>
    [...trees[center].values()].filter((e) => e.path.slice(0, e.path.lastIndexOf('/')) === (dir === '/' ? '' : dir));
  const env = (data: unknown, code = 0, message = '操作成功') =>
    new Response(JSON.stringify({ message: { code, message }, data }), { status: 200, headers: { 'content-type': 'application/json' } });

  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), 'http://console.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body;
    const space = new Headers(init.headers).get('x-file-space') ?? undefined;
    calls.push({ method, url, body, space });
    if (url.pathname.endsWith('/sub-centers/action/list')) return env(CENTERS);
    if (method === 'GET' && url.pathname === `${TEAM_BASE}/teams`) return env(teams);
    if (method === 'POST' && url.pathname === `${SYNC_BASE}/syncs`) {
      const b = body as Record<string, string>;
      if (b.sourceCenterId === b.targetCenterId) return env(null, 2350, '源与目标位于同一分中心，请使用复制');
      if (b.targetDir !== '/' && !trees[b.targetCenterId]?.has(b.targetDir)) return env(null, 1302, `目录不存在：${b.targetDir}`);
      const name = b.sourcePath.split('/').pop()!;
      const center = (id: string) => CENTERS.find((c) => c.id === id)!.name;
      const job = syncJob(`sync-${syncs.length + 1}`, {
        ...(b as Pick<SyncJob, 'sourceCenterId' | 'sourcePath' | 'targetCenterId' | 'targetDir'>),
        sourceCenterName: center(b.sourceCenterId),
        targetCenterName: center(b.targetCenterId),
        targetPath: `${b.targetDir === '/' ? '' : b.targetDir}/${name}`,
        state: 'QUEUED',
        createTime: Date.now(),
        updateTime: Date.now(),
      });
      syncs.push(job);
      return env(job);
    }
    if (method === 'POST' && url.pathname === `${SYNC_BASE}/syncs/action/page`) {
      const list = syncs.filter((j) => (body as { scope?: string }).scope !== 'active' || j.state === 'QUEUED' || j.state === 'RUNNING').reverse();
      return env({ list, total: list.length, pageNum: 1, pageSize: list.length });
    }
    const m = /\/file-service\/(\w+)\/api\/v1(\/.*)$/.exec(url.pathname);
    if (!m) return new Response('not found', { status: 404 });
    const [, centerId, route] = m;
    if (space && !teams.some((t) => space === `team:${t.id}`)) return env(null, 1205, '团队空间不存在或您已不是该团队的成员');
    const center = space ? `${centerId}~${space}` : centerId;
    trees[center] ??= new Map();
    const b = body as Record<string, any>;
    if (method === 'POST' && route === '/directory') {
      const dir = url.searchParams.get('path') ?? '/';
      if (dir !== '/' && trees[center].get(dir)?.type !== 'dir') return env(null, 1302, `目录不存在：${dir}`);
      let list = children(center, dir);
      if (b?.keyword) list = list.filter((e) => e.name.includes(b.keyword));
      const field = (b?.sortField ?? 'name') as keyof FileEntry;
      const sign = b?.sortOrder === 'descend' ? -1 : 1;
      list.sort((x, y) => (x.type === y.type ? (x[field] > y[field] ? sign : x[field] < y[field] ? -sign : 0) : x.type === 'dir' ? -1 : 1));
      const pageNum = Number(url.searchParams.get('pageNum'));
      const pageSize = Number(url.searchParams.get('pageSize'));
      return env({ list: list.slice((pageNum - 1) * pageSize, pageNum * pageSize), total: list.length, pageNum, pageSize });
    }
    if (method === 'POST' && route.startsWith('/directory/')) {
      const parent = idToPath(decodeURIComponent(route.slice('/directory/'.length)));
      const path = `${parent === '/' ? '' : parent}/${b.name}`;
      if (trees[center].has(path)) return env(null, 1304, '目录已存在');
      put(center, path, 'dir');
      return env(trees[center].get(path));
    }
    if (method === 'DELETE' && route === '/file') {
      for (const p of b.paths as string[]) for (const k of [...trees[center].keys()]) if (k === p || k.startsWith(`${p}/`)) trees[center].delete(k);
      return env(null);
    }
    if (method === 'POST' && route === '/file/rename') {
      const e = trees[center].get(b.path)!;
      trees[center].delete(b.path);
      put(center, `${b.path.slice(0, b.path.lastIndexOf('/'))}/${b.newName}`, e.type, e.size);
      return env(null);
    }
    if (method === 'POST' && (route === '/file/move' || route === '/file/copy')) return env([]);
    if (method === 'GET' && route === '/usage') return env({ used: 5 * 1024 ** 3, quota: 50 * 1024 ** 3 });
    if (method === 'POST' && route === '/file/download/ticket') {
      const missing = (b.paths as string[]).find((p) => !trees[center].has(p));
      if (missing) return env(null, 1301, `文件不存在：${missing}`);
      return env({ url: `/api/v1/file/download/t/ticket-${calls.length}`, expiresAt: Date.now() + 60_000 });
    }
    if (method === 'POST' && route === '/file/download') {
      const p = (b.paths as string[])[0];
      const range = new Headers(init.headers).get('range');
      const content = new TextEncoder().encode(`content of ${p}\n`.repeat(3));
      const bytes = range ? content.slice(0, Number(/-(\d+)/.exec(range)![1]) + 1) : content;
      return new Response(bytes, {
        status: range ? 206 : 200,
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length), 'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(p.split('/').pop()!)}` },
      });
    }
    return env(null, 1205, '查询结果为空');
  };

  const callsTo = (route: string, method?: string) => calls.filter((c) => c.url.pathname.endsWith(route) && (!method || c.method === method));
  return { fetch, calls, callsTo, put, trees, syncs, teams };
}
