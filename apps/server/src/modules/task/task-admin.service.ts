import { ErrorCode, isTerminal, type JobState, type Task, type TaskKind } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import type { Notify } from '../../context';
import { AppError, invalid } from '../../errors';
import type { Principal } from '../access/principal';
import type { AuditTrail } from '../audit/audit.service';
import type { UserDirectory } from '../user/user-directory';
import { OPERATOR_STOP_PREFIX } from './reasons';
import type { TaskQueries } from './task-queries';
import type { TaskTransitions } from './task-transitions';
import type { TaskRepository } from './task.repository';

export interface TaskAdminDeps {
  repo: Pick<TaskRepository, 'get'>;
  queries: Pick<TaskQueries, 'owned' | 'toTask'>;
  transitions: Pick<TaskTransitions, 'move' | 'cancel'>;
  centers: ReadonlyMap<string, CenterConfig>;
  audit: AuditTrail;
  /** The owner's username, for the audit entry's target name (as the team dissolve names its owner). */
  users: Pick<UserDirectory, 'username'>;
  notify: Notify;
  log: { warn: (o: object, msg: string) => void };
}

/**
 * 运营管理 › 用户 › 运行中的任务 (design/domain.md: STOPPED is "stopped by the user or an operator"): an operator
 * stops any user's task with a reason. The same stop as the owner's (STOPPING, the job cancelled, STOPPED when
 * the scheduler confirms), but the task's reason says an operator stopped it and why (`运营人员停止：…`, kept
 * at the end by task-transitions.ts), the move writes its audit entry in its own transaction, and the owner
 * gets a message at once — the scheduler's confirmation may take a while, and the owner did not ask for it.
 */
export class TaskAdminService {
  constructor(private readonly d: TaskAdminDeps) {}

  async stop(p: Principal, kind: TaskKind, id: string, reason: string, ip: string | null): Promise<Task> {
    // One line, no control characters: it is shown in the owner's timeline and message as typed.
    const why = reason.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim();
    if (!why) throw invalid('reason', '不能为空');
    // 1205 naming 任务 for an unknown id or one of the other family; anyone without `task.stopAny` gets the same.
    const row = await this.d.queries.owned(p, kind, id, 'task.stopAny');
    const state = row.state as JobState;
    if (isTerminal(state)) throw new AppError(ErrorCode.TASK_NOT_STOPPABLE);
    if (state === 'STOPPING') {
      // Already being stopped (by its owner, metering or another operator): nothing new to record or to tell;
      // ask the scheduler again, as the owner's stop does.
      await this.d.transitions.cancel(row).catch((err: unknown) => this.d.log.warn({ err, taskId: id }, 'cancel failed; the poller retries'));
      return this.d.queries.toTask((await this.d.repo.get(id))!);
    }
    // Read before the transaction (on SQLite it holds the one writer connection).
    const actor = await this.d.audit.operator(p, ip);
    const owner = (await this.d.users.username(row.owner_id)) || row.owner_id;
    const moved = await this.d.transitions.move(row, { state: 'STOPPING', reason: `${OPERATOR_STOP_PREFIX}${why}` }, (tx) =>
      this.d.audit.record(tx, {
        actor,
        action: 'task.stop',
        target: { type: 'task', id, name: `${row.name}（${owner}）` },
        before: { taskState: state, kind, ownerId: row.owner_id },
        after: { taskState: 'STOPPING', kind, ownerId: row.owner_id },
        reason: why,
      }),
    );
    // It moved meanwhile (the scheduler's report, its owner's stop): decide again on where it is now.
    if (!moved) return this.stop(p, kind, id, reason, ip);
    const family = kind === 'training' ? '训练任务' : '科学计算任务';
    const center = this.d.centers.get(row.sub_center_id)?.name ?? row.sub_center_id;
    await this.d.notify(row.owner_id, {
      type: 'task',
      title: `${family}「${row.name}」已被平台运营人员停止`,
      content: `平台运营人员停止了您在${center}的${family}「${row.name}」，原因：${why}。如有疑问，请提交工单。`,
      businessType: kind,
      businessId: id,
    });
    const now = (await this.d.repo.get(id))!;
    await this.d.transitions.cancel(now).catch((err: unknown) => this.d.log.warn({ err, taskId: id }, 'cancel failed; the poller retries'));
    return this.d.queries.toTask((await this.d.repo.get(id))!);
  }
}
