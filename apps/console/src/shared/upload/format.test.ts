import { formatFileSize } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';

// The panel's size column uses the contract's formatter; the spec's thresholds are 10.24 bytes and 102.4 KB.
describe('formatFileSize at the spec thresholds', () => {
  it('shows bytes below 10.24 and KB from 10.24', () => {
    expect(formatFileSize(0)).toBe('0 B');
    expect(formatFileSize(10)).toBe('10 B');
    expect(formatFileSize(10.23)).toBe('10.23 B');
    expect(formatFileSize(10.24)).toBe('0.01 KB');
    expect(formatFileSize(11)).toBe('0.01 KB');
  });

  it('shows KB below 102.4 KB and MB from 102.4 KB exactly', () => {
    const limit = 102.4 * 1024; // 104857.6 bytes
    expect(formatFileSize(limit - 1)).toBe('102.40 KB');
    expect(formatFileSize(104_857)).toBe('102.40 KB');
    expect(formatFileSize(limit)).toBe('0.10 MB');
    expect(formatFileSize(104_858)).toBe('0.10 MB');
    expect(formatFileSize(100 * 1024 * 1024)).toBe('100.00 MB');
  });
});
