import { DICTS } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { builtInView, toDictView } from './dicts';

describe('dictionaries before the server answers', () => {
  it('render a stored state in Chinese from the labels the console was built with', () => {
    const states = builtInView('job_states');
    expect(states.labels.SUCCEEDED).toBe('运行成功');
    expect(states.labels.UNDERPOWERED).toBe('算力不足');
    expect(states.options[0]).toEqual({ label: '已创建', value: 'CREATED' });
  });

  it('are what the server serves, in its order', () => {
    for (const name of Object.keys(DICTS)) expect(builtInView(name)).toEqual(toDictView(DICTS[name]));
  });

  it('an unknown dictionary is empty until it loads', () => {
    expect(builtInView('no_such_dict')).toEqual({ labels: {}, options: [] });
  });
});
