import { AssetDetailPage } from '../asset/asset-detail-page';
import { AssetIndexPage } from '../asset/asset-index-page';

/** The model route group (/model with tabs 我的模型 / 共享模型, detail/:id): the asset pages for models. */
export const ModelIndexPage = () => <AssetIndexPage kind="model" />;
export const ModelDetailPage = () => <AssetDetailPage kind="model" />;
