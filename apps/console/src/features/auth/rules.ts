import { PATTERNS } from '@suanli/contracts';
import type { FormInstance, FormRule } from 'antd';

/** Field rules shared by the sign-in forms, mirroring the server's (api-contract.md "User service"). */

export const usernameRules: FormRule[] = [
  { required: true, whitespace: true },
  { pattern: PATTERNS.username, message: '用户名为4-32位字母、数字或下划线' },
];

export const passwordRules: FormRule[] = [
  { required: true },
  { min: 8, max: 64, message: '密码长度为8-64个字符' },
  {
    validator: (_rule, value: string | undefined) =>
      !value || (/[A-Za-z]/.test(value) && /\d/.test(value)) ? Promise.resolve() : Promise.reject(new Error('密码须同时包含字母和数字')),
  },
];

/** "Confirm password" must equal the field named `source`. */
export function confirmRules(source: string): FormRule[] {
  return [
    { required: true, message: '请再次输入密码' },
    (form: Pick<FormInstance, 'getFieldValue'>) => ({
      validator: (_rule, value: string | undefined) =>
        !value || value === form.getFieldValue(source) ? Promise.resolve() : Promise.reject(new Error('两次输入的密码不一致')),
    }),
  ];
}

export const phoneRules: FormRule[] = [{ required: true }, { pattern: PATTERNS.phone, message: '请输入正确的11位手机号' }];

export const emailRules: FormRule[] = [{ required: true }, { pattern: PATTERNS.email, message: '请输入正确的邮箱地址' }];

/**
 * The code input sits in a label-less `noStyle` item (beside its send button), so antd's `${label}` would
 * fall back to the field key ("请输入code"): the required text is spelled out here.
 */
export const codeRules: FormRule[] = [{ required: true, message: '请输入验证码' }, { pattern: /^\d{6}$/, message: '验证码为6位数字' }];

/** A phone number or an email address (password recovery accepts either). */
export const targetRules: FormRule[] = [
  { required: true },
  {
    validator: (_rule, value: string | undefined) =>
      !value || PATTERNS.phone.test(value) || PATTERNS.email.test(value)
        ? Promise.resolve()
        : Promise.reject(new Error('请输入正确的手机号或邮箱')),
  },
];
