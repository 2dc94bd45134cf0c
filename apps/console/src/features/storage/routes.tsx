/**
 * The storage route group (lazy chunk): /storage and /storage/detail. `src/app/routes.tsx` picks the named
 * exports up; the default export serves any `lazy()`-style consumer.
 */
import { StorageDetailPage } from './StorageDetailPage';
import { StoragePage } from './StoragePage';

export { StorageDetailPage, StoragePage };
export default StoragePage;
