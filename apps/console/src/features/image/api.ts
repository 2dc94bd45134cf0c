/** 镜像 calls through the route descriptors (ImageApi); the public catalogue is the training module's. */
import { ImageApi, type ImageImportCreate } from '@suanli/contracts';
import { call } from '../../app/request';
import { listImages } from '../training/api';

export const registryInfo = () => call(ImageApi.registry, undefined, { silent: true });
export const resetCredential = () => call(ImageApi.resetCredential);
export const listMyImages = () => call(ImageApi.list, undefined, { silent: true });
export const imageDetail = (name: string) => call(ImageApi.detail, { query: { name } });
export const deleteTag = (name: string, tag: string) => call(ImageApi.deleteTag, { query: { name, tag } });
/** The public catalogue: the task form's catalogue without the caller's private tags (those are 我的镜像). */
export const publicImages = () => listImages({}).then((list) => list.filter((i) => i.visibility !== 'private'));
export const startImport = (body: ImageImportCreate) => call(ImageApi.startImport, { body });
export const getImport = (id: string) => call(ImageApi.getImport, { params: { id } });
/** 公共镜像 requests: the caller's own (newest first), and asking for a tag of theirs. */
export const myPublications = () => call(ImageApi.publications, undefined, { silent: true });
export const requestPublication = (name: string, tag: string) => call(ImageApi.requestPublication, { body: { name, tag } });
/** Operators (运营管理 › 审核). */
export const pendingImagePublications = () => call(ImageApi.pendingPublications);
export const reviewImagePublication = (id: string, approve: boolean, reason: string) => call(ImageApi.reviewPublication, { params: { id }, body: { approve, reason } });
