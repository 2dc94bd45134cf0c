import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import type { TemplateParam } from '@suanli/contracts';
import { Button, Card, Checkbox, Col, Form, Input, InputNumber, Row, Select, Typography } from 'antd';
import { PARAM_NAME_PATTERN, PARAM_OPTION_PATTERN, PARAM_TYPE_LABELS } from '../template-view';

/** One parameter as the editor holds it (antd gives `null` for a cleared number). */
export interface ParamDraft {
  name: string;
  label: string;
  type: TemplateParam['type'];
  required: boolean;
  default?: string | number | null;
  min?: number | null;
  max?: number | null;
  options?: string[];
  description?: string;
}

export const PARAMS_MAX = 30;

const present = <T,>(v: T | null | undefined): v is T => v !== null && v !== undefined && v !== '';

/** The wire shape: fields that do not apply to the type, or are empty, are left out. */
export function toTemplateParam(d: ParamDraft): TemplateParam {
  const p: TemplateParam = { name: d.name.trim(), label: d.label.trim(), type: d.type, required: Boolean(d.required) };
  if (present(d.default)) p.default = d.type === 'number' ? Number(d.default) : String(d.default);
  if (d.type === 'number') {
    if (present(d.min)) p.min = d.min;
    if (present(d.max)) p.max = d.max;
  }
  if (d.type === 'select') p.options = d.options ?? [];
  if (d.description?.trim()) p.description = d.description.trim();
  return p;
}

export function toDraft(p: TemplateParam): ParamDraft {
  return {
    name: p.name,
    label: p.label,
    type: p.type,
    required: p.required,
    default: p.type === 'number' && present(p.default) ? Number(p.default) : (p.default ?? undefined),
    min: p.min,
    max: p.max,
    options: p.options,
    description: p.description,
  };
}

const NEW_PARAM: ParamDraft = { name: '', label: '', type: 'text', required: true };

/**
 * 参数: the template's parameters (Form.List `params`), each a card with its name (as `{{name}}` in the
 * script), label, type, whether it is required, its default, and per type the range or the options.
 */
export function ParamsEditor() {
  return (
    <Form.List name="params">
      {(fields, { add, remove }) => (
        <div style={{ display: 'flex', flexDirection: 'column', gap: 12 }} data-testid="tpl-params">
          {fields.length === 0 && <Typography.Text type="secondary">暂无参数。在脚本中用 {'{{参数名}}'} 引用参数，提交任务时按参数类型填写。</Typography.Text>}
          {fields.map((field, index) => (
            <ParamRow key={field.key} name={field.name} index={index} onRemove={() => remove(field.name)} />
          ))}
          <Button type="dashed" icon={<PlusOutlined />} onClick={() => add({ ...NEW_PARAM })} disabled={fields.length >= PARAMS_MAX} data-testid="tpl-param-add">
            添加参数{fields.length >= PARAMS_MAX ? `（最多 ${PARAMS_MAX} 个）` : ''}
          </Button>
        </div>
      )}
    </Form.List>
  );
}

