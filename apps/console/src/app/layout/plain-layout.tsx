import { Outlet } from 'react-router';

/** Sign-in pages and the user agreement: no header or menu; each page draws its own frame. */
export function PlainLayout() {
  return <Outlet />;
}
