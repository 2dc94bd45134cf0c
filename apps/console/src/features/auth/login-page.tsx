import { useMutation } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { toast } from '../../app/feedback';
import { safeRedirect } from '../../app/navigation';
import { endSession } from '../../app/session';
import { useUserStore } from '../../app/stores/user-store';
import { login } from './api';
import { AuthLayout } from './components/auth-layout';
import { LoginForm, type LoginValues } from './components/login-form';
import { sessionEndReason } from './session-reason';
import { showLocalError } from './show-error';

// Only a visitor whose session ended sees it: Alert (with its icons) loads for them alone, not on every visit.
const Alert = lazy(() => import('antd/es/alert'));

/** 登录: account + RSA-encrypted password; afterwards back to where the user was sent from. */
export function LoginPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const setUserInfo = useUserStore((s) => s.setUserInfo);

  const signIn = useMutation({
    mutationFn: ({ account, password }: LoginValues) => login(account.trim(), password),
    onSuccess: (user) => {
      // A different account may have used this tab: start from a clean store and cache.
      endSession();
      setUserInfo(user);
      toast.success('登录成功');
      navigate(safeRedirect(params.get('redirect')), { replace: true });
    },
    onError: showLocalError,
  });

  const ended = sessionEndReason(params.get('reason'));

  return (
    <AuthLayout title="欢迎登录" subtitle="使用用户名、手机号或邮箱登录算力调度服务平台">
      {ended && (
        <Suspense fallback={null}>
          <Alert type="warning" showIcon title="登录状态已失效" description={ended} style={{ marginBottom: 16 }} data-testid="login-session-ended" />
        </Suspense>
      )}
      <LoginForm initialAccount={params.get('account') ?? ''} loading={signIn.isPending} onSubmit={(v) => signIn.mutate(v)} />
    </AuthLayout>
  );
}
