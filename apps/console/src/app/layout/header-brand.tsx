import logo from '../../assets/logo.svg';
import styles from './header.module.css';

interface HeaderBrandProps {
  showTitle: boolean;
  onClick: () => void;
}

/** Logo (→ resource dashboard) and the platform title, which only fits on wide screens. */
export function HeaderBrand({ showTitle, onClick }: HeaderBrandProps) {
  return (
    <button type="button" className={styles.brand} onClick={onClick} data-testid="header-logo" aria-label="资源大屏">
      <img src={logo} alt="算力调度服务平台" className={styles.logo} />
      {showTitle ? (
        <h1 className={styles.title} data-testid="header-title">
          算力调度服务平台
        </h1>
      ) : null}
    </button>
  );
}
