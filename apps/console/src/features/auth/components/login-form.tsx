import { LockOutlined, UserOutlined } from '@ant-design/icons';
import type { LoginBody } from '@suanli/contracts';
import { Button } from 'antd';
// Input and Password by their own modules: antd's `Input` index also brings TextArea, Search and OTP, and its
// Form brings rc-form, async-validator and Tooltip — ~30 KiB gzip on the page every visitor loads first
// (docs/performance.md). The two fields' rules are simple enough to check here.
import Input, { type InputRef } from 'antd/es/input/Input';
import Password from 'antd/es/input/Password';
import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import styles from './login-form.module.css';

/** The login call's body, the password still in clear (login() encrypts it). */
export type LoginValues = LoginBody;

type Field = keyof LoginValues;

/** The rules antd's Form had here: the account required and not blank, the password required. */
const RULES: Record<Field, (value: string) => string | null> = {
  account: (v) => (v.trim() ? null : '请输入用户名、手机号或邮箱'),
  password: (v) => (v ? null : '请输入密码'),
};

interface LoginFormProps {
  initialAccount: string;
  loading: boolean;
  onSubmit: (values: LoginValues) => void;
}

/**
 * 账号 and 密码 with 登录. As antd's Form did: a field is checked as it changes once touched, both on submit,
 * and the message sits under the field (announced, and named by the field's aria-describedby). A refused
 * submit also moves focus to the first field in error.
 */
export function LoginForm({ initialAccount, loading, onSubmit }: LoginFormProps) {
  const [values, setValues] = useState<LoginValues>({ account: initialAccount, password: '' });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const refs = { account: useRef<InputRef>(null), password: useRef<InputRef>(null) };

  const change = (field: Field, value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => ({ ...e, [field]: RULES[field](value) ?? undefined }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = { account: RULES.account(values.account) ?? undefined, password: RULES.password(values.password) ?? undefined };
    setErrors(found);
    const first = (['account', 'password'] as const).find((f) => found[f]);
    if (first) refs[first].current?.focus();
    else onSubmit(values);
  };

  return (
    <form className={styles.form} noValidate onSubmit={submit}>
      <FormField label="账号" error={errors.account}>
        {(a11y) => (
          <Input
            {...a11y}
            ref={refs.account}
            size="large"
            status={errors.account ? 'error' : undefined}
            prefix={<UserOutlined />}
            placeholder="用户名 / 手机号 / 邮箱"
            autoComplete="username"
            value={values.account}
            onChange={(e) => change('account', e.target.value)}
            data-testid="login-account"
          />
        )}
      </FormField>
      <FormField label="密码" error={errors.password}>
        {(a11y) => (
          <Password
            {...a11y}
            ref={refs.password}
            size="large"
            status={errors.password ? 'error' : undefined}
            prefix={<LockOutlined />}
            placeholder="请输入密码"
            autoComplete="current-password"
            value={values.password}
            onChange={(e) => change('password', e.target.value)}
            data-testid="login-password"
          />
        )}
      </FormField>
      <Button type="primary" htmlType="submit" size="large" block loading={loading} className={styles.submit} data-testid="login-submit">
        登录
      </Button>
      <div className={styles.links}>
        <Link to="/login/register" data-testid="login-register-link">
          注册账号
        </Link>
        <Link to="/login/find" data-testid="login-find-link">
          忘记密码
        </Link>
      </div>
    </form>
  );
}

interface FieldA11y {
  id: string;
  'aria-required': true;
  'aria-invalid': boolean;
  'aria-describedby': string | undefined;
}

/** A label above its control and the control's message below, spaced as antd's vertical Form.Item. */
function FormField({ label, error, children }: { label: string; error: string | undefined; children: (a11y: FieldA11y) => ReactNode }) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className={error ? `${styles.item} ${styles.itemError}` : styles.item}>
      <label htmlFor={id} className={styles.label}>
        {label}
      </label>
      {children({ id, 'aria-required': true, 'aria-invalid': !!error, 'aria-describedby': error ? errorId : undefined })}
      {error ? (
        <div id={errorId} role="alert" className={styles.error}>
          {error}
        </div>
      ) : null}
    </div>
  );
}
