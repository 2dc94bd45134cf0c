import type { FastifyBaseLogger } from 'fastify';
import { targetKind } from '@suanli/contracts';
import type { Config } from '../config';
import { OutboxSender } from './outbox-sender';
import { SmtpSender } from './smtp-sender';

/** Extra facts about a message that only local implementations record (the outbox), never a real channel. */
export interface SendMeta {
  scene?: string;
  code?: string;
}

/**
 * One way to reach a person: an e-mail address or a mobile number. Real channels (SMTP, an SMS provider)
 * and the embedded outbox implement the same interface, so the user service never knows which it talks to.
 */
export interface Sender {
  send(target: string, subject: string, text: string, meta?: SendMeta): Promise<void>;
}

/**
 * E-mail goes through SMTP when configured, otherwise to the outbox. No SMS provider is integrated yet, so
 * phone targets always go to the outbox; a provider adapter slots in here behind the same interface.
 */
export function createSender(config: Config, log: FastifyBaseLogger): Sender {
  const outbox = new OutboxSender(config.dataDir, log);
  const mail: Sender = config.mail.kind === 'smtp' ? new SmtpSender(config.mail) : outbox;
  if (config.mail.kind === 'smtp') log.warn('no SMS provider configured: verification codes for phone numbers go to the outbox file');
  return {
    send: (target, subject, text, meta) => (targetKind(target) === 'email' ? mail : outbox).send(target, subject, text, meta),
  };
}
