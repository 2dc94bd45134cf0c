import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config';
import type { Sender } from './sender';

type SmtpConfig = Extract<Config['mail'], { kind: 'smtp' }>;

/** Real e-mail through the configured SMTP relay (STARTTLS when the server offers it, or implicit TLS). */
export class SmtpSender implements Sender {
  private readonly transport: Transporter;

  constructor(private readonly config: SmtpConfig) {
    this.transport = nodemailer.createTransport({
      host: config.host,
      port: config.port,
      secure: config.secure,
      auth: config.user ? { user: config.user, pass: config.pass ?? '' } : undefined,
      // The user is waiting for the answer of "send code": fail fast instead of nodemailer's minutes.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }

  async send(target: string, subject: string, text: string): Promise<void> {
    await this.transport.sendMail({ from: this.config.from, to: target, subject, text });
  }
}
