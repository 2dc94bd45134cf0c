import { useQuery } from '@tanstack/react-query';
import { useMatches, useNavigate } from 'react-router';
import { signOut } from '../../features/auth/sign-out';
import { getCurrentUser } from '../../features/user-center/api';
import { showsHeaderTitle, useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { useCompPowers } from '../comp-power';
import { menuFor, menuPath } from '../menu';
import { queryKeys } from '../query-keys';
import type { RouteHandle } from '../route-table';
import { useUserStore } from '../stores/user-store';
import { useUnreadCount } from '../unread';
import { CompPowerIndicator } from './comp-power-indicator';
import { HeaderBrand } from './header-brand';
import styles from './header.module.css';
import { MessageBell } from './message-bell';
import { TopMenu } from './top-menu';
import { UploadSlot } from './upload-slot';
import { UserMenu, type UserMenuKey } from './user-menu';

const USER_MENU_PATHS: Record<Exclude<UserMenuKey, 'help' | 'logout'>, string> = {
  profile: '/user-center',
  workorder: '/workorder',
  team: '/team',
};

/** The shared header: brand, top menu, and the signed-in user's upload panel, bell, compute power, menu. */
export function AppHeader() {
  const navigate = useNavigate();
  const screens = useBreakpoint();
  const user = useUserStore((s) => s.userInfo);
  const compPowers = useCompPowers(user.id);
  const unread = useUnreadCount();
  // 运营管理 for operators: the roles the login stored, or fresher ones when a page has read the account
  // since (this reads the cache only; it never fetches). Display only — the gateway decides.
  const me = useQuery({ queryKey: queryKeys.currentUser, queryFn: getCurrentUser, enabled: false });
  const operator = (me.data?.roles ?? user.roles ?? []).includes('operator');

  const matches = useMatches();
  const handle = [...matches].reverse().find((m) => (m.handle as RouteHandle | undefined)?.menuKey)?.handle as RouteHandle | undefined;

  const onUserMenu = async (key: UserMenuKey) => {
    if (key === 'logout') {
      await signOut(navigate);
      return;
    }
    if (key !== 'help') navigate(USER_MENU_PATHS[key]);
  };

  return (
    <header className={styles.header} data-testid="app-header">
      <HeaderBrand showTitle={showsHeaderTitle(screens)} onClick={() => navigate('/dashboard')} />
      <TopMenu groups={menuFor(operator)} selectedKey={handle?.menuKey} onSelect={(key) => navigate(menuPath(key))} compact={!screens.md} />
      <div className={styles.actions}>
        <UploadSlot />
        <MessageBell count={unread.data ?? 0} onClick={() => navigate('/message')} />
        <CompPowerIndicator
          total={compPowers.data?.standardTotal ?? user.personalCompPower}
          items={compPowers.data?.items ?? []}
          compact={!screens.lg}
        />
        <UserMenu
          nickname={user.nickname || user.username || '用户'}
          username={user.username}
          headImage={user.headImage}
          showName={screens.md}
          onOpenChange={(open) => {
            if (open && user.id) void compPowers.refetch();
          }}
          onSelect={onUserMenu}
        />
      </div>
    </header>
  );
}
