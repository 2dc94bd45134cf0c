import type { FastifyInstance } from 'fastify';
import { createUserService } from './modules/user/user.routes';
import { UserRepository } from './modules/user/user.repository';

export const DEMO_ACCOUNT = { username: 'demo', password: 'Demo@123456', nickname: '演示用户', email: 'demo@suanli.local' } as const;

/**
 * The embedded default's demo account: created if missing (so it is idempotent and never resets a password
 * someone changed), then printed, so whoever ran `npm start` can sign in right away.
 */
export async function seedDemo(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const existing = await new UserRepository(ctx.db).findBy('username', DEMO_ACCOUNT.username);
  if (!existing) {
    const { service } = createUserService(app, ctx);
    await service.createAccount(DEMO_ACCOUNT);
  }
  const url = `${ctx.config.publicUrl}/console`;
  console.log(
    [
      '',
      '  ┌──────────────── 算力调度服务平台 ────────────────',
      `  │ 控制台:   ${url}`,
      `  │ 演示账号: ${DEMO_ACCOUNT.username}`,
      `  │ 密码:     ${DEMO_ACCOUNT.password}${existing ? '（若已修改则以修改后的为准）' : ''}`,
      // Phone codes always land in the outbox (no SMS provider yet); e-mail too unless SMTP is configured.
      `  │ 验证码发件箱: ${ctx.config.dataDir}/outbox/messages.jsonl`,
      '  └─────────────────────────────────────────────────',
      '',
    ].join('\n'),
  );
}
