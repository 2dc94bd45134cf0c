import { ApiOutlined, ClusterOutlined, ExperimentOutlined } from '@ant-design/icons';
import { Button, Card, Col, Row, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import styles from './coming-soon.module.css';

export interface ComingSoonFeature {
  icon: ReactNode;
  title: string;
  text: string;
}

interface ComingSoonProps {
  title: string;
  lead: string;
  features: ComingSoonFeature[];
}

export const QUANTUM_FEATURES: ComingSoonFeature[] = [
  { icon: <ExperimentOutlined />, title: '量子线路模拟', text: '在经典算力上模拟量子线路，支持常用量子门与测量，便于算法验证。' },
  { icon: <ClusterOutlined />, title: '量子真机接入', text: '统一调度接入的量子计算机，按任务排队执行并返回测量结果。' },
  { icon: <ApiOutlined />, title: '量子算法与应用', text: '提供优化、化学模拟、机器学习等方向的算法模板，开箱即用。' },
];

/** A product page for a service that is announced but not open yet. */
export function ComingSoon({ title, lead, features }: ComingSoonProps) {
  return (
    <div style={{ maxWidth: 1600, margin: '0 auto', padding: '20px 24px 32px' }} data-testid="coming-soon">
      <section className={styles.hero}>
        <span className={styles.badge}>敬请期待</span>
        <h2 className={styles.title}>{title}</h2>
        <p className={styles.lead}>{lead}</p>
        <div className={styles.orbit} aria-hidden />
      </section>
      <Row gutter={[16, 16]} className={styles.features}>
        {features.map((f) => (
          <Col xs={24} md={8} key={f.title}>
            <Card style={{ height: '100%' }}>
              <div className={styles.featureIcon}>{f.icon}</div>
              <Typography.Title level={5}>{f.title}</Typography.Title>
              <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
                {f.text}
              </Typography.Paragraph>
            </Card>
          </Col>
        ))}
      </Row>
      <Card style={{ marginTop: 16 }}>
        <Typography.Text type="secondary">
          服务开放时间将另行公告，在此之前可以先使用 AI 计算与科学计算服务。
        </Typography.Text>
        <Link to="/training" style={{ marginLeft: 12 }}>
          <Button type="link">前往训练任务</Button>
        </Link>
      </Card>
    </div>
  );
}
