import { randomBytes } from 'node:crypto';
import { DOWNLOAD_TICKET_TTL_MS, ErrorCode, FileTransferApi, errorMessage, routeUrl, teamSpace, type DownloadTicket } from '@suanli/contracts';
import { AppError } from '../errors';
import type { DownloadPlan, DownloadService } from './download.service';
import { spaceKey, type FileIdentity, type FileUser } from './identity';

/** Live tickets one account may hold; the oldest is dropped beyond it, so a loop on the issue call cannot grow memory. */
const PER_ACCOUNT_MAX = 16;
/** 32 random bytes in base64url. */
const TICKET = /^[A-Za-z0-9_-]{43}$/;

interface Grant {
  /** The issuing session's token: re-verified on every use, so a logout or password change ends the ticket. */
  token: string;
  /** The space the ticket was issued in (`spaceKey`) and its header value, resolved again on every use. */
  account: string;
  space?: string;
  paths: string[];
  expiresAt: number;
}

const invalidTicket = () => new AppError(ErrorCode.DOWNLOAD_FAILED, `${errorMessage(ErrorCode.DOWNLOAD_FAILED)}：下载链接无效或已过期，请重新下载`);

/**
 * Short-lived download URLs (docs/plan/3.md "Browser-managed downloads"): the browser cannot send the
 * `token` header when it navigates, so `issue` checks the caller and the paths and answers a URL with a
 * 256-bit random ticket; `open` checks everything again — the ticket, the issuing session (through the same
 * identity as every call), the paths — and plans the same answer as `POST /file/download`. A ticket may be
 * used repeatedly until it expires (a browser resumes with Range requests) and only for the paths it was
 * issued for. Tickets live in this process's memory: a restart invalidates them and the console asks again.
 */
export class DownloadTickets {
  private readonly grants = new Map<string, Grant>();
  private readonly ttlMs: number;

  constructor(private readonly opts: { service: DownloadService; identity: FileIdentity; clock: () => number; ttlMs?: number }) {
    this.ttlMs = opts.ttlMs ?? DOWNLOAD_TICKET_TTL_MS;
  }

  async issue(user: FileUser, token: string, paths: string[]): Promise<DownloadTicket> {
    await this.opts.service.checkDownload(user, paths);
    this.limit(spaceKey(user));
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = this.opts.clock() + this.ttlMs;
    this.grants.set(ticket, { token, account: spaceKey(user), space: user.team ? teamSpace(user.team) : undefined, paths, expiresAt });
    // Real time: the entry (and the token it holds) leaves memory once it can no longer be valid; `open`
    // still compares with the service's clock, which tests move.
    setTimeout(() => this.grants.delete(ticket), this.ttlMs).unref();
    return { url: routeUrl(FileTransferApi.ticketDownload, { ticket }), expiresAt };
  }

  /** Unknown, malformed and expired tickets all answer the same 1312, so nothing can be learnt by probing. */
  async open(ticket: string): Promise<DownloadPlan> {
    const grant = TICKET.test(ticket) ? this.grants.get(ticket) : undefined;
    if (!grant || grant.expiresAt <= this.opts.clock()) throw invalidTicket();
    // A member who left the team since is refused here like anyone else (1205 from the identity).
    const user = await this.opts.identity.resolve(grant.token, grant.space);
    if (spaceKey(user) !== grant.account) throw invalidTicket();
    return this.opts.service.planDownload(user, grant.paths);
  }

  /** Makes room for one more ticket of `account` by dropping its oldest ones (Map order = issue order). */
  private limit(account: string) {
    const mine = [...this.grants].filter(([, g]) => g.account === account);
    for (const [ticket] of mine.slice(0, Math.max(0, mine.length - PER_ACCOUNT_MAX + 1))) this.grants.delete(ticket);
  }
}
