/**
 * Table types for Kysely. Conventions that hold on both engines: ids are text, times are epoch ms in
 * bigint columns (parsed to number on PostgreSQL), booleans are integers 0/1, money and compute power are
 * integers (分, card-seconds).
 */
export interface UsersTable {
  id: string;
  username: string;
  nickname: string;
  phone: string | null;
  email: string | null;
  password_hash: string;
  head_image: string | null;
  roles: string;
  status: string;
  create_time: number;
  update_time: number;
}

export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  create_time: number;
  last_seen: number;
  revoked_at: number | null;
  revoke_reason: string | null;
  ip: string | null;
  user_agent: string | null;
}

export interface VerificationCodesTable {
  id: string;
  scene: string;
  target: string;
  code_hash: string;
  create_time: number;
  expire_time: number;
  attempts: number;
  used_at: number | null;
}

export interface RsaKeysTable {
  id: string;
  public_pem: string;
  private_pem: string;
  active: number;
  create_time: number;
}

export interface LoginFailuresTable {
  subject: string;
  failures: number;
  first_failed_at: number | null;
  locked_until: number | null;
}

export interface MessagesTable {
  id: string;
  user_id: string;
  type: string;
  title: string;
  content: string;
  business_type: string | null;
  business_id: string | null;
  viewed: number;
  create_time: number;
}

/** A user's messages per (type, viewed); see MessageRepository for how it stays exact. */
export interface MessageCountsTable {
  user_id: string;
  type: string;
  viewed: number;
  n: number;
}

export interface ClusterAccountsTable {
  user_id: string;
  sub_center_id: string;
  account: string;
  uid: number;
  home_dir: string;
  status: string;
  create_time: number;
}

export interface CompPowerBucketsTable {
  id: string;
  owner_id: string;
  sub_center_id: string;
  card_type_id: string;
  granted: number;
  remaining: number;
  expire_time: number;
  source: string;
  create_time: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  verification_codes: VerificationCodesTable;
  rsa_keys: RsaKeysTable;
  login_failures: LoginFailuresTable;
  messages: MessagesTable;
  message_counts: MessageCountsTable;
  cluster_accounts: ClusterAccountsTable;
  comp_power_buckets: CompPowerBucketsTable;
}
