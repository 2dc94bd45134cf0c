import { Type, type Static } from '@sinclair/typebox';
import { Id, Millis, Page, PageQuery } from './common';
import { PATTERNS } from './constants';
import { route, type SchemasOf } from './route';

export const USER_BASE = '/gateway/user/api/v1';

export const Role = Type.Union([Type.Literal('user'), Type.Literal('operator')]);
export type Role = Static<typeof Role>;

export const UserInfo = Type.Object({
  id: Id,
  username: Type.String(),
  nickname: Type.String(),
  /** Masked: 138****0000. */
  phone: Type.Union([Type.String(), Type.Null()]),
  /** Masked: a***@example.com. */
  email: Type.Union([Type.String(), Type.Null()]),
  headImage: Type.Union([Type.String(), Type.Null()]),
  createTime: Millis,
  roles: Type.Array(Role),
  token: Type.Optional(Type.String()),
});
export type UserInfo = Static<typeof UserInfo>;

export const CodeScene = Type.Union([
  Type.Literal('register'),
  Type.Literal('reset'),
  Type.Literal('updatePhone'),
  Type.Literal('bindEmail'),
]);
export type CodeScene = Static<typeof CodeScene>;

export const SendCodeBody = Type.Object({ scene: CodeScene, target: Type.String({ minLength: 1, maxLength: 128 }) });
export const CheckStatusBody = Type.Object({
  field: Type.Union([Type.Literal('username'), Type.Literal('phone'), Type.Literal('email')]),
  value: Type.String({ minLength: 1, maxLength: 128 }),
});
export const CheckStatusResult = Type.Object({ exists: Type.Boolean() });

/** Encrypted passwords are base64 of concatenated 128-byte RSA blocks. */
const EncPassword = Type.String({ minLength: 1, maxLength: 4096 });

export const RegisterBody = Type.Object({
  username: Type.String({ pattern: '^[A-Za-z0-9_]{4,32}$' }),
  password: EncPassword,
  phone: Type.Optional(Type.String({ pattern: '^1\\d{10}$' })),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 128 })),
  code: Type.String({ pattern: '^\\d{6}$' }),
  agreement: Type.Literal(true),
  nickname: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
});
export const RegisterResult = Type.Object({ id: Id, username: Type.String() });

export const LoginBody = Type.Object({
  account: Type.String({ minLength: 1, maxLength: 128 }),
  password: EncPassword,
});
export const LogoutQuery = Type.Object({ appClientId: Type.Optional(Type.String({ maxLength: 64 })) });

export const PasswordUpdateBody = Type.Object({ oldPassword: EncPassword, newPassword: EncPassword });
export const PasswordResetBody = Type.Object({
  target: Type.String({ minLength: 1, maxLength: 128 }),
  code: Type.String({ pattern: '^\\d{6}$' }),
  newPassword: EncPassword,
});
export const UpdatePhoneBody = Type.Object({ phone: Type.String({ pattern: '^1\\d{10}$' }), code: Type.String({ pattern: '^\\d{6}$' }) });
export const BindEmailBody = Type.Object({ email: Type.String({ format: 'email', maxLength: 128 }), code: Type.String({ pattern: '^\\d{6}$' }) });
export const UpdateProfileBody = Type.Object({ nickname: Type.String({ minLength: 1, maxLength: 32 }) });
export const AvatarResult = Type.Object({ headImage: Type.String() });

export const RsaKey = Type.Object({ publicKey: Type.String(), keySize: Type.Integer() });

export const ClusterAccount = Type.Object({
  subCenterId: Id,
  subCenterName: Type.String(),
  account: Type.String(),
  uid: Type.Integer(),
  homeDir: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
});
export type ClusterAccount = Static<typeof ClusterAccount>;
export const AgentUserQuery = Type.Object({ subCenterId: Type.Optional(Id) });

export const UserListBody = Type.Composite([PageQuery, Type.Object({ keyword: Type.Optional(Type.String({ maxLength: 64 })) })]);
export const UserBrief = Type.Object({
  id: Id,
  username: Type.String(),
  nickname: Type.String(),
  headImage: Type.Union([Type.String(), Type.Null()]),
});
export type UserBrief = Static<typeof UserBrief>;
export const UserBriefPage = Page(UserBrief);

/** Calls moved to route descriptors (the rest of USER_BASE is still registered by hand in user.routes.ts). */
export const UserApi = {
  list: route<{ body: typeof UserListBody; response: typeof UserBriefPage }>('POST', USER_BASE, '/user/list'),
};
export const UserApiSchemas: SchemasOf<typeof UserApi> = {
  list: { summary: '用户列表（邀请成员用；不含手机号与邮箱）', body: UserListBody, response: UserBriefPage },
};

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 64;
export const PASSWORD_RULE_TEXT = `长度应为 ${PASSWORD_MIN}–${PASSWORD_MAX} 位，且必须同时包含字母和数字`;
/** Leading/trailing blanks are invisible in a password field and lost by copy-paste: never part of a password. */
export const PASSWORD_SPACE_TEXT = '不能以空格开头或结尾';

/**
 * The password's shape, shared by the console's forms and the server: null when acceptable, otherwise the
 * Chinese reason. Counted in characters (code points), not bytes, so it reads the way users count. The
 * server's policy adds a strength estimate and refuses the current password (password-policy.ts).
 */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) return PASSWORD_RULE_TEXT;
  if (!/[A-Za-z]/.test(password) || !/\d/.test(password)) return PASSWORD_RULE_TEXT;
  if (password !== password.trim()) return PASSWORD_SPACE_TEXT;
  return null;
}

/** What a verification-code target is: a mainland mobile number or an e-mail address. */
export function targetKind(target: string): 'phone' | 'email' | null {
  if (PATTERNS.phone.test(target)) return 'phone';
  if (target.length <= 128 && PATTERNS.email.test(target)) return 'email';
  return null;
}
