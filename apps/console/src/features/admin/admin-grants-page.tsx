import { GRANT_CARD_HOURS_MAX, type AdminGrant, type AdminGrantPageQuery, type GrantBody } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AutoComplete, Button, Card, Descriptions, Form, Input, InputNumber, Modal, Radio, Select, Typography, type ButtonProps, type TableColumnsType } from 'antd';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { formatTime } from '../../shared/time';
import { ListCard } from '../../shared/ui/paged-list';
import { PagedTable } from '../../shared/ui/paged-table';
import { PageContainer } from '../../shared/ui/page-container';
import { fetchCenters } from '../order/api';
import { grantCompPower, pageGrants, pageUsers } from './api';
import { OperatorOnly } from './operator-only';
import { userPath } from './admin-users-page';

const TITLE = '算力发放';
const DEFAULT_DAYS = 30;
const muted = { fontSize: 12, color: 'rgba(0,0,0,0.45)' } as const;

/** The username box's suggestions: accounts matching what is typed, looked up a moment after typing stops. */
function useUserSuggestions(text: string) {
  const [keyword, setKeyword] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setKeyword(text.trim()), 300);
    return () => clearTimeout(t);
  }, [text]);
  const users = useQuery({ queryKey: queryKeys.admin.users({ keyword, pageSize: 8 }), queryFn: () => pageUsers({ keyword, pageNum: 1, pageSize: 8 }), enabled: keyword.length > 0 });
  return (users.data?.list ?? []).map((u) => ({ value: u.username, label: `${u.username}${u.nickname && u.nickname !== u.username ? `（${u.nickname}）` : ''}` }));
}

/** The form's values: the body, and whether it goes to a user or (ADR 0017) a team. */
type GrantValues = GrantBody & { to: 'user' | 'team' };
/** Whom the confirmation and the toast name. */
const recipientOf = (b: GrantBody) => (b.teamName ? `团队「${b.teamName}」${b.teamOwner ? `（所有者 ${b.teamOwner}）` : ''}` : (b.username ?? ''));

/** The body of what the form holds: only the chosen recipient's fields, trimmed. */
function bodyOf({ to, ...v }: GrantValues): GrantBody {
  const common = { subCenterId: v.subCenterId, cardTypeId: v.cardTypeId, cardHours: v.cardHours, validDays: v.validDays, reason: v.reason.trim() };
  if (to === 'user') return { ...common, username: (v.username ?? '').trim() };
  const owner = v.teamOwner?.trim();
  return { ...common, teamName: (v.teamName ?? '').trim(), ...(owner ? { teamOwner: owner } : {}) };
}

