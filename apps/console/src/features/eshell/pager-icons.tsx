import { DoubleLeftOutlined, DoubleRightOutlined, EllipsisOutlined, LeftOutlined, RightOutlined } from '@ant-design/icons';
import type { ReactNode } from 'react';

/**
 * antd's pagination arrows as antd draws them, but with Chinese aria-labels: its icons otherwise read
 * "left", "right", "double-left"… to a screen reader. Spread into a table's `pagination`.
 */
const jump = (icon: ReactNode) => (
  <a className="ant-pagination-item-link">
    <div className="ant-pagination-item-container">
      {icon}
      <span className="ant-pagination-item-ellipsis">
        <EllipsisOutlined aria-label="更多页" />
      </span>
    </div>
  </a>
);

export const PAGER_ICONS = {
  prevIcon: (
    <button className="ant-pagination-item-link" type="button" tabIndex={-1}>
      <LeftOutlined aria-label="上一页" />
    </button>
  ),
  nextIcon: (
    <button className="ant-pagination-item-link" type="button" tabIndex={-1}>
      <RightOutlined aria-label="下一页" />
    </button>
  ),
  jumpPrevIcon: jump(<DoubleLeftOutlined className="ant-pagination-item-link-icon" aria-label="向前 5 页" />),
  jumpNextIcon: jump(<DoubleRightOutlined className="ant-pagination-item-link-icon" aria-label="向后 5 页" />),
};
