import { CODE_MAX_ATTEMPTS, CODE_MAX_PER_DAY, CODE_TTL_MS, ErrorCode, type CodeScene } from '@suanli/contracts';
import { AppError } from '../../errors';
import { newId } from '../../lib/id';
import type { Sender } from '../../mail/sender';
import type { VerificationCodeRepository } from './verification-code.repository';
import { codeMatches, codeState, dayStart, generateCode, hashCode, resendWaitSeconds } from './verification-code.rules';

const SCENE_TEXT: Record<CodeScene, string> = {
  register: '注册账号',
  reset: '找回密码',
  updatePhone: '更换手机号',
  bindEmail: '绑定邮箱',
};

const stale = () => new AppError(ErrorCode.WRONG_CODE, '验证码已失效，请重新获取');

/**
 * Six-digit codes: stored salted-hashed, valid 5 minutes, single use, dead after 5 wrong tries; at most one
 * send per target per 60 s and 10 per target per day (UTC+8). Which scene may send to which target is the
 * user service's business; this only issues and checks.
 */
export class VerificationCodeService {
  constructor(
    private readonly repo: VerificationCodeRepository,
    private readonly sender: Sender,
    private readonly clock: () => number,
    private readonly onBackgroundError: (err: unknown) => void,
  ) {}

  /**
   * Applies the send limits, stores a new code and sends it. With `deliver: false` the code is stored and
   * counted but not sent (password reset for an unknown target); `background: true` sends without waiting,
   * so the answer takes the same time whether or not anything was sent.
   */
  async issue(scene: CodeScene, target: string, opts: { deliver: boolean; background?: boolean }): Promise<void> {
    const now = this.clock();
    const { last, count } = await this.repo.sendStats(target, dayStart(now));
    const wait = resendWaitSeconds(last, now);
    if (wait > 0) throw new AppError(ErrorCode.NO_PERMISSION, `验证码发送过于频繁，请${wait}秒后再试`);
    if (count >= CODE_MAX_PER_DAY) throw new AppError(ErrorCode.NO_PERMISSION, `今日获取验证码次数已达上限（${CODE_MAX_PER_DAY}次），请明天再试`);

    const code = generateCode();
    const id = newId();
    await this.repo.insert({ id, scene, target, codeHash: hashCode(code), now, expireTime: now + CODE_TTL_MS });
    if (!opts.deliver) return;
    const minutes = CODE_TTL_MS / 60_000;
    const text = `您正在${SCENE_TEXT[scene]}，验证码为 ${code}，${minutes} 分钟内有效。如非本人操作，请忽略。`;
    const send = this.sender.send(target, '【算力调度服务平台】验证码', text, { scene, code });
    if (opts.background) {
      send.catch(this.onBackgroundError);
      return;
    }
    try {
      await send;
    } catch (err) {
      // Undelivered: do not let it count against the user's limits.
      await this.repo.delete(id);
      this.onBackgroundError(err);
      throw new AppError(ErrorCode.THIRD_PARTY_FAILED, '验证码发送失败，请稍后再试');
    }
  }

  /**
   * Checks a code without using it up, so a later validation failure does not cost the user their code.
   * Returns the code's id for `consume`/`burn`. A wrong code counts a try; the 5th wrong try kills it.
   */
  async check(scene: CodeScene, target: string, code: string): Promise<string> {
    const row = await this.repo.latest(scene, target);
    if (!row || codeState(row, this.clock()) !== 'usable') throw stale();
    if (!codeMatches(row.code_hash, code)) {
      const left = CODE_MAX_ATTEMPTS - (await this.repo.addAttempt(row.id));
      throw new AppError(ErrorCode.WRONG_CODE, left > 0 ? `验证码错误，还可尝试${left}次` : '验证码错误次数过多，已失效，请重新获取');
    }
    return row.id;
  }

  /** Uses the code up; fails if it was used, expired or killed since `check` (a concurrent request). */
  async consume(id: string): Promise<void> {
    if (!(await this.repo.consume(id, this.clock()))) throw stale();
  }

  /**
   * Counts a try against a code that matched but came with an undecryptable password: without this, one
   * code would allow unlimited decryption probes (a padding oracle behind the code check).
   */
  async burn(id: string): Promise<void> {
    await this.repo.addAttempt(id);
  }
}
