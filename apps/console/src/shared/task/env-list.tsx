import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { TASK_ENV_MAX, type EnvVar } from '@suanli/contracts';
import { Button, Form, Input } from 'antd';

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** 环境变量: name/value rows; names follow the contract's pattern, are unique and never the platform's own. */
export function EnvList({ testIdPrefix }: { testIdPrefix: string }) {
  return (
    <Form.List name="env">
      {(fields, { add, remove }) => (
        <div style={{ display: 'flex', flexDirection: 'column', gap: 8 }} data-testid={`${testIdPrefix}-env`}>
          {fields.map((field) => (
            <div key={field.key} style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }} data-testid={`${testIdPrefix}-env-row`}>
              <Form.Item
                name={[field.name, 'name']}
                style={{ flex: '1 1 40%', minWidth: 0, marginBottom: 0 }}
                validateFirst
                rules={[
                  { required: true, message: '请输入环境变量名' },
                  { pattern: NAME_PATTERN, message: '环境变量名只能包含字母、数字和下划线，不能以数字开头，最长64个字符' },
                  {
                    validator: async (_r, v: string | undefined) => {
                      if (v?.startsWith('SUANLI_')) throw new Error(`环境变量 ${v} 由平台设置，不能自定义`);
                    },
                  },
                  ({ getFieldValue }) => ({
                    validator: async (_r, v: string | undefined) => {
                      const all = (getFieldValue('env') as Partial<EnvVar>[] | undefined) ?? [];
                      if (v && all.filter((e) => e?.name === v).length > 1) throw new Error(`环境变量 ${v} 重复`);
                    },
                  }),
                ]}
              >
                <Input placeholder="变量名" style={{ fontFamily: 'monospace' }} aria-label="环境变量名" />
              </Form.Item>
              <Form.Item name={[field.name, 'value']} style={{ flex: '1 1 60%', minWidth: 0, marginBottom: 0 }} rules={[{ max: 4096, message: '环境变量值最多4096个字符' }]}>
                <Input placeholder="变量值" style={{ fontFamily: 'monospace' }} aria-label="环境变量值" />
              </Form.Item>
              <Button type="text" danger icon={<DeleteOutlined />} aria-label="删除环境变量" title="删除" onClick={() => remove(field.name)} />
            </div>
          ))}
          <Button
            type="dashed"
            icon={<PlusOutlined />}
            onClick={() => add({ name: '', value: '' })}
            disabled={fields.length >= TASK_ENV_MAX}
            data-testid={`${testIdPrefix}-env-add`}
          >
            添加环境变量{fields.length >= TASK_ENV_MAX ? `（最多 ${TASK_ENV_MAX} 个）` : ''}
          </Button>
        </div>
      )}
    </Form.List>
  );
}
