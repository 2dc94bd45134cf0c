import styles from './page-loading.module.css';

/**
 * Shown while the first route chunk loads. Plain CSS on purpose: it is part of the entry chunk that every
 * route, the login page included, downloads first.
 */
export function PageLoading() {
  return (
    <div className={styles.wrap} role="status" aria-label="加载中">
      <span className={styles.spinner} />
    </div>
  );
}
