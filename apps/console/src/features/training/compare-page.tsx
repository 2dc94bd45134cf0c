import { ArrowLeftOutlined } from '@ant-design/icons';
import { TASK_COMPARE_MAX, type ComparedTask } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Result, Row, Skeleton, Space, Switch, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { useMemo, useState, type HTMLAttributes } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useJobStates } from '../../app/dicts';
import { EChart } from '../../shared/charts/echart';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import type { TaskFamily } from '../../shared/task/task-family';
import { StateTag, useNow } from '../../shared/task/task-view';
import { MONO } from '../../shared/ui/mono';
import { PageContainer } from '../../shared/ui/page-container';
import { compareRows, differingLines, metricCharts, RUN_COLORS, runLabel, TRAINING_COMPARE, type CompareKind, type CompareRow, type MetricChart } from './compare-view';
import { isTrainingType, TRAINING, TYPE_INFO } from './task-view';

/** Highlight of a parameter the runs differ in (antd's warning background). */
const DIFF_BG = '#fffbe6';

/** What the page knows of a family: its calls and links, what it compares, what its list and types are called. */
export interface CompareFamily {
  family: TaskFamily;
  kind: CompareKind;
  /** The list the page returns to (a training type has its own). */
  listPath: (type: string | undefined) => string;
  /** `3 个单机训练任务`, `2 个自定义脚本任务`. */
  typeLabel: (type: string | undefined) => string;
}

const TRAINING_FAMILY: CompareFamily = {
  family: TRAINING,
  kind: TRAINING_COMPARE,
  listPath: (type) => TYPE_INFO[isTrainingType(type) ? type : 'train'].path,
  typeLabel: (type) => TYPE_INFO[isTrainingType(type) ? type : 'train'].label,
};

/**
 * 任务对比 (/training/compare?ids=a,b,c; issue 23 item 4): two to five runs of one type picked in the list —
 * their training curves overlaid (one chart per scalar, a line per run in the run's colour) and their
 * parameters side by side, the ones they differ in highlighted (只看不同项 hides the rest).
 */
export function TrainingComparePage() {
  return <TaskComparePage of={TRAINING_FAMILY} />;
}

/** The comparison of any family's tasks (training above, Slurm's 任务管理 › 对比). */
export function TaskComparePage({ of }: { of: CompareFamily }) {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const ids = useMemo(() => (params.get('ids') ?? '').split(',').filter(Boolean), [params]);
  // Under the family's root: a task's state change refreshes the comparison as it does the list.
  const query = useQuery({ queryKey: [...of.family.keys.root, 'compare', ids], queryFn: () => of.family.calls.compare(ids), enabled: ids.length >= 2, retry: false });
  const tasks = query.data?.tasks;
  const type = tasks?.[0]?.type;
  const back = (
    <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(of.listPath(type))} data-testid="compare-back">
      返回任务列表
    </Button>
  );

  let body;
  if (ids.length < 2) body = <Result status="info" title={`请在任务列表中勾选 2–${TASK_COMPARE_MAX} 个同类型的任务进行对比`} extra={back} />;
  else if (query.isLoading) body = <Skeleton active paragraph={{ rows: 10 }} />;
  else if (!tasks) body = <Result status="warning" title="无法对比这些任务" subTitle={query.error?.message} extra={back} data-testid="compare-error" />;
  if (body) {
    return (
      <PageContainer title="任务对比">
        <Card>{body}</Card>
      </PageContainer>
    );
  }
  return (
    <PageContainer title="任务对比" description={`${tasks!.length} 个${of.typeLabel(type)}任务：训练曲线叠加显示，参数逐项对照，不同之处以底色标出。`} extra={back}>
      <div data-testid="compare-page" data-count={tasks!.length}>
        <Curves tasks={tasks!} />
        <Parameters tasks={tasks!} of={of} />
      </div>
    </PageContainer>
  );
}

