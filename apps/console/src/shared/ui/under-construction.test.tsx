import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '../../test/render-routes';
import { TeamListPage } from '../../features/team/routes';

describe('功能建设中 (团队管理)', () => {
  it('says the feature is coming and offers a way back and home, not an unrelated page', async () => {
    renderRoutes({ '/team': <TeamListPage /> }, '/team');
    expect((await screen.findByTestId('under-construction')).textContent).toContain('功能建设中');
    expect(screen.getByTestId('under-construction-home').getAttribute('href')).toBe('/training');
    expect(screen.getByText('返回上一页')).toBeTruthy();
    expect(screen.queryByText(/消息中心/)).toBeNull();
  });
});
