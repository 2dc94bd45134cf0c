import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The image route group (/image, form, detail/:id).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const ImageListPage = underConstruction({ title: '镜像', description: '管理训练与作业使用的容器镜像，包括平台预置镜像和您的私有镜像。' });
export const PrivateImageFormPage = underConstruction({ title: '创建私有镜像', description: '上传或构建您自己的容器镜像，供训练任务与交互式开发使用。' });
export const PrivateImageDetailPage = underConstruction({ title: '镜像详情', description: '查看私有镜像的版本、大小、构建记录与使用情况。' });
