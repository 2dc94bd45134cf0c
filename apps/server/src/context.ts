import type { FastifyBaseLogger } from 'fastify';
import type { MessageType } from '@suanli/contracts';
import type { CenterConfig, OfflinePayment } from './centers/centers';
import type { CenterStorages } from './center-storage/center-storage';
import type { Config } from './config';
import type { Db, Engine } from './db/db';
import type { AccessService } from './modules/access/access.service';
import type { AuditTrail } from './modules/audit/audit.service';
import type { SessionService } from './modules/auth/session.service';
import type { ClusterAccountService } from './modules/cluster-account/cluster-account.service';
import type { Sender } from './mail/sender';
import type { UserDirectory } from './modules/user/user-directory';
import type { EventBus } from './realtime/bus';

export interface NewMessage {
  type: MessageType;
  title: string;
  content: string;
  businessType?: string;
  businessId?: string;
}

/** Creates a message for a user and pushes `notice.unread.increment` to their sockets. Every module uses it. */
export type Notify = (userId: string, message: NewMessage) => Promise<void>;

/**
 * The same message to many users (an announcement): what a loop of `notify` does, in a few transactions
 * instead of one per user (each a commit with an fsync), each batch of users pushed right after its commit.
 */
export type NotifyEach = (userIds: readonly string[], message: NewMessage) => Promise<void>;

/** What exists before any module: opened by buildApp from the config. */
export interface Infra {
  config: Config;
  db: Db;
  engine: Engine;
  clock: () => number;
  centers: CenterConfig[];
  /** `payment.offline` of the centers file: the account an offline transfer goes to; absent, not offered. */
  offlinePayment?: OfflinePayment;
  /**
   * Each center's storage (center-storage/, ADR 0016): the only way modules reach a center's disk — on this
   * host or through the center's file service, as the centers file says.
   */
  storage: CenterStorages;
  bus: EventBus;
  log: FastifyBaseLogger;
}

/**
 * Infra plus the services every module may use, each from the module that owns it. Built once in boot order
 * in app.ts and never changed afterwards; a module factory declares the part it needs with
 * `Pick<AppContext, …>` (docs/adding-a-module.md).
 */
export interface AppContext extends Infra {
  /** Accounts as other modules read them: names, lookups by username, account state (user module). */
  userDirectory: UserDirectory;
  /** Every permission check: roles, ownership, shares (access module; docs/adding-a-module.md §4). */
  access: AccessService;
  sessions: SessionService;
  /**
   * The audit trail every operator action writes through, in the transaction of its effect (audit module;
   * docs/adding-a-module.md "Operator actions").
   */
  audit: AuditTrail;
  clusterAccounts: ClusterAccountService;
  /** Verification codes by e-mail or SMS (mail.module.ts). */
  sender: Sender;
  notify: Notify;
  notifyEach: NotifyEach;
}