/**
 * 训练曲线: one chart per scalar (two side by side on wide screens), each run's line in its colour; the runs'
 * names once above them (a legend in every chart repeated them and scrolled on phones).
 */
function Curves({ tasks }: { tasks: ComparedTask[] }) {
  const charts = useMemo(() => metricCharts(tasks), [tasks]);
  const truncated = tasks.filter((t) => t.metricsTruncated);
  const without = tasks.filter((_, i) => !charts.some((c) => c.lines.some((l) => l.run === i)));
  return (
    <Card title="训练曲线" style={{ marginBottom: 16 }} data-testid="compare-curves">
      {truncated.length > 0 && <Alert type="info" showIcon style={{ marginBottom: 12 }} title={`${truncated.map((t) => t.name).join('、')} 的数据点较多，仅绘制前 5000 个。`} />}
      {charts.length ? (
        <>
          <RunLegend tasks={tasks} />
          <Row gutter={[24, 16]}>
            {charts.map((c) => (
              <Col key={c.metric} xs={24} xl={charts.length > 1 ? 12 : 24}>
                <CurveChart chart={c} />
              </Col>
            ))}
          </Row>
          {without.length > 0 && <Typography.Text type="secondary">未写入训练曲线的任务：{without.map((t) => t.name).join('、')}</Typography.Text>}
        </>
      ) : (
        // One line, not a large empty picture: most Slurm jobs write no curve, and the parameters are what matter then.
        <Typography.Text type="secondary">这些任务都没有训练曲线数据。</Typography.Text>
      )}
    </Card>
  );
}

/** A run's colour as a dot (legend, column heads). */
function RunDot({ run }: { run: number }) {
  return <span style={{ display: 'inline-block', width: 10, height: 10, borderRadius: 5, background: RUN_COLORS[run % RUN_COLORS.length], flex: 'none' }} />;
}

function RunLegend({ tasks }: { tasks: ComparedTask[] }) {
  return (
    <Space wrap size={[20, 6]} style={{ marginBottom: 12 }} data-testid="compare-legend">
      {tasks.map((t, i) => (
        <Space key={t.id} size={6}>
          <RunDot run={i} />
          <span style={{ overflowWrap: 'anywhere' }}>{runLabel(t, i)}</span>
        </Space>
      ))}
    </Space>
  );
}

function CurveChart({ chart }: { chart: MetricChart }) {
  const screens = useBreakpoint();
  const option = useMemo(
    () => ({
      tooltip: { trigger: 'axis' },
      grid: { left: 8, right: 16, top: 16, bottom: 36, containLabel: true },
      xAxis: { type: 'value', name: '步数', nameLocation: 'middle', nameGap: 24, min: 'dataMin', max: 'dataMax' },
      yAxis: { type: 'value', scale: true },
      dataZoom: [{ type: 'inside' }],
      // Dots on every line or on none: a short run alone with dots reads as another kind of line.
      series: chart.lines.map((l) => ({ name: l.name, type: 'line', showSymbol: Math.max(...chart.lines.map((x) => x.data.length)) < 30, data: l.data, color: RUN_COLORS[l.run % RUN_COLORS.length] })),
    }),
    [chart],
  );
  return (
    <div data-testid="compare-chart" data-metric={chart.metric} data-runs={chart.lines.map((l) => l.run + 1).join(',')}>
      {/* The scalar's name is the job's own key (loss, acc…): shown as code, not translated. */}
      <Typography.Text strong>
        指标 <code style={{ fontFamily: MONO }}>{chart.metric}</code>
      </Typography.Text>
      <EChart option={option} height={screens.md ? 280 : 240} />
    </div>
  );
}

