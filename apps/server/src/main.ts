import { buildApp } from './app';
import { loadConfig } from './config';
import { exitOnConfigError } from './lib/config-check';
import { seedDemo } from './seed';

// A wrong environment value or centers file ends the start here with the field's name (exit code 2).
const { config, app } = await exitOnConfigError('gateway', async () => {
  const config = loadConfig();
  return { config, app: await buildApp(config) };
});
if (config.seedDemo) await seedDemo(app);
await app.listen({ host: config.host, port: config.port });
app.log.info(`console: ${config.publicUrl}/console  ·  API docs: ${config.publicUrl}/gateway/docs`);
// Nobody can reach 运营管理 until someone at the server makes the first operator (README "Operators"); the
// demo seed's banner says so too.
if (!(await app.ctx.access.holders('operator')).length) {
  app.log.info('no operator yet: make the first one with `npm run admin -- operator add <username>` (an account registered in the console)');
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}
