import { BellOutlined } from '@ant-design/icons';
import { Badge, Tooltip } from 'antd';
import styles from './header.module.css';

interface MessageBellProps {
  count: number;
  onClick: () => void;
}

/**
 * The bell with the live unread count. The count is drawn by us (not antd's rolling digits) so its text
 * is always the plain number, which the e2e tests read.
 */
export function MessageBell({ count, onClick }: MessageBellProps) {
  const shown = count > 99 ? '99+' : String(count);
  return (
    <Tooltip title={count > 0 ? `${count} 条未读消息` : '消息中心'}>
      <button type="button" className={styles.action} onClick={onClick} data-testid="header-bell" data-unread={count} aria-label="消息中心">
        <Badge
          count={
            count > 0 ? (
              <span className={styles.unread} data-testid="header-unread">
                {shown}
              </span>
            ) : 0
          }
          offset={[2, -2]}
        >
          <BellOutlined className={styles.bellIcon} />
        </Badge>
      </button>
    </Tooltip>
  );
}
