import type { CenterConfig } from './centers/centers';
import type { Config } from './config';
import type { Db, Engine } from './db/db';
import type { SessionService } from './modules/auth/session.service';
import type { ClusterAccountService } from './modules/cluster-account/cluster-account.service';
import type { EventBus } from './realtime/bus';
import type { MessageType } from '@suanli/contracts';

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

/** What every module is built from (the composition root is buildApp). */
export interface AppContext {
  config: Config;
  db: Db;
  engine: Engine;
  clock: () => number;
  centers: CenterConfig[];
  sessions: SessionService;
  clusterAccounts: ClusterAccountService;
  bus: EventBus;
  notify: Notify;
  notifyEach: NotifyEach;
}
