import {
  AVATAR_MAX_BYTES,
  ErrorCode,
  PATTERNS,
  USER_BASE,
  maskEmail,
  maskPhone,
  targetKind,
  type ClusterAccount,
  type CodeScene,
  type Page,
  type UserBrief,
  type UserInfo,
} from '@suanli/contracts';
import { AppError, invalid } from '../../errors';
import { newId } from '../../lib/id';
import type { CenterConfig } from '../../centers/centers';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { SessionService } from '../auth/session.service';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import type { AvatarStore } from './avatar';
import { AVATAR_MAX_SIDE, reencodeImage, sniffImage } from './avatar';
import type { Guard, LoginGuard } from './login-guard';
import { hashPassword } from './password';
import { passwordPolicyProblem } from './password-policy';
import type { RsaKeyService } from './rsa-key.service';
import type { AccountField, UserRepository } from './user.repository';
import type { VerificationCodeService } from './verification-code.service';

export const AVATAR_URL_PREFIX = `${USER_BASE}/avatar/`;

type UserRow = NonNullable<Awaited<ReturnType<UserRepository['findById']>>>;

export interface UserServiceDeps {
  users: UserRepository;
  guard: LoginGuard;
  codes: VerificationCodeService;
  rsa: RsaKeyService;
  sessions: SessionService;
  /** Roles of an account (UserInfo.roles at login). */
  access: Pick<AccessService, 'rolesOf'>;
  clusterAccounts: ClusterAccountService;
  avatars: AvatarStore;
  centers: CenterConfig[];
  clock: () => number;
}

const FIELD_TEXT: Record<AccountField, string> = { username: '用户名', phone: '手机号', email: '邮箱' };

/** E-mail addresses compare case-insensitively; everything is trimmed. */
function normalize(kind: AccountField, value: string): string {
  const v = value.trim();
  return kind === 'email' ? v.toLowerCase() : v;
}

/**
 * Not allowed in a nickname, which other users see next to their own names: control characters (Cc), format
 * characters (Cf: bidi overrides that reverse the text around them, zero-width spaces and joiners that make
 * two names look alike), line/paragraph separators, private-use, unassigned and lone surrogate code points.
 */
const NAME_FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]/u;

/** A nickname as stored: trimmed, not empty, none of NAME_FORBIDDEN; 1005 naming the field otherwise. */
export function cleanNickname(raw: string): string {
  const nickname = raw.trim();
  if (!nickname) throw invalid('nickname', '不能为空');
  if (NAME_FORBIDDEN.test(nickname)) throw invalid('nickname', '不能包含控制字符、零宽字符或文字方向控制符');
  return nickname;
}

/** What the password policy knows of an existing account: its names and addresses, and its current hash. */
function accountOf(u: UserRow) {
  return { userInputs: [u.username, u.nickname, u.email, u.phone], currentHash: u.password_hash };
}

export function toUserInfo(u: UserRow, roles: UserInfo['roles'], token?: string): UserInfo {
  return {
    id: u.id,
    username: u.username,
    nickname: u.nickname,
    phone: u.phone ? maskPhone(u.phone) : null,
    email: u.email ? maskEmail(u.email) : null,
    headImage: u.head_image,
    createTime: Number(u.create_time),
    roles: [...roles],
    ...(token ? { token } : {}),
  };
}

/**
 * Accounts, login, passwords, verification codes, profile and avatar. Every method acts on the caller's own
 * account only (the principal comes from the session, never from the body), so there is no other user's
 * data to reach; the user list exposes only public fields.
 */
export class UserService {
  constructor(private readonly d: UserServiceDeps) {}

  rsaKey() {
    return this.d.rsa.publicKey();
  }

  async checkStatus(field: AccountField, value: string): Promise<{ exists: boolean }> {
    return { exists: await this.d.users.exists(field, normalize(field, value)) };
  }

