/** 数据集 / 模型 calls (DATASET_BASE, MODEL_BASE): the same calls for both kinds, through the one request pipeline. */
import {
  DATASET_BASE,
  MODEL_BASE,
  type Asset,
  type AssetCreate,
  type AssetDetail,
  type AssetFileEntry,
  type AssetKind,
  type AssetPage,
  type AssetPageQuery,
  type AssetReadme,
  type AssetUpdate,
  type AssetVersion,
  type AssetVersionCreate,
  type ModelFromTask,
  type MountableVersion,
} from '@suanli/contracts';
import { request } from '../../app/request';
import { saveBlob } from '../../shared/http/browser-download';

export type AssetCalls = ReturnType<typeof assetCalls>;

export function assetCalls(kind: AssetKind) {
  const collection = `${kind === 'dataset' ? DATASET_BASE : MODEL_BASE}/${kind}s`;
  const one = (id: string) => `${collection}/${encodeURIComponent(id)}`;
  const version = (id: string, versionId: string) => `${one(id)}/versions/${encodeURIComponent(versionId)}`;
  return {
    kind,
    page: (query: Partial<AssetPageQuery>) => request.post<AssetPage>(`${collection}/action/page`, { data: query }),
    mountable: (subCenterId?: string) => request.get<MountableVersion[]>(`${collection}/action/mountable`, { params: subCenterId ? { subCenterId } : {} }),
    create: (body: AssetCreate) => request.post<AssetDetail>(collection, { data: body }),
    detail: (id: string) => request.get<AssetDetail>(one(id)),
    update: (id: string, body: AssetUpdate) => request.put<AssetDetail>(one(id), { data: body }),
    remove: (id: string) => request.delete<null>(one(id)),
    addVersion: (id: string, body: AssetVersionCreate) => request.post<AssetVersion>(`${one(id)}/versions`, { data: body }),
    removeVersion: (id: string, versionId: string) => request.delete<null>(version(id, versionId)),
    files: (id: string, versionId: string, path: string) => request.get<AssetFileEntry[]>(`${version(id, versionId)}/files`, { params: { path } }),
    readme: (id: string, versionId: string) => request.get<AssetReadme>(`${version(id, versionId)}/readme`),
    /** The route needs the `token` header, so the bytes come through the pipeline and are saved from memory. */
    download: async (id: string, versionId: string, path: string) => {
      const blob = await request.get<Blob>(`${version(id, versionId)}/download`, { params: { path }, responseType: 'blob' });
      saveBlob(blob instanceof Blob ? blob : new Blob([]), path.split('/').pop() || 'file');
    },
    share: (id: string, usernames: string[]) => request.post<AssetDetail>(`${one(id)}/shares`, { data: { usernames } }),
    unshare: (id: string, userId: string) => request.delete<AssetDetail>(`${one(id)}/shares/${encodeURIComponent(userId)}`),
    addToMine: (id: string) => request.post<AssetDetail>(`${one(id)}/add-to-mine`),
    pendingPublication: () => request.get<Asset[]>(`${collection}/action/pending-publication`),
    review: (id: string, approve: boolean, reason = '') => request.post<AssetDetail>(`${one(id)}/publish/review`, { data: { approve, reason } }),
    publish: (id: string) => request.post<AssetDetail>(`${one(id)}/publish`),
    /** Models only: 登记为模型 from a training task that ran to success. */
    registerFromTask: (body: ModelFromTask) => request.post<AssetDetail>(`${collection}/action/register-from-task`, { data: body }),
  };
}

export const KIND_LABEL: Record<AssetKind, string> = { dataset: '数据集', model: '模型' };
