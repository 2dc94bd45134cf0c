import { CENTER_PACKAGES_MAX, PACKAGE_CARD_HOURS_MAX, type AdminCenter, type CenterPackageInput } from '@suanli/contracts';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Col, Form, Input, InputNumber, Modal, Row, Select, type ButtonProps } from 'antd';
import { useEffect } from 'react';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { setCenterPackages } from './api';

interface FormValues {
  packages: (Omit<CenterPackageInput, 'price'> & { price: string })[];
  reason?: string;
}

const PRICE = /^\d{1,9}(\.\d{1,2})?$/;
/** `99` / `99.5` → `99.00` / `99.50`: the wire's 元 with two decimals. */
const money = (v: string) => {
  const [whole, cents = ''] = v.trim().split('.');
  return `${Number(whole)}.${cents.padEnd(2, '0')}`;
};

/** 编辑算力卡: the whole list the center sells (add, change, remove), saved as one audited change. */
export function CenterPackagesModal({ center, onClose }: { center: AdminCenter | null; onClose: () => void }) {
  const client = useQueryClient();
  const [form] = Form.useForm<FormValues>();
  useEffect(() => {
    if (center) form.setFieldsValue({ packages: center.packages, reason: '' });
  }, [center, form]);
  const save = useMutation({
    mutationFn: (v: FormValues) =>
      setCenterPackages(center!.id, { packages: (v.packages ?? []).map((p) => ({ ...p, name: p.name.trim(), price: money(p.price) })), reason: v.reason?.trim() || undefined }),
    onSuccess: (c) => {
      toast.success(`${c.name}的算力卡已保存`);
      void client.invalidateQueries({ queryKey: queryKeys.admin.root });
      onClose();
    },
  });
  const cardTypes = (center?.cardTypes ?? []).map((t) => ({ label: t.name, value: t.id }));
  // Wide screens: one row per package under one set of labels; phones stack each package, labelled.
  const screens = useBreakpoint();
  const labelled = (i: number) => i === 0 || !screens.sm;
  return (
    <Modal
      open={center !== null}
      title={center ? `编辑算力卡：${center.name}` : '编辑算力卡'}
      okText="保存"
      cancelText="取消"
      width={860}
      okButtonProps={{ loading: save.isPending, 'data-testid': 'center-packages-save' } as ButtonProps}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onFinish={(v) => save.mutate(v)} requiredMark={false} data-testid="center-packages-form">
        <Form.List name="packages">
          {(fields, { add, remove }) => (
            <>
              {fields.map((f, i) => (
                <Row key={f.key} gutter={8} align="bottom" data-testid="center-package-row" style={{ borderBottom: '1px solid #f0f0f0', marginBottom: 12 }}>
                  <Form.Item name={[f.name, 'id']} hidden>
                    <Input />
                  </Form.Item>
                  <Col xs={24} sm={5}>
                    <Form.Item name={[f.name, 'cardTypeId']} label={labelled(i) ? '卡型' : undefined} rules={[{ required: true, message: '请选择卡型' }]}>
                      <Select options={cardTypes} placeholder="卡型" virtual={false} aria-label="卡型" />
                    </Form.Item>
                  </Col>
                  <Col xs={24} sm={7}>
                    <Form.Item name={[f.name, 'name']} label={labelled(i) ? '名称' : undefined} rules={[{ required: true, whitespace: true, message: '请填写名称' }]}>
                      <Input maxLength={64} placeholder="名称" aria-label="名称" data-testid="center-package-name" />
                    </Form.Item>
                  </Col>
                  <Col xs={8} sm={3}>
                    <Form.Item name={[f.name, 'cardHours']} label={labelled(i) ? '卡时' : undefined} rules={[{ required: true, message: '请填写卡时' }]}>
                      <InputNumber min={1} max={PACKAGE_CARD_HOURS_MAX} precision={0} style={{ width: '100%' }} placeholder="卡时" aria-label="卡时" />
                    </Form.Item>
                  </Col>
                  <Col xs={8} sm={4}>
                    <Form.Item
                      name={[f.name, 'price']}
                      label={labelled(i) ? '价格（元）' : undefined}
                      rules={[
                        { required: true, message: '请填写价格' },
                        { pattern: PRICE, message: '最多两位小数' },
                        { validator: (_r, v: string) => (v && Number(v) <= 0 ? Promise.reject(new Error('价格须大于 0')) : Promise.resolve()) },
                      ]}
                    >
                      <Input placeholder="价格" aria-label="价格（元）" data-testid="center-package-price" />
                    </Form.Item>
                  </Col>
                  <Col xs={6} sm={3}>
                    <Form.Item name={[f.name, 'validDays']} label={labelled(i) ? '有效期（天）' : undefined} rules={[{ required: true, message: '请填写有效期' }]}>
                      <InputNumber min={1} max={3650} precision={0} style={{ width: '100%' }} placeholder="天" aria-label="有效期（天）" />
                    </Form.Item>
                  </Col>
                  <Col xs={2} sm={2}>
                    <Form.Item label={labelled(i) ? ' ' : undefined}>
                      <Button type="text" danger icon={<DeleteOutlined />} aria-label="删除" onClick={() => remove(f.name)} data-testid="center-package-remove" />
                    </Form.Item>
                  </Col>
                </Row>
              ))}
              <Button
                type="dashed"
                block
                icon={<PlusOutlined />}
                disabled={fields.length >= CENTER_PACKAGES_MAX}
                onClick={() => add({ cardTypeId: center?.cardTypes[0]?.id, name: '', cardHours: 10, price: '', validDays: 30 })}
                style={{ marginBottom: 16 }}
                data-testid="center-package-add"
              >
                添加算力卡
              </Button>
            </>
          )}
        </Form.List>
        <Form.Item name="reason" label="原因（选填，记入审计日志）" style={{ marginBottom: 8 }}>
          <Input maxLength={200} data-testid="center-packages-reason" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
