import { ImportOutlined } from '@ant-design/icons';
import { IMAGE_REPOSITORY_NAME_MAX, IMAGE_REPOSITORY_NAME_PATTERN, IMAGE_TAG_PATTERN, type ImageImport, type ImageImportCreate } from '@suanli/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Progress, Select, Space, Typography } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { useCenters } from '../asset/asset-form';
import { getImport, startImport } from './api';

const STATUS: Record<ImageImport['state'], 'active' | 'success' | 'exception'> = { running: 'active', succeeded: 'success', failed: 'exception' };

/**
 * 从存储导入: an image archive (`docker save` or an OCI archive) the user uploaded to a center's storage is
 * pushed into their namespace by the server. Progress arrives on the socket (`image.import.changed` writes
 * the import into the query cache), so the page never polls.
 */
export function ImageImportCard({ namespace }: { namespace: string }) {
  const [form] = Form.useForm<ImageImportCreate>();
  const centers = useCenters();
  const navigate = useNavigate();
  const [importId, setImportId] = useState<string | null>(null);
  const start = useMutation({ mutationFn: startImport, onSuccess: (imp) => setImportId(imp.id) });
  // Read once (a page opened mid-import); afterwards the socket keeps it current.
  const current = useQuery({ queryKey: queryKeys.image.import(importId ?? ''), queryFn: () => getImport(importId!), enabled: Boolean(importId), staleTime: Infinity });
  const imp = current.data ?? (start.data?.id === importId ? start.data : undefined);
  const running = imp?.state === 'running';

  return (
    <Card title="3. 或：从存储导入镜像文件">
      <Typography.Paragraph type="secondary">
        先在“存储管理”中上传 <Typography.Text code>docker save</Typography.Text> 导出的 tar 文件或 OCI 镜像归档，平台读取并校验后推送到您的命名空间，无需本地 Docker。
      </Typography.Paragraph>
      <Form
        form={form}
        layout="vertical"
        style={{ maxWidth: 560 }}
        disabled={running || start.isPending}
        onFinish={(v) => start.mutate({ ...v, path: v.path.trim(), repository: v.repository.trim(), tag: v.tag?.trim() || undefined })}
      >
        <Form.Item name="subCenterId" label="算力分中心" rules={[{ required: true, message: '请选择镜像文件所在的分中心' }]}>
          <Select
            data-testid="image-import-center"
            placeholder="镜像文件所在的分中心"
            loading={centers.isLoading}
            options={(centers.data ?? []).map((c) => ({ value: c.id, label: c.name, disabled: c.status !== 'online' }))}
          />
        </Form.Item>
        <Form.Item name="path" label="镜像文件" extra="该分中心存储中的文件路径，例如 /images/my-app.tar" rules={[{ required: true, message: '请输入镜像文件路径' }, { pattern: /^\//, message: '路径以 / 开头' }]}>
          <Input data-testid="image-import-path" placeholder="/images/my-app.tar" maxLength={1024} />
        </Form.Item>
        <Form.Item
          name="repository"
          label="镜像仓库"
          extra={`推送到 ${namespace}/<仓库名>；不存在时自动创建`}
          rules={[
            { required: true, message: '请输入仓库名' },
            { max: IMAGE_REPOSITORY_NAME_MAX, message: `仓库名不能超过 ${IMAGE_REPOSITORY_NAME_MAX} 个字符` },
            { pattern: new RegExp(IMAGE_REPOSITORY_NAME_PATTERN), message: '仓库名只能使用小写字母、数字以及 . _ - /，且须以字母或数字开头和结尾' },
          ]}
        >
          <Input data-testid="image-import-repository" addonBefore={`${namespace}/`} placeholder="my-app" />
        </Form.Item>
        <Form.Item name="tag" label="标签" extra="留空则使用镜像文件自带的标签，没有时为 latest" rules={[{ pattern: new RegExp(IMAGE_TAG_PATTERN), message: '标签只能使用字母、数字以及 . _ -，且不能以 . 或 - 开头' }]}>
          <Input data-testid="image-import-tag" placeholder="latest" maxLength={128} />
        </Form.Item>
        <Button type="primary" htmlType="submit" icon={<ImportOutlined />} loading={start.isPending || running} data-testid="image-import-submit">
          开始导入
        </Button>
      </Form>
      {imp ? (
        <div style={{ marginTop: 16, maxWidth: 560 }} data-testid="image-import-status">
          <Progress percent={imp.percent} status={STATUS[imp.state]} data-testid="image-import-progress" />
          {imp.state === 'failed' ? (
            <Alert type="error" showIcon title="导入失败" description={imp.message} data-testid="image-import-error" />
          ) : imp.state === 'succeeded' ? (
            <Alert
              type="success"
              showIcon
              title={imp.message}
              description={
                <Space orientation="vertical" size={0}>
                  <Typography.Text copyable={{ text: imp.digest }} style={{ fontFamily: 'monospace', fontSize: 12 }}>
                    {imp.digest}
                  </Typography.Text>
                  <a onClick={() => navigate(`/image/detail/${encodeURIComponent(imp.repository)}`)} data-testid="image-import-open">
                    查看镜像
                  </a>
                </Space>
              }
            />
          ) : (
            <Typography.Text type="secondary">{imp.message}</Typography.Text>
          )}
        </div>
      ) : null}
    </Card>
  );
}
