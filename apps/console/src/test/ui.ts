import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { expect } from 'vitest';

/** Opens an antd Select (found by its testid, inside `root` if given) and clicks the option with this text. */
export async function choose(testId: string, label: string, root?: HTMLElement) {
  const select = root ? within(root).getByTestId(testId) : screen.getByTestId(testId);
  fireEvent.mouseDown(within(select).getByRole('combobox'));
  const option = await waitFor(() => {
    const found = [...document.querySelectorAll<HTMLElement>('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')].find(
      (o) => o.textContent === label,
    );
    expect(found, `option ${label}`).toBeTruthy();
    return found!;
  });
  fireEvent.click(option);
}

/** The input or textarea of a field found by its testid (on the element itself or inside it). */
export const input = (testId: string, root: HTMLElement = document.body) => {
  const el = within(root).getByTestId(testId);
  return (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' ? el : el.querySelector('input, textarea')) as HTMLInputElement;
};

/** The validation messages under the fields, in page order (not the ones fading out). */
export const errors = () =>
  [...document.querySelectorAll('.ant-form-item-explain-error')].filter((e) => !e.closest('.ant-form-show-help-leave')).map((e) => e.textContent);

/** Confirms the open Popconfirm (its last button). */
export async function confirmPop(text?: string) {
  const confirm = await waitFor(() => {
    const el = [...document.querySelectorAll<HTMLElement>('.ant-popconfirm')].find((p) => !p.closest('.ant-popover-hidden'));
    expect(el).toBeTruthy();
    return el!;
  });
  if (text) expect(confirm.textContent).toContain(text);
  fireEvent.click(within(confirm).getAllByRole('button').at(-1)!);
}
