import { useEffect } from 'react';
import { Outlet, useNavigate } from 'react-router';
import { startLiveUpdates } from './live-updates';
import { setNavigate } from './navigation';
import { PageTitle } from './page-title';
import { queryClient } from './query-client';
import { syncUserAcrossTabs } from './stores/user-store';

/**
 * The root of every route: lends the router's navigate to code outside React and keeps the live-updates
 * socket and the cross-tab user sync running for the app's lifetime (the socket waits for a token itself),
 * and keeps the tab title on the current route's.
 */
export function AppRoot() {
  const navigate = useNavigate();

  // Lent back on unmount: a navigate of an unmounted router would go nowhere.
  useEffect(() => setNavigate((to, options) => navigate(to, options)), [navigate]);

  useEffect(() => {
    const socket = startLiveUpdates(queryClient);
    const stopSync = syncUserAcrossTabs();
    return () => {
      socket.stop();
      stopSync();
    };
  }, []);

  return (
    <>
      <PageTitle />
      <Outlet />
    </>
  );
}
