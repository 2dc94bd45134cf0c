import { Button } from 'antd';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import styles from './route-error.module.css';

/**
 * The error page of every route (the route table's `ErrorBoundary`), in Chinese, with a retry. It replaces
 * React Router's built-in English developer page. A page that fails to load (a lost connection, a file of
 * an older release after an update) and a page that fails to render both end here; 重新加载 loads the
 * console afresh, which fixes both when the cause is gone.
 */
export function RouteError() {
  const error = useRouteError();
  const loadFailed = isChunkLoadError(error);
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const title = notFound ? '页面不存在' : loadFailed ? '页面加载失败' : '页面出现异常';
  const subTitle = notFound
    ? '您访问的页面不存在，请返回首页。'
    : loadFailed
      ? '网络连接异常或平台已更新，请重新加载页面。'
      : '页面出现了意外错误，请重新加载；如果问题仍然存在，请联系管理员。';
  // Plain markup and the Button the login page loads anyway: antd's Result (with its illustrations) would
  // add ~10 KiB gzip to every first load (measured: login 251.6 → 241.0 KiB) for a page rarely seen.
  return (
    <div data-testid="route-error" role="alert" className={styles.page}>
      <div className={styles.box}>
        <h2 className={styles.title}>{title}</h2>
        <p className={styles.text}>{subTitle}</p>
        <div className={styles.actions}>
          <Button type="primary" data-testid="route-error-retry" onClick={() => window.location.reload()}>
            重新加载
          </Button>
          <Button href={import.meta.env.BASE_URL}>返回首页</Button>
        </div>
      </div>
    </div>
  );
}

/** A failed dynamic import: the browser's wording differs (Chrome, Firefox, Safari), the cause is the same. */
function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /dynamically imported module|Importing a module script failed|error loading dynamically imported/i.test(message);
}
