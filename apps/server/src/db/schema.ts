// Over 400 lines: one interface per table: the whole database's shape in one place (Kysely's Database; owners in table-owners.json).
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
  status: string;
  create_time: number;
  update_time: number;
}

/** Roles granted beyond `user` (which every account has): one row per user and role (migration 0023). */
export interface UserRolesTable {
  user_id: string;
  role: string;
  create_time: number;
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

export interface TasksTable {
  id: string;
  owner_id: string;
  kind: string;
  type: string;
  name: string;
  sub_center_id: string;
  placement_reason: string;
  /** The cluster account the job runs as on that center. */
  account: string;
  card_type_id: string;
  card_num: number;
  node_num: number;
  image_id: string;
  command: string;
  /** User-visible path inside the home. */
  work_dir: string;
  /** JSON array of {name, value}. */
  env: string;
  max_duration_min: number;
  template_id: string | null;
  /** JSON object of template parameter values (slurm tasks). */
  params: string | null;
  /** JSON array of resolved mounts (TaskMount); '[]' when none (the column's default). */
  mounts: string;
  state: string;
  reason: string;
  estimated_start: number | null;
  job_id: string | null;
  exit_code: number | null;
  /** User-visible path of the log. */
  log_path: string;
  submit_attempts: number;
  create_time: number;
  update_time: number;
  start_time: number | null;
  end_time: number | null;
  /** 1 once the owner was warned that 最长运行时长 is near (develop tasks). */
  expiry_warned: number;
  /** Whose buckets it draws from: null = the owner, `team:<id>` = a team (migration 0033, ADR 0017). */
  payer_id?: string | null;
  /** 1 while the task waits (CREATED) for a mounted version to be synced to its center (ADR 0010 §8). */
  waiting_data: number;
  /**
   * Address of the (first) node the scheduler allocated to the running job, as the scheduler reports it
   * (local executor: loopback): where the IDE proxy connects, never a host a job's file names (ADR 0014).
   */
  exec_host: string | null;
  /**
   * The console's id of the submission that made the task (unique per owner, null when none was sent or
   * after a day, when the id may name a new task): a retried submission answers this task.
   */
  client_request_id: string | null;
  /** The scheduler's own reason code of the end (`OutOfMemory`, `TimeLimit`…), for the diagnosis (issue 23). */
  reason_code: string | null;
  /** The signal that ended the job, when known (9 = SIGKILL). */
  exit_signal: number | null;
  /** JSON of the executor's JobUsage at the end (peak memory, CPU time…), or null when it gave none. */
  job_usage: string | null;
  /** The owner's task this one was resubmitted from (按建议重新提交, 复制并重新提交), or null. */
  resubmitted_from: string | null;
}

/** One-minute, single-use tickets of 打开 (ADR 0014): exchanging one deletes its row. */
export interface IdeTicketsTable {
  /** sha256 of the ticket (the ticket itself is never stored). */
  hash: string;
  task_id: string;
  user_id: string;
  session_id: string;
  expire_time: number;
}

export interface TaskEventsTable {
  id: string;
  task_id: string;
  state: string;
  reason: string;
  time: number;
}

export interface SlurmTemplatesTable {
  id: string;
  owner_id: string;
  name: string;
  description: string;
  category: string;
  script: string;
  /** JSON array of template parameters. */
  params: string;
  /** JSON object of default resources (partition/cardType, nodes, ntasks, time limit). */
  defaults: string;
  create_time: number;
  update_time: number;
}

/** One holder per name until expires_at (the poller of each center, the runner of each sync job; see db/lease.repository.ts). */
export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

/** A web shell or develop-task proxy session (migration 0008, modules/access-log). */
export interface AccessSessionsTable {
  id: string;
  kind: string;
  user_id: string;
  sub_center_id: string;
  account: string;
  target: string;
  client_ip: string;
  start_time: number;
  end_time: number | null;
  end_reason: string;
  /** Last renewal by the gateway process holding the session (shells); null for records no process holds. */
  seen_time: number | null;
}

export interface KeyPairsTable {
  id: string;
  user_id: string;
  name: string;
  type: string;
  bits: number;
  public_key: string;
  fingerprint: string;
  source: string;
  create_time: number;
}

export interface KeyInstallsTable {
  key_id: string;
  sub_center_id: string;
  account: string;
  install_time: number;
}

export interface PlatformKeysTable {
  user_id: string;
  public_key: string;
  private_key_enc: string;
  create_time: number;
}

export interface ResourceSamplesTable {
  sub_center_id: string;
  card_type_id: string;
  at: number;
  online: number;
  total: number;
  allocated: number;
  queued: number;
  nodes_total: number;
  nodes_idle: number;
}

/** Datasets and models (kind); tags and metrics are JSON text. */
/** Requests to make an image tag public (migration 0031). */
export interface ImagePublicationsTable {
  id: string;
  owner_id: string;
  /** `<namespace>/<repository>:<tag>` */
  source: string;
  digest: string;
  /** `public/<namespace>/<repository>:<tag>` */
  target: string;
  /** pending | approved | rejected */
  state: string;
  reason: string;
  create_time: number;
  review_time: number | null;
}

export interface AssetsTable {
  id: string;
  kind: string;
  owner_id: string;
  name: string;
  description: string;
  tags: string;
  license: string;
  visibility: string;
  publish_state: string;
  /** Why the last publication request was rejected (empty otherwise). */
  publish_reason: string;
  publish_review_time: number | null;
  framework: string;
  format: string;
  metrics: string;
  create_time: number;
  update_time: number;
}

export interface AssetVersionsTable {
  id: string;
  asset_id: string;
  version: number;
  sub_center_id: string;
  source_path: string;
  state: string;
  reason: string;
  size_bytes: number;
  file_count: number;
  digest: string;
  note: string;
  source_task_id: string | null;
  create_time: number;
}

export interface AssetSharesTable {
  asset_id: string;
  user_id: string;
  create_time: number;
}

export interface AssetTeamSharesTable {
  asset_id: string;
  team_id: string;
  create_time: number;
}

export interface RegistryCredentialsTable {
  user_id: string;
  password_hash: string;
  create_time: number;
}

export interface ImageImportsTable {
  id: string;
  owner_id: string;
  sub_center_id: string;
  path: string;
  repository: string;
  tag: string;
  format: string;
  /** running | succeeded | failed */
  state: string;
  percent: number;
  message: string;
  digest: string;
  create_time: number;
  update_time: number;
}

export interface SyncJobsTable {
  id: string;
  owner_id: string;
  source_center_id: string;
  source_path: string;
  target_center_id: string;
  target_dir: string;
  target_path: string;
  /** SyncState */
  state: string;
  bytes_done: number;
  bytes_total: number;
  files_done: number;
  files_total: number;
  message: string;
  retries: number;
  /** sha256 of the job's current grant ('' once finished). */
  grant_hash: string;
  /** `path` (a user's folder or file) or `version` (a dataset/model version into the target's asset area). */
  kind: string;
  asset_id: string;
  version_id: string;
  /** What a version job copies, as the console shows it (`数据集「MNIST」v1`); '' for path jobs. */
  label: string;
  /** 1 once a cancel reached a replica that does not run the job: the holder stops it (0016). */
  cancel_requested: number;
  /**
   * > 0 while what the job left on the receiver (its hidden folder, staged chunks) is still to be removed:
   * the earliest time of the next try (0018). 0 once removed, or nothing was left.
   */
  discard_after: number;
  create_time: number;
  update_time: number;
  finish_time: number | null;
}

export interface WorkOrdersTable {
  id: string;
  /** `GD` + yyyyMMdd (UTC+8) + 4 digits, unique. */
  order_no: string;
  owner_id: string;
  /** WorkOrderType */
  type: string;
  title: string;
  description: string;
  /** WorkOrderState */
  state: string;
  /** One of the owner's tasks, when linked. */
  task_id: string | null;
  reply_count: number;
  /** `user` | `operator`; null before the first reply. */
  last_reply_by: string | null;
  create_time: number;
  update_time: number;
}

export interface WorkOrderRepliesTable {
  id: string;
  work_order_id: string;
  author_id: string;
  /** `user` | `operator`: who the author answered as. */
  author_role: string;
  content: string;
  create_time: number;
}

export interface WorkOrderAttachmentsTable {
  id: string;
  uploader_id: string;
  name: string;
  size: number;
  /** From the sniffed bytes, never from the client. */
  content_type: string;
  data: Buffer;
  /** Null while unused. */
  work_order_id: string | null;
  /** The reply it belongs to; null (with work_order_id set) for the description. */
  reply_id: string | null;
  create_time: number;
}

/** Per user: work orders that are not CLOSED (kept by the repository with every create and close). */
export interface WorkOrderOpenCountsTable {
  user_id: string;
  n: number;
}

/** An order of a compute package (ADR 0012). Money in 分, compute in card-seconds. */
export interface OrdersTable {
  id: string;
  /** `DD` + yyyyMMdd (UTC+8) + 4 digits, unique. */
  order_no: string;
  owner_id: string;
  product_id: string;
  product_name: string;
  sub_center_id: string;
  card_type_id: string;
  quantity: number;
  card_seconds: number;
  amount: number;
  valid_days: number;
  /** OrderStatus */
  status: string;
  /** PayChannel, once chosen. */
  pay_channel: string | null;
  trade_no: string | null;
  confirmed_by: string | null;
  create_time: number;
  pay_time: number | null;
  expire_time: number;
  update_time: number;
  /** Who the compute power goes to: null = the buyer, `team:<id>` = a team (migration 0033, ADR 0017). */
  payer_id?: string | null;
}

/** What a payment credited: one per order (unique order_id), with the bucket it created. */
/** A payment's credit (kind `order`) or a grant (kind `grant`: no order, no channel; migration 0024). */
export interface ChargeRecordsTable {
  id: string;
  owner_id: string;
  kind: string;
  order_id: string | null;
  order_no: string | null;
  amount: number;
  card_seconds: number;
  comp_power_id: string;
  sub_center_id: string;
  card_type_id: string;
  pay_channel: string | null;
  reason: string;
  granted_by: string | null;
  /** Unique: a grant given once per key (`welcome:<user>:<center>:<cardType>`). */
  grant_key: string | null;
  create_time: number;
}

/** How far a task has been metered (migration 0024, ADR 0015). */
export interface TaskMetersTable {
  task_id: string;
  owner_id: string;
  sub_center_id: string;
  card_type_id: string;
  /** Elapsed whole seconds since the task's start already metered. */
  metered: number;
  /** Card-seconds drawn (net of returns). */
  drawn: number;
  /** Card-seconds the buckets could not cover. */
  shortfall: number;
  /** 1 once the final draw is done. */
  settled: number;
  create_time: number;
  update_time: number;
}

/** A job run outside the console (issue 25, migration 0036), keyed `<center>:<jobId>` like its meter. */
export interface OutsideJobsTable {
  id: string;
  sub_center_id: string;
  job_id: string;
  account: string;
  owner_id: string;
  card_type_id: string;
  name: string;
  partition: string;
  /** The platform's JobState. */
  state: string;
  slurm_state: string;
  stop_reason: string | null;
  card_num: number;
  node_num: number;
  submit_time: number | null;
  start_time: number | null;
  end_time: number | null;
  create_time: number;
  update_time: number;
}

/** 消费记录: a task's draws from one bucket on one day (UTC+8), summed (migration 0024). */
export interface ConsumeRecordsTable {
  id: string;
  owner_id: string;
  task_id: string;
  task_kind: string;
  task_name: string;
  sub_center_id: string;
  card_type_id: string;
  card_num: number;
  node_num: number;
  comp_power_id: string;
  day: string;
  /** Who ran the task (a team's records: the member); null = the owner (migration 0033). */
  user_id?: string | null;
  card_seconds: number;
  elapsed_from: number;
  elapsed_to: number;
  start_time: number;
  end_time: number;
  create_time: number;
  update_time: number;
}

export interface MeteringCursorsTable {
  sub_center_id: string;
  since: number;
}

/** The limit last set on a cluster account's association per center (migration 0034, issue 25). */
export interface BalanceLimitsTable {
  sub_center_id: string;
  account: string;
  owner_id: string;
  /** 1: held (`GrpTRES=gres/<name>=0`); 0: no limit. */
  limited: number;
  update_time: number;
}

/** 审计日志: one row per operator action, append-only (migration 0028; triggers refuse UPDATE and DELETE). */
export interface AuditLogTable {
  id: string;
  actor_kind: string;
  actor_id: string | null;
  actor_name: string;
  action: string;
  target_type: string;
  target_id: string;
  target_name: string;
  before_json: string | null;
  after_json: string | null;
  reason: string;
  ip: string | null;
  create_time: number;
}

/** A center's status as operators set it (migration 0029; the centers file's value until the first change). */
export interface CenterStatesTable {
  center_id: string;
  status: string;
  notice: string;
  update_time: number | null;
  create_time: number;
}

/** A package (算力卡) a center sells (migration 0029): 卡时 and validity whole, the price in 分. */
export interface CenterPackagesTable {
  id: string;
  center_id: string;
  card_type_id: string;
  name: string;
  card_hours: number;
  price: number;
  valid_days: number;
  sort: number;
}

export interface TeamsTable {
  id: string;
  /** Unique per owner. */
  name: string;
  description: string;
  /** The member whose role is `owner`. */
  owner_id: string;
  create_time: number;
  update_time: number;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  /** TeamRole: owner | admin | member. */
  role: string;
  join_time: number;
}

export interface TeamInvitationsTable {
  id: string;
  team_id: string;
  invitee_id: string;
  inviter_id: string;
  /** pending | accepted | declined | expired | cancelled (a pending row past expire_time reads as expired). */
  state: string;
  create_time: number;
  expire_time: number;
  answer_time: number | null;
}

/** A member's monthly card-hour limit on team-paid tasks (migration 0033, ADR 0017). */
export interface TeamMemberLimitsTable {
  team_id: string;
  user_id: string;
  /** Card-seconds per calendar month (UTC+8), all card types together. */
  card_seconds: number;
  set_by: string;
  update_time: number;
}

export interface Database {
  users: UsersTable;
  user_roles: UserRolesTable;
  sessions: SessionsTable;
  verification_codes: VerificationCodesTable;
  rsa_keys: RsaKeysTable;
  login_failures: LoginFailuresTable;
  messages: MessagesTable;
  message_counts: MessageCountsTable;
  cluster_accounts: ClusterAccountsTable;
  comp_power_buckets: CompPowerBucketsTable;
  tasks: TasksTable;
  ide_tickets: IdeTicketsTable;
  task_events: TaskEventsTable;
  slurm_templates: SlurmTemplatesTable;
  leases: LeasesTable;
  access_sessions: AccessSessionsTable;
  key_pairs: KeyPairsTable;
  key_installs: KeyInstallsTable;
  platform_keys: PlatformKeysTable;
  resource_samples: ResourceSamplesTable;
  assets: AssetsTable;
  asset_versions: AssetVersionsTable;
  asset_shares: AssetSharesTable;
  asset_team_shares: AssetTeamSharesTable;
  registry_credentials: RegistryCredentialsTable;
  image_imports: ImageImportsTable;
  image_publications: ImagePublicationsTable;
  sync_jobs: SyncJobsTable;
  work_orders: WorkOrdersTable;
  work_order_replies: WorkOrderRepliesTable;
  work_order_attachments: WorkOrderAttachmentsTable;
  work_order_open_counts: WorkOrderOpenCountsTable;
  orders: OrdersTable;
  charge_records: ChargeRecordsTable;
  task_meters: TaskMetersTable;
  outside_jobs: OutsideJobsTable;
  consume_records: ConsumeRecordsTable;
  metering_cursors: MeteringCursorsTable;
  balance_limits: BalanceLimitsTable;
  audit_log: AuditLogTable;
  center_states: CenterStatesTable;
  center_packages: CenterPackagesTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_invitations: TeamInvitationsTable;
  team_member_limits: TeamMemberLimitsTable;
}
