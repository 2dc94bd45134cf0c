import { Input } from 'antd';
import type { TextAreaProps } from 'antd/es/input';
import { MONO } from '../../../shared/ui/mono';

/** An sbatch script being written: monospace, no spell check, long lines scroll rather than wrap. */
export function ScriptInput(props: TextAreaProps) {
  return <Input.TextArea autoSize={{ minRows: 14, maxRows: 40 }} spellCheck={false} style={{ fontFamily: MONO, fontSize: 13, whiteSpace: 'pre', overflowX: 'auto' }} {...props} />;
}
