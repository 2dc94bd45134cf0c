import {
  AUDIT_ACTION_LABELS,
  AUDIT_TARGET_LABELS,
  DICTS,
  ORDER_STATUSES,
  SUB_CENTER_STATUS_LABELS,
  type AccountStatus,
  type AuditEntry,
  type CenterPackage,
  type Role,
} from '@suanli/contracts';
import { CHANNEL_LABELS, STATUS_LABELS as ORDER_STATUS_LABELS } from '../order/order-view';
import { Space, Tag, Typography } from 'antd';

export const ROLE_LABELS: Record<Role, string> = { user: '普通用户', operator: '运营人员' };
export const STATUS_LABELS: Record<AccountStatus, string> = { active: '正常', disabled: '已禁用' };

export function StatusTag({ status }: { status: AccountStatus }) {
  return (
    <Tag color={status === 'active' ? 'green' : 'red'} style={{ marginInlineEnd: 0 }} data-testid="admin-user-status" data-status={status}>
      {STATUS_LABELS[status] ?? status}
    </Tag>
  );
}

/** Operators are marked; every account is a 普通用户, so that tag is left out of lists. */
export function RoleTags({ roles, all = false }: { roles: Role[]; all?: boolean }) {
  const shown = all ? roles : roles.filter((r) => r !== 'user');
  if (!shown.length) return <Typography.Text type="secondary">—</Typography.Text>;
  return (
    <Space size={4} wrap>
      {shown.map((r) => (
        <Tag key={r} color={r === 'operator' ? 'gold' : 'blue'} style={{ marginInlineEnd: 0 }}>
          {ROLE_LABELS[r] ?? r}
        </Tag>
      ))}
    </Space>
  );
}

export const actionLabel = (action: string) => (AUDIT_ACTION_LABELS as Record<string, string>)[action] ?? action;
export const targetLabel = (type: string) => AUDIT_TARGET_LABELS[type] ?? type;

const FIELD_LABELS: Record<string, string> = {
  status: '状态',
  roles: '角色',
  state: '状态',
  notice: '公告',
  packages: '算力卡',
  payChannel: '支付方式',
  amount: '金额（元）',
  cardHours: '卡时',
  buyer: '买家',
  publishState: '公开状态',
  visibility: '可见范围',
  image: '公共镜像',
  grant: '发放',
  taskState: '任务状态',
  servedKey: '下发的密钥',
  keyState: '密钥状态',
};
const ORDER_STATUS = new Set<string>(ORDER_STATUSES);
/** Values of the reviews' fields (审核: publication of an asset, a public image request). */
const VALUE_LABELS: Record<string, Record<string, string>> = {
  publishState: { none: '未申请', pending: '审核中', published: '已公开' },
  visibility: { private: '私有', shared: '共享', public: '公开' },
  state: { pending: '审核中', approved: '已通过', rejected: '已驳回' },
  /** An RSA key (`npm run admin -- rsa retire`). */
  keyState: { active: '未下发，仍可解密', retired: '已停用' },
};

/** A package as one phrase: `A100 体验卡 ¥128.00（10 卡时，30 天）`. */
const packageText = (p: CenterPackage) => `${p.name} ¥${p.price}（${p.cardHours} 卡时，${p.validDays} 天）`;
const WORKORDER_STATE_LABELS = new Map((DICTS.workorder_states ?? []).map((d) => [d.dictValue, d.dictLabel]));
/** A task's state in an operator's stop (task.stop), as the console names it elsewhere (运行中 → 停止中). */
const JOB_STATE_LABELS = new Map(DICTS.job_states.map((d) => [d.dictValue, d.dictLabel]));

/** A stored state's value in words: account states and roles by their Chinese names, anything else as JSON. */
function valueText(field: string, v: unknown): string {
  if (field === 'status' && typeof v === 'string')
    return ORDER_STATUS.has(v) ? ORDER_STATUS_LABELS[v as keyof typeof ORDER_STATUS_LABELS] : (STATUS_LABELS[v as AccountStatus] ?? SUB_CENTER_STATUS_LABELS[v as keyof typeof SUB_CENTER_STATUS_LABELS] ?? v);
  if (field === 'notice' && typeof v === 'string') return v || '（无）';
  if (field === 'payChannel' && typeof v === 'string') return CHANNEL_LABELS[v as keyof typeof CHANNEL_LABELS] ?? v;
  if (field === 'packages' && Array.isArray(v)) return (v as CenterPackage[]).map(packageText).join('；') || '（无）';
  if (field === 'roles' && Array.isArray(v)) return v.map((r) => ROLE_LABELS[r as Role] ?? String(r)).join('、') || '—';
  if (field === 'taskState' && typeof v === 'string') return JOB_STATE_LABELS.get(v) ?? v;
  if (field === 'servedKey') return typeof v === 'string' ? v : '（无）';
  if (field === 'state' && typeof v === 'string') return WORKORDER_STATE_LABELS.get(v) ?? VALUE_LABELS.state[v] ?? v;
  if (typeof v === 'string' && VALUE_LABELS[field]?.[v]) return VALUE_LABELS[field][v];
  return v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v);
}

function parse(json: string | null): Record<string, unknown> {
  if (!json) return {};
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { 值: v };
  } catch {
    return { 值: json };
  }
}

/** One line per field that differs between before and after: `状态：正常 → 已禁用`. */
export function changeLines(e: Pick<AuditEntry, 'before' | 'after'>): string[] {
  const before = parse(e.before);
  const after = parse(e.after);
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields
    .filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]))
    .map((f) => `${FIELD_LABELS[f] ?? f}：${valueText(f, before[f])} → ${valueText(f, after[f])}`);
}

export function ChangeText({ entry }: { entry: Pick<AuditEntry, 'before' | 'after'> }) {
  const lines = changeLines(entry);
  if (!lines.length) return <Typography.Text type="secondary">—</Typography.Text>;
  return (
    <div data-testid="audit-change">
      {lines.map((l) => (
        <div key={l} style={{ overflowWrap: 'anywhere' }}>
          {l}
        </div>
      ))}
    </div>
  );
}

/** Who acted: the operator's username, or the server command with where it was run. */
export function ActorText({ entry }: { entry: Pick<AuditEntry, 'actorKind' | 'actorName'> }) {
  return entry.actorKind === 'command' ? (
    <Space size={4} wrap>
      <Tag style={{ marginInlineEnd: 0 }}>服务器命令</Tag>
      <span style={{ overflowWrap: 'anywhere' }}>{entry.actorName}</span>
    </Space>
  ) : (
    <span style={{ overflowWrap: 'anywhere' }}>{entry.actorName}</span>
  );
}
