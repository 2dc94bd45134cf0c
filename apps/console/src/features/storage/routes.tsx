/**
 * The storage route group (lazy chunk): /storage and /storage/detail. `src/app/routes.tsx` picks the named
 * exports up; the default export serves any `lazy()`-style consumer.
 *
 * Each page gets its own antd <App> (no DOM of its own): the shell keeps <App> out of its providers so the
 * login page does not load Modal and notification, while these pages need context-aware `message` (progress
 * toasts) and `modal` (delete confirmation) in Chinese.
 */
import { App } from 'antd';
import type { ComponentType } from 'react';
import { StorageDetailPage as DetailPage } from './storage-detail-page';
import { StoragePage as ListPage } from './storage-page';

function withAppContext(Page: ComponentType, name: string): ComponentType {
  const Wrapped = () => (
    <App component={false}>
      <Page />
    </App>
  );
  Wrapped.displayName = name;
  return Wrapped;
}

export const StoragePage = withAppContext(ListPage, 'StoragePage');
export const StorageDetailPage = withAppContext(DetailPage, 'StorageDetailPage');
export default StoragePage;
