/** 镜像 calls (IMAGE_BASE) and the public catalogue (TRAINING_BASE), through the one request pipeline. */
import { IMAGE_BASE, TRAINING_BASE, type ImageImport, type ImageImportCreate, type ImageItem, type ImageRepository, type RegistryCredential, type RegistryInfo } from '@suanli/contracts';
import { request } from '../../app/request';

export const registryInfo = () => request.get<RegistryInfo>(`${IMAGE_BASE}/registry`, { silent: true });
export const resetCredential = () => request.post<RegistryCredential>(`${IMAGE_BASE}/registry/credential/reset`);
export const listMyImages = () => request.get<ImageRepository[]>(`${IMAGE_BASE}/images`, { silent: true });
export const imageDetail = (name: string) => request.get<ImageRepository>(`${IMAGE_BASE}/images/detail`, { params: { name } });
export const deleteTag = (name: string, tag: string) => request.delete<null>(`${IMAGE_BASE}/images/tags`, { params: { name, tag } });
/** The public catalogue: the task form's catalogue without the caller's private tags (those are 我的镜像). */
export const publicImages = () => request.get<ImageItem[]>(`${TRAINING_BASE}/images`).then((list) => list.filter((i) => i.visibility !== 'private'));
export const startImport = (body: ImageImportCreate) => request.post<ImageImport>(`${IMAGE_BASE}/imports`, { data: body });
export const getImport = (id: string) => request.get<ImageImport>(`${IMAGE_BASE}/imports/${encodeURIComponent(id)}`);
