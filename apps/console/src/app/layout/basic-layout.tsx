import { Layout } from 'antd';
import { Navigate, Outlet, useLocation, useNavigation } from 'react-router';
// Sets dayjs to Chinese for every signed-in page (see shared/dayjs).
import '../../shared/dayjs';
import { useJobStates } from '../dicts';
import { loginPathFor } from '../navigation';
import { signedOutDeliberately } from '../session';
import { useUserStore } from '../stores/user-store';
import { AppHeader } from './app-header';
import styles from './basic-layout.module.css';

/**
 * The shared layout of every signed-in page: header with menu, then the scrolling content. Without a
 * session it sends the visitor to sign in and back here afterwards.
 */
export function BasicLayout() {
  const token = useUserStore((s) => s.userInfo.token);
  const location = useLocation();
  const navigation = useNavigation();
  // Loaded once on start so every task list and detail can render states without waiting.
  useJobStates();

  if (!token) {
    const to = signedOutDeliberately() ? '/login' : loginPathFor(location.pathname + location.search);
    return <Navigate to={to} replace />;
  }

  return (
    <Layout className={styles.layout}>
      {navigation.state === 'loading' ? <div className={styles.progress} role="progressbar" aria-label="页面加载中" /> : null}
      <AppHeader />
      <Layout.Content className={styles.content}>
        <Outlet />
      </Layout.Content>
    </Layout>
  );
}
