import { useMutation } from '@tanstack/react-query';
import { Navigate, useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { loginPathFor } from '../../app/navigation';
import { useUserStore } from '../../app/stores/user-store';
import { updatePassword } from './api';
import { AuthLayout } from './components/auth-layout';
import { EditPasswordForm, type EditPasswordValues } from './components/edit-password-form';
import { showLocalError } from './show-error';
import { signOut } from './sign-out';

/**
 * 修改密码. The server revokes every other session of the user; this one signs out too, so the user
 * proves the new password right away.
 */
export function EditPasswordPage() {
  const navigate = useNavigate();
  const token = useUserStore((s) => s.userInfo.token);
  const username = useUserStore((s) => s.userInfo.username);

  const change = useMutation({
    mutationFn: (v: EditPasswordValues) => updatePassword(v.oldPassword, v.newPassword),
    onSuccess: async () => {
      toast.success('密码修改成功，请使用新密码重新登录');
      await signOut(navigate, username ? `/login?account=${encodeURIComponent(username)}` : '/login');
    },
    onError: showLocalError,
  });

  // Only before a change: once it succeeded, signing out is this page's own doing.
  if (!token && change.isIdle) return <Navigate to={loginPathFor('/login/edit')} replace />;

  return (
    <AuthLayout title="修改密码" subtitle="修改成功后，所有已登录的设备都需要使用新密码重新登录">
      <EditPasswordForm loading={change.isPending} onSubmit={(v) => change.mutate(v)} />
    </AuthLayout>
  );
}
