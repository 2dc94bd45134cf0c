import { Type, type Static } from '@sinclair/typebox';
import { FileBytes, Id, Millis, Null, Page, PageQuery } from './common';
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
export type SendCodeBody = Static<typeof SendCodeBody>;
export const CheckStatusBody = Type.Object({
  field: Type.Union([Type.Literal('username'), Type.Literal('phone'), Type.Literal('email')]),
  value: Type.String({ minLength: 1, maxLength: 128 }),
});
export type CheckStatusBody = Static<typeof CheckStatusBody>;
export const CheckStatusResult = Type.Object({ exists: Type.Boolean() });
export type CheckStatusResult = Static<typeof CheckStatusResult>;

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
export type RegisterBody = Static<typeof RegisterBody>;
export const RegisterResult = Type.Object({ id: Id, username: Type.String() });
export type RegisterResult = Static<typeof RegisterResult>;

export const LoginBody = Type.Object({
  account: Type.String({ minLength: 1, maxLength: 128 }),
  password: EncPassword,
});
export type LoginBody = Static<typeof LoginBody>;
export const LogoutQuery = Type.Object({ appClientId: Type.Optional(Type.String({ maxLength: 64 })) });
export type LogoutQuery = Static<typeof LogoutQuery>;

export const PasswordUpdateBody = Type.Object({ oldPassword: EncPassword, newPassword: EncPassword });
export type PasswordUpdateBody = Static<typeof PasswordUpdateBody>;
export const PasswordResetBody = Type.Object({
  target: Type.String({ minLength: 1, maxLength: 128 }),
  code: Type.String({ pattern: '^\\d{6}$' }),
  newPassword: EncPassword,
});
export type PasswordResetBody = Static<typeof PasswordResetBody>;
export const UpdatePhoneBody = Type.Object({ phone: Type.String({ pattern: '^1\\d{10}$' }), code: Type.String({ pattern: '^\\d{6}$' }) });
export const BindEmailBody = Type.Object({ email: Type.String({ format: 'email', maxLength: 128 }), code: Type.String({ pattern: '^\\d{6}$' }) });
export const UpdateProfileBody = Type.Object({ nickname: Type.String({ minLength: 1, maxLength: 32 }) });
export type UpdatePhoneBody = Static<typeof UpdatePhoneBody>;
export type BindEmailBody = Static<typeof BindEmailBody>;
export type UpdateProfileBody = Static<typeof UpdateProfileBody>;
export const AvatarResult = Type.Object({ headImage: Type.String() });
export type AvatarResult = Static<typeof AvatarResult>;

/** Stored avatar names: random, so they are never reused and can be cached forever, and never guessable. */
export const AVATAR_FILE_PATTERN = '^[a-f0-9]{32}\\.(png|jpg|webp)$';
export const AvatarParams = Type.Object({ file: Type.String({ pattern: AVATAR_FILE_PATTERN }) });
export type AvatarParams = Static<typeof AvatarParams>;

export const RsaKey = Type.Object({ publicKey: Type.String(), keySize: Type.Integer() });
export type RsaKey = Static<typeof RsaKey>;

export const ClusterAccount = Type.Object({
  subCenterId: Id,
  subCenterName: Type.String(),
  account: Type.String(),
  uid: Type.Integer(),
  homeDir: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
});
export type ClusterAccount = Static<typeof ClusterAccount>;
export const ClusterAccountList = Type.Array(ClusterAccount);
export type ClusterAccountList = Static<typeof ClusterAccountList>;
export const AgentUserQuery = Type.Object({ subCenterId: Type.Optional(Id) });
export type AgentUserQuery = Static<typeof AgentUserQuery>;

export const UserListBody = Type.Composite([PageQuery, Type.Object({ keyword: Type.Optional(Type.String({ maxLength: 64 })) })]);
export type UserListBody = Static<typeof UserListBody>;
export const UserBrief = Type.Object({
  id: Id,
  username: Type.String(),
  nickname: Type.String(),
  headImage: Type.Union([Type.String(), Type.Null()]),
});
export type UserBrief = Static<typeof UserBrief>;
export const UserBriefPage = Page(UserBrief);
export type UserBriefPage = Static<typeof UserBriefPage>;

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

/**
 * 登录注册 and 个人中心 (USER_BASE). The calls that guess or send are public and rate-limited per address on top
 * (the server's route options); the avatar image is public so `<img src>` works without headers.
 */