  /**
   * Scene rules: register needs an unused target; updatePhone/bindEmail need a session and an unused
   * target. Reset answers success whether or not the target belongs to an account, and only sends when it
   * does: the code is stored and counted either way (same limits, same timing, sent in the background), so
   * this call cannot be used to find out who is registered.
   */
  async sendCode(scene: CodeScene, rawTarget: string, token: string | undefined): Promise<void> {
    const kind = targetKind(rawTarget.trim());
    if (!kind) throw invalid('target', '应为手机号或邮箱地址');
    if (scene === 'updatePhone' && kind !== 'phone') throw invalid('target', '应为手机号');
    if (scene === 'bindEmail' && kind !== 'email') throw invalid('target', '应为邮箱地址');
    const target = normalize(kind, rawTarget);

    if (scene === 'reset') {
      const owner = await this.d.users.findBy(kind, target);
      await this.d.codes.issue(scene, target, { deliver: owner !== undefined, background: true });
      return;
    }
    if (scene === 'register') {
      if (await this.d.users.exists(kind, target)) throw new AppError(ErrorCode.DUPLICATE, `该${FIELD_TEXT[kind]}已被注册`);
    } else {
      const me = await this.d.sessions.verify(token);
      await this.assertTargetFree(kind, target, me.userId);
    }
    await this.d.codes.issue(scene, target, { deliver: true });
  }

  async register(body: {
    username: string;
    password: string;
    phone?: string;
    email?: string;
    code: string;
    nickname?: string;
  }): Promise<{ id: string; username: string }> {
    const username = body.username;
    // A username shaped like a phone number would make the login account ambiguous.
    if (PATTERNS.phone.test(username)) throw invalid('username', '不能使用手机号格式');
    if (body.phone && body.email) throw invalid('email', '手机号和邮箱只能填写其中一个（验证码发往所填的那一个）');
    if (!body.phone && !body.email) throw invalid('phone', '手机号和邮箱需填写其中一个');
    const kind: AccountField = body.phone ? 'phone' : 'email';
    const target = normalize(kind, (body.phone ?? body.email)!);

    if (await this.d.users.exists('username', username)) throw new AppError(ErrorCode.DUPLICATE, '该用户名已被注册');
    if (await this.d.users.exists(kind, target)) throw new AppError(ErrorCode.DUPLICATE, `该${FIELD_TEXT[kind]}已被注册`);
    const codeId = await this.d.codes.check('register', target, body.code);
    const password = await this.newPassword('password', body.password, () => this.d.codes.burn(codeId), {
      userInputs: [username, body.nickname, target],
    });
    await this.d.codes.consume(codeId);

    const nickname = body.nickname?.trim() ? cleanNickname(body.nickname) : username;
    const created = await this.createAccount({ username, password, nickname, [kind]: target });
    if (!created) throw new AppError(ErrorCode.DUPLICATE, '用户名、手机号或邮箱已被注册');
    return { id: created.id, username };
  }

  /** Inserts an account (register, and the demo seed); null when the name/phone/email is taken. */
  async createAccount(input: { username: string; password: string; nickname: string; phone?: string; email?: string }) {
    const id = newId();
    const ok = await this.d.users.insert({
      id,
      username: input.username,
      nickname: input.nickname,
      phone: input.phone ?? null,
      email: input.email ?? null,
      passwordHash: await hashPassword(input.password),
      now: this.d.clock(),
    });
    return ok ? { id } : null;
  }

  /**
   * Account is a username, phone or e-mail. Unknown account, wrong password and an undecryptable password
   * all give the same 1024 after the same work; disabled accounts are told so (1027) only after the right password.
   */
  async login(rawAccount: string, encPassword: string, meta: { ip?: string; userAgent?: string }): Promise<UserInfo> {
    const account = rawAccount.trim();
    const field: AccountField = PATTERNS.phone.test(account) ? 'phone' : account.includes('@') ? 'email' : 'username';
    const value = normalize(field, account);
    const user = await this.d.users.findBy(field, value);
    const ip = meta.ip ?? 'unknown';
    // Unknown accounts get counters of their own and the same address check (against no sessions), so they
    // lock exactly like real ones after the same work.
    const guard: Guard = {
      account: user ? `u:${user.id}` : `a:${field}:${value}`,
      ip,
      ownAddress: await this.d.sessions.signedInFrom(user?.id ?? '', ip),
    };
    await this.d.guard.verify(guard, user?.password_hash ?? null, encPassword, ErrorCode.WRONG_USERNAME_OR_PASSWORD, () => new AppError(ErrorCode.WRONG_USERNAME_OR_PASSWORD));
    if (!user) throw new AppError(ErrorCode.WRONG_USERNAME_OR_PASSWORD);
    if (user.status === 'disabled') throw new AppError(ErrorCode.ACCOUNT_DISABLED);
    const { token } = await this.d.sessions.create(user.id, meta);
    return toUserInfo(user, await this.d.access.rolesOf(user.id), token);
  }

