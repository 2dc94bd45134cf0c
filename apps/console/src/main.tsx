// antd's component styles as one static stylesheet (the theme's `zeroRuntime`, app/theme.ts), first so the app's
// own CSS, loaded after it, wins where both style an element.
import 'antd/dist/antd.css';
// The transport's app wiring (token, headers, session expiry, toasts) comes before anything can call.
import './app/request';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { installChineseNames } from './app/chinese-names';
import { Providers } from './app/providers';
import { createAppRouter } from './app/router';
import './app/global.css';

const router = createAppRouter();
// antd's icons and a few of its controls name themselves in English; screen readers hear Chinese instead.
installChineseNames();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Providers>
      <RouterProvider router={router} />
    </Providers>
  </StrictMode>,
);
