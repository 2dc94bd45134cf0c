import { TEAM_ROLE_LABELS, TeamApi } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Form, Select } from 'antd';
import { queryKeys } from '../../app/query-keys';
import { call } from '../../app/request';
import type { TaskFamily } from './task-family';

/** The form's value for 个人 (the field's value is otherwise a team id). */
export const PERSONAL_PAYER = '';

/**
 * 付费方 (ADR 0017): 个人, or a team the user belongs to — the task then draws that team's compute power, within
 * the monthly limit its owner or admins set. The team list is the one 团队管理 shows (refreshed on
 * `team.changed`), so a team the user just left is gone from the choices.
 */
export function PayerField({ family }: { family: TaskFamily }) {
  const teams = useQuery({ queryKey: queryKeys.team.list, queryFn: () => call(TeamApi.list) });
  const form = Form.useFormInstance();
  const value = Form.useWatch('payerTeamId', form) as string | undefined;
  const options = [
    { value: PERSONAL_PAYER, label: '个人' },
    ...(teams.data ?? []).map((t) => ({ value: t.id, label: `团队：${t.name}（${TEAM_ROLE_LABELS[t.myRole]}）` })),
  ];
  // A copied task's team the user has since left: named as such (not as a bare id), and refused at submission.
  if (value && teams.data && !teams.data.some((t) => t.id === value)) options.push({ value, label: '原付费团队（您已不是该团队成员，请改选）' });
  return (
    <Form.Item label="付费方" name="payerTeamId" initialValue={PERSONAL_PAYER} extra="选择团队时，任务消耗该团队的算力，并计入团队为您设置的每月限额。">
      <Select options={options} loading={teams.isLoading} allowClear={false} data-testid={`${family.testId}-form-payer`} />
    </Form.Item>
  );
}
