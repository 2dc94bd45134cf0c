import type { ThemeConfig } from 'antd';

/**
 * An ant-design-pro look: the default blue, a light top header, slightly rounder cards.
 *
 * `zeroRuntime`: antd generates no component styles in the browser; they come from its static stylesheet
 * (`antd/dist/antd.css`, imported first by main.tsx), whose rules read the design tokens as CSS variables
 * (`var(--ant-color-primary)`). ConfigProvider still writes those variables from the tokens below (the whole
 * theme, and each component's own tokens such as Layout's header), so this theme applies as before. Generating
 * every component's styles in JavaScript on each page load was about half of a console page's script time in
 * the browser (issue 26; docs/performance.md, "Console page load").
 */
export const theme: ThemeConfig = {
  zeroRuntime: true,
  token: {
    colorPrimary: '#1677ff',
    colorInfo: '#1677ff',
    borderRadius: 6,
    colorBgLayout: '#f3f5f9',
    fontFamily:
      "-apple-system, BlinkMacSystemFont, 'Segoe UI', 'PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', 'Noto Sans CJK SC', 'Helvetica Neue', Arial, sans-serif",
  },
  components: {
    Layout: { headerBg: '#ffffff', headerHeight: 56, headerPadding: '0 24px', bodyBg: '#f3f5f9' },
    Menu: { horizontalItemSelectedColor: '#1677ff', itemBg: 'transparent' },
    Card: { borderRadiusLG: 10 },
  },
};
