import type { CenterCardType } from '../../centers/centers';
import type { JobSpec } from '../executor';

/**
 * The local executor's simulated card inventory: a card type is `nodes` nodes of `cardsPerNode` cards each,
 * and a job holds whole cards on as many nodes as it asks for. Pure: the executor says what is held.
 */

/** Cards of one simulated node given to a job. */
export interface Alloc {
  /** Simulated node index within the card type. */
  node: number;
  /** Card indices on that node. */
  cards: number[];
}

/** Cards in use per simulated node of the card type, from the allocations of the jobs holding cards of it. */
export function usage(type: CenterCardType, held: readonly Alloc[][]): Set<number>[] {
  const used = Array.from({ length: type.nodes }, () => new Set<number>());
  for (const alloc of held) for (const a of alloc) for (const c of a.cards) used[a.node]?.add(c);
  return used;
}

/** The first `nodes` nodes with `cardsPerNode` free cards each, lowest card indices first; null if none. */
export function fit(type: CenterCardType, spec: Pick<JobSpec, 'nodes' | 'cardsPerNode'>, used: Set<number>[]): Alloc[] | null {
  const alloc: Alloc[] = [];
  for (let node = 0; node < type.nodes && alloc.length < spec.nodes; node++) {
    const free: number[] = [];
    for (let c = 0; c < type.cardsPerNode && free.length < spec.cardsPerNode; c++) if (!used[node].has(c)) free.push(c);
    if (free.length >= spec.cardsPerNode) alloc.push({ node, cards: free });
  }
  return alloc.length === spec.nodes ? alloc : null;
}
