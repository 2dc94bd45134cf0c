/** 数据集 / 模型 calls through the route descriptors (DatasetApi, ModelApi): the same calls for both kinds. */
import { DatasetApi, ModelApi, type AssetCreate, type AssetKind, type AssetPageQuery, type AssetUpdate, type AssetVersionCreate, type ModelFromTask } from '@suanli/contracts';
import { call } from '../../app/request';
import { saveBlob } from '../../shared/http/browser-download';

export type AssetCalls = ReturnType<typeof assetCalls>;

export function assetCalls(kind: AssetKind) {
  const api = kind === 'dataset' ? DatasetApi : ModelApi;
  return {
    kind,
    page: (query: Partial<AssetPageQuery>) => call(api.page, { body: query as AssetPageQuery }),
    mountable: (subCenterId?: string) => call(api.mountable, { query: subCenterId ? { subCenterId } : {} }),
    create: (body: AssetCreate) => call(api.create, { body }),
    detail: (id: string) => call(api.detail, { params: { id } }),
    update: (id: string, body: AssetUpdate) => call(api.update, { params: { id }, body }),
    remove: (id: string) => call(api.remove, { params: { id } }),
    addVersion: (id: string, body: AssetVersionCreate) => call(api.addVersion, { params: { id }, body }),
    removeVersion: (id: string, versionId: string) => call(api.removeVersion, { params: { id, versionId } }),
    files: (id: string, versionId: string, path: string) => call(api.files, { params: { id, versionId }, query: { path } }),
    readme: (id: string, versionId: string) => call(api.readme, { params: { id, versionId } }),
    /** The route needs the `token` header, so the bytes come through the pipeline and are saved from memory. */
    download: async (id: string, versionId: string, path: string) => {
      const blob = await call(api.download, { params: { id, versionId }, query: { path } }, { responseType: 'blob' });
      saveBlob(blob instanceof Blob ? blob : new Blob([]), path.split('/').pop() || 'file');
    },
    share: (id: string, usernames: string[]) => call(api.share, { params: { id }, body: { usernames } }),
    unshare: (id: string, userId: string) => call(api.unshare, { params: { id, userId } }),
    /** Shares with a team the owner is in: every member reads and mounts it (ADR 0018). */
    shareTeam: (id: string, teamId: string) => call(api.shareTeam, { params: { id }, body: { teamId } }),
    unshareTeam: (id: string, teamId: string) => call(api.unshareTeam, { params: { id, teamId } }),
    /** 团队详情: what is shared with the team (members only). */
    teamShared: (teamId: string) => call(api.teamShared, { query: { teamId } }),
    addToMine: (id: string) => call(api.addToMine, { params: { id } }),
    pendingPublication: () => call(api.pendingPublication),
    /** An operator's decision; a rejection needs its reason (told to the owner). */
    review: (id: string, approve: boolean, reason = '') => call(api.review, { params: { id }, body: { approve, reason } }),
    publish: (id: string) => call(api.publish, { params: { id } }),
    /** Models only: 登记为模型 from a training task that ran to success. */
    registerFromTask: (body: ModelFromTask) => call(ModelApi.registerFromTask, { body }),
  };
}

export const KIND_LABEL: Record<AssetKind, string> = { dataset: '数据集', model: '模型' };
