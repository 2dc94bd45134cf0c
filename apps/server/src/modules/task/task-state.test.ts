import { describe, expect, it } from 'vitest';
import { UNDERPOWERED_REASON } from './task-compute';
import { nextState } from './task-state';

describe('nextState (job_states)', () => {
  it('follows the scheduler through the life of a job', () => {
    expect(nextState('SUBMITTING', { jobId: '1', phase: 'QUEUED', reason: 'Resources' })).toEqual({ state: 'QUEUED', reason: '资源不足，等待空闲算力' });
    expect(nextState('QUEUED', { jobId: '1', phase: 'RUNNING' })).toEqual({ state: 'RUNNING', reason: '' });
    expect(nextState('RUNNING', { jobId: '1', phase: 'SUCCEEDED', exitCode: 0 })).toEqual({ state: 'SUCCEEDED', reason: '' });
  });

  it('keeps the failure cause: exit code, 超时, out of memory', () => {
    expect(nextState('RUNNING', { jobId: '1', phase: 'FAILED', reason: 'NonZeroExitCode', exitCode: 3 })).toEqual({ state: 'FAILED', reason: '退出码 3' });
    expect(nextState('RUNNING', { jobId: '1', phase: 'FAILED', reason: 'TimeLimit' })?.reason).toBe('超时');
    expect(nextState('RUNNING', { jobId: '1', phase: 'FAILED', reason: 'OutOfMemory' })?.reason).toBe('内存不足');
    expect(nextState('RUNNING', { jobId: '1', phase: 'FAILED', reason: 'Weird' })?.reason).toBe('调度系统原因：Weird');
  });

  it('never leaves a terminal state and never guesses a vanished job', () => {
    expect(nextState('SUCCEEDED', { jobId: '1', phase: 'FAILED', exitCode: 1 })).toBeNull();
    expect(nextState('STOPPED', { jobId: '1', phase: 'RUNNING' })).toBeNull();
    expect(nextState('RUNNING', undefined)).toBeNull();
  });

  it('a stopping task stays stopping while the job runs, and a killed job counts as stopped', () => {
    expect(nextState('STOPPING', { jobId: '1', phase: 'RUNNING' })).toBeNull();
    expect(nextState('STOPPING', { jobId: '1', phase: 'STOPPED', reason: 'Cancelled' })).toEqual({ state: 'STOPPED', reason: '用户停止' });
    expect(nextState('STOPPING', { jobId: '1', phase: 'FAILED', exitCode: 143 })).toEqual({ state: 'STOPPED', reason: '用户停止' });
    // It finished before the cancel arrived: the truth is that it succeeded.
    expect(nextState('STOPPING', { jobId: '1', phase: 'SUCCEEDED', exitCode: 0 })?.state).toBe('SUCCEEDED');
  });

  it('a stop for lack of compute power ends UNDERPOWERED however the scheduler reports the killed job', () => {
    const cancelled = nextState('STOPPING', { jobId: '1', phase: 'STOPPED', reason: 'Cancelled' }, 'underpowered');
    expect(cancelled).toEqual({ state: 'UNDERPOWERED', reason: UNDERPOWERED_REASON });
    expect(nextState('STOPPING', { jobId: '1', phase: 'FAILED', exitCode: 143 }, 'underpowered')?.state).toBe('UNDERPOWERED');
    expect(nextState('STOPPING', { jobId: '1', phase: 'RUNNING' }, 'underpowered')).toBeNull();
    // It finished on its own before the cancel arrived.
    expect(nextState('STOPPING', { jobId: '1', phase: 'SUCCEEDED', exitCode: 0 }, 'underpowered')?.state).toBe('SUCCEEDED');
    // Only a stopping task: a running job the scheduler cancelled for its own reasons is STOPPED.
    expect(nextState('RUNNING', { jobId: '1', phase: 'STOPPED', reason: 'Cancelled' }, 'underpowered')?.state).toBe('STOPPED');
  });

  it('a job cancelled outside the platform says so, never 用户停止; batch-step failures are in words', () => {
    const outside = nextState('RUNNING', { jobId: '1', phase: 'STOPPED', reason: 'Cancelled' });
    expect(outside).toEqual({ state: 'STOPPED', reason: '在平台外被取消（管理员、调度系统或登录节点上的 scancel）' });
    expect(nextState('QUEUED', { jobId: '1', phase: 'STOPPED' })?.reason).toBe(outside!.reason);
    // Who, when accounting names the requester.
    expect(nextState('RUNNING', { jobId: '1', phase: 'STOPPED', reason: 'CancelledByOwner' })).toEqual({ state: 'STOPPED', reason: '用户在登录节点取消（scancel）' });
    expect(nextState('RUNNING', { jobId: '1', phase: 'STOPPED', reason: 'CancelledByAdmin' })).toEqual({ state: 'STOPPED', reason: '被管理员或调度系统取消' });
    expect(nextState('STOPPING', { jobId: '1', phase: 'STOPPED', reason: 'CancelledByOwner' })?.reason).toBe('用户停止');
    expect(nextState('RUNNING', { jobId: '1', phase: 'FAILED', reason: 'JobLaunchFailure' })?.reason).toBe('调度系统未能在节点上启动作业，请重试；多次出现请提交工单');
    expect(nextState('RUNNING', { jobId: '1', phase: 'FAILED', reason: 'NodeDown' })?.reason).toBe('作业所在节点故障');
  });

  it('a requeued job goes back to the queue', () => {
    expect(nextState('RUNNING', { jobId: '1', phase: 'QUEUED', reason: 'Priority' })?.state).toBe('QUEUED');
  });
});
