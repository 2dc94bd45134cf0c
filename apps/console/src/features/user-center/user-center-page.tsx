import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Col, Row } from 'antd';
import { useEffect, useState } from 'react';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { useUserStore } from '../../app/stores/user-store';
import { PageContainer } from '../../shared/ui/page-container';
import { sendCode } from '../auth/api';
import { bindEmail, getClusterAccounts, getCurrentUser, updateNickname, updatePhone, uploadAvatar } from './api';
import { avatarProblem } from './avatar-check';
import { AccountCard } from './components/account-card';
import { ClusterAccountTable } from './components/cluster-account-table';
import { ContactModal, contactWording, type ContactKind, type ContactValues } from './components/contact-modal';
import { ProfileCard } from './components/profile-card';

/** 个人信息: avatar, nickname, phone and email (verified by code), password, cluster accounts. */
export function UserCenterPage() {
  const queryClient = useQueryClient();
  const stored = useUserStore((s) => s.userInfo);
  const setUserInfo = useUserStore((s) => s.setUserInfo);
  const [contactKind, setContactKind] = useState<ContactKind | null>(null);

  const me = useQuery({ queryKey: queryKeys.currentUser, queryFn: getCurrentUser, staleTime: 0 });
  const accounts = useQuery({ queryKey: queryKeys.clusterAccounts, queryFn: getClusterAccounts });

  // The server's copy wins over the stored one (another tab or device may have changed it).
  useEffect(() => {
    if (me.data) setUserInfo(me.data);
  }, [me.data, setUserInfo]);

  const applyUser = (patch: Parameters<typeof setUserInfo>[0]) => {
    setUserInfo(patch);
    queryClient.invalidateQueries({ queryKey: queryKeys.currentUser });
  };

  const avatar = useMutation({
    mutationFn: uploadAvatar,
    onSuccess: ({ headImage }) => {
      applyUser({ headImage });
      toast.success('头像已更新');
    },
  });

  const nickname = useMutation({
    mutationFn: updateNickname,
    onSuccess: (user, value) => {
      applyUser(user ?? { nickname: value });
      toast.success('昵称已更新');
    },
  });

  const contact = useMutation({
    // `hadCurrent` travels with the call: once it succeeds the user has one, and the toast must say what happened.
    mutationFn: ({ kind, values }: { kind: ContactKind; values: ContactValues; hadCurrent: boolean }) =>
      kind === 'phone' ? updatePhone(values.target, values.code) : bindEmail(values.target, values.code),
    onSuccess: (user, { kind, hadCurrent }) => {
      applyUser(user);
      setContactKind(null);
      toast.success(contactWording(kind, hadCurrent).done);
    },
  });

  const user = { ...stored, ...me.data };
  const hasCurrentContact = Boolean(contactKind && user[contactKind]);

  return (
    <PageContainer title="个人信息" description="管理头像、昵称、联系方式与登录密码">
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={8} xxl={6}>
          <ProfileCard
            user={user}
            uploading={avatar.isPending}
            onPickAvatar={(file) => {
              const problem = avatarProblem(file);
              if (problem) toast.error(problem);
              else avatar.mutate(file);
            }}
          />
        </Col>
        <Col xs={24} lg={16} xxl={18}>
          <AccountCard
            user={user}
            savingNickname={nickname.isPending}
            onSaveNickname={(v) => nickname.mutateAsync(v)}
            onEditPhone={() => setContactKind('phone')}
            onEditEmail={() => setContactKind('email')}
          />
        </Col>
        <Col span={24}>
          <ClusterAccountTable accounts={accounts.data ?? []} loading={accounts.isLoading} />
        </Col>
      </Row>
      <ContactModal
        kind={contactKind}
        hasCurrent={hasCurrentContact}
        saving={contact.isPending}
        onClose={() => setContactKind(null)}
        onSendCode={async (kind, target) => {
          await sendCode(kind === 'phone' ? 'updatePhone' : 'bindEmail', target);
          toast.success('验证码已发送，请注意查收');
        }}
        onSubmit={(kind, values) => contact.mutateAsync({ kind, values, hadCurrent: hasCurrentContact })}
      />
    </PageContainer>
  );
}
