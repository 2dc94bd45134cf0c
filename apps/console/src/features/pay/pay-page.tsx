import type { Order, PayChannel, PayResult, Product } from '@suanli/contracts';
import { ORDER_QUANTITY_MAX, SUB_CENTER_STATUS_LABELS } from '@suanli/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Descriptions, Empty, InputNumber, Radio, Row, Select, Space, Spin, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { RequestError } from '../../app/request';
import { MONO } from '../../shared/ui/mono';
import { HelpLink } from '../../shared/ui/help-link';
import { PageContainer } from '../../shared/ui/page-container';
import { fetchCenters, fetchPayChannels, getOrder, listProducts, payOrder, preOrder } from '../order/api';
import { Countdown, OrderStatusTag } from '../order/order-view';
import { getTeam } from '../team/api';

/** The team an order's compute power goes to (ADR 0017), by name once the team's page data is in. */
function TeamName({ teamId }: { teamId: string }) {
  const team = useQuery({ queryKey: queryKeys.team.detail(teamId), queryFn: () => getTeam(teamId), retry: false });
  return <span data-testid="pay-team">{team.data ? `团队「${team.data.name}」` : '团队'}</span>;
}

/** The client's estimate before the server prices the order (shown as 预估 only). */
function estimate(price: string, quantity: number): string {
  const fen = Math.round(Number(price) * 100) * quantity;
  return `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;
}

function ProductCard({ product, selected, onSelect }: { product: Product; selected: boolean; onSelect: () => void }) {
  return (
    <Card
      hoverable
      size="small"
      onClick={onSelect}
      role="radio"
      aria-checked={selected}
      data-testid="pay-product"
      data-id={product.id}
      style={{ borderColor: selected ? '#1677ff' : undefined, boxShadow: selected ? '0 0 0 1px #1677ff' : undefined, height: '100%' }}
    >
      <Typography.Text strong>{product.name}</Typography.Text>
      <div style={{ fontSize: 22, fontWeight: 600, color: '#1677ff', margin: '6px 0' }}>¥{product.price}</div>
      <div style={{ color: 'rgba(0,0,0,0.65)' }}>{product.cardHours} 卡时 · 约 ¥{product.unitPrice}/卡时</div>
      <div style={{ color: 'rgba(0,0,0,0.45)', fontSize: 12 }}>支付后 {product.validDays} 天内有效</div>
    </Card>
  );
}

/** Step 2: the created order, its countdown and the choice of channel. */
function PayStep({ order }: { order: Order }) {
  const client = useQueryClient();
  // 支付宝支付 is offered only where the gateway has Alipay configured (and 线下转账 where it has an account).
  const channels = useQuery({ queryKey: queryKeys.billing.channels, queryFn: fetchPayChannels, staleTime: 5 * 60_000 });
  const [refused, setRefused] = useState<string | null>(null);
  const [result, setResult] = useState<PayResult | null>(null);
  const pay = useMutation({
    mutationFn: (channel: PayChannel) => payOrder(order.id, channel),
    onSuccess: (res) => {
      setResult(res);
      void client.invalidateQueries({ queryKey: queryKeys.billing.root });
      if (res.channel === 'alipay' && res.cashierUrl) window.location.assign(res.cashierUrl);
    },
    onError: (e, channel) => {
      if (channel === 'alipay') setRefused(e instanceof RequestError ? e.message : '支付宝支付暂不可用');
      else setRefused(e instanceof Error ? e.message : '操作失败');
    },
  });
  const transfer = result?.transfer;
  return (
    <Card title="订单信息" data-testid="pay-order">
      <Descriptions column={{ xs: 1, sm: 2 }} size="small">
        <Descriptions.Item label="订单编号">
          <Typography.Text copyable style={{ fontFamily: MONO, whiteSpace: 'nowrap' }} data-testid="pay-order-no">
            {order.orderNo}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label="状态">
          <OrderStatusTag status={order.status} />
        </Descriptions.Item>
        <Descriptions.Item label="算力卡">
          {order.productName}（{order.subCenterName} · {order.cardTypeName}）
        </Descriptions.Item>
        {order.teamId ? (
          <Descriptions.Item label="算力计入">
            <TeamName teamId={order.teamId} />
          </Descriptions.Item>
        ) : null}
        <Descriptions.Item label="数量">{order.quantity}</Descriptions.Item>
        <Descriptions.Item label="卡时">{order.cardHours}</Descriptions.Item>
        <Descriptions.Item label="应付金额">
          <Typography.Text strong style={{ color: '#cf1322', fontSize: 18 }} data-testid="pay-amount">
            ¥{order.amount}
          </Typography.Text>
        </Descriptions.Item>
        {order.status === 'UNPAID' ? (
          <Descriptions.Item label="剩余支付时间">
            <Countdown until={order.expireTime} />
          </Descriptions.Item>
        ) : null}
      </Descriptions>
      {order.status !== 'UNPAID' ? (
        <Alert style={{ marginTop: 16 }} type="info" showIcon title="该订单已不能支付。" action={<Link to="/order">查看订单</Link>} />
      ) : transfer ? (
        <Alert
          style={{ marginTop: 16 }}
          type="success"
          showIcon
          data-testid="pay-transfer"
          title="请按以下信息线下转账，运维人员确认到账后算力自动到账"
          description={
            <Descriptions column={1} size="small">
              <Descriptions.Item label="开户银行">{transfer.bankName}</Descriptions.Item>
              <Descriptions.Item label="户名">{transfer.accountName}</Descriptions.Item>
              <Descriptions.Item label="账号">
                <Typography.Text copyable style={{ fontFamily: MONO }}>{transfer.accountNo}</Typography.Text>
              </Descriptions.Item>
              <Descriptions.Item label="转账金额">¥{transfer.amount}</Descriptions.Item>
              <Descriptions.Item label="转账备注">
                <Typography.Text copyable strong style={{ fontFamily: MONO, whiteSpace: 'nowrap' }}>{transfer.remark}</Typography.Text>
              </Descriptions.Item>
              <Descriptions.Item label="说明">{transfer.note}</Descriptions.Item>
            </Descriptions>
          }
          action={<Link to="/order">查看订单</Link>}
        />
      ) : (
        <div style={{ marginTop: 16 }}>
          <Typography.Title level={5}>选择支付方式</Typography.Title>
          {refused ? (
            <Alert
              type="warning"
              showIcon
              style={{ marginBottom: 12 }}
              title={refused}
              description={channels.data?.offline && pay.variables === 'alipay' ? '您可以改用线下转账完成支付。' : undefined}
              data-testid="pay-refused"
            />
          ) : null}
          {channels.isLoading ? (
            <Spin />
          ) : channels.data && !channels.data.alipay && !channels.data.offline ? (
            <Alert type="warning" showIcon title="平台暂未开通在线支付或线下转账，请通过工单联系运维人员完成购买。" data-testid="pay-no-channel" />
          ) : (
            <Space wrap>
              {channels.data?.alipay ? (
                <Button type="primary" loading={pay.isPending && pay.variables === 'alipay'} disabled={Boolean(refused) && pay.variables === 'alipay'} onClick={() => pay.mutate('alipay')} data-testid="pay-alipay">
                  支付宝支付
                </Button>
              ) : null}
              {channels.data?.offline ? (
                <Button type={channels.data.alipay ? 'default' : 'primary'} loading={pay.isPending && pay.variables === 'offline'} onClick={() => pay.mutate('offline')} data-testid="pay-offline">
                  线下转账
                </Button>
              ) : null}
            </Space>
          )}
        </div>
      )}
    </Card>
  );
}

const PAY_HELP = <HelpLink type="billing" text="购买或支付遇到问题？" testId="pay-help" />;

/**
 * 购买算力 (/pay): center, card type, a package and its quantity; 提交订单 creates the UNPAID order (the server
 * prices it), then the same page (?orderId=) offers the channels. /order's 去支付 comes back here.
 */
export function PayPage() {
  const [params, setParams] = useSearchParams();
  const orderId = params.get('orderId');
  // 团队详情's 为团队购买 (ADR 0017): the order is the buyer's, the compute power goes to the team.
  const teamId = params.get('teamId') ?? undefined;
  const centers = useQuery({ queryKey: queryKeys.billing.centers, queryFn: fetchCenters, staleTime: 60_000 });
  const [centerId, setCenterId] = useState<string>();
  const [cardTypeId, setCardTypeId] = useState<string>();
  const [productId, setProductId] = useState<string>();
  const [quantity, setQuantity] = useState(1);
  const center = centers.data?.find((c) => c.id === centerId);
  useEffect(() => {
    if (!centerId && centers.data?.[0]) setCenterId(centers.data[0].id);
  }, [centers.data, centerId]);
  useEffect(() => {
    if (center && !center.cardTypes.some((t) => t.id === cardTypeId)) setCardTypeId(center.cardTypes[0]?.id);
  }, [center, cardTypeId]);
  const products = useQuery({
    queryKey: queryKeys.billing.products(centerId ?? '', cardTypeId ?? ''),
    queryFn: () => listProducts(centerId!, cardTypeId!),
    enabled: Boolean(centerId && cardTypeId),
  });
  const product = useMemo(() => products.data?.find((p) => p.id === productId), [products.data, productId]);
  const order = useQuery({ queryKey: queryKeys.billing.order(orderId ?? ''), queryFn: () => getOrder(orderId!), enabled: Boolean(orderId) });
  const client = useQueryClient();
  const navigate = useNavigate();
  const submit = useMutation({
    mutationFn: () => preOrder({ productId: productId!, quantity, teamId }),
    onSuccess: (o) => {
      client.setQueryData(queryKeys.billing.order(o.id), { ...o, chargeRecordId: null });
      void client.invalidateQueries({ queryKey: queryKeys.billing.root });
      setParams({ orderId: o.id });
    },
  });

  if (orderId) {
    return (
      <PageContainer title="购买算力" description="订单已创建，请在关闭前完成支付。" extra={<Button onClick={() => navigate('/pay')}>重新选择</Button>}>
        {order.data ? <PayStep order={order.data} /> : <Spin />}
        {PAY_HELP}
      </PageContainer>
    );
  }

  return (
    <PageContainer title="购买算力" description="选择分中心与卡型的算力卡，提交订单后选择支付方式。算力按卡时计，支付后计入剩余算力。">
      <Card>
        <Space orientation="vertical" size="large" style={{ width: '100%' }}>
          {teamId && (
            <Alert
              type="info"
              showIcon
              title={
                <>
                  为<TeamName teamId={teamId} />购买：由您支付，算力计入团队，团队成员提交任务时可选择由团队付费。
                </>
              }
              data-testid="pay-for-team"
            />
          )}
          <Row gutter={[16, 16]}>
            <Col xs={24} sm={12}>
              <div style={{ marginBottom: 6 }}>算力分中心</div>
              <Select
                style={{ width: '100%' }}
                value={centerId}
                loading={centers.isLoading}
                options={(centers.data ?? []).map((c) => ({ label: c.status === 'online' ? c.name : `${c.name}（${SUB_CENTER_STATUS_LABELS[c.status]}）`, value: c.id }))}
                onChange={(v) => {
                  setCenterId(v);
                  setProductId(undefined);
                }}
                placeholder="请选择分中心"
                data-testid="pay-center"
                virtual={false}
              />
            </Col>
            <Col xs={24} sm={12}>
              <div style={{ marginBottom: 6 }}>卡型</div>
              <Radio.Group
                value={cardTypeId}
                optionType="button"
                onChange={(e) => {
                  setCardTypeId(e.target.value as string);
                  setProductId(undefined);
                }}
                options={(center?.cardTypes ?? []).map((t) => ({ label: t.name, value: t.id }))}
                data-testid="pay-card-type"
              />
            </Col>
          </Row>
          <div>
            <div style={{ marginBottom: 6 }}>算力卡</div>
            {center && center.status !== 'online' ? (
              // 维护 / 下线: nothing is on sale there until it is 正常 again (the socket brings the change).
              <Alert
                type="warning"
                showIcon
                title={`${center.name}${center.status === 'maintenance' ? '维护中' : '已下线'}，暂停销售算力卡`}
                description={center.notice ? `公告：${center.notice}` : undefined}
                data-testid="pay-center-closed"
              />
            ) : products.isLoading ? (
              <Spin />
            ) : (products.data ?? []).length === 0 ? (
              <Empty description="该分中心的这一卡型暂无在售算力卡" />
            ) : (
              <Row gutter={[12, 12]} role="radiogroup" aria-label="算力卡">
                {products.data!.map((p) => (
                  <Col key={p.id} xs={24} sm={12} lg={6}>
                    <ProductCard product={p} selected={p.id === productId} onSelect={() => setProductId(p.id)} />
                  </Col>
                ))}
              </Row>
            )}
          </div>
          <div>
            <div style={{ marginBottom: 6 }}>数量</div>
            <InputNumber min={1} max={ORDER_QUANTITY_MAX} precision={0} value={quantity} onChange={(v) => setQuantity(v ?? 1)} aria-label="数量" data-testid="pay-quantity" />
          </div>
          <Space wrap align="center" style={{ justifyContent: 'space-between', width: '100%' }}>
            <div data-testid="pay-estimate">
              {product ? (
                <>
                  预估金额 <Typography.Text strong style={{ color: '#cf1322', fontSize: 18 }}>¥{estimate(product.price, quantity)}</Typography.Text>（共
                  {(Number(product.cardHours) * quantity).toFixed(2)} 卡时，以提交订单后的金额为准）
                </>
              ) : (
                <Typography.Text type="secondary">请选择一张算力卡</Typography.Text>
              )}
            </div>
            <Button type="primary" size="large" disabled={!product} loading={submit.isPending} onClick={() => submit.mutate()} data-testid="pay-submit">
              提交订单
            </Button>
          </Space>
        </Space>
      </Card>
      {PAY_HELP}
    </PageContainer>
  );
}

/** /pay/alipay: the channel step of an order given as ?orderId= (kept for links; /pay?orderId= is the same page). */
export function AlipayPage() {
  return <PayPage />;
}

