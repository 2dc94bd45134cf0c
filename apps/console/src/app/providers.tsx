import { QueryClientProvider } from '@tanstack/react-query';
import { ConfigProvider } from 'antd';
import zhCN from 'antd/es/locale/zh_CN';
import type { ReactNode } from 'react';
import { queryClient } from './query-client';
import { theme } from './theme';
import { validateMessages } from './validate-messages';

// Toasts use antd's static message (see feedback.ts); this gives them the app's theme and locale.
ConfigProvider.config({
  holderRender: (children) => (
    <ConfigProvider locale={zhCN} theme={theme}>
      {children}
    </ConfigProvider>
  ),
});

/** Everything a page may rely on: Chinese locale and validation texts, theme, the query cache. */
export function Providers({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <ConfigProvider locale={zhCN} theme={theme} form={{ validateMessages }} select={{ allowClear: true }}>
        {children}
      </ConfigProvider>
    </QueryClientProvider>
  );
}
