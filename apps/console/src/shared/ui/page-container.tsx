import { Typography } from 'antd';
import type { ReactNode } from 'react';
import styles from './page-container.module.css';

interface PageContainerProps {
  title: ReactNode;
  description?: ReactNode;
  extra?: ReactNode;
  children: ReactNode;
}

/** The standard page frame: a title bar with optional actions, then the page's cards. */
export function PageContainer({ title, description, extra, children }: PageContainerProps) {
  return (
    <div className={styles.page}>
      <div className={styles.head}>
        <div className={styles.heading}>
          <Typography.Title level={4} className={styles.title}>
            {title}
          </Typography.Title>
          {description ? <Typography.Text type="secondary">{description}</Typography.Text> : null}
        </div>
        {extra ? <div className={styles.extra}>{extra}</div> : null}
      </div>
      <div className={styles.body}>{children}</div>
    </div>
  );
}
