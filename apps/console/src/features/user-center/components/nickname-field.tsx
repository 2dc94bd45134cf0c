import { EditOutlined } from '@ant-design/icons';
import { Button, Input, Space, Typography } from 'antd';
import { useState } from 'react';

interface NicknameFieldProps {
  value: string;
  saving: boolean;
  onSave: (nickname: string) => Promise<unknown>;
}

const MAX = 32;

/** The nickname with an inline editor. */
export function NicknameField({ value, saving, onSave }: NicknameFieldProps) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(value);
  const trimmed = draft.trim();
  const problem = !trimmed ? '昵称不能为空' : trimmed.length > MAX ? `昵称最多${MAX}个字符` : null;

  if (!editing) {
    return (
      <Space>
        <Typography.Text data-testid="uc-nickname">{value || '未设置'}</Typography.Text>
        <Button
          type="link"
          size="small"
          icon={<EditOutlined />}
          data-testid="uc-nickname-edit"
          onClick={() => {
            setDraft(value);
            setEditing(true);
          }}
        >
          修改
        </Button>
      </Space>
    );
  }

  const save = async () => {
    if (problem) return;
    try {
      await onSave(trimmed);
      setEditing(false);
    } catch {
      // The pipeline showed the reason; keep the editor open with the draft.
    }
  };

  return (
    <Space wrap align="start">
      <div>
        <Input
          autoFocus
          value={draft}
          maxLength={MAX}
          showCount
          status={problem ? 'error' : undefined}
          onChange={(e) => setDraft(e.target.value)}
          onPressEnter={save}
          style={{ width: 240 }}
          data-testid="uc-nickname-input"
        />
        {problem ? <div style={{ color: '#ff4d4f', fontSize: 12 }}>{problem}</div> : null}
      </div>
      <Button type="primary" loading={saving} disabled={Boolean(problem)} onClick={save} data-testid="uc-nickname-save">
        保存
      </Button>
      <Button onClick={() => setEditing(false)} data-testid="uc-nickname-cancel">
        取消
      </Button>
    </Space>
  );
}
