import { Input } from 'antd';
import type { CSSProperties } from 'react';

/** What the server accepts as an operator's reason (contracts: 1–200 characters where it is required). */
export const REASON_MAX = 200;

interface ReasonFieldProps {
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  testId: string;
  /** Marks the box when what was typed is only blanks (a required reason). */
  invalid?: boolean;
}

// The count is drawn below the box: room for it above the dialog's buttons.
const STYLE: CSSProperties = { marginBottom: 12 };

/** The reason an operator gives for an action in 运营管理 (audited; where it says so, told to the people it concerns). */
export function ReasonField({ value, onChange, placeholder, testId, invalid }: ReasonFieldProps) {
  return (
    <Input.TextArea
      value={value}
      onChange={(e) => onChange(e.target.value)}
      maxLength={REASON_MAX}
      showCount
      autoSize={{ minRows: 2, maxRows: 4 }}
      placeholder={placeholder}
      status={invalid ? 'error' : undefined}
      style={STYLE}
      data-testid={testId}
    />
  );
}
