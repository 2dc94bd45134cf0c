import { Type, type Static } from '@sinclair/typebox';

/**
 * Dictionaries served by `GET /dicts/action/query/dict/{dictName}`. Values are the stable codes stored in
 * the database; labels are what the console shows.
 */
export const DictEntry = Type.Object({ dictLabel: Type.String(), dictValue: Type.String(), sort: Type.Integer() });
export type DictEntry = Static<typeof DictEntry>;
export const DictParams = Type.Object({ dictName: Type.String({ minLength: 1, maxLength: 64 }) });
export type DictParams = Static<typeof DictParams>;


function dict(pairs: [string, string][]): DictEntry[] {
  return pairs.map(([dictValue, dictLabel], i) => ({ dictLabel, dictValue, sort: i + 1 }));
}

export const DICTS: Record<string, DictEntry[]> = {
  job_states: dict([
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
  ]),
  task_types: dict([
    ['train', '单机训练'],
    ['develop', '交互式开发'],
    ['distributed', '分布式训练'],
  ]),
  order_states: dict([
    ['UNPAID', '待支付'],
    ['PAID', '已支付'],
    ['CANCELLED', '已取消'],
    ['CLOSED', '已关闭'],
  ]),
  workorder_states: dict([
    ['PENDING', '待处理'],
    ['PROCESSING', '处理中'],
    ['RESOLVED', '已解决'],
    ['CLOSED', '已关闭'],
  ]),
  workorder_types: dict([
    ['account', '账号问题'],
    ['task', '任务问题'],
    ['storage', '存储问题'],
    ['billing', '费用问题'],
    ['other', '其他'],
  ]),
};