export const UserApi = {
  rsaKey: route<{ response: typeof RsaKey }>('GET', USER_BASE, '/user/rsa-key', { public: true }),
  sendCode: route<{ body: typeof SendCodeBody; response: typeof Null }>('POST', USER_BASE, '/user/code', { public: true }),
  checkStatus: route<{ body: typeof CheckStatusBody; response: typeof CheckStatusResult }>('PUT', USER_BASE, '/check_status/user', { public: true }),
  register: route<{ body: typeof RegisterBody; response: typeof RegisterResult }>('POST', USER_BASE, '/user/register', { public: true }),
  login: route<{ body: typeof LoginBody; response: typeof UserInfo }>('POST', USER_BASE, '/user/login', { public: true }),
  logout: route<{ query: typeof LogoutQuery; response: typeof Null }>('GET', USER_BASE, '/user/logout', { public: true }),
  me: route<{ response: typeof UserInfo }>('GET', USER_BASE, '/user'),
  updatePassword: route<{ body: typeof PasswordUpdateBody; response: typeof Null }>('POST', USER_BASE, '/user/password/update'),
  resetPassword: route<{ body: typeof PasswordResetBody; response: typeof Null }>('POST', USER_BASE, '/user/password/reset', { public: true }),
  updatePhone: route<{ body: typeof UpdatePhoneBody; response: typeof UserInfo }>('POST', USER_BASE, '/user/action/update-phone'),
  bindEmail: route<{ body: typeof BindEmailBody; response: typeof UserInfo }>('POST', USER_BASE, '/user/action/bind-email'),
  updateProfile: route<{ body: typeof UpdateProfileBody; response: typeof UserInfo }>('POST', USER_BASE, '/user/action/update-profile'),
  /** Multipart (field `file`): no body schema, the server reads the part itself; the console passes FormData. */
  uploadAvatar: route<{ response: typeof AvatarResult }>('POST', USER_BASE, '/user/action/upload-avatar'),
  avatar: route<{ params: typeof AvatarParams; response: typeof FileBytes }>('GET', USER_BASE, '/avatar/:file', { public: true, bytes: true }),
  clusterAccounts: route<{ query: typeof AgentUserQuery; response: typeof ClusterAccountList }>('GET', USER_BASE, '/agent/user/get'),
  list: route<{ body: typeof UserListBody; response: typeof UserBriefPage }>('POST', USER_BASE, '/user/list'),
};

export const UserApiSchemas: SchemasOf<typeof UserApi> = {
  rsaKey: { summary: '获取密码加密公钥（RSA 1024，PKCS#1 v1.5，分段 117 字节）', response: RsaKey },
  sendCode: {
    summary: '发送验证码',
    description:
      '6 位数字，5 分钟有效，单次使用，错 5 次作废；同一目标 60 秒 1 次、每天（北京时间）10 次，超限返回 1020。' +
      'register：目标须未注册；updatePhone/bindEmail：须带 token，目标须未被使用；' +
      'reset：无论目标是否属于某个账号都返回成功（不暴露账号是否存在），仅在属于账号时才真正发送。',
    body: SendCodeBody,
    response: Null,
  },
  checkStatus: { summary: '检查用户名/手机号/邮箱是否已被使用', body: CheckStatusBody, response: CheckStatusResult },
  register: { summary: '注册', body: RegisterBody, response: RegisterResult },
  login: {
    summary: '登录（账号为用户名、手机号或邮箱）',
    description:
      'password 为 RSA 加密后的 base64（见 /user/rsa-key）。账号不存在、密码错误、密文无法解密均返回 1024 用户名或密码错误；' +
      '同一账号在同一地址 15 分钟内失败 5 次，该地址即被锁定 15 分钟；同一账号各地址合计 15 分钟内失败 20 次，' +
      '账号对用户 30 天内未登录过的地址锁定 15 分钟（均为 1024，提示剩余分钟数）；账号被禁用返回 1020。',
    body: LoginBody,
    response: UserInfo,
  },
  logout: { summary: '退出登录（吊销所带 token）', querystring: LogoutQuery, response: Null },
  me: { summary: '当前用户信息', response: UserInfo },
  updatePassword: { summary: '修改密码（其他会话全部失效）', body: PasswordUpdateBody, response: Null },
  resetPassword: { summary: '找回密码（全部会话失效）', body: PasswordResetBody, response: Null },
  updatePhone: { summary: '更换手机号', body: UpdatePhoneBody, response: UserInfo },
  bindEmail: { summary: '绑定邮箱', body: BindEmailBody, response: UserInfo },
  updateProfile: { summary: '修改昵称', body: UpdateProfileBody, response: UserInfo },
  uploadAvatar: { summary: '上传头像（multipart 字段 file；PNG/JPEG/WebP，≤ 2 MB，按内容识别类型）', response: AvatarResult },
  avatar: { summary: '头像图片', params: AvatarParams, response: FileBytes },
  clusterAccounts: { summary: '我在各算力分中心的集群账号（带 subCenterId 时按需开通）', querystring: AgentUserQuery, response: ClusterAccountList },
  list: { summary: '用户列表（邀请成员用；不含手机号与邮箱）', body: UserListBody, response: UserBriefPage },
};
