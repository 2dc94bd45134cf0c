import { ThunderboltOutlined } from '@ant-design/icons';
import type { CompPowers } from '@suanli/contracts';
import { Tooltip } from 'antd';
import { Link } from 'react-router';
import { COMP_POWER_URL } from '../config';
import styles from './header.module.css';

interface CompPowerIndicatorProps {
  /** The normalised total in 标准卡时 (`standardTotal`). */
  total: string | undefined;
  items: CompPowers['items'];
  compact: boolean;
}

/** Links inside the dark tooltip: a lighter blue that reads on it. */
const TIP_LINK = { color: '#69b1ff' } as const;

/** Native card-hours per bucket (where it is usable), the normalised total, and where to go from here. */
function breakdown(items: CompPowers['items'], total: string | undefined) {
  return (
    <div data-testid="header-comp-power-breakdown">
      {items.length === 0 ? (
        <div>暂无可用算力</div>
      ) : (
        items.map((item) => (
          <div key={item.id}>
            {item.subCenterName} · {item.cardTypeName}：{item.remaining} 卡时
            {item.standardFactor !== 1 ? `（折合 ${item.standardRemaining} 标准卡时）` : ''}
          </div>
        ))
      )}
      <div style={{ marginTop: 4 }}>合计：{total ?? '--'} 标准卡时</div>
      <div style={{ display: 'flex', gap: 12, flexWrap: 'wrap', marginTop: 4 }}>
        <Link to="/pay" style={TIP_LINK} data-testid="header-buy-power">
          购买算力
        </Link>
        <Link to="/expense" style={TIP_LINK}>
          费用明细
        </Link>
        <a href={COMP_POWER_URL} target="_blank" rel="noopener noreferrer" style={TIP_LINK}>
          算力说明
        </a>
      </div>
    </div>
  );
}

/**
 * Remaining compute power, normalised to 标准卡时 (each card type's card-hours × its factor, config/centers.yaml);
 * a click opens 费用明细 (/expense), the tooltip lists native card-hours per center and card type — the only
 * place a task can draw them — with links to 购买算力 and the guide's page on compute power (`COMP_POWER_URL`).
 */
export function CompPowerIndicator({ total, items, compact }: CompPowerIndicatorProps) {
  const value = total ?? '--';
  return (
    <Tooltip title={breakdown(items, total)}>
      <Link to="/expense" className={`${styles.action} ${styles.power}`} data-testid="header-comp-power" data-value={total ?? ''}>
        <ThunderboltOutlined />
        {compact ? null : <span>剩余算力</span>}
        <span className={styles.powerValue}>{value}</span>
        <span>标准卡时</span>
      </Link>
    </Tooltip>
  );
}
