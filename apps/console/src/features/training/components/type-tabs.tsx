import { TRAINING_TYPES, type TrainingType } from '@suanli/contracts';
import { Segmented } from 'antd';
import { useNavigate } from 'react-router';
import { TYPE_INFO } from '../task-view';

/** Switches between the three list pages (单机训练 / 交互式开发 / 分布式训练); each has its own URL. */
export function TypeTabs({ type }: { type: TrainingType }) {
  const navigate = useNavigate();
  return (
    <div style={{ overflowX: 'auto', maxWidth: '100%' }}>
      <Segmented<TrainingType>
        data-testid="training-type-tabs"
        value={type}
        onChange={(t) => navigate(TYPE_INFO[t].path)}
        options={TRAINING_TYPES.map((t) => ({ value: t, label: <span data-testid={`training-tab-${t}`}>{TYPE_INFO[t].label}</span> }))}
      />
    </div>
  );
}
