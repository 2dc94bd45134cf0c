/** Extra facts about a message that only local implementations record (the outbox), never a real channel. */
export interface SendMeta {
  scene?: string;
  code?: string;
}

/**
 * One way to reach a person: an e-mail address or a mobile number. Real channels (SMTP, an SMS provider)
 * and the embedded outbox implement the same interface, so the user service never knows which it talks to;
 * mail.module.ts decides which one serves a target.
 */
export interface Sender {
  send(target: string, subject: string, text: string, meta?: SendMeta): Promise<void>;
}
