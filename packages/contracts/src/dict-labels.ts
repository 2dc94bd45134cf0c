/**
 * The dictionaries' codes and labels, in their order: what `GET /dicts/action/query/dict/{dictName}` serves
 * (dicts.ts builds its entries from these). Plain data without TypeBox, so the console can also render a
 * stored state in Chinese while its dictionary is still loading, instead of the raw code (issue 26: a loaded
 * e2e run caught 运行成功 showing as SUCCEEDED for a moment).
 */
export const DICT_LABELS: Record<string, readonly (readonly [code: string, label: string])[]> = {
  job_states: [
    ['CREATED', '已创建'],
    ['SUBMITTING', '提交中'],
    ['SUBMIT_FAILED', '提交失败'],
    ['QUEUED', '排队中'],
    ['STARTING', '启动中'],
    ['RUNNING', '运行中'],
    ['STOPPING', '停止中'],
    ['STOPPED', '已停止'],
    ['SUCCEEDED', '运行成功'],
    ['FAILED', '运行失败'],
    ['UNDERPOWERED', '算力不足'],
  ],
  task_types: [
    ['train', '单机训练'],
    ['develop', '交互式开发'],
    ['distributed', '分布式训练'],
  ],
  order_states: [
    ['UNPAID', '待支付'],
    ['PAID', '已支付'],
    ['CANCELLED', '已取消'],
    ['CLOSED', '已关闭'],
  ],
  workorder_states: [
    ['PENDING', '待处理'],
    ['PROCESSING', '处理中'],
    ['RESOLVED', '已解决'],
    ['CLOSED', '已关闭'],
  ],
  workorder_types: [
    ['account', '账号问题'],
    ['task', '任务问题'],
    ['storage', '存储问题'],
    ['billing', '费用问题'],
    ['other', '其他'],
  ],
};

/** A dictionary's entries as the dictionary endpoint serves them (`sort` from 1 in DICT_LABELS' order); [] if unknown. */
export function dictEntries(name: string): { dictLabel: string; dictValue: string; sort: number }[] {
  return (DICT_LABELS[name] ?? []).map(([dictValue, dictLabel], i) => ({ dictLabel, dictValue, sort: i + 1 }));
}
