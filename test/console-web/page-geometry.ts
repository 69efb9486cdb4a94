// What the console browser tests measure on a page: sideways overflow, whether an element is whole on screen,
// and whether anything else is drawn over an element. The callbacks run in Chromium; the tests are typed without
// lib DOM, hence the small declarations.
import type { Page } from 'playwright-core';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface El {
  getBoundingClientRect(): { left: number; top: number; right: number; bottom: number };
  scrollIntoView(opts: { block: string }): void;
  scrollWidth: number;
  clientWidth: number;
  contains(other: unknown): boolean;
  tagName: string;
  className: string;
}
declare const document: {
  documentElement: { scrollWidth: number };
  querySelector(selector: string): El | null;
  elementFromPoint(x: number, y: number): El | null;
};
declare const window: { innerWidth: number; innerHeight: number };

/** A dictionary text with its {vars} filled in, as the console's t() does. */
export function fill(text: string, vars: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (m, name: string) => vars[name] ?? m);
}

/** How far the page itself is wider than the screen (0 or less: it fits). */
export function pageOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/**
 * The elements matching `selector`, counted, and those reaching past the screen's width (text @ left–right), so a
 * test can say which cells a reader cannot see.
 */
export function cellsOffScreen(page: Page, selector: string): Promise<readonly [number, string[]]> {
  return page.$$eval(selector, (els) => {
    const out: string[] = [];
    for (const el of els) {
      const r = el.getBoundingClientRect();
      if (r.left < 0 || r.right > window.innerWidth)
        out.push(`${el.textContent} @ ${Math.round(r.left)}–${Math.round(r.right)}`);
    }
    return [els.length, out] as const;
  });
}

/**
 * The element fits the screen's width, neither clipped at the right nor pushed off at the left, and its own
 * content is not cut off inside it (no sideways scrolling within it).
 */
export function onScreen(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return (
      r.left >= 0 && r.right <= window.innerWidth + 0.5 && r.right > r.left && el.scrollWidth <= el.clientWidth + 1
    );
  }, selector);
}

/**
 * Points of the element's visible part (a grid of 5x5 inside its box, clipped to the window) where something
 * that is not the element or inside it is drawn on top: [] when nothing covers it.
 */
export function uncovered(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return ['missing'];
    const r = el.getBoundingClientRect();
    const out: string[] = [];
    for (let i = 1; i <= 5; i++)
      for (let j = 1; j <= 5; j++) {
        const x = r.left + ((r.right - r.left) * i) / 6;
        const y = r.top + ((r.bottom - r.top) * j) / 6;
        if (y < 0 || y > window.innerHeight || x < 0 || x > window.innerWidth) continue;
        const top = document.elementFromPoint(x, y);
        if (top && top !== el && !el.contains(top))
          out.push(`${Math.round(x)},${Math.round(y)}: ${top.tagName.toLowerCase()}.${top.className}`);
      }
    return out;
  }, selector);
}

/** The computed CSS position of the first element matching the selector. */
export function cssPosition(page: Page, selector: string): Promise<string | null> {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    return el
      ? (globalThis as unknown as { getComputedStyle(e: El): { position: string } }).getComputedStyle(el).position
      : null;
  }, selector);
}

/** Scrolls the page so that the element's bottom edge is at the bottom of the screen. */
export function scrollToBottomEdge(page: Page, selector: string): Promise<void> {
  return page.evaluate((sel) => document.querySelector(sel)?.scrollIntoView({ block: 'end' }), selector);
}
