import { USER_BASE, type ClusterAccount, type UserInfo } from '@suanli/contracts';
import { request } from '../../app/request';

export function getCurrentUser(): Promise<UserInfo> {
  return request.get<UserInfo>(`${USER_BASE}/user`);
}

export function updateNickname(nickname: string): Promise<UserInfo | null> {
  return request.post<UserInfo | null>(`${USER_BASE}/user/action/update-profile`, { data: { nickname } });
}

export function updatePhone(phone: string, code: string): Promise<UserInfo> {
  return request.post<UserInfo>(`${USER_BASE}/user/action/update-phone`, { data: { phone, code } });
}

export function bindEmail(email: string, code: string): Promise<UserInfo> {
  return request.post<UserInfo>(`${USER_BASE}/user/action/bind-email`, { data: { email, code } });
}

export function uploadAvatar(file: File): Promise<{ headImage: string }> {
  const form = new FormData();
  form.append('file', file);
  return request.post<{ headImage: string }>(`${USER_BASE}/user/action/upload-avatar`, { data: form });
}

/** The caller's cluster account on each sub-center (created on first use of a center). */
export function getClusterAccounts(): Promise<ClusterAccount[]> {
  return request.get<ClusterAccount[]>(`${USER_BASE}/agent/user/get`);
}

export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/webp'];
