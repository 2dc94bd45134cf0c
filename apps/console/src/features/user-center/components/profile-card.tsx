import { CameraOutlined } from '@ant-design/icons';
import type { UserInfo } from '@suanli/contracts';
import { Card, Spin, Tag, Typography, Upload } from 'antd';
import { dayjs } from '../../../shared/dayjs';
import { UserAvatar } from '../../../shared/ui/user-avatar';
import { AVATAR_TYPES } from '../api';
import styles from './user-center.module.css';

interface ProfileCardProps {
  user: Partial<UserInfo>;
  uploading: boolean;
  /** Called with the chosen file; the page checks and uploads it. */
  onPickAvatar: (file: File) => void;
}

const ROLE_LABELS: Record<string, string> = { user: '普通用户', operator: '运营人员' };

export function ProfileCard({ user, uploading, onPickAvatar }: ProfileCardProps) {
  return (
    <Card className={styles.profile}>
      <div data-testid="uc-avatar-upload" className={styles.avatarWrap}>
        <Upload
          accept={AVATAR_TYPES.join(',')}
          showUploadList={false}
          // The page uploads through the request pipeline; antd's own XHR upload is never used.
          beforeUpload={(file) => {
            onPickAvatar(file);
            return Upload.LIST_IGNORE;
          }}
        >
          <button type="button" className={styles.avatarButton} aria-label="更换头像">
            <Spin spinning={uploading}>
              <UserAvatar src={user.headImage} size={96} />
            </Spin>
            <span className={styles.avatarMask}>
              <CameraOutlined /> 更换头像
            </span>
          </button>
        </Upload>
      </div>
      <Typography.Title level={4} className={styles.profileName} data-testid="uc-display-name">
        {user.nickname || user.username}
      </Typography.Title>
      <Typography.Text type="secondary">@{user.username}</Typography.Text>
      <div className={styles.roles}>
        {(user.roles ?? []).map((r) => (
          <Tag color={r === 'operator' ? 'gold' : 'blue'} key={r}>
            {ROLE_LABELS[r] ?? r}
          </Tag>
        ))}
      </div>
      <Typography.Paragraph type="secondary" className={styles.hint}>
        支持 PNG、JPG、WEBP 格式，大小不超过 2 MB
      </Typography.Paragraph>
      {user.createTime ? (
        <Typography.Text type="secondary" className={styles.since}>
          注册于 {dayjs(user.createTime).format('YYYY-MM-DD')}
        </Typography.Text>
      ) : null}
    </Card>
  );
}