/** The form: whom, which compute, how much, for how long and why; a confirmation repeats it before it is given. */
function GrantForm() {
  const client = useQueryClient();
  const screens = useBreakpoint();
  const [form] = Form.useForm<GrantValues>();
  const [pending, setPending] = useState<GrantBody | null>(null);
  // 运营管理 › 团队's 发放算力 opens this page for one team (?teamName=&teamOwner=).
  const [params] = useSearchParams();
  const [initial] = useState<Partial<GrantValues>>(() => {
    const teamName = params.get('teamName');
    return teamName ? { validDays: DEFAULT_DAYS, to: 'team', teamName, teamOwner: params.get('teamOwner') ?? undefined } : { validDays: DEFAULT_DAYS, to: 'user' };
  });
  const to = (Form.useWatch('to', form) as GrantValues['to'] | undefined) ?? 'user';
  const username = Form.useWatch('username', form) ?? '';
  const centerId = Form.useWatch('subCenterId', form);
  const suggestions = useUserSuggestions(username);
  const centers = useQuery({ queryKey: queryKeys.billing.centers, queryFn: fetchCenters, staleTime: 60_000 });
  const center = centers.data?.find((c) => c.id === centerId);
  const names = (b: GrantBody) => {
    const c = centers.data?.find((x) => x.id === b.subCenterId);
    return { center: c?.name ?? b.subCenterId, cardType: c?.cardTypes.find((t) => t.id === b.cardTypeId)?.name ?? b.cardTypeId };
  };
  const grant = useMutation({
    mutationFn: grantCompPower,
    onSuccess: (r, b) => {
      toast.success(`已向 ${recipientOf(b)} 发放 ${r.subCenterName} ${r.cardTypeName} ${r.cardHours} 卡时`);
      void client.invalidateQueries({ queryKey: queryKeys.admin.root });
      setPending(null);
      form.resetFields();
    },
  });
  return (
    <Card title="发放算力" style={{ marginBottom: 16 }}>
      <Form<GrantValues>
        form={form}
        layout={screens.md ? 'horizontal' : 'vertical'}
        labelCol={screens.md ? { flex: '110px' } : undefined}
        style={{ maxWidth: 640 }}
        initialValues={initial}
        onFinish={(v) => setPending(bodyOf(v))}
        data-testid="grant-form"
      >
        <Form.Item name="to" label="发放对象">
          <Radio.Group
            optionType="button"
            options={[
              { value: 'user', label: '用户' },
              { value: 'team', label: '团队' },
            ]}
            data-testid="grant-to"
          />
        </Form.Item>
        {to === 'user' ? (
          <Form.Item name="username" label="用户名" rules={[{ required: true, whitespace: true, message: '请输入要发放算力的用户名' }]} extra="输入用户名、昵称、手机号或邮箱查找账号">
            <AutoComplete options={suggestions} placeholder="用户名" maxLength={64} data-testid="grant-username" />
          </Form.Item>
        ) : (
          <>
            <Form.Item name="teamName" label="团队名称" rules={[{ required: true, whitespace: true, message: '请输入要发放算力的团队名称' }]} extra="算力进入团队，团队成员以团队付费提交任务时使用">
              <Input placeholder="团队名称" maxLength={64} data-testid="grant-team-name" />
            </Form.Item>
            <Form.Item name="teamOwner" label="团队所有者" extra="有多个同名团队时，填写团队所有者的用户名">
              <Input placeholder="所有者用户名（可选）" maxLength={64} data-testid="grant-team-owner" />
            </Form.Item>
          </>
        )}
        <Form.Item name="subCenterId" label="算力分中心" rules={[{ required: true, message: '请选择算力分中心' }]}>
          <Select
            placeholder="选择分中心"
            options={(centers.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
            onChange={() => form.setFieldValue('cardTypeId', undefined)}
            virtual={false}
            data-testid="grant-center"
          />
        </Form.Item>
        <Form.Item name="cardTypeId" label="卡型" rules={[{ required: true, message: '请选择卡型' }]}>
          <Select
            placeholder={center ? '选择卡型' : '请先选择分中心'}
            disabled={!center}
            options={(center?.cardTypes ?? []).map((t) => ({ value: t.id, label: t.name }))}
            virtual={false}
            data-testid="grant-card-type"
          />
        </Form.Item>
        <Form.Item name="cardHours" label="卡时" rules={[{ required: true, message: `请输入 1 至 ${GRANT_CARD_HOURS_MAX} 的整数卡时` }]}>
          <InputNumber min={1} max={GRANT_CARD_HOURS_MAX} precision={0} style={{ width: '100%' }} placeholder="整数" data-testid="grant-hours" />
        </Form.Item>
        <Form.Item name="validDays" label="有效期（天）" rules={[{ required: true, message: '请输入 1 至 3650 天' }]}>
          <InputNumber min={1} max={3650} precision={0} style={{ width: '100%' }} data-testid="grant-days" />
        </Form.Item>
        <Form.Item name="reason" label="发放原因" rules={[{ required: true, whitespace: true, message: '请填写发放原因（用户会在消息与赠送记录中看到）' }]}>
          <Input.TextArea maxLength={200} showCount autoSize={{ minRows: 2, maxRows: 4 }} placeholder="例如：比赛奖励、故障补偿" data-testid="grant-reason" />
        </Form.Item>
        <Form.Item label={screens.md ? ' ' : undefined} colon={false}>
          <Button type="primary" htmlType="submit" data-testid="grant-submit">
            发放
          </Button>
        </Form.Item>
      </Form>
      <Modal
        open={pending !== null}
        title="确认发放算力"
        okText="确认发放"
        cancelText="取消"
        okButtonProps={{ loading: grant.isPending, 'data-testid': 'grant-confirm' } as ButtonProps}
        onOk={() => pending && grant.mutate(pending)}
        onCancel={() => setPending(null)}
      >
        {pending && (
          <>
            <Descriptions column={1} size="small" bordered data-testid="grant-summary">
              <Descriptions.Item label={pending.teamName ? '团队' : '用户'}>{recipientOf(pending)}</Descriptions.Item>
              <Descriptions.Item label="算力">
                {names(pending).center} · {names(pending).cardType}
              </Descriptions.Item>
              <Descriptions.Item label="卡时">{pending.cardHours}</Descriptions.Item>
              <Descriptions.Item label="有效期">{pending.validDays} 天</Descriptions.Item>
              <Descriptions.Item label="原因">
                <span style={{ overflowWrap: 'anywhere' }}>{pending.reason}</span>
              </Descriptions.Item>
            </Descriptions>
            <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }}>
              发放后立即到账，{pending.teamName ? '团队所有者' : '用户'}会收到消息；此操作记入审计日志，不能撤回。
            </Typography.Paragraph>
          </>
        )}
      </Modal>
    </Card>
  );
}

