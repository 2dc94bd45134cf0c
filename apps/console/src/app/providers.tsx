import { QueryClientProvider } from '@tanstack/react-query';
import { ConfigProvider, message } from 'antd';
import zhCN from 'antd/es/locale/zh_CN';
import { useEffect, type ReactNode } from 'react';
import { setMessageApi } from './feedback';
import { queryClient } from './query-client';
import { theme } from './theme';
import { validateMessages } from './validate-messages';

/**
 * Hands a context-aware message instance to the request pipeline's toasts. `message.useMessage` rather
 * than antd's <App>: <App> also bundles Modal and notification, which the login page would then load.
 */
function FeedbackBridge() {
  const [api, holder] = message.useMessage();
  useEffect(() => setMessageApi(api), [api]);
  return holder;
}

/** Everything a page may rely on: Chinese locale and validation texts, theme, the query cache. */
export function Providers({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <ConfigProvider locale={zhCN} theme={theme} form={{ validateMessages }} select={{ allowClear: true }}>
        <FeedbackBridge />
        {children}
      </ConfigProvider>
    </QueryClientProvider>
  );
}
