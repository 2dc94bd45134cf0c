import { DeleteOutlined, RedoOutlined, StopOutlined } from '@ant-design/icons';
import { isTerminal, type Task } from '@suanli/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Popconfirm, type ButtonProps } from 'antd';
import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { newSubmissionId } from './submission';
import type { TaskFamily } from './task-family';
import { canStop } from './task-view';

/**
 * 停止, 重新提交 and 删除 of a family's tasks, for its list and its detail. A success refreshes every query of
 * the family; the states that follow (STOPPING, then STOPPED; QUEUED, RUNNING…) arrive with the socket's
 * `task.state.changed`, which refreshes them again.
 */
export function useTaskActions(family: TaskFamily) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: family.keys.root });
  const stop = useMutation({
    mutationFn: (id: string) => family.calls.stop(id),
    onSuccess: () => {
      toast.success('已发送停止请求');
      return refresh();
    },
  });
  // One submission id per task being resubmitted: a retry after a failure (a network error may hide the new
  // task) sends it again and is answered with that task; a success makes the next 重新提交 a new one.
  const [submissions] = useState(() => new Map<string, string>());
  const resubmit = useMutation({
    mutationFn: (id: string) => {
      const requestId = submissions.get(id) ?? newSubmissionId();
      submissions.set(id, requestId);
      return family.calls.resubmit(id, requestId);
    },
    onSuccess: (_t, id) => {
      submissions.delete(id);
      toast.success('已重新提交，生成了新的任务');
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => family.calls.remove(id),
    onSuccess: (_d, id) => {
      toast.success('任务已删除');
      queryClient.removeQueries({ queryKey: family.keys.detail(id) });
      return refresh();
    },
  });
  return { family, stop, resubmit, remove };
}

export type TaskActions = ReturnType<typeof useTaskActions>;

/**
 * Where an action button sits: in a list row (a small link, testid `<family>-<verb>`) or in the detail
 * page's header (a button with an icon that spins while the call runs, testid `<family>-detail-<verb>`).
 */
type ActionPlace = 'row' | 'header';

interface ActionProps {
  task: Task;
  actions: TaskActions;
  place: ActionPlace;
}

/** The look and testid of an action button at its place. */
function look(actions: TaskActions, place: ActionPlace, verb: 'stop' | 'resubmit' | 'delete', icon: ReactNode, pending: boolean): ButtonProps {
  const testId = place === 'row' ? `${actions.family.testId}-${verb}` : `${actions.family.testId}-detail-${verb}`;
  return { ...(place === 'row' ? { type: 'link', size: 'small' } : { icon, loading: pending }), ...({ 'data-testid': testId } as ButtonProps) };
}

/** 停止, after a confirmation, while the task can still be stopped. */
export function StopTask({ task, actions, place }: ActionProps) {
  if (!canStop(task.state)) return null;
  return (
    <Popconfirm title="确定停止该任务吗？" okText="停止" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => actions.stop.mutateAsync(task.id)}>
      <Button {...look(actions, place, 'stop', <StopOutlined />, actions.stop.isPending)} danger>
        停止
      </Button>
    </Popconfirm>
  );
}

/** 重新提交, after a confirmation: a new task with the same script and resources, whose detail then opens. */
export function ResubmitTask({ task, actions, place }: ActionProps) {
  const navigate = useNavigate();
  return (
    <Popconfirm
      title="确定重新提交该任务吗？"
      description="将以相同的脚本与资源创建一个新任务。"
      okText="重新提交"
      cancelText="取消"
      // A failure is already toasted by the transport; the same 重新提交 may be tried again (same submission id).
      onConfirm={() =>
        actions.resubmit.mutateAsync(task.id).then(
          (t) => navigate(actions.family.detailPath(t)),
          () => undefined,
        )
      }
    >
      <Button {...look(actions, place, 'resubmit', <RedoOutlined />, actions.resubmit.isPending)}>重新提交</Button>
    </Popconfirm>
  );
}

/** 删除, after a confirmation, once the task has ended; `onDeleted` runs after it (the detail page leaves). */
export function DeleteTask({ task, actions, place, onDeleted }: ActionProps & { onDeleted?: () => void }) {
  if (!isTerminal(task.state)) return null;
  return (
    <Popconfirm
      title="确定删除该任务吗？删除后不可恢复。"
      okText="删除"
      cancelText="取消"
      okButtonProps={{ danger: true }}
      onConfirm={() => actions.remove.mutateAsync(task.id).then(() => onDeleted?.())}
    >
      <Button {...look(actions, place, 'delete', <DeleteOutlined />, actions.remove.isPending)} danger>
        删除
      </Button>
    </Popconfirm>
  );
}
