import { targetKind } from '@suanli/contracts';
import type { AppContext } from '../context';
import { OutboxSender } from './outbox-sender';
import type { Sender } from './sender';
import { SmtpSender } from './smtp-sender';

/**
 * The sender behind verification codes. E-mail goes through SMTP when configured, otherwise to the outbox.
 * No SMS provider is integrated yet, so phone targets always go to the outbox; a provider adapter slots in
 * here behind the same interface.
 */
export function createMailModule(deps: Pick<AppContext, 'config' | 'log'>): { sender: Sender } {
  const outbox = new OutboxSender(deps.config.dataDir, deps.log);
  const mail: Sender = deps.config.mail.kind === 'smtp' ? new SmtpSender(deps.config.mail) : outbox;
  if (deps.config.mail.kind === 'smtp') deps.log.warn('no SMS provider configured: verification codes for phone numbers go to the outbox file');
  return {
    sender: { send: (target, subject, text, meta) => (targetKind(target) === 'email' ? mail : outbox).send(target, subject, text, meta) },
  };
}
