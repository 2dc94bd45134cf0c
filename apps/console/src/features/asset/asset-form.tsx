import { ASSET_LICENSES, ASSET_TAGS_MAX, type AssetCreate, type AssetDetail, type AssetKind, type AssetUpdate } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { AutoComplete, Form, Input, Modal, Select } from 'antd';
import { useEffect } from 'react';
import { queryKeys } from '../../app/query-keys';
import { fetchSubCenters } from '../storage/api';
import { FolderInput } from '../storage/components/folder-input';
import { KIND_LABEL } from './api';

/** The centers whose storage a version can be made from (online ones first). */
export function useCenters() {
  return useQuery({ queryKey: queryKeys.storage.centers, queryFn: fetchSubCenters, staleTime: 60_000 });
}

/** Center + folder of the user's storage: where a version is copied from. */
export function SourceFields({ prefix, required }: { prefix: string[]; required: boolean }) {
  const centers = useCenters();
  const centerId = Form.useWatch([...prefix, 'subCenterId']) as string | undefined;
  const center = centers.data?.find((c) => c.id === centerId);
  return (
    <>
      <Form.Item name={[...prefix, 'subCenterId']} label="算力分中心" rules={required ? [{ required: true, message: '请选择算力分中心' }] : []}>
        <Select
          data-testid="asset-source-center"
          placeholder="文件所在的分中心"
          allowClear={!required}
          loading={centers.isLoading}
          options={(centers.data ?? []).map((c) => ({ value: c.id, label: c.name, disabled: c.status !== 'online' }))}
        />
      </Form.Item>
      <Form.Item
        name={[...prefix, 'path']}
        label="文件夹"
        extra="该分中心“存储管理”中的文件夹，例如 /datasets/mnist；创建后即为不可变的快照，之后修改原文件夹不影响该版本。"
        rules={required ? [{ required: true, message: '请输入文件夹路径' }, { pattern: /^\//, message: '路径以 / 开头' }] : [{ pattern: /^\//, message: '路径以 / 开头' }]}
      >
        <FolderInput center={center} testId="asset-source-path" placeholder="/datasets/mnist" pickTitle="选择文件夹" />
      </Form.Item>
      <Form.Item name={[...prefix, 'note']} label="版本说明">
        <Input data-testid="asset-source-note" placeholder="例如：清洗后的首个版本" maxLength={200} />
      </Form.Item>
    </>
  );
}

type FormValues = AssetCreate & { metricsText?: string; source?: { subCenterId?: string; path?: string; note?: string } };

/** Parses `top1=0.76, loss=0.12` into metrics; null when a part is not `name=number`. */
export function parseMetrics(text: string | undefined): Record<string, number> | null {
  const out: Record<string, number> = {};
  for (const part of (text ?? '').split(/[,，\n]/).map((p) => p.trim()).filter(Boolean)) {
    const m = /^([^=]{1,32})=\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)$/i.exec(part);
    if (!m) return null;
    out[m[1].trim()] = Number(m[2]);
  }
  return out;
}

/**
 * Create (with an optional v1 from a folder) or edit a dataset or model: name, description, tags, licence,
 * and for models framework, format and metrics.
 */
export function AssetFormModal({
  kind,
  open,
  initial,
  submitting,
  onCancel,
  onSubmit,
}: {
  kind: AssetKind;
  open: boolean;
  initial?: AssetDetail;
  submitting: boolean;
  onCancel: () => void;
  onSubmit: (body: AssetCreate | AssetUpdate) => void;
}) {
  const [form] = Form.useForm<FormValues>();
  const label = KIND_LABEL[kind];
  useEffect(() => {
    if (!open) return;
    form.resetFields();
    if (initial) {
      form.setFieldsValue({
        name: initial.name,
        description: initial.description,
        tags: initial.tags,
        license: initial.license,
        framework: initial.framework,
        format: initial.format,
        metricsText: Object.entries(initial.metrics)
          .map(([k, v]) => `${k}=${v}`)
          .join(', '),
      });
    }
  }, [open, initial, form]);

  const finish = (v: FormValues) => {
    const body: AssetCreate = { name: v.name, description: v.description ?? '', tags: v.tags ?? [], license: v.license ?? '' };
    if (kind === 'model') {
      body.framework = v.framework ?? '';
      body.format = v.format ?? '';
      body.metrics = parseMetrics(v.metricsText) ?? {};
    }
    if (!initial && v.source?.subCenterId && v.source.path) body.source = { subCenterId: v.source.subCenterId, path: v.source.path, note: v.source.note ?? '' };
    onSubmit(body);
  };

  return (
    <Modal
      title={initial ? `编辑${label}` : `创建${label}`}
      open={open}
      onCancel={onCancel}
      onOk={() => form.submit()}
      okText={initial ? '保存' : '创建'}
      cancelText="取消"
      confirmLoading={submitting}
      okButtonProps={{ 'data-testid': 'asset-form-ok' } as Record<`data-${string}`, string>}
      destroyOnHidden
      width={640}
    >
      <Form form={form} layout="vertical" onFinish={finish} requiredMark="optional">
        <Form.Item name="name" label="名称" rules={[{ required: true, whitespace: true, message: `请输入${label}名称` }, { max: 64, message: '名称最多 64 个字符' }]}>
          <Input data-testid="asset-name" placeholder={kind === 'dataset' ? '例如：MNIST 手写数字' : '例如：ResNet-50 图像分类'} />
        </Form.Item>
        <Form.Item name="description" label="描述">
          <Input.TextArea data-testid="asset-description" rows={3} maxLength={2000} showCount />
        </Form.Item>
        <Form.Item name="tags" label="标签" rules={[{ type: 'array', max: ASSET_TAGS_MAX, message: `最多 ${ASSET_TAGS_MAX} 个标签` }]}>
          <Select data-testid="asset-tags" mode="tags" placeholder="输入后回车，例如：图像、分类" tokenSeparators={[',', '，']} maxTagTextLength={20} />
        </Form.Item>
        <Form.Item name="license" label="许可协议">
          <AutoComplete data-testid="asset-license" options={ASSET_LICENSES.map((l) => ({ value: l }))} placeholder="例如：CC BY 4.0" />
        </Form.Item>
        {kind === 'model' ? (
          <>
            <Form.Item name="framework" label="框架">
              <AutoComplete options={['PyTorch', 'TensorFlow', 'MindSpore', 'PaddlePaddle', 'ONNX'].map((value) => ({ value }))} placeholder="例如：PyTorch" />
            </Form.Item>
            <Form.Item name="format" label="格式">
              <AutoComplete options={['pt', 'safetensors', 'onnx', 'ckpt', 'savedmodel'].map((value) => ({ value }))} placeholder="例如：safetensors" />
            </Form.Item>
            <Form.Item
              name="metricsText"
              label="指标"
              extra="形如 top1=0.761, loss=0.12"
              rules={[{ validator: async (_r, v: string) => (parseMetrics(v) ? undefined : Promise.reject(new Error('请按“名称=数值”填写，多个用逗号分隔'))) }]}
            >
              <Input placeholder="top1=0.761, loss=0.12" />
            </Form.Item>
          </>
        ) : null}
        {initial ? null : <SourceFields prefix={['source']} required={false} />}
      </Form>
    </Modal>
  );
}