  async logout(token: string): Promise<void> {
    await this.d.sessions.revokeToken(token, 'logout');
  }

  /** The caller's account; the roles are the ones the session verification put on the principal. */
  async me(p: Principal): Promise<UserInfo> {
    return toUserInfo(await this.mustFind(p.userId), [...p.roles]);
  }

  /**
   * Old password checked under the login lockout of the caller's address (a stolen session cannot guess it
   * without locking itself out of logging in too); other sessions end.
   */
  async updatePassword(me: Principal, oldEnc: string, newEnc: string, ip = 'unknown'): Promise<void> {
    const user = await this.mustFind(me.userId);
    // The caller holds a session of the account: the address is its own for the account-wide lock.
    const guard: Guard = { account: `u:${user.id}`, ip, ownAddress: true };
    await this.d.guard.verify(guard, user.password_hash, oldEnc, ErrorCode.WRONG_PASSWORD, () => new AppError(ErrorCode.WRONG_PASSWORD, '原密码错误'));
    const password = await this.newPassword('newPassword', newEnc, () => this.d.guard.countFailure(`${guard.account}@${ip}`), accountOf(user));
    await this.d.users.update(user.id, this.d.clock(), { password_hash: await hashPassword(password) });
    await this.d.sessions.revokeAllOfUser(user.id, 'password_changed', me.sessionId);
  }

  /** Proving control of the phone/e-mail resets the password, ends every session and lifts a lockout. */
  async resetPassword(rawTarget: string, code: string, newEnc: string): Promise<void> {
    const kind = targetKind(rawTarget.trim());
    if (!kind) throw invalid('target', '应为手机号或邮箱地址');
    const target = normalize(kind, rawTarget);
    const codeId = await this.d.codes.check('reset', target, code);
    const user = await this.d.users.findBy(kind, target);
    // Only reachable if the account changed its phone/e-mail after the code was sent.
    if (!user) throw new AppError(ErrorCode.WRONG_CODE, '验证码已失效，请重新获取');
    const password = await this.newPassword('newPassword', newEnc, () => this.d.codes.burn(codeId), accountOf(user));
    await this.d.codes.consume(codeId);
    await this.d.users.update(user.id, this.d.clock(), { password_hash: await hashPassword(password) });
    await this.d.sessions.revokeAllOfUser(user.id, 'password_reset');
    await this.d.guard.clearAccount(`u:${user.id}`);
  }

  updatePhone(userId: string, phone: string, code: string): Promise<UserInfo> {
    return this.changeContact(userId, 'phone', 'updatePhone', phone, code);
  }

  bindEmail(userId: string, email: string, code: string): Promise<UserInfo> {
    return this.changeContact(userId, 'email', 'bindEmail', email, code);
  }

  async updateProfile(userId: string, rawNickname: string): Promise<UserInfo> {
    const nickname = cleanNickname(rawNickname);
    await this.mustFind(userId);
    await this.d.users.update(userId, this.d.clock(), { nickname });
    return toUserInfo(await this.mustFind(userId), await this.d.access.rolesOf(userId));
  }

