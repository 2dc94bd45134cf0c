import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { SendMeta, Sender } from './sender';

/**
 * The embedded default for e-mail and SMS: appends one JSON line per message to
 * `${dataDir}/outbox/messages.jsonl` and logs it, so a developer (and the tests, and the e2e run) can read
 * verification codes without a mail server or SMS account. Not for production: it writes codes to disk.
 */
export class OutboxSender implements Sender {
  readonly file: string;

  constructor(
    dataDir: string,
    private readonly log: FastifyBaseLogger,
  ) {
    this.file = path.join(dataDir, 'outbox', 'messages.jsonl');
  }

  async send(target: string, subject: string, text: string, meta: SendMeta = {}): Promise<void> {
    const line = { time: Date.now(), target, scene: meta.scene ?? null, code: meta.code ?? null, subject, text };
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    // One appendFile per line: O_APPEND writes of a short line are not interleaved between processes.
    await fs.appendFile(this.file, `${JSON.stringify(line)}\n`);
    this.log.info({ outbox: this.file }, `outbox → ${target}: ${text}`);
  }
}
