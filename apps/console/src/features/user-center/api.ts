/** 个人中心 calls, one function per call, through the route descriptors (UserApi). */
import { UserApi, type AvatarResult, type ClusterAccount, type UserInfo } from '@suanli/contracts';
import { call } from '../../app/request';

export function getCurrentUser(): Promise<UserInfo> {
  return call(UserApi.me);
}

export function updateNickname(nickname: string): Promise<UserInfo> {
  return call(UserApi.updateProfile, { body: { nickname } });
}

export function updatePhone(phone: string, code: string): Promise<UserInfo> {
  return call(UserApi.updatePhone, { body: { phone, code } });
}

export function bindEmail(email: string, code: string): Promise<UserInfo> {
  return call(UserApi.bindEmail, { body: { email, code } });
}

/** Multipart: the route has no body schema, the form goes as the request's data. */
export function uploadAvatar(file: File): Promise<AvatarResult> {
  const form = new FormData();
  form.append('file', file);
  return call(UserApi.uploadAvatar, {}, { data: form });
}

/** The caller's cluster account on each sub-center (created on first use of a center). */
export function getClusterAccounts(): Promise<ClusterAccount[]> {
  return call(UserApi.clusterAccounts, { query: {} });
}

export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/webp'];
