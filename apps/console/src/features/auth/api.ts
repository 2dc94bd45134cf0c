import { APP_CLIENT_ID, USER_BASE, type CodeScene, type RsaKey, type UserInfo } from '@suanli/contracts';
import { request } from '../../app/request';

type RsaKeyData = (typeof RsaKey)['static'];

/**
 * Encrypts a password with the gateway's current public key. The key is fetched per use (it can rotate)
 * and the RSA code loads only when a form is submitted, keeping it out of the login page's first load.
 */
export async function encryptPassword(plain: string): Promise<string> {
  const [key, rsa] = await Promise.all([
    request.get<RsaKeyData>(`${USER_BASE}/user/rsa-key`),
    import('../../shared/rsa'),
  ]);
  return rsa.rsaEncrypt(key.publicKey, plain);
}

export async function login(account: string, password: string): Promise<UserInfo> {
  return request.post<UserInfo>(`${USER_BASE}/user/login`, {
    data: { account, password: await encryptPassword(password) },
    anonymous: true,
  });
}

/** Revokes `token` server-side. Passed explicitly: the console forgets it locally first (see sign-out). */
export function logout(token: string): Promise<null> {
  return request.get<null>(`${USER_BASE}/user/logout`, { params: { appClientId: APP_CLIENT_ID }, headers: { token }, silent: true });
}

/** The token goes along when there is one: the updatePhone and bindEmail scenes belong to a session. */
export function sendCode(scene: CodeScene, target: string): Promise<null> {
  return request.post<null>(`${USER_BASE}/user/code`, { data: { scene, target } });
}

export type CheckField = 'username' | 'phone' | 'email';

/** Whether a username/phone/email is taken. Silent: the form shows the outcome next to the field. */
export function checkExists(field: CheckField, value: string): Promise<{ exists: boolean }> {
  return request.put<{ exists: boolean }>(`${USER_BASE}/check_status/user`, { data: { field, value }, silent: true });
}

export interface RegisterInput {
  username: string;
  password: string;
  phone?: string;
  email?: string;
  code: string;
}

export async function register(input: RegisterInput): Promise<{ id: string; username: string }> {
  return request.post(`${USER_BASE}/user/register`, {
    data: { ...input, password: await encryptPassword(input.password), agreement: true },
  });
}

export async function resetPassword(target: string, code: string, newPassword: string): Promise<null> {
  return request.post<null>(`${USER_BASE}/user/password/reset`, {
    data: { target, code, newPassword: await encryptPassword(newPassword) },
  });
}

export async function updatePassword(oldPassword: string, newPassword: string): Promise<null> {
  const [oldEnc, newEnc] = await Promise.all([encryptPassword(oldPassword), encryptPassword(newPassword)]);
  return request.post<null>(`${USER_BASE}/user/password/update`, { data: { oldPassword: oldEnc, newPassword: newEnc } });
}
