import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { checkExists, register, sendCode } from './api';
import { AuthLayout } from './components/auth-layout';
import { RegisterForm, type ContactKind, type RegisterValues } from './components/register-form';
import { showLocalError } from './show-error';

/** 注册: username (checked), password, email or phone verified by code, the user agreement. */
export function RegisterPage() {
  const navigate = useNavigate();

  const signUp = useMutation({
    mutationFn: ({ values, kind }: { values: RegisterValues; kind: ContactKind }) =>
      register({
        username: values.username.trim(),
        password: values.password,
        code: values.code,
        ...(kind === 'email' ? { email: values.email!.trim() } : { phone: values.phone!.trim() }),
      }),
    onSuccess: (user) => {
      toast.success('注册成功，请登录');
      navigate(`/login?account=${encodeURIComponent(user.username)}`, { replace: true });
    },
    onError: showLocalError,
  });

  return (
    <AuthLayout title="注册账号" subtitle="注册后即可使用平台的算力、存储与任务服务">
      <RegisterForm
        loading={signUp.isPending}
        // An unreachable check should not block the form: the server checks again on submit.
        isTaken={(field, value) => checkExists(field, value).then((r) => r.exists, () => false)}
        onSendCode={async (kind, target) => {
          await sendCode('register', target);
          toast.success(kind === 'email' ? '验证码已发送至邮箱，请注意查收' : '验证码已发送至手机，请注意查收');
        }}
        onSubmit={(values, kind) => signUp.mutate({ values, kind })}
      />
    </AuthLayout>
  );
}
