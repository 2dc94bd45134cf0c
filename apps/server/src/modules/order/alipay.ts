/** The part of alipay-sdk's `AlipaySdk` used here (its own types come with the package). */
interface Sdk {
  pageExecute(method: string, httpMethod: 'GET', params: Record<string, unknown>): string;
  checkNotifySignV2(form: Record<string, string>): boolean;
  /** Calls the gateway; with validateSign the reply's `sign` is checked with Alipay's public key (throws if not). */
  exec(method: string, params: Record<string, unknown>, options: { validateSign: boolean }): Promise<Record<string, unknown>>;
}
type SdkClass = new (config: Record<string, unknown>) => Sdk;

/** Alipay page pay (ALIPAY_* of the env, .env.example). Keys are PEM text, read from files by loadConfig. */
export interface AlipaySettings {
  appId: string;
  /** The application's private key (PKCS#1 `RSA PRIVATE KEY` or PKCS#8 `PRIVATE KEY`). */
  privateKey: string;
  /** Alipay's public key: verifies the notify's signature. */
  alipayPublicKey: string;
  /** Default: the sandbox gateway. */
  gateway: string;
  /** Where Alipay posts the async notify: `${PUBLIC_URL}/gateway/order/api/v1/pay/alipay/notify`. */
  notifyUrl: string;
  /** Where the cashier sends the browser back after paying. */
  returnUrl: string;
  /** When set, a notify for another seller (merchant PID) is refused. */
  sellerId?: string;
}

/**
 * What `alipay.trade.query` says of one trade (out_trade_no = the orderNo): `paid` (TRADE_SUCCESS or
 * TRADE_FINISHED) with Alipay's trade number and amount, `unpaid` (WAIT_BUYER_PAY, TRADE_CLOSED) or `absent`
 * (ACQ.TRADE_NOT_EXIST: the buyer never reached the cashier). Anything else is thrown.
 */
export type TradeQuery =
  | { kind: 'paid'; outTradeNo: string; tradeNo: string; totalAmount: string; status: string }
  | { kind: 'unpaid'; status: string }
  | { kind: 'absent' };

const PAID_STATES = new Set(['TRADE_SUCCESS', 'TRADE_FINISHED']);

/** `yyyy-MM-dd HH:mm:ss` in China Standard Time: Alipay's time format (time_expire). */
function alipayTime(ms: number): string {
  return new Date(ms + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * The official SDK behind two calls. Page pay only builds a signed cashier URL locally (no request leaves
 * the gateway); the notify check is the SDK's signature verification over the posted form.
 */
export class AlipayChannel {
  private readonly sdk: Sdk;

  /**
   * Loads the SDK only when Alipay is configured: a deployment with the offline channel alone never needs
   * the package (nor do checkouts whose node_modules predate it — the specifier is not resolved at build).
   */
  static async create(settings: AlipaySettings): Promise<AlipayChannel> {
    const specifier = 'alipay-sdk';
    const { AlipaySdk } = (await import(specifier)) as { AlipaySdk: SdkClass };
    return new AlipayChannel(settings, AlipaySdk);
  }

  private constructor(
    readonly settings: AlipaySettings,
    AlipaySdk: SdkClass,
  ) {
    const keyType = settings.privateKey.includes('BEGIN PRIVATE KEY') ? 'PKCS8' : 'PKCS1';
    this.sdk = new AlipaySdk({
      appId: settings.appId,
      privateKey: settings.privateKey,
      alipayPublicKey: settings.alipayPublicKey,
      gateway: settings.gateway,
      keyType,
      signType: 'RSA2',
      // A trade query runs while a user waits for an order page (which waits at most a few seconds for it).
      timeout: 5000,
    });
  }

  /**
   * `alipay.trade.query` of the order: a signed request to the gateway, whose reply is accepted only when its
   * signature verifies with Alipay's public key (the SDK's `validateSign`; a bad or missing one throws).
   * Throws on any transport error, an HTTP error, a reply the SDK cannot read and any business error other
   * than "no such trade" — the caller then changes nothing and asks again later.
   */
  async query(orderNo: string): Promise<TradeQuery> {
    const r = await this.sdk.exec('alipay.trade.query', { bizContent: { outTradeNo: orderNo } }, { validateSign: true });
    const str = (k: string) => (typeof r[k] === 'string' ? (r[k] as string) : '');
    if (str('code') !== '10000') {
      if (str('subCode') === 'ACQ.TRADE_NOT_EXIST') return { kind: 'absent' };
      throw new Error(`alipay.trade.query: ${str('code')} ${str('subCode')} ${str('subMsg') || str('msg')}`.trim());
    }
    const status = str('tradeStatus');
    if (!PAID_STATES.has(status)) return { kind: 'unpaid', status };
    return { kind: 'paid', outTradeNo: str('outTradeNo'), tradeNo: str('tradeNo'), totalAmount: str('totalAmount'), status };
  }

  /** The signed URL of the cashier for the order; Alipay stops accepting payment at its expireTime. */
  cashierUrl(o: { orderNo: string; amount: string; subject: string; expireTime: number }): string {
    return this.sdk.pageExecute('alipay.trade.page.pay', 'GET', {
      bizContent: { outTradeNo: o.orderNo, productCode: 'FAST_INSTANT_TRADE_PAY', totalAmount: o.amount, subject: o.subject, timeExpire: alipayTime(o.expireTime) },
      notifyUrl: this.settings.notifyUrl,
      returnUrl: this.settings.returnUrl,
    });
  }

  /**
   * Whether the posted notify is signed by Alipay. V2: the values are used as parsed from the form — they
   * are already URL-decoded once, and decoding again would break a value containing `%`.
   */
  verify(form: Record<string, string>): boolean {
    try {
      return this.sdk.checkNotifySignV2(form);
    } catch {
      return false;
    }
  }
}
