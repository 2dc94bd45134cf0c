/**
 * Scheduler reason codes (Slurm's own words; the local executor uses the same ones) → what the console
 * shows. A code missing here is shown as `调度系统原因：<code>` rather than hidden.
 */
const PENDING: Record<string, string> = {
  Resources: '资源不足，等待空闲算力',
  Priority: '排队中，前面有更早提交或优先级更高的作业',
  Dependency: '等待所依赖的作业结束',
  DependencyNeverSatisfied: '所依赖的作业已失败，本作业无法开始',
  BeginTime: '未到指定的开始时间',
  ReqNodeNotAvail: '所需节点暂不可用（维护或故障）',
  NodeDown: '所需节点故障',
  PartitionDown: '分区已停用',
  PartitionInactive: '分区未启用',
  PartitionNodeLimit: '请求的节点数超出分区限制',
  PartitionTimeLimit: '最长运行时长超出分区上限',
  PartitionConfig: '请求的资源与分区配置不符',
  JobHeldUser: '作业已被用户挂起',
  JobHeldAdmin: '作业已被管理员挂起',
  Licenses: '等待软件许可证',
  InvalidAccount: '集群账号无效，请联系管理员',
  InvalidQOS: '服务质量（QOS）配置无效，请联系管理员',
  AssocGrpGRES: '已达到账号可同时使用的卡数上限',
  AssocGrpCpuLimit: '已达到账号可同时使用的 CPU 上限',
  AssocMaxJobsLimit: '已达到账号同时运行的作业数上限',
  QOSMaxJobsPerUserLimit: '已达到每用户同时运行的作业数上限',
  QOSMaxGRESPerUser: '已达到每用户可同时使用的卡数上限',
  Reservation: '等待预留资源',
  Cleaning: '节点清理中',
  Prolog: '运行环境准备中',
  BadConstraints: '请求的资源约束无法满足',
};

/**
 * Why a job ended, when the platform did not end it. A stop asked for in the console never reaches this table
 * (the state engine says 用户停止 for a STOPPING task), so `Cancelled` here is a cancel from outside the
 * platform: an administrator, the scheduler, or `scancel` on the login node (issue 22 item 8). The batch-step
 * codes are Slurm's words for the scheduler failing to start or keep the job on its nodes.
 */
const ENDED: Record<string, string> = {
  TimeLimit: '超时',
  Cancelled: '在平台外被取消（管理员、调度系统或登录节点上的 scancel）',
  // Who cancelled, when accounting knows (sacct's `CANCELLED by <uid>`, slurmrestd's kill_request_user).
  CancelledByOwner: '用户在登录节点取消（scancel）',
  CancelledByAdmin: '被管理员或调度系统取消',
  JobLaunchFailure: '调度系统未能在节点上启动作业，请重试；多次出现请提交工单',
  LaunchFailRequeue: '调度系统启动作业失败，已重新排队',
  BatchHostFail: '运行批处理脚本的节点故障',
  NodeDown: '作业所在节点故障',
  SystemFailure: '调度系统故障',
  Reconfiguration: '调度系统重新配置时作业被结束',
  ResvDeleted: '作业所用的预留资源被删除',
  OutOfMemory: '内存不足',
  NodeFail: '节点故障',
  BootFail: '节点启动失败',
  Deadline: '超过截止时间',
  Preempted: '被更高优先级的作业抢占',
};

/**
 * Chinese text of a scheduler reason ('' for none). `exitCode` completes NonZeroExitCode; `ended` reads a code
 * both tables know (NodeDown) as why the job ended rather than why it waits.
 */
export function reasonText(code: string | undefined, exitCode?: number | null, ended = false): string {
  if (!code || code === 'None') return '';
  if (code === 'NonZeroExitCode') return exitCode != null ? `退出码 ${exitCode}` : '命令以非零退出码结束';
  return (ended ? ENDED[code] ?? PENDING[code] : PENDING[code] ?? ENDED[code]) ?? `调度系统原因：${code}`;
}

/**
 * The start of the reason of a task an operator stopped (运营管理, `TaskAdminService.stop`): it stays the
 * task's reason when the scheduler confirms the end (STOPPED, not 用户停止), so its owner reads why.
 */
export const OPERATOR_STOP_PREFIX = '运营人员停止：';

export const isOperatorStop = (reason: string) => reason.startsWith(OPERATOR_STOP_PREFIX);
