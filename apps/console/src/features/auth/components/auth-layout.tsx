import { CheckCircleFilled } from '@ant-design/icons';
import type { ReactNode } from 'react';
// A file of its own, not inlined into the sign-in page's script (only wide screens show it).
import illustration from '../../../assets/login-illustration.svg?no-inline';
import logo from '../../../assets/logo.svg';
import styles from './auth-layout.module.css';

interface AuthLayoutProps {
  title: string;
  subtitle?: string;
  children: ReactNode;
}

const POINTS = ['多元异构算力统一调度', '分中心资源按需使用', '任务状态实时掌握'];

/** The frame of the sign-in pages: the platform's brand panel beside a form card. */
export function AuthLayout({ title, subtitle, children }: AuthLayoutProps) {
  return (
    <div className={styles.page}>
      <aside className={styles.brand}>
        <div>
          <div className={styles.brandHead}>
            <img src={logo} alt="" className={styles.brandLogo} />
            <p className={styles.brandName}>算力调度服务平台</p>
          </div>
          <h2 className={styles.slogan}>城市级多元异构算力<br />统一调度服务</h2>
          <p className={styles.sloganSub}>
            汇聚各算力分中心的 GPU、NPU 与通用计算资源，一站式完成数据管理、训练任务、科学计算作业与费用结算。
          </p>
        </div>
        <img src={illustration} alt="" className={styles.illustration} />
        <ul className={styles.points}>
          {POINTS.map((p) => (
            <li key={p}>
              <CheckCircleFilled /> {p}
            </li>
          ))}
        </ul>
      </aside>
      <main className={styles.main}>
        <div className={styles.card}>
          <div className={styles.mobileHead}>
            <img src={logo} alt="" width={32} height={32} />
            <span className={styles.mobileName}>算力调度服务平台</span>
          </div>
          {/* Plain elements, not antd Typography: this frame is on the login page's first load. */}
          <h1 className={styles.cardTitle}>{title}</h1>
          <p className={styles.cardSub}>{subtitle}</p>
          {children}
        </div>
        <footer className={styles.footer}>© {new Date().getFullYear()} 算力调度服务平台 · 城市级多元异构算力统一调度</footer>
      </main>
    </div>
  );
}
