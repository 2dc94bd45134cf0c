import { DeleteOutlined, KeyOutlined, PlusOutlined } from '@ant-design/icons';
import type { KeyPair } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Checkbox, Empty, Modal, Popconfirm, Space, Spin, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { PageContainer } from '../../shared/ui/page-container';
import { formatTime } from '../../shared/time';
import { fetchSubCenters } from '../storage/api';
import { deleteKeyPair, installKeyPair, listKeyPairs, uninstallKeyPair } from './api';

export const KEY_TYPE_LABELS: Record<KeyPair['type'], string> = { ed25519: 'Ed25519', rsa: 'RSA', ecdsa: 'ECDSA' };

/**
 * 密钥对 (/keypair): the user's SSH public keys with their SHA256 fingerprints and where each is installed
 * (the cluster account on each sub-center). 安装 adds the key to that account's authorized_keys, so the
 * user's own `ssh` client logs in to the center's login node; 卸载 and 删除 take it out again.
 */
export function KeypairListPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: queryKeys.keypairs, queryFn: listKeyPairs });
  const centers = useQuery({ queryKey: queryKeys.storage.centers, queryFn: fetchSubCenters });
  const [installing, setInstalling] = useState<KeyPair | null>(null);
  const [chosen, setChosen] = useState<string[]>([]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.keypairs });
  const install = useMutation({
    mutationFn: ({ id, centerIds }: { id: string; centerIds: string[] }) => installKeyPair(id, centerIds),
    onSuccess: () => {
      toast.success('已安装到所选分中心');
      setInstalling(null);
      return refresh();
    },
  });
  const uninstall = useMutation({
    mutationFn: ({ id, centerId }: { id: string; centerId: string }) => uninstallKeyPair(id, [centerId]),
    onSuccess: () => {
      toast.success('已从该分中心卸载');
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => deleteKeyPair(id),
    onSuccess: () => {
      toast.success('密钥对已删除');
      return refresh();
    },
  });

  const available = (k: KeyPair) => (centers.data ?? []).filter((c) => !k.installs.some((i) => i.subCenterId === c.id));

  return (
    <PageContainer
      title="密钥对"
      description="SSH 公钥安装到您在各分中心的集群账号后，即可用自己的 SSH 客户端登录分中心登录节点。平台生成的私钥只在创建时下载一次，平台不保存。"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate('/keypair/create')} data-testid="kp-create">
          创建密钥对
        </Button>
      }
    >
      {keys.isPending ? (
        <Spin />
      ) : !keys.data?.length ? (
        <Card>
          <Empty description="还没有密钥对" data-testid="kp-empty">
            <Button type="primary" onClick={() => navigate('/keypair/create')}>
              生成或导入密钥对
            </Button>
          </Empty>
        </Card>
      ) : (
        <Space orientation="vertical" size={16} style={{ width: '100%' }} data-testid="kp-list">
          {keys.data.map((k) => (
            <Card
              key={k.id}
              data-testid="kp-item"
              title={
                <Space size={8} wrap style={{ minWidth: 0 }}>
                  <KeyOutlined />
                  <Typography.Text strong style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }} data-testid="kp-name">
                    {k.name}
                  </Typography.Text>
                  <Tag color="blue" style={{ marginInlineEnd: 0 }}>
                    {KEY_TYPE_LABELS[k.type]} {k.bits} 位
                  </Tag>
                  <Tag style={{ marginInlineEnd: 0 }}>{k.source === 'generated' ? '平台生成' : '导入'}</Tag>
                </Space>
              }
              extra={
                <Popconfirm
                  title={`确定删除密钥对「${k.name}」吗？`}
                  description={k.installs.length ? '将先从所有已安装的分中心卸载，之后无法再用它登录。' : '删除后不可恢复。'}
                  okText="删除"
                  cancelText="取消"
                  okButtonProps={{ danger: true }}
                  onConfirm={() => remove.mutateAsync(k.id)}
                >
                  <Button type="link" danger icon={<DeleteOutlined />} data-testid="kp-delete">
                    删除
                  </Button>
                </Popconfirm>
              }
            >
              <Space orientation="vertical" size={10} style={{ width: '100%' }}>
                <div>
                  <Typography.Text type="secondary">指纹：</Typography.Text>
                  <Typography.Text code copyable style={{ overflowWrap: 'anywhere' }} data-testid="kp-fingerprint">
                    {k.fingerprint}
                  </Typography.Text>
                </div>
                <Typography.Text type="secondary">创建时间：{formatTime(k.createTime)}</Typography.Text>
                <div>
                  <Typography.Text type="secondary">已安装：</Typography.Text>
                  {k.installs.length ? (
                    <Space size={[4, 8]} wrap>
                      {k.installs.map((i) => (
                        <Popconfirm
                          key={i.subCenterId}
                          title={`从「${i.subCenterName}」卸载？`}
                          description={`集群账号 ${i.account} 将不再接受此密钥登录。`}
                          okText="卸载"
                          cancelText="取消"
                          onConfirm={() => uninstall.mutateAsync({ id: k.id, centerId: i.subCenterId })}
                        >
                          <Tag color="green" style={{ cursor: 'pointer' }} data-testid="kp-install" data-center={i.subCenterId}>
                            {i.subCenterName} · {i.account} ✕
                          </Tag>
                        </Popconfirm>
                      ))}
                    </Space>
                  ) : (
                    <Typography.Text type="secondary">尚未安装到任何分中心</Typography.Text>
                  )}
                </div>
                {k.installs.some((i) => i.sshCommand) ? (
                  // What the key is for: logging in from one's own terminal (the private key is the user's).
                  <div data-testid="kp-ssh-commands">
                    <Typography.Text type="secondary">登录命令：</Typography.Text>
                    {k.installs
                      .filter((i) => i.sshCommand)
                      .map((i) => (
                        <div key={i.subCenterId}>
                          <Typography.Text type="secondary">{i.subCenterName}：</Typography.Text>
                          <Typography.Text code copyable style={{ overflowWrap: 'anywhere' }} data-testid="kp-ssh-command" data-center={i.subCenterId}>
                            {i.sshCommand}
                          </Typography.Text>
                        </div>
                      ))}
                  </div>
                ) : null}
                <div>
                  <Button
                    onClick={() => {
                      setChosen([]);
                      setInstalling(k);
                    }}
                    disabled={!available(k).length}
                    data-testid="kp-install-open"
                  >
                    安装到分中心
                  </Button>
                </div>
              </Space>
            </Card>
          ))}
        </Space>
      )}
      <Modal
        open={installing !== null}
        title={installing ? `安装「${installing.name}」` : ''}
        okText="安装"
        cancelText="取消"
        okButtonProps={{ disabled: !chosen.length, loading: install.isPending, ...{ 'data-testid': 'kp-install-ok' } }}
        onOk={() => installing && install.mutate({ id: installing.id, centerIds: chosen })}
        onCancel={() => setInstalling(null)}
        destroyOnHidden
      >
        <Typography.Paragraph type="secondary">公钥将写入您在所选分中心的集群账号的 ~/.ssh/authorized_keys（首次使用该分中心时会自动开通集群账号）。</Typography.Paragraph>
        <Checkbox.Group
          value={chosen}
          onChange={(v) => setChosen(v as string[])}
          options={installing ? available(installing).map((c) => ({ value: c.id, label: `${c.name}（${c.region}）` })) : []}
          style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
          data-testid="kp-install-centers"
        />
      </Modal>
    </PageContainer>
  );
}