/** 参数对比: a row per parameter, a column per run; rows that differ highlighted and marked 不同. */
function Parameters({ tasks, of }: { tasks: ComparedTask[]; of: CompareFamily }) {
  const states = useJobStates();
  const screens = useBreakpoint();
  const now = useNow(tasks.some((t) => t.startTime && !t.endTime));
  const [onlyDiff, setOnlyDiff] = useState(false);
  const rows = useMemo(() => compareRows(tasks, (s) => states.labels[s] ?? s, now, of.kind), [tasks, states.labels, now, of.kind]);
  const shown = onlyDiff ? rows.filter((r) => r.differs) : rows;
  const differing = rows.filter((r) => r.differs).length;
  // On a phone a run's column leaves the next one's edge in sight: the table scrolls sideways.
  const runWidth = screens.md ? 240 : 180;
  const labelWidth = screens.md ? 120 : 92;

  const columns: TableColumnsType<CompareRow> = [
    {
      title: '参数',
      key: 'label',
      width: labelWidth,
      fixed: 'left',
      onCell: (r) => ({ style: r.differs ? { background: DIFF_BG } : undefined }),
      render: (_v, r) => (
        <Space orientation="vertical" size={2}>
          <span>{r.label}</span>
          {r.differs && (
            <Tag color="warning" style={{ marginInlineEnd: 0 }}>
              不同
            </Tag>
          )}
        </Space>
      ),
    },
    ...tasks.map((t, i) => ({
      key: t.id,
      width: runWidth,
      title: (
        <Space size={6} align="baseline">
          <RunDot run={i} />
          <span>
            <Link to={of.family.detailPath(t)} style={{ overflowWrap: 'anywhere' }} data-testid="compare-run">
              {runLabel(t, i)}
            </Link>
            <br />
            <StateTag state={t.state} testId="compare-run-state" />
          </span>
        </Space>
      ),
      onCell: (r: CompareRow) => ({ style: r.differs ? { background: DIFF_BG } : undefined }),
      render: (_v: unknown, r: CompareRow) => <Value row={r} text={r.values[i]!} marked={r.mono && r.differs ? differingLines(r.values) : undefined} />,
    })),
  ];

  return (
    <Card
      title="参数对比"
      data-testid="compare-params"
      extra={
        <Space size={6}>
          <Switch size="small" checked={onlyDiff} onChange={setOnlyDiff} data-testid="compare-only-diff" />
          <span>只看不同项</span>
        </Space>
      }
    >
      <Typography.Paragraph type="secondary" style={{ marginBottom: 12 }} data-testid="compare-summary">
        {differing ? `共 ${differing} 项参数不同，已用底色标出。` : '这些任务的参数完全相同。'}
      </Typography.Paragraph>
      <Table<CompareRow>
        rowKey="key"
        columns={columns}
        dataSource={shown}
        pagination={false}
        size={screens.md ? 'middle' : 'small'}
        tableLayout="fixed"
        scroll={{ x: labelWidth + runWidth * tasks.length }}
        onRow={(r) => ({ 'data-testid': 'compare-row', 'data-key': r.key, 'data-differs': String(r.differs) }) as HTMLAttributes<HTMLElement>}
        locale={{ emptyText: '没有不同的参数' }}
      />
    </Card>
  );
}

/**
 * One run's value. Command, environment and folder are the user's own text, set as code (a screen reader and
 * the e2e language check read them as data, not UI); the lines that differ are marked one by one.
 */
function Value({ row, text, marked }: { row: CompareRow; text: string; marked?: Set<string> }) {
  const style = { whiteSpace: 'pre-wrap' as const, overflowWrap: 'anywhere' as const };
  if (!row.mono) return <div style={style}>{text}</div>;
  const code = { ...style, display: 'block', fontFamily: MONO, fontSize: 12, background: 'none', padding: 0 };
  if (!marked) return <code style={code}>{text}</code>;
  return (
    <code style={code}>
      {text.split('\n').map((line, i) => (
        <span key={i} style={{ display: 'block' }}>
          {marked.has(line) ? <mark style={{ background: '#ffe58f', padding: '0 2px' }}>{line}</mark> : line}
        </span>
      ))}
    </code>
  );
}
