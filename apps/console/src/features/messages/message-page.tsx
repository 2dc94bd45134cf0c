import type { MessageType } from '@suanli/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Card } from 'antd';
import { useState } from 'react';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { useUnreadCount } from '../../app/unread';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { PageContainer } from '../../shared/ui/page-container';
import { queryMessages, viewAllMessages, viewMessages, type MessageQuery } from './api';
import { MessageTable } from './components/message-table';
import { MessageToolbar, type ReadFilter } from './components/message-toolbar';

const VIEWED: Record<ReadFilter, boolean | undefined> = { all: undefined, unread: false, read: true };

/** 消息中心: filter by read state and type, read one, the selected or all; the bell follows. */
export function MessagePage() {
  const queryClient = useQueryClient();
  const [readFilter, setReadFilter] = useState<ReadFilter>('all');
  const [type, setType] = useState<MessageType | undefined>();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 10 });
  const [selectedIds, setSelectedIds] = useState<string[]>([]);
  const unread = useUnreadCount();
  const screens = useBreakpoint();

  const query: MessageQuery = { ...page, viewed: VIEWED[readFilter], type };
  const list = useQuery({
    queryKey: queryKeys.messageList(query),
    queryFn: () => queryMessages(query),
    placeholderData: keepPreviousData,
  });

  // Reading changes the list, the bell and possibly other pages of the list: refresh all message queries.
  const afterRead = () => queryClient.invalidateQueries({ queryKey: queryKeys.messagesRoot });

  const markSelected = useMutation({
    mutationFn: (ids: string[]) => viewMessages(ids),
    onSuccess: (_d, ids) => {
      setSelectedIds([]);
      toast.success(`已将 ${ids.length} 条消息标记为已读`);
      return afterRead();
    },
  });
  // Opening a message reads it, quietly.
  const markOpened = useMutation({ mutationFn: (id: string) => viewMessages([id]), onSuccess: afterRead });
  const markAll = useMutation({
    mutationFn: viewAllMessages,
    onSuccess: () => {
      setSelectedIds([]);
      toast.success('全部消息已标记为已读');
      return afterRead();
    },
  });

  const resetPage = () => setPage((p) => ({ ...p, pageNum: 1 }));
  const unreadCount = unread.data ?? 0;

  return (
    <PageContainer title="消息中心" description={unreadCount > 0 ? `您有 ${unreadCount} 条未读消息` : '暂无未读消息'}>
      <Card styles={{ body: { display: 'flex', flexDirection: 'column', gap: 16, padding: screens.sm ? 24 : 12 } }}>
        <MessageToolbar
          readFilter={readFilter}
          type={type}
          selectedCount={selectedIds.length}
          busy={markSelected.isPending || markAll.isPending}
          onReadFilter={(v) => {
            setReadFilter(v);
            setSelectedIds([]);
            resetPage();
          }}
          onType={(v) => {
            setType(v);
            setSelectedIds([]);
            resetPage();
          }}
          onMarkSelected={() => markSelected.mutate(selectedIds)}
          onMarkAll={() => markAll.mutate()}
        />
        <MessageTable
          rows={list.data?.list ?? []}
          total={list.data?.total ?? 0}
          pageNum={page.pageNum}
          pageSize={page.pageSize}
          loading={list.isFetching}
          selectedIds={selectedIds}
          onSelect={setSelectedIds}
          onPage={(pageNum, pageSize) => setPage({ pageNum: pageSize === page.pageSize ? pageNum : 1, pageSize })}
          onMarkOne={(id) => markSelected.mutate([id])}
          onOpen={(m) => {
            if (!m.viewed) markOpened.mutate(m.id);
          }}
        />
      </Card>
    </PageContainer>
  );
}
