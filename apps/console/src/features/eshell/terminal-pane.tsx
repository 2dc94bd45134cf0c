import { CopyOutlined, ReloadOutlined, SnippetsOutlined } from '@ant-design/icons';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Tag, Tooltip } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { queryKeys } from '../../app/query-keys';
import { getToken } from '../../app/stores/user-store';
import { ShellConnection, type ConnectionPhase } from './shell-connection';
import styles from './eshell.module.css';

export interface TerminalPaneProps {
  centerId: string;
  cwd?: string;
  /** Whether this tab is the one shown (a hidden tab's terminal cannot measure itself). */
  active: boolean;
}

const PHASE_TAG: Record<ConnectionPhase, { color: string; text: string }> = {
  connecting: { color: 'processing', text: '连接中' },
  connected: { color: 'success', text: '已连接' },
  waiting: { color: 'warning', text: '等待重连' },
  ended: { color: 'default', text: '已断开' },
};

/** Grey status line between the terminal's own output. */
const statusLine = (text: string) => `\r\n\x1b[90m── ${text} ──\x1b[0m\r\n`;

/**
 * One terminal: xterm.js fitted to its box (the remote pty follows every resize), its ShellConnection,
 * copy/paste (selection + Ctrl+Shift+C / Ctrl+Shift+V, or the buttons), and 重新连接.
 */
export function TerminalPane({ centerId, cwd, active }: TerminalPaneProps) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const box = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const fit = useRef<FitAddon | null>(null);
  const conn = useRef<ShellConnection | null>(null);
  const [phase, setPhase] = useState<ConnectionPhase>('connecting');
  const [status, setStatus] = useState('连接中…');

  const copy = async () => {
    const text = term.current?.getSelection() ?? '';
    if (!text) return void message.warning('请先用鼠标选中要复制的内容');
    try {
      await navigator.clipboard.writeText(text);
      message.success('已复制');
    } catch {
      message.error('浏览器不允许写入剪贴板，请使用 Ctrl+C');
    }
  };
  const paste = async () => {
    try {
      const text = await navigator.clipboard.readText();
      if (text) term.current?.paste(text);
      term.current?.focus();
    } catch {
      message.error('浏览器不允许读取剪贴板，请使用 Ctrl+Shift+V 或右键粘贴');
    }
  };

  useEffect(() => {
    const t = new Terminal({
      cursorBlink: true,
      fontSize: 14,
      fontFamily: 'Menlo, Consolas, "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace',
      scrollback: 5000,
      theme: { background: '#141414', foreground: '#e6e6e6' },
    });
    const f = new FitAddon();
    t.loadAddon(f);
    t.open(box.current!);
    term.current = t;
    fit.current = f;
    try {
      f.fit();
    } catch {
      // Not measurable yet (hidden tab): the resize observer fits it once shown.
    }
    const c = new ShellConnection({
      centerId,
      cwd,
      getToken,
      onOutput: (bytes) => t.write(bytes),
      onStatus: (text) => {
        setStatus(text);
        t.write(statusLine(text));
      },
      onPhase: (p) => {
        setPhase(p);
        // A session began or ended: the record list below changed.
        if (p === 'connected' || p === 'ended') void queryClient.invalidateQueries({ queryKey: queryKeys.eshell.sessionsRoot });
      },
    });
    conn.current = c;
    t.onData((d) => c.input(d));
    t.onResize(({ cols, rows }) => c.resize(cols, rows));
    // Ctrl+Shift+C copies the selection, Ctrl+Shift+V pastes (Ctrl+C stays the shell's interrupt).
    t.attachCustomKeyEventHandler((e) => {
      if (e.type !== 'keydown' || !e.ctrlKey || !e.shiftKey) return true;
      const k = e.key.toLowerCase();
      if (k === 'c') {
        const text = t.getSelection();
        if (text) void navigator.clipboard?.writeText(text).catch(() => undefined);
        e.preventDefault();
        return false;
      }
      if (k === 'v') {
        void navigator.clipboard
          ?.readText()
          .then((text) => text && t.paste(text))
          .catch(() => undefined);
        e.preventDefault();
        return false;
      }
      return true;
    });
    c.start(t.cols, t.rows);

    const observer = new ResizeObserver(() => {
      try {
        if (box.current && box.current.clientWidth > 0) f.fit();
      } catch {
        // Detached while resizing.
      }
    });
    observer.observe(box.current!);
    const online = () => {
      if (!c.connected) c.reconnect();
    };
    window.addEventListener('online', online);
    return () => {
      window.removeEventListener('online', online);
      observer.disconnect();
      c.stop();
      t.dispose();
      term.current = null;
      conn.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [centerId, cwd]);

  useEffect(() => {
    if (!active) return;
    try {
      fit.current?.fit();
    } catch {
      // Not measurable.
    }
    term.current?.focus();
  }, [active]);

  const tag = PHASE_TAG[phase];
  return (
    <Flex vertical gap={8} className={styles.pane}>
      <Flex gap={8} align="center" wrap>
        <Tag color={tag.color} data-testid="eshell-phase">
          {tag.text}
        </Tag>
        <span className={styles.status} data-testid="eshell-status">
          {status}
        </span>
        <Flex gap={8} className={styles.actions}>
          <Tooltip title="复制选中内容（Ctrl+Shift+C）">
            <Button size="small" icon={<CopyOutlined />} onClick={() => void copy()} data-testid="eshell-copy">
              复制
            </Button>
          </Tooltip>
          <Tooltip title="粘贴（Ctrl+Shift+V）">
            <Button size="small" icon={<SnippetsOutlined />} onClick={() => void paste()} data-testid="eshell-paste">
              粘贴
            </Button>
          </Tooltip>
          <Button
            size="small"
            type={phase === 'ended' || phase === 'waiting' ? 'primary' : 'default'}
            icon={<ReloadOutlined />}
            onClick={() => conn.current?.reconnect()}
            data-testid="eshell-reconnect"
          >
            重新连接
          </Button>
        </Flex>
      </Flex>
      <div ref={box} className={styles.terminal} data-testid="eshell-terminal" />
    </Flex>
  );
}
