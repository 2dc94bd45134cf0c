import { loadConfig } from '../config';
import { exitOnConfigError } from '../lib/config-check';
import { openAdminTools, runAdminCommand } from './admin-command';

// The gateway's environment, checked the same way: a wrong value stops here naming it (exit code 2).
const config = await exitOnConfigError('admin command', () => loadConfig());
const { tools, close } = await openAdminTools(config);
try {
  process.exitCode = await runAdminCommand(process.argv.slice(2), tools, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
} finally {
  await close();
}
