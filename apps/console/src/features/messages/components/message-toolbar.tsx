import { CheckOutlined, CheckSquareOutlined } from '@ant-design/icons';
import { MESSAGE_TYPE_LABELS, MESSAGE_TYPES, type MessageType } from '@suanli/contracts';
import { Button, Radio, Select, Space } from 'antd';

export type ReadFilter = 'all' | 'unread' | 'read';

interface MessageToolbarProps {
  readFilter: ReadFilter;
  type: MessageType | undefined;
  selectedCount: number;
  busy: boolean;
  onReadFilter: (value: ReadFilter) => void;
  onType: (value: MessageType | undefined) => void;
  onMarkSelected: () => void;
  onMarkAll: () => void;
}

const TYPE_OPTIONS = MESSAGE_TYPES.map((t) => ({ value: t, label: MESSAGE_TYPE_LABELS[t] }));

export function MessageToolbar(props: MessageToolbarProps) {
  const { readFilter, type, selectedCount, busy } = props;
  return (
    <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12, justifyContent: 'space-between' }}>
      <Space wrap>
        <Radio.Group value={readFilter} onChange={(e) => props.onReadFilter(e.target.value as ReadFilter)} optionType="button" buttonStyle="solid">
          <Radio.Button value="all">
            <span data-testid="msg-filter-all">全部</span>
          </Radio.Button>
          <Radio.Button value="unread">
            <span data-testid="msg-filter-unread">未读</span>
          </Radio.Button>
          <Radio.Button value="read">
            <span data-testid="msg-filter-read">已读</span>
          </Radio.Button>
        </Radio.Group>
        <Select<MessageType>
          placeholder="全部类型"
          value={type}
          onChange={(v) => props.onType(v ?? undefined)}
          options={TYPE_OPTIONS}
          style={{ width: 140 }}
          data-testid="msg-filter-type"
        />
      </Space>
      <Space wrap>
        <Button icon={<CheckOutlined />} disabled={selectedCount === 0} loading={busy} onClick={props.onMarkSelected} data-testid="msg-mark-read">
          标记已读{selectedCount > 0 ? `（${selectedCount}）` : ''}
        </Button>
        <Button type="primary" icon={<CheckSquareOutlined />} loading={busy} onClick={props.onMarkAll} data-testid="msg-mark-all">
          全部已读
        </Button>
      </Space>
    </div>
  );
}
