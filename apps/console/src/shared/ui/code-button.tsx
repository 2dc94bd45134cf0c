import { CODE_RESEND_MS } from '@suanli/contracts';
import { Button } from 'antd';
import { useEffect, useState } from 'react';

interface CodeButtonProps {
  /** Validates the target and asks for a code; the countdown starts only when it resolves. */
  onSend: () => Promise<unknown>;
  disabled?: boolean;
  testId?: string;
  block?: boolean;
}

/** 获取验证码 with the server's one-send-per-60-s rule mirrored as a countdown. */
export function CodeButton({ onSend, disabled, testId, block }: CodeButtonProps) {
  const [left, setLeft] = useState(0);
  const [sending, setSending] = useState(false);

  useEffect(() => {
    if (left <= 0) return;
    const timer = setTimeout(() => setLeft((n) => n - 1), 1000);
    return () => clearTimeout(timer);
  }, [left]);

  const send = async () => {
    setSending(true);
    try {
      await onSend();
      setLeft(Math.round(CODE_RESEND_MS / 1000));
    } catch {
      // The pipeline or the form already showed why; the user can try again at once.
    } finally {
      setSending(false);
    }
  };

  return (
    <Button data-testid={testId} block={block} disabled={disabled || left > 0} loading={sending} onClick={send}>
      {left > 0 ? `${left} 秒后重新获取` : '获取验证码'}
    </Button>
  );
}
