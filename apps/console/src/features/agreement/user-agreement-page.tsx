import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Card, Typography } from 'antd';
import { useNavigate } from 'react-router';
import logo from '../../assets/logo.svg';
import { AGREEMENT_PREAMBLE, AGREEMENT_SECTIONS, AGREEMENT_UPDATED } from './agreement-text';
import styles from './user-agreement.module.css';

/** 用户协议: readable without an account (it is linked from registration). */
export function UserAgreementPage() {
  const navigate = useNavigate();
  const hasHistory = Boolean((window.history.state as { idx?: number } | null)?.idx);
  return (
    <div className={styles.page}>
      <header className={styles.bar}>
        <img src={logo} alt="" width={28} height={28} />
        <span className={styles.brand}>算力调度服务平台</span>
        <Button
          type="link"
          icon={<ArrowLeftOutlined />}
          className={styles.back}
          onClick={() => (hasHistory ? navigate(-1) : navigate('/login/register'))}
        >
          返回
        </Button>
      </header>
      <Card className={styles.card} data-testid="user-agreement">
        <Typography>
          <Typography.Title level={2} style={{ textAlign: 'center' }}>
            算力调度服务平台用户协议
          </Typography.Title>
          <Typography.Paragraph type="secondary" style={{ textAlign: 'center' }}>
            更新日期：{AGREEMENT_UPDATED}
          </Typography.Paragraph>
          {AGREEMENT_PREAMBLE.map((p) => (
            <Typography.Paragraph key={p}>{p}</Typography.Paragraph>
          ))}
          {AGREEMENT_SECTIONS.map((section) => (
            <section key={section.title}>
              <Typography.Title level={4}>{section.title}</Typography.Title>
              {section.paragraphs.map((p) => (
                <Typography.Paragraph key={p}>{p}</Typography.Paragraph>
              ))}
            </section>
          ))}
        </Typography>
      </Card>
    </div>
  );
}
