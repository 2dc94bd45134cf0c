import { DownloadOutlined } from '@ant-design/icons';
import { KEY_GEN_TYPES, RSA_MIN_BITS, type KeyPairGenerate, type KeyPairGenerated, type KeyPairImport } from '@suanli/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Radio, Space, Tabs, Typography } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { saveBlob } from '../../shared/http/browser-download';
import { PageContainer } from '../../shared/ui/page-container';
import { generateKeyPair, importKeyPair } from './api';

const TYPE_TEXT: Record<(typeof KEY_GEN_TYPES)[number], string> = { ed25519: 'Ed25519（推荐，短小安全）', rsa: 'RSA 4096 位（兼容旧系统）' };

/** A file name for the downloaded private key, like ssh-keygen's defaults (`id_ed25519`), with the key's name. */
function privateKeyFileName(g: KeyPairGenerated) {
  const safe = g.keyPair.name.replace(/[^\p{L}\p{N}_-]+/gu, '_').slice(0, 40);
  return `id_${g.keyPair.type}_${safe}`;
}

/**
 * 创建密钥对 (/keypair/create): 生成 (the platform makes the pair; the private key is offered once for
 * download and not kept) or 导入 (the user's own public key, checked by the server: format, RSA ≥ 2048).
 */
export function KeypairCreatePage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [generated, setGenerated] = useState<KeyPairGenerated | null>(null);
  const [downloaded, setDownloaded] = useState(false);

  const generate = useMutation({
    mutationFn: (body: KeyPairGenerate) => generateKeyPair(body),
    onSuccess: (g) => {
      setGenerated(g);
      void queryClient.invalidateQueries({ queryKey: queryKeys.keypairs });
    },
  });
  const importKey = useMutation({
    mutationFn: (body: KeyPairImport) => importKeyPair(body),
    onSuccess: () => {
      toast.success('公钥已导入');
      void queryClient.invalidateQueries({ queryKey: queryKeys.keypairs });
      void navigate('/keypair');
    },
  });

  const download = () => {
    if (!generated) return;
    saveBlob(new Blob([generated.privateKey], { type: 'application/x-pem-file' }), privateKeyFileName(generated));
    setDownloaded(true);
  };

  if (generated) {
    return (
      <PageContainer title="创建密钥对" description="密钥对已生成。">
        <Card data-testid="kp-generated">
          <Space orientation="vertical" size={16} style={{ width: '100%' }}>
            <Alert
              type="warning"
              showIcon
              title="请立即下载并妥善保存私钥"
              description="私钥只在此显示这一次，平台不保存。离开本页后无法再次下载，只能删除后重新生成。保存后请将文件权限设为仅自己可读（chmod 600）。"
            />
            <div>
              <Typography.Text type="secondary">名称：</Typography.Text>
              <Typography.Text strong>{generated.keyPair.name}</Typography.Text>
            </div>
            <div>
              <Typography.Text type="secondary">指纹：</Typography.Text>
              <Typography.Text code style={{ overflowWrap: 'anywhere' }} data-testid="kp-generated-fingerprint">
                {generated.keyPair.fingerprint}
              </Typography.Text>
            </div>
            <div>
              <Typography.Text type="secondary">公钥：</Typography.Text>
              <Typography.Paragraph code copyable style={{ overflowWrap: 'anywhere', marginBottom: 0 }} data-testid="kp-generated-public">
                {generated.keyPair.publicKey}
              </Typography.Paragraph>
            </div>
            <Space wrap>
              <Button type="primary" icon={<DownloadOutlined />} onClick={download} data-testid="kp-download">
                下载私钥
              </Button>
              <Button onClick={() => navigate('/keypair')} disabled={!downloaded} data-testid="kp-done">
                我已保存，返回列表
              </Button>
            </Space>
            {!downloaded && <Typography.Text type="secondary">下载私钥后才能返回列表。</Typography.Text>}
          </Space>
        </Card>
      </PageContainer>
    );
  }

  return (
    <PageContainer title="创建密钥对" description="生成新的 SSH 密钥对，或导入您已有的公钥。">
      <Card>
        <Tabs
          items={[
            {
              key: 'generate',
              label: <span data-testid="kp-tab-generate">生成</span>,
              children: (
                <Form<KeyPairGenerate> layout="vertical" initialValues={{ type: 'ed25519' }} onFinish={(v) => generate.mutate(v)} style={{ maxWidth: 560 }}>
                  <Form.Item label="名称" name="name" rules={[{ required: true, whitespace: true, message: '请输入名称' }, { max: 64, message: '名称最多 64 个字符' }]}>
                    <Input placeholder="例如：实验室工作站" data-testid="kp-gen-name" />
                  </Form.Item>
                  <Form.Item label="密钥类型" name="type">
                    <Radio.Group options={KEY_GEN_TYPES.map((t) => ({ value: t, label: TYPE_TEXT[t] }))} data-testid="kp-gen-type" />
                  </Form.Item>
                  <Button type="primary" htmlType="submit" loading={generate.isPending} data-testid="kp-gen-submit">
                    生成
                  </Button>
                </Form>
              ),
            },
            {
              key: 'import',
              label: <span data-testid="kp-tab-import">导入公钥</span>,
              children: (
                <Form<KeyPairImport> layout="vertical" onFinish={(v) => importKey.mutate(v)} style={{ maxWidth: 720 }}>
                  <Form.Item label="名称" name="name" rules={[{ required: true, whitespace: true, message: '请输入名称' }, { max: 64, message: '名称最多 64 个字符' }]}>
                    <Input placeholder="例如：我的笔记本" data-testid="kp-imp-name" />
                  </Form.Item>
                  <Form.Item
                    label="公钥"
                    name="publicKey"
                    extra={`粘贴 .pub 文件的内容（一行，以 ssh-ed25519、ssh-rsa 或 ecdsa-sha2- 开头）。RSA 密钥至少 ${RSA_MIN_BITS} 位。`}
                    rules={[{ required: true, whitespace: true, message: '请粘贴公钥' }]}
                  >
                    <Input.TextArea rows={4} placeholder="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA… user@host" data-testid="kp-imp-key" />
                  </Form.Item>
                  <Button type="primary" htmlType="submit" loading={importKey.isPending} data-testid="kp-imp-submit">
                    导入
                  </Button>
                </Form>
              ),
            },
          ]}
        />
      </Card>
    </PageContainer>
  );
}
