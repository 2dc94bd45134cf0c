import { ArrowLeftOutlined, ToolOutlined } from '@ant-design/icons';
import { DEFAULT_ROUTE } from '@suanli/contracts';
import { Button, Card, Result, Space } from 'antd';
import { Link, useNavigate } from 'react-router';
import { PageContainer } from './page-container';

export interface UnderConstructionProps {
  /** The feature's name, e.g. 训练任务. */
  title: string;
  /** One sentence of what the page will let the user do. */
  description: string;
}

/**
 * What a route group shows until its feature is built: plainly “功能建设中”, never a fake list, with a way
 * back and a way home. Every placeholder route uses this one component.
 */
export function UnderConstruction({ title, description }: UnderConstructionProps) {
  const navigate = useNavigate();
  // React Router numbers its history entries; without an earlier one, "back" would leave the console.
  const goBack = () => ((window.history.state as { idx?: number } | null)?.idx ? navigate(-1) : navigate(DEFAULT_ROUTE));
  return (
    <PageContainer title={title}>
      <Card>
        <Result
          data-testid="under-construction"
          icon={<ToolOutlined style={{ color: '#1677ff' }} />}
          title="功能建设中"
          subTitle={description}
          extra={
            <Space wrap style={{ justifyContent: 'center' }}>
              <Button icon={<ArrowLeftOutlined />} onClick={goBack}>
                返回上一页
              </Button>
              {/* Somewhere useful to go on (the console's home), not an unrelated page such as 消息中心. */}
              <Link to={DEFAULT_ROUTE} data-testid="under-construction-home">
                <Button type="primary">
                  返回首页
                </Button>
              </Link>
            </Space>
          }
        />
      </Card>
    </PageContainer>
  );
}

/** A page component for a route whose feature is still to come. */
export function underConstruction(props: UnderConstructionProps) {
  function UnderConstructionPage() {
    return <UnderConstruction {...props} />;
  }
  return UnderConstructionPage;
}