/** Recent grants by operators, newest first; narrowed to one username. */
function GrantList() {
  const screens = useBreakpoint();
  const list = usePagedList<AdminGrantPageQuery, AdminGrant>({ key: queryKeys.admin.grants, fetch: pageGrants });
  const user = (g: AdminGrant) =>
    g.teamId ? (
      <span style={{ overflowWrap: 'anywhere' }} data-testid="grant-row-team">
        团队：{g.teamName || '已解散的团队'}
      </span>
    ) : (
    <Link to={userPath(g.userId)} style={{ overflowWrap: 'anywhere' }} data-testid="grant-row-user">
      {g.username || g.userId}
    </Link>
    );
  const columns: TableColumnsType<AdminGrant> = screens.md
    ? [
        { title: '发放时间', dataIndex: 'createTime', key: 'createTime', width: 170, render: (v: number) => formatTime(v) },
        { title: '用户 / 团队', key: 'user', width: 140, render: (_v, g) => user(g) },
        { title: '分中心 · 卡型', key: 'center', width: 200, render: (_v, g) => `${g.subCenterName} · ${g.cardTypeName}` },
        { title: '卡时', dataIndex: 'cardHours', key: 'cardHours', width: 90 },
        { title: '到期时间', dataIndex: 'expireTime', key: 'expireTime', width: 170, render: (v: number) => formatTime(v) },
        { title: '原因', dataIndex: 'reason', key: 'reason', width: 180, render: (v: string) => <span style={{ overflowWrap: 'anywhere' }}>{v}</span> },
        { title: '发放人', dataIndex: 'grantedByName', key: 'grantedBy', width: 110 },
      ]
    : [
        {
          title: '发放',
          key: 'grant',
          width: 210,
          render: (_v, g) => (
            <div style={{ minWidth: 0 }}>
              {user(g)}
              <div style={{ ...muted, overflowWrap: 'anywhere' }}>
                {g.subCenterName} · {g.cardTypeName}
              </div>
              <div style={{ ...muted, overflowWrap: 'anywhere' }}>{g.reason}</div>
              <div style={muted}>
                {formatTime(g.createTime)} · {g.grantedByName}
              </div>
            </div>
          ),
        },
        { title: '卡时', key: 'hours', width: 90, render: (_v, g) => <span>+{g.cardHours}</span> },
      ];
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 16 }}>
      <Input.Search
        allowClear
        placeholder="按用户名筛选"
        style={{ width: screens.sm ? 260 : '100%' }}
        maxLength={64}
        onSearch={(v) => list.setFilter('username', v.trim() || undefined)}
        data-testid="grant-list-search"
      />
      <PagedTable<AdminGrant>
        list={list}
        columns={columns}
        rowData={(g) => ({ 'data-testid': 'grant-row', 'data-id': g.id, 'data-username': g.username })}
        empty={{ filtered: '该用户没有运营发放的算力', none: '还没有发放过算力', action: { label: '刷新', onClick: () => void list.list.refetch() } }}
      />
    </div>
  );
}

/** 运营管理 › 算力发放 (/admin/grants): give a user or a team compute power with a reason and an expiry; recent grants below. */
export function AdminGrantsPage() {
  return (
    <OperatorOnly title={TITLE}>
      <PageContainer title={TITLE} description="向用户或团队发放指定分中心、卡型的卡时，写明有效期和原因。发放立即到账并通知用户（团队则通知其所有者），每次发放都记入审计日志。">
        <GrantForm />
        <ListCard>
          <Typography.Title level={5} style={{ marginTop: 0 }}>
            最近发放
          </Typography.Title>
          <GrantList />
        </ListCard>
      </PageContainer>
    </OperatorOnly>
  );
}
