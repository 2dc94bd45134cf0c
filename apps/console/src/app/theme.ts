import type { ThemeConfig } from 'antd';

/** An ant-design-pro look: the default blue, a light top header, slightly rounder cards. */
export const theme: ThemeConfig = {
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
