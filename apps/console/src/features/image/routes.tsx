/** The image route group (/image with tabs 公共镜像 / 我的镜像, form, detail/:id). */
export { ImageListPage, PrivateImageDetailPage, PrivateImageFormPage } from './image-pages';
