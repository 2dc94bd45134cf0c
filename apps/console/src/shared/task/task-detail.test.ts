import type { JobState } from '@suanli/contracts';
import type { ReactElement } from 'react';
import { describe, expect, it } from 'vitest';
import { TRAINING } from '../../features/training/task-view';
import { task } from '../../features/training/test/fake-training';
import { taskFacts } from './task-detail';

const exitCodeShown = (state: JobState, exitCode: number | null) =>
  (taskFacts(task('t1', { state, exitCode }), TRAINING).exitCode.children as ReactElement<{ children: unknown; 'data-testid': string }>).props.children;

describe('task facts', () => {
  it('shows the exit code of a program that ended by itself, and none for a stopped one (its 0 would mislead)', () => {
    expect(exitCodeShown('SUCCEEDED', 0)).toBe(0);
    expect(exitCodeShown('FAILED', 3)).toBe(3);
    expect(exitCodeShown('STOPPED', 0)).toBe('—');
    expect(exitCodeShown('UNDERPOWERED', 0)).toBe('—');
    expect(exitCodeShown('FAILED', null)).toBe('—');
  });
});
