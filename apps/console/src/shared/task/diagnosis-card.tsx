import { BulbOutlined, RedoOutlined } from '@ant-design/icons';
import type { DiagnosisChange, Efficiency, TaskDetail } from '@suanli/contracts';
import { Alert, Button, Card, Descriptions, Space, Typography } from 'antd';
import { formatDuration } from '../time';
import { MONO } from '../ui/mono';
import type { TaskFamily } from './task-family';
import { formatMinutes } from './task-view';

/**
 * 诊断 (issue 23): why a failed or stopped task ended — the cause, its evidence (figures, and log lines with
 * their line numbers) and one suggestion — and 按建议重新提交 when the suggestion is a change of parameters.
 * `apply` is the family's way to resubmit with the change (Slurm: at once; training: the form pre-filled);
 * `canApply` says which parts of a change the family can apply (a training task has no memory field).
 */
export function DiagnosisCard({
  task,
  family,
  apply,
  applying,
  canApply,
}: {
  task: TaskDetail;
  family: Pick<TaskFamily, 'testId'>;
  apply: (change: DiagnosisChange) => void;
  applying?: boolean;
  canApply: (change: DiagnosisChange) => boolean;
}) {
  const d = task.diagnosis;
  if (!d) return null;
  const p = family.testId;
  const change = d.change && canApply(d.change) ? d.change : undefined;
  return (
    <Card
      title="诊断"
      data-testid={`${p}-diagnosis`}
      extra={
        change && (
          <Button type="primary" icon={<RedoOutlined />} loading={applying} onClick={() => apply(change)} data-testid={`${p}-diagnosis-apply`}>
            按建议重新提交
          </Button>
        )
      }
    >
      <Space orientation="vertical" size={12} style={{ width: '100%' }}>
        <Typography.Text strong style={{ fontSize: 16 }} data-testid={`${p}-diagnosis-title`}>
          {d.title}
        </Typography.Text>
        <div>
          <Typography.Text type="secondary">依据</Typography.Text>
          <ul style={{ margin: '4px 0 0', paddingLeft: 20 }} data-testid={`${p}-diagnosis-evidence`}>
            {d.evidence.map((e, i) => (
              <li key={i} style={{ overflowWrap: 'anywhere' }}>
                {e.logLine ? (
                  <>
                    <Typography.Text type="secondary">日志第 {e.logLine} 行：</Typography.Text>
                    {/* The job's own output, quoted as it is (often English): code, not UI prose. */}
                    <code style={{ fontFamily: MONO, fontSize: 12 }}>{e.text}</code>
                  </>
                ) : (
                  e.text
                )}
              </li>
            ))}
          </ul>
        </div>
        <Alert type="info" showIcon icon={<BulbOutlined />} title={d.suggestion} data-testid={`${p}-diagnosis-suggestion`} />
        {change && <Typography.Text type="secondary">将创建一个新任务：{changeText(change)}，其余参数与原任务相同。</Typography.Text>}
      </Space>
    </Card>
  );
}

/** The change in words: 内存 8 GiB、最长运行时长 2 小时. */
export function changeText(c: DiagnosisChange): string {
  const parts: string[] = [];
  if (c.memoryMB) parts.push(`内存 ${c.memoryMB % 1024 === 0 ? `${c.memoryMB / 1024} GiB` : `${c.memoryMB} MiB`}`);
  if (c.maxDurationMinutes) parts.push(`最长运行时长 ${formatMinutes(c.maxDurationMinutes)}`);
  if (c.cardNum != null) parts.push(`卡数 ${c.cardNum}`);
  return parts.join('、');
}

const pct = (x: number | null) => (x == null ? '—' : `${Math.round(x * 100)}%`);
const mem = (mb: number | null) => (mb == null ? '—' : mb >= 1024 ? `${(mb / 1024).toFixed(1)} GiB` : `${mb} MiB`);

/** 资源使用效率 (issue 23 item 3), seff-like, once the task has run and ended. */
/** CPU time: tenths of a second under ten (a short job's 0.4 s is not "0秒" beside an 11 % efficiency). */
const cpuTime = (seconds: number) => (seconds < 10 ? `${seconds.toFixed(1)}秒` : formatDuration(seconds * 1000));

export function EfficiencyCard({ task, family }: { task: TaskDetail; family: Pick<TaskFamily, 'testId'> }) {
  const f: Efficiency | null = task.efficiency;
  if (!f) return null;
  const p = family.testId;
  return (
    <Card title="资源使用效率" data-testid={`${p}-efficiency`}>
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 2, lg: 3 }}
        items={[
          { key: 'elapsed', label: '实际运行', children: formatDuration(f.elapsedSeconds * 1000) },
          {
            key: 'cpu',
            label: 'CPU 利用率',
            children: (
              <span data-testid={`${p}-efficiency-cpu`}>
                {pct(f.cpuEfficiency)}
                {f.cpuSeconds != null && f.cpus != null && (
                  <Typography.Text type="secondary">
                    （CPU 时间 {cpuTime(f.cpuSeconds)}，{f.cpus} 核）
                  </Typography.Text>
                )}
              </span>
            ),
          },
          {
            key: 'mem',
            label: '内存峰值',
            children: (
              <span data-testid={`${p}-efficiency-mem`}>
                {mem(f.maxRssMB)}
                {f.requestedMemMB != null && <Typography.Text type="secondary">（申请 {mem(f.requestedMemMB)}，{pct(f.memoryEfficiency)}）</Typography.Text>}
              </span>
            ),
          },
          { key: 'cards', label: '占用卡时', children: `${f.cardHours} 卡时` },
          {
            key: 'accel',
            label: '加速卡利用率',
            children: f.acceleratorReported ? '—' : <Typography.Text type="secondary">该分中心未上报加速卡使用情况</Typography.Text>,
          },
        ]}
      />
      {f.hint && <Alert style={{ marginTop: 12 }} type="warning" showIcon title={f.hint} data-testid={`${p}-efficiency-hint`} />}
    </Card>
  );
}
