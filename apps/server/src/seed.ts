import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import { PLATFORM_ACCOUNT, seedPublicAssets, unusablePassword } from './modules/asset/public-seed';
import { submitDemoTask } from './modules/training/demo-task';
import { systemPrincipal } from './modules/access/principal';

export const DEMO_ACCOUNT = { username: 'demo', password: 'Demo@123456', nickname: '演示用户', email: 'demo@suanli.local' } as const;

/** The demo account's grant (ADR 0015): 卡时 on every card type, once, so its demo task and first steps run. */
export const DEMO_GRANT = { cardHours: 100, validDays: 365 } as const;

/**
 * The embedded default's demo account: created if missing (so it is idempotent and never resets a password
 * someone changed), then printed, so whoever ran `npm start` can sign in right away.
 */
export async function seedDemo(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const byName = async (username: string) => (await ctx.userDirectory.named([username]))[0];
  const existing = await byName(DEMO_ACCOUNT.username);
  let demoTask = '';
  if (existing) await app.order.grants.demo(existing.id, DEMO_GRANT.cardHours, DEMO_GRANT.validDays);
  if (!existing) {
    const created = await app.users.createAccount(DEMO_ACCOUNT);
    // A first start also runs a small real training task, so the task pages have something live to show.
    if (created) {
      await app.order.grants.demo(created.id, DEMO_GRANT.cardHours, DEMO_GRANT.validDays);
      const task = await submitDemoTask(app.tasks.service, ctx.clusterAccounts, ctx.storage, systemPrincipal(created.id)).catch((err: unknown) => {
        app.log.warn({ err }, 'demo task not submitted');
        return null;
      });
      if (task) demoTask = `${ctx.config.publicUrl}/console/training/detail/train/${task.id}`;
    }
  }
  // The public hall's seed datasets and model, owned by the platform account.
  await seedPublicAssets({
    dir: path.join(path.dirname(ctx.config.centersFile), 'public-assets'),
    centers: ctx.centers,
    clusterAccounts: ctx.clusterAccounts,
    storage: ctx.storage,
    services: { dataset: app.assets.datasets, model: app.assets.models },
    platformUser: async () => {
      const found = await byName(PLATFORM_ACCOUNT.username);
      if (found) return found.id;
      const created = await app.users.createAccount({ ...PLATFORM_ACCOUNT, password: unusablePassword() });
      return created?.id ?? (await byName(PLATFORM_ACCOUNT.username))!.id;
    },
  }).catch((err: unknown) => app.log.warn({ err }, 'public assets not seeded'));
  const url = `${ctx.config.publicUrl}/console`;
  // 运营管理 is reachable only once someone at the server has made the first operator (README "Operators").
  const noOperator = !(await ctx.access.holders('operator')).length;
  console.log(
    [
      '',
      '  ┌──────────────── 算力调度服务平台 ────────────────',
      `  │ 控制台:   ${url}`,
      `  │ 演示账号: ${DEMO_ACCOUNT.username}`,
      `  │ 密码:     ${DEMO_ACCOUNT.password}${existing ? '（若已修改则以修改后的为准）' : ''}`,
      // Phone codes always land in the outbox (no SMS provider yet); e-mail too unless SMTP is configured.
      `  │ 验证码发件箱: ${ctx.config.dataDir}/outbox/messages.jsonl`,
      ...(demoTask ? [`  │ 示例训练任务: ${demoTask}`] : []),
      ...(noOperator ? [`  │ 运营管理: 还没有运营人员，设置第一位：npm run admin -- operator add ${DEMO_ACCOUNT.username}`] : []),
      '  └─────────────────────────────────────────────────',
      '',
    ].join('\n'),
  );
}
