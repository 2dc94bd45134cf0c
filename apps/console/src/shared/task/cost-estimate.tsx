import { Alert, Form, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import type { CSSProperties } from 'react';
import { Link } from 'react-router';
import { RecordApi, TeamApi, type SubCenter } from '@suanli/contracts';
import { useCompPowers } from '../../app/comp-power';
import { queryKeys } from '../../app/query-keys';
import { call } from '../../app/request';
import { useUserStore } from '../../app/stores/user-store';
import { estimateCost } from './cost';
import type { TaskFamily } from './task-family';

const UNIT_MINUTES = { minute: 1, hour: 60 } as const;
const UNIT_LABEL = { minute: '分钟', hour: '小时' } as const;
const whole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

interface CostEstimateProps {
  family: TaskFamily;
  /** The centers the form offers (for the names). */
  centers: SubCenter[];
  /**
   * The center the task goes to: the form's choice, or where 智能调度 would place it; undefined while not
   * known (the balance is then shown once it is).
   */
  centerId: string | undefined;
  /** Nodes when the form has no 节点数 field (single-node training: 1). */
  nodeNum?: number;
  style?: CSSProperties;
}

/**
 * 预计最多消耗 in every task form: cards × nodes × the maximum run time in 卡时 (the form's own fields), and what
 * remains of the matching balance — same center and card type — after it; a warning with 购买算力 when it does
 * not cover. The balance is the payer's (ADR 0017): the caller's own (the header's answer) for 个人, the team's
 * (the read 团队详情 uses, same query key, so both refresh together) when 付费方 is a team. The server decides
 * at submission.
 */
export function CostEstimate({ family, centers, centerId, nodeNum, style }: CostEstimateProps) {
  const form = Form.useFormInstance();
  const cardTypeId = Form.useWatch('cardTypeId', form) as string | undefined;
  const cardNum = Form.useWatch('cardNum', form) as unknown;
  const nodeField = Form.useWatch('nodeNum', form) as unknown;
  const duration = Form.useWatch('duration', form) as unknown;
  const unit = (Form.useWatch('durationUnit', form) as keyof typeof UNIT_MINUTES | undefined) ?? 'minute';
  const payerTeamId = (Form.useWatch('payerTeamId', form) as string | undefined) || undefined;
  const userId = useUserStore((s) => s.userInfo?.id);
  const own = useCompPowers(userId);
  const teamPowers = useQuery({
    queryKey: queryKeys.team.compute(payerTeamId ?? ''),
    queryFn: () => call(RecordApi.teamCompPowers, { params: { id: payerTeamId! } }),
    enabled: Boolean(payerTeamId),
    staleTime: 0,
  });
  // The same list 付费方 offers (one cached query): the team's name and whether the caller may buy for it.
  const teams = useQuery({ queryKey: queryKeys.team.list, queryFn: () => call(TeamApi.list), enabled: Boolean(payerTeamId) });
  const team = payerTeamId ? teams.data?.find((t) => t.id === payerTeamId) : undefined;
  const powers = payerTeamId ? teamPowers : own;
  const nodes = nodeNum ?? nodeField;
  const testId = `${family.testId}-form-estimate`;

  if (!cardTypeId || !whole(cardNum) || cardNum < 0 || !whole(nodes) || nodes < 1 || !whole(duration) || duration < 1) {
    return <Alert type="info" showIcon style={style} title="选择卡型并填写卡数和最长运行时长后，这里显示预计最多消耗的卡时。" data-testid={testId} data-state="incomplete" />;
  }
  const center = centers.find((c) => c.id === centerId);
  const cardTypeName = (center ?? centers.find((c) => c.cardTypes.some((t) => t.id === cardTypeId)))?.cardTypes.find((t) => t.id === cardTypeId)?.name ?? cardTypeId;
  const cost = estimateCost({ cardNum, nodeNum: nodes, minutes: duration * UNIT_MINUTES[unit], centerId: center ? centerId : undefined, cardTypeId, items: powers.data?.items ?? [] });
  const place = center ? `${center.name} · ${cardTypeName}` : cardTypeName;
  const where = payerTeamId ? `团队「${team?.name ?? ''}」在 ${place}` : place;
  const buysForTeam = team?.myRole === 'owner' || team?.myRole === 'admin';
  const need = (
    <>
      预计最多消耗{' '}
      <Typography.Text strong data-testid={`${testId}-need`}>
        {cost.need} 卡时
      </Typography.Text>
      （{cardNum} 卡 × {nodes} 节点 × {duration} {UNIT_LABEL[unit]}）
    </>
  );
  const state = !center || cost.have === null || !powers.data ? 'unknown' : cost.short ? 'short' : 'covered';
  const common = { style, 'data-testid': testId, 'data-state': state, 'data-need': cost.need, 'data-payer': payerTeamId ? 'team' : 'personal' } as const;

  if (state === 'short')
    return (
      <Alert
        type="warning"
        showIcon
        {...common}
        title={need}
        description={
          <span>
            剩余算力不足：{where} 仅剩 <span data-testid={`${testId}-have`}>{cost.have}</span> 卡时，运行满最长时长还差 {cost.short} 卡时。
            {!payerTeamId ? (
              <>
                请先
                <Link to="/pay" data-testid={`${testId}-buy`}>
                  购买算力
                </Link>
                ，或减少卡数、节点数或最长运行时长。
              </>
            ) : buysForTeam ? (
              <>
                请先
                <Link to={`/pay?teamId=${encodeURIComponent(payerTeamId)}`} data-testid={`${testId}-buy`}>
                  为团队购买算力
                </Link>
                ，或改为个人付费，或减少卡数、节点数或最长运行时长。
              </>
            ) : (
              '请联系团队所有者或管理员为团队购买算力，或改为个人付费，或减少卡数、节点数或最长运行时长。'
            )}
          </span>
        }
      />
    );
  return (
    <Alert
      type={state === 'covered' ? 'success' : 'info'}
      showIcon
      {...common}
      title={need}
      description={
        state === 'covered' ? (
          <span>
            {where} 剩余 <span data-testid={`${testId}-have`}>{cost.have}</span> 卡时，运行满最长时长后剩余 {cost.after} 卡时；提前结束时消耗更少。
          </span>
        ) : !center ? (
          '智能调度选定分中心后，显示该分中心这一卡型的剩余卡时。'
        ) : (
          '正在读取剩余算力…'
        )
      }
    />
  );
}