function ParamRow({ name, index, onRemove }: { name: number; index: number; onRemove: () => void }) {
  const form = Form.useFormInstance();
  const type = (Form.useWatch(['params', name, 'type'], form) as ParamDraft['type'] | undefined) ?? 'text';
  const options = (Form.useWatch(['params', name, 'options'], form) as string[] | undefined) ?? [];
  const paramName = (Form.useWatch(['params', name, 'name'], form) as string | undefined) ?? '';
  const at = (key: keyof ParamDraft) => ['params', name, key];

  return (
    <Card
      size="small"
      title={<span style={{ fontFamily: 'monospace' }}>{`参数 ${index + 1}${paramName ? `：{{${paramName}}}` : ''}`}</span>}
      extra={<Button type="text" danger size="small" icon={<DeleteOutlined />} onClick={onRemove} aria-label="删除参数" data-testid="tpl-param-remove" />}
      data-testid="tpl-param-row"
    >
      <Row gutter={12}>
        <Col xs={24} sm={12} md={6}>
          <Form.Item
            label="参数名"
            name={[name, 'name']}
            validateFirst
            rules={[
              { required: true, message: '请输入参数名' },
              { pattern: PARAM_NAME_PATTERN, message: '参数名只能包含字母、数字和下划线，不能以数字开头，最长32个字符' },
              ({ getFieldValue }) => ({
                validator: async (_r, v: string | undefined) => {
                  const all = (getFieldValue('params') as Partial<ParamDraft>[] | undefined) ?? [];
                  if (v && all.filter((p) => p?.name === v).length > 1) throw new Error(`参数名 ${v} 重复`);
                },
              }),
            ]}
          >
            <Input placeholder="例如 steps" style={{ fontFamily: 'monospace' }} data-testid="tpl-param-name" />
          </Form.Item>
        </Col>
        <Col xs={24} sm={12} md={6}>
          <Form.Item label="显示名称" name={[name, 'label']} rules={[{ required: true, whitespace: true, message: '请输入显示名称' }, { max: 32, message: '显示名称最多32个字符' }]}>
            <Input placeholder="例如 步数" data-testid="tpl-param-label" />
          </Form.Item>
        </Col>
        <Col xs={16} sm={12} md={6}>
          <Form.Item label="类型" name={[name, 'type']} rules={[{ required: true, message: '请选择参数类型' }]}>
            <Select
              allowClear={false}
              options={(Object.keys(PARAM_TYPE_LABELS) as ParamDraft['type'][]).map((t) => ({ value: t, label: PARAM_TYPE_LABELS[t] }))}
              onChange={() => form.setFieldValue(at('default'), undefined)}
              data-testid="tpl-param-type"
            />
          </Form.Item>
        </Col>
        <Col xs={8} sm={12} md={6}>
          <Form.Item label="必填" name={[name, 'required']} valuePropName="checked">
            <Checkbox data-testid="tpl-param-required">必填</Checkbox>
          </Form.Item>
        </Col>
        {type === 'number' && (
          <>
            <Col xs={12} md={6}>
              <Form.Item label="最小值" name={[name, 'min']}>
                <InputNumber style={{ width: '100%' }} placeholder="不限" data-testid="tpl-param-min" />
              </Form.Item>
            </Col>
            <Col xs={12} md={6}>
              <Form.Item
                label="最大值"
                name={[name, 'max']}
                dependencies={[at('min')]}
                rules={[
                  ({ getFieldValue }) => ({
                    validator: async (_r, v: number | null | undefined) => {
                      const min = getFieldValue(at('min')) as number | null | undefined;
                      if (present(v) && present(min) && min > v) throw new Error('最大值不能小于最小值');
                    },
                  }),
                ]}
              >
                <InputNumber style={{ width: '100%' }} placeholder="不限" data-testid="tpl-param-max" />
              </Form.Item>
            </Col>
          </>
        )}
        {type === 'select' && (
          <Col xs={24} md={12}>
            <Form.Item
              label="选项"
              name={[name, 'options']}
              extra="输入后回车添加；只能包含字母、数字和 _ . : / + -"
              rules={[
                { required: true, type: 'array', min: 1, message: '下拉选择参数至少需要一个选项' },
                {
                  validator: async (_r, v: string[] | undefined) => {
                    const bad = (v ?? []).find((o) => !PARAM_OPTION_PATTERN.test(o));
                    if (bad !== undefined) throw new Error(`选项 ${bad} 不合法：只能包含字母、数字和 _ . : / + -，最长64个字符`);
                    if (v && v.length > 50) throw new Error('选项最多50个');
                  },
                },
              ]}
            >
              <Select mode="tags" tokenSeparators={[',', ' ']} placeholder="例如 float32、float64" open={false} suffixIcon={null} data-testid="tpl-param-options" />
            </Form.Item>
          </Col>
        )}
        <Col xs={24} md={type === 'text' || type === 'path' ? 12 : 6}>
          <Form.Item
            label="默认值"
            name={[name, 'default']}
            dependencies={[at('type'), at('min'), at('max'), at('options')]}
            rules={[
              ({ getFieldValue }) => ({
                validator: async (_r, v: string | number | null | undefined) => {
                  if (!present(v)) return;
                  // Read from the store, not the render: the type may have changed a moment ago.
                  const kind = getFieldValue(at('type')) as ParamDraft['type'];
                  const min = getFieldValue(at('min')) as number | null | undefined;
                  const max = getFieldValue(at('max')) as number | null | undefined;
                  if (kind === 'number') {
                    if ((present(min) && Number(v) < min) || (present(max) && Number(v) > max)) throw new Error(`默认值须在 ${present(min) ? min : '-∞'} - ${present(max) ? max : '+∞'} 之间`);
                  } else if (kind === 'select') {
                    if (!((getFieldValue(at('options')) as string[] | undefined) ?? []).includes(String(v))) throw new Error('默认值须是选项之一');
                  } else if (kind === 'path') {
                    if (!String(v).startsWith('/')) throw new Error('默认路径须以 / 开头（/ 表示个人目录）');
                    if (String(v).split('/').includes('..')) throw new Error('默认路径不能包含 ..');
                  }
                  if (String(v).length > 1024) throw new Error('默认值最多1024个字符');
                },
              }),
            ]}
          >
            {type === 'number' ? (
              <InputNumber style={{ width: '100%' }} placeholder="无" data-testid="tpl-param-default" />
            ) : type === 'select' ? (
              <Select allowClear placeholder="无" options={options.map((o) => ({ value: o, label: o }))} data-testid="tpl-param-default" />
            ) : (
              <Input placeholder={type === 'path' ? '例如 /results' : '无'} style={type === 'path' ? { fontFamily: 'monospace' } : undefined} data-testid="tpl-param-default" />
            )}
          </Form.Item>
        </Col>
        <Col xs={24}>
          <Form.Item label="说明" name={[name, 'description']} rules={[{ max: 256, message: '说明最多256个字符' }]} style={{ marginBottom: 0 }}>
            <Input placeholder="显示在表单字段下方的提示（选填）" data-testid="tpl-param-description" />
          </Form.Item>
        </Col>
      </Row>
    </Card>
  );
}
