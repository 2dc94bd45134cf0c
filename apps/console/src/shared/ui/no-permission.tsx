import { SafetyCertificateOutlined } from '@ant-design/icons';
import { DEFAULT_ROUTE } from '@suanli/contracts';
import { Button, Card, Result } from 'antd';
import { Link } from 'react-router';
import { PageContainer } from './page-container';

/**
 * What a page shows to someone whose account may not use it (运营管理 to a non-operator who typed its URL):
 * plainly 没有权限, what the page is for, and the way home — never the page's empty frame. The gateway
 * refuses the page's calls anyway (1020).
 */
export function NoPermission({ title, description }: { title: string; description: string }) {
  return (
    <PageContainer title={title}>
      <Card>
        <Result
          // Not antd's 403 picture: its SVG carries an English <title> a screen reader would read.
          icon={<SafetyCertificateOutlined style={{ color: '#faad14' }} />}
          title="没有权限"
          subTitle={description}
          data-testid="no-permission"
          extra={
            <Link to={DEFAULT_ROUTE}>
              <Button type="primary">返回首页</Button>
            </Link>
          }
        />
      </Card>
    </PageContainer>
  );
}
