import { AssetDetailPage } from '../asset/asset-detail-page';
import { AssetIndexPage } from '../asset/asset-index-page';

/** The dataset route group (/dataset with tabs 我的数据集 / 共享数据集, detail/:id): the asset pages for datasets. */
export const DatasetIndexPage = () => <AssetIndexPage kind="dataset" />;
export const DatasetDetailPage = () => <AssetDetailPage kind="dataset" />;
