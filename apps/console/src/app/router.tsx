import { CONSOLE_BASE_PATH } from '@suanli/contracts';
import { createBrowserRouter } from 'react-router';
import { buildRoutes } from './routes';

export function createAppRouter() {
  return createBrowserRouter(buildRoutes(), { basename: CONSOLE_BASE_PATH });
}
