import type { RenderedRow } from './object-matrix';

/** RenderedSummary is what a CR's matrix row says of the objects it rendered, without their rows. */
export interface RenderedSummary {
  /** Objects it rendered (each counted once, whatever the clusters). */
  objects: number;
  /** Of those, the ones that are not Ready on at least one shown cluster. */
  notReady: number;
  /** Of those, the ones drifted on at least one shown cluster. */
  drifted: number;
}

/**
 * summarizeRendered counts what a CR rendered and how many need a look, so the matrix can show
 * one line per CR and load the rows of its objects only when asked (a page of WebApps with every
 * rendered row was three times the bytes of the page before them).
 */
export function summarizeRendered(rendered: readonly RenderedRow[]): RenderedSummary {
  let notReady = 0;
  let drifted = 0;
  for (const row of rendered) {
    const cells = Object.values(row.cells);
    if (cells.some((cell) => cell.health !== 'Ready')) notReady += 1;
    if (cells.some((cell) => cell.drifted)) drifted += 1;
  }
  return { objects: rendered.length, notReady, drifted };
}
