import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Card, Typography } from 'antd';
import { useLocation, useNavigate } from 'react-router';
import { useUserStore } from '../../app/stores/user-store';
import logo from '../../assets/logo.svg';
import { AGREEMENT_PREAMBLE, AGREEMENT_SECTIONS, AGREEMENT_UPDATED } from './agreement-text';
import styles from './user-agreement.module.css';

/**
 * 用户协议: readable without an account. Registration opens it in a new tab, so 返回 there means "close
 * this tab" (the register form is still in the tab that opened it); a browser that refuses to close a tab
 * (one the user opened by hand) gets the sign-in page, or home when signed in. Reached inside the app,
 * 返回 is a plain history back.
 */
export function UserAgreementPage() {
  const navigate = useNavigate();
  // The router's first entry of this tab has the key 'default': nothing inside the app to go back to.
  const hasHistory = useLocation().key !== 'default';
  const signedIn = useUserStore((s) => Boolean(s.userInfo.token));
  const back = () => {
    if (hasHistory) {
      void navigate(-1);
      return;
    }
    window.close();
    // close() is a no-op for a tab the script may not close; it then is still open on the next tick.
    setTimeout(() => {
      if (!window.closed) void navigate(signedIn ? '/' : '/login', { replace: true });
    }, 0);
  };
  return (
    <div className={styles.page}>
      <header className={styles.bar}>
        <img src={logo} alt="" width={28} height={28} />
        <span className={styles.brand}>算力调度服务平台</span>
        <Button
          type="link"
          icon={<ArrowLeftOutlined />}
          className={styles.back}
          onClick={back}
          data-testid="agreement-back"
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
