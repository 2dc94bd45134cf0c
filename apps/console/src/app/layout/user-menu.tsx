import {
  CodeOutlined,
  CustomerServiceOutlined,
  LogoutOutlined,
  QuestionCircleOutlined,
  TeamOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { Dropdown, type MenuProps } from 'antd';
import { UserAvatar } from '../../shared/ui/user-avatar';
import { HELP_DOC_URL } from '../config';
import styles from './header.module.css';

export type UserMenuKey = 'profile' | 'workorder' | 'team' | 'help' | 'logout';

interface UserMenuProps {
  nickname: string;
  username: string | undefined;
  headImage: string | null | undefined;
  showName: boolean;
  onOpenChange: (open: boolean) => void;
  onSelect: (key: UserMenuKey) => void;
}

const label = (key: UserMenuKey, text: string) => <span data-testid={`user-menu-${key}`}>{text}</span>;

/**
 * The command-line tool's page of the user guide: what each platform needs and the download, a file the
 * gateway serves beside the guide (packages/cli, issue 24 item 4).
 */
export const CLI_PAGE_URL = '/guide/cli.html';

/** Avatar with the account menu: 个人信息, 工单系统, 团队管理, 帮助文档 and 命令行工具 (new window), 退出登录. */
export function UserMenu({ nickname, username, headImage, showName, onOpenChange, onSelect }: UserMenuProps) {
  const items: MenuProps['items'] = [
    {
      key: 'head',
      disabled: true,
      label: (
        <div className={styles.menuHead}>
          <span className={styles.menuHeadName}>{nickname}</span>
          {username ? <span className={styles.menuHeadSub}>账号：{username}</span> : null}
        </div>
      ),
    },
    { type: 'divider' },
    { key: 'profile', icon: <UserOutlined />, label: label('profile', '个人信息') },
    { key: 'workorder', icon: <CustomerServiceOutlined />, label: label('workorder', '工单系统') },
    { key: 'team', icon: <TeamOutlined />, label: label('team', '团队管理') },
    {
      key: 'help',
      icon: <QuestionCircleOutlined />,
      label: (
        <a href={HELP_DOC_URL} target="_blank" rel="noopener noreferrer" data-testid="user-menu-help">
          帮助文档
        </a>
      ),
    },
    {
      key: 'cli',
      icon: <CodeOutlined />,
      label: (
        <a href={CLI_PAGE_URL} target="_blank" rel="noopener noreferrer" data-testid="user-menu-cli">
          命令行工具
        </a>
      ),
    },
    { type: 'divider' },
    { key: 'logout', icon: <LogoutOutlined />, danger: true, label: label('logout', '退出登录') },
  ];

  return (
    <Dropdown
      trigger={['click']}
      placement="bottomRight"
      onOpenChange={onOpenChange}
      menu={{
        items,
        onClick: ({ key }) => {
          // The help and CLI entries are real links that open their own window.
          if (key !== 'help' && key !== 'cli' && key !== 'head') onSelect(key as UserMenuKey);
        },
      }}
    >
      <button type="button" className={styles.action} data-testid="header-avatar" aria-label="账号菜单">
        <UserAvatar src={headImage} size={28} />
        {showName ? (
          <span className={styles.nickname} data-testid="header-nickname">
            {nickname}
          </span>
        ) : null}
      </button>
    </Dropdown>
  );
}
