import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The storage route group fallback: used only until features/storage/routes.tsx exists (see app/routes.tsx).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const StoragePage = underConstruction({ title: '存储管理', description: '管理您在各算力分中心的文件，支持上传、下载、断点续传与目录操作。' });
export const StorageDetailPage = underConstruction({ title: '文件详情', description: '查看文件的路径、大小与修改时间，并进行下载等操作。' });
