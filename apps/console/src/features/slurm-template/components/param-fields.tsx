import type { SubCenter, TemplateParam } from '@suanli/contracts';
import { Col, Form, Input, InputNumber, Row, Select, type FormRule } from 'antd';
import { FolderInput } from '../../storage/components/folder-input';

/** Form values of a template's parameters, under `params` (`params.<name>`). */
export type ParamValues = Record<string, string | number | null | undefined>;

const rangeText = (p: TemplateParam) =>
  p.min !== undefined && p.max !== undefined ? `${p.min} - ${p.max}` : p.min !== undefined ? `不小于 ${p.min}` : p.max !== undefined ? `不大于 ${p.max}` : '';

/** The rules of one parameter; the messages name it by its label (validateMessages fill `${label}`). */
export function paramRules(p: TemplateParam): FormRule[] {
  const rules: FormRule[] = [];
  if (p.required) rules.push({ required: true, message: p.type === 'select' ? `请选择${p.label}` : `请输入${p.label}` });
  switch (p.type) {
    case 'number':
      rules.push({ type: 'number', message: `${p.label}须为数字` });
      if (p.min !== undefined || p.max !== undefined) {
        rules.push({
          validator: async (_r, v: number | null | undefined) => {
            if (v == null) return;
            if ((p.min !== undefined && v < p.min) || (p.max !== undefined && v > p.max)) {
              throw new Error(p.min !== undefined && p.max !== undefined ? `${p.label}须在 ${p.min} - ${p.max} 之间` : p.min !== undefined ? `${p.label}不能小于 ${p.min}` : `${p.label}不能大于 ${p.max}`);
            }
          },
        });
      }
      break;
    case 'select':
      rules.push({ type: 'enum', enum: p.options ?? [], message: `${p.label}只能取 ${(p.options ?? []).join(' / ')}` });
      break;
    case 'path':
      rules.push(
        { pattern: /^\//, message: `${p.label}须以 / 开头（/ 表示个人目录）` },
        { max: 1024, message: `${p.label}最多1024个字符` },
        {
          validator: async (_r, v: string | undefined) => {
            if (v && v.split('/').some((s) => s === '..')) throw new Error(`${p.label}不能包含 ..`);
          },
        },
      );
      break;
    case 'text':
      rules.push({ max: 1024, message: `${p.label}最多1024个字符` });
      break;
  }
  return rules;
}

/** The values a template starts a form with: each parameter's default (a number parameter's as a number). */
export function paramDefaults(params: TemplateParam[]): ParamValues {
  const out: ParamValues = {};
  for (const p of params) {
    if (p.default === undefined || p.default === '') continue;
    out[p.name] = p.type === 'number' ? Number(p.default) : String(p.default);
  }
  return out;
}

/** What the create call sends: numbers as numbers, text as typed, paths trimmed, empty optional ones left out. */
export function paramPayload(params: TemplateParam[], values: ParamValues | undefined): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const p of params) {
    const v = values?.[p.name];
    if (v == null || v === '') continue;
    out[p.name] = p.type === 'number' ? Number(v) : p.type === 'path' ? String(v).trim() : String(v);
  }
  return out;
}

interface ParamFieldsProps {
  params: TemplateParam[];
  /** Whose storage a path parameter's picker lists. */
  center: SubCenter | undefined;
  /** `<prefix>-<name>` on each field. */
  testIdPrefix?: string;
}

/**
 * A template's parameters as typed form fields under `params`: text → Input, number → InputNumber (the
 * range said below it and checked on submit), select → Select of the options, path → a path in the home
 * typed or chosen in the center's folder tree.
 */
export function ParamFields({ params, center, testIdPrefix = 'slurm-param' }: ParamFieldsProps) {
  return (
    <Row gutter={16} data-testid={`${testIdPrefix}s`}>
      {params.map((p) => {
        const testId = `${testIdPrefix}-${p.name}`;
        const range = p.type === 'number' ? rangeText(p) : '';
        const extra = [p.description, range && `范围：${range}`].filter(Boolean).join('；') || undefined;
        return (
          <Col key={p.name} xs={24} md={p.type === 'path' || p.type === 'text' ? 24 : 12}>
            <Form.Item label={p.label} name={['params', p.name]} rules={paramRules(p)} extra={extra} validateFirst>
              {p.type === 'number' ? (
                <InputNumber style={{ width: '100%' }} placeholder={`请输入${p.label}`} data-testid={testId} />
              ) : p.type === 'select' ? (
                <Select
                  placeholder={`请选择${p.label}`}
                  allowClear={!p.required}
                  options={(p.options ?? []).map((o) => ({ value: o, label: o }))}
                  data-testid={testId}
                />
              ) : p.type === 'path' ? (
                <FolderInput center={center} testId={testId} placeholder="例如 /results/output.txt" pickTitle={`选择${p.label}所在目录`} />
              ) : (
                <Input placeholder={`请输入${p.label}`} data-testid={testId} />
              )}
            </Form.Item>
          </Col>
        );
      })}
    </Row>
  );
}
