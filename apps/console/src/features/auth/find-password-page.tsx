import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { resetPassword, sendCode } from './api';
import { AuthLayout } from './components/auth-layout';
import { FindPasswordForm, type FindPasswordValues } from './components/find-password-form';
import { showLocalError } from './show-error';

/** 找回密码: a code sent to the bound phone or email, then a new password. */
export function FindPasswordPage() {
  const navigate = useNavigate();
  const reset = useMutation({
    mutationFn: (v: FindPasswordValues) => resetPassword(v.target.trim(), v.code, v.newPassword),
    onSuccess: (_data, v) => {
      toast.success('密码已重置，请使用新密码登录');
      navigate(`/login?account=${encodeURIComponent(v.target.trim())}`, { replace: true });
    },
    onError: showLocalError,
  });

  return (
    <AuthLayout title="找回密码" subtitle="验证绑定的手机号或邮箱后设置新密码">
      <FindPasswordForm
        loading={reset.isPending}
        onSendCode={async (target) => {
          await sendCode('reset', target);
          toast.success('验证码已发送，请注意查收');
        }}
        onSubmit={(v) => reset.mutate(v)}
      />
    </AuthLayout>
  );
}
