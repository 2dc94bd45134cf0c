import { buildApp } from './app';
import { loadConfig } from './config';
import { seedDemo } from './seed';

const config = loadConfig();
const app = await buildApp(config);
if (config.seedDemo) await seedDemo(app);
await app.listen({ host: config.host, port: config.port });
app.log.info(`console: ${config.publicUrl}/console  ·  API docs: ${config.publicUrl}/gateway/docs`);

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}
