import { describe, expect, it } from 'vitest';
import { vendorLabel } from './vendor';

describe('vendorLabel', () => {
  it('names the configured vendors in Chinese, whatever their case, and leaves an unknown one as configured', () => {
    expect(['Huawei', 'Hygon', 'Intel', 'NVIDIA', 'hygon'].map(vendorLabel)).toEqual(['华为', '海光', '英特尔', 'NVIDIA', '海光']);
    expect(vendorLabel('燧原')).toBe('燧原');
  });
});
