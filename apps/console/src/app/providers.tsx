import { QueryClientProvider } from '@tanstack/react-query';
import { ConfigProvider } from 'antd';
import zhCN from 'antd/es/locale/zh_CN';
import { useMemo, type ReactNode } from 'react';
import { useReducedMotion, withMotion } from './motion';
import { queryClient } from './query-client';
import { theme } from './theme';
import { validateMessages } from './validate-messages';

/** The theme, with antd's motion and click wave off when the user asked for less motion (app/motion.ts). */
function useAppTheme() {
  const reduced = useReducedMotion();
  return useMemo(() => ({ theme: withMotion(theme, reduced), wave: { disabled: reduced } }), [reduced]);
}

function StaticHolder({ children }: { children: ReactNode }) {
  const { theme: appTheme, wave } = useAppTheme();
  return (
    <ConfigProvider locale={zhCN} theme={appTheme} wave={wave}>
      {children}
    </ConfigProvider>
  );
}

// Toasts use antd's static message (see feedback.ts); this gives them the app's theme and locale.
ConfigProvider.config({
  holderRender: (children) => <StaticHolder>{children}</StaticHolder>,
});

/** Everything a page may rely on: Chinese locale and validation texts, theme, the query cache. */
export function Providers({ children }: { children: ReactNode }) {
  const { theme: appTheme, wave } = useAppTheme();
  return (
    <QueryClientProvider client={queryClient}>
      <ConfigProvider locale={zhCN} theme={appTheme} wave={wave} form={{ validateMessages }} select={{ allowClear: true }}>
        {children}
      </ConfigProvider>
    </QueryClientProvider>
  );
}
