/** 登录注册 calls, one function per call, through the route descriptors (UserApi). */
import { APP_CLIENT_ID, UserApi, type CheckStatusBody, type CodeScene, type RegisterBody, type RegisterResult, type UserInfo } from '@suanli/contracts';
import { call } from '../../app/request';

/**
 * Encrypts a password with the gateway's current public key. The key is fetched per use (it can rotate)
 * and the RSA code loads only when a form is submitted, keeping it out of the login page's first load.
 */
export async function encryptPassword(plain: string): Promise<string> {
  const [key, rsa] = await Promise.all([call(UserApi.rsaKey), import('../../shared/rsa')]);
  return rsa.rsaEncrypt(key.publicKey, plain);
}

export async function login(account: string, password: string): Promise<UserInfo> {
  return call(UserApi.login, { body: { account, password: await encryptPassword(password) } }, { anonymous: true });
}

/** Revokes `token` server-side. Passed explicitly: the console forgets it locally first (see sign-out). */
export function logout(token: string): Promise<null> {
  return call(UserApi.logout, { query: { appClientId: APP_CLIENT_ID } }, { headers: { token }, silent: true });
}

/** The token goes along when there is one: the updatePhone and bindEmail scenes belong to a session. */
export function sendCode(scene: CodeScene, target: string): Promise<null> {
  return call(UserApi.sendCode, { body: { scene, target } });
}

export type CheckField = CheckStatusBody['field'];

/** Whether a username/phone/email is taken. Silent: the form shows the outcome next to the field. */
export function checkExists(field: CheckField, value: string): Promise<{ exists: boolean }> {
  return call(UserApi.checkStatus, { body: { field, value } }, { silent: true });
}

/** The registration form's values: the password in clear (encrypted here), the agreement implied by submitting. */
export type RegisterInput = Omit<RegisterBody, 'agreement'>;

export async function register(input: RegisterInput): Promise<RegisterResult> {
  return call(UserApi.register, { body: { ...input, password: await encryptPassword(input.password), agreement: true } });
}

export async function resetPassword(target: string, code: string, newPassword: string): Promise<null> {
  return call(UserApi.resetPassword, { body: { target, code, newPassword: await encryptPassword(newPassword) } });
}

export async function updatePassword(oldPassword: string, newPassword: string): Promise<null> {
  const [oldEnc, newEnc] = await Promise.all([encryptPassword(oldPassword), encryptPassword(newPassword)]);
  return call(UserApi.updatePassword, { body: { oldPassword: oldEnc, newPassword: newEnc } });
}