  /**
   * The type comes from the content's magic bytes; what is stored is the image re-encoded (reencodeImage),
   * never the uploaded bytes. The previous avatar file is deleted.
   */
  async uploadAvatar(userId: string, bytes: Buffer): Promise<{ headImage: string }> {
    if (bytes.length > AVATAR_MAX_BYTES) throw new AppError(ErrorCode.FILE_TOO_LARGE, '文件过大，头像不能超过 2 MB');
    const kind = sniffImage(bytes);
    if (!kind) throw new AppError(ErrorCode.FILE_TYPE_UNSUPPORTED, '不支持的文件类型，头像仅支持 PNG、JPEG、WebP 图片');
    const image = await reencodeImage(bytes, kind);
    if (!image.ok && image.reason === 'too-large') throw invalid('file', `图片尺寸过大，宽和高均不能超过 ${AVATAR_MAX_SIDE} 像素`);
    if (!image.ok) throw new AppError(ErrorCode.FILE_TYPE_UNSUPPORTED, '图片已损坏或无法识别，请换一张 PNG、JPEG 或 WebP 图片');
    const user = await this.mustFind(userId);
    const name = await this.d.avatars.save(image.bytes, kind);
    const headImage = `${AVATAR_URL_PREFIX}${name}`;
    await this.d.users.update(userId, this.d.clock(), { head_image: headImage });
    if (user.head_image?.startsWith(AVATAR_URL_PREFIX)) await this.d.avatars.remove(user.head_image.slice(AVATAR_URL_PREFIX.length));
    return { headImage };
  }

  locateAvatar(name: string) {
    return this.d.avatars.locate(name);
  }

  /** The caller's cluster accounts; with a center, the account there (created on first use). */
  async agentUsers(userId: string, subCenterId?: string): Promise<ClusterAccount[]> {
    const accounts = subCenterId ? [await this.d.clusterAccounts.ensure(userId, subCenterId)] : await this.d.clusterAccounts.list(userId);
    // The home as the user sees it on the center, never where the gateway keeps it on its own disk.
    return accounts.map((a) => {
      const prefix = this.d.centers.find((c) => c.id === a.subCenterId)?.homePrefix ?? '/home';
      return { ...a, homeDir: `${prefix}/${a.account}` };
    });
  }

  /** For invitations: public fields of active users only; phone and e-mail are never selected. */
  async list(q: { keyword?: string; pageNum: number; pageSize: number }): Promise<Page<UserBrief>> {
    const { rows, total } = await this.d.users.page(q.keyword?.trim() || undefined, (q.pageNum - 1) * q.pageSize, q.pageSize);
    return {
      list: rows.map((r) => ({ id: r.id, username: r.username, nickname: r.nickname, headImage: r.head_image })),
      total,
      pageNum: q.pageNum,
      pageSize: q.pageSize,
    };
  }

  private async mustFind(userId: string): Promise<UserRow> {
    const user = await this.d.users.findById(userId);
    if (!user) throw new AppError(ErrorCode.SESSION_REVOKED);
    return user;
  }

  private async assertTargetFree(kind: 'phone' | 'email', target: string, userId: string): Promise<void> {
    const owner = await this.d.users.findBy(kind, target);
    if (!owner) return;
    throw new AppError(
      ErrorCode.DUPLICATE,
      owner.id === userId ? `新${FIELD_TEXT[kind]}与当前绑定的相同` : `该${FIELD_TEXT[kind]}已被其他账号使用`,
    );
  }

  private async changeContact(userId: string, kind: 'phone' | 'email', scene: CodeScene, raw: string, code: string): Promise<UserInfo> {
    const target = normalize(kind, raw);
    await this.assertTargetFree(kind, target, userId);
    const codeId = await this.d.codes.check(scene, target, code);
    await this.d.codes.consume(codeId);
    if (!(await this.d.users.update(userId, this.d.clock(), { [kind]: target }))) {
      throw new AppError(ErrorCode.DUPLICATE, `该${FIELD_TEXT[kind]}已被其他账号使用`);
    }
    return toUserInfo(await this.mustFind(userId), await this.d.access.rolesOf(userId));
  }

  /**
   * A new password (register, reset, update): decrypted and checked against the rule, 1005 naming the
   * field. An undecryptable value first costs the caller a try (`penalize`), so the field cannot be used
   * as an unlimited decryption oracle.
   */
  private async newPassword(
    field: string,
    enc: string,
    penalize: () => Promise<unknown>,
    account: { userInputs: (string | null | undefined)[]; currentHash?: string },
  ): Promise<string> {
    const password = await this.d.rsa.decrypt(enc);
    if (password === null) {
      await penalize();
      throw invalid(field, '无法解密，请刷新页面后重试');
    }
    const problem = await passwordPolicyProblem(password, account);
    if (problem) throw invalid(field, problem);
    return password;
  }
}
