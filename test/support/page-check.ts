import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * What a reviewer reading the page notices: a visible field label that repeats the heading it sits
 * under (the page's h1, or its section's heading: "Password / Password"), and the rows of one list
 * whose buttons do the same thing (one action path, the row's id aside) worded differently ("Sign
 * out here" and "Sign out this session").
 */
export async function wordingFindings(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const text = (element: Element | null) => (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
    const visible = (element: Element) => {
      const box = element.getBoundingClientRect();
      return box.width > 1 && box.height > 1 && getComputedStyle(element).visibility !== 'hidden';
    };
    const found: string[] = [];
    const h1 = text(document.querySelector('h1')).toLowerCase();
    for (const label of Array.from(document.querySelectorAll('label'))) {
      if (!visible(label)) continue;
      const words = text(label).toLowerCase();
      const section = label.closest('section, fieldset, .card');
      const heading = text(section?.querySelector('h2, h3, legend') ?? null).toLowerCase();
      if (words && (words === h1 || words === heading))
        found.push(`label repeats its heading: "${text(label)}"`);
    }
    const wordings = new Map<string, Set<string>>();
    for (const form of Array.from(document.querySelectorAll('form[method="post" i]'))) {
      const button = form.querySelector('button[type="submit"], button:not([type])');
      if (!button) continue;
      // Ids in a path (digits, hex, tokens of 16+ characters) are the same action on another row.
      const action = (form.getAttribute('action') ?? '').replace(
        /\/(?:\d+|[0-9a-f-]{8,}|[\w-]{16,})(?=\/|$)/gi,
        '/:id',
      );
      // Only rows of one list: a form without an id in its path (a switcher beside per-row buttons
      // naming their row) is another control, not another wording.
      if (!action.includes('/:id')) continue;
      if (!wordings.has(action)) wordings.set(action, new Set());
      wordings.get(action)!.add(text(button));
    }
    for (const [action, words] of wordings)
      if (words.size > 1) found.push(`${action}: one act, several wordings: ${[...words].join(' | ')}`);
    return found;
  });
}

/**
 * A page as a person sees it, at each width (1280 and 375 px by default): nothing wider than the
 * screen, and axe (injected after load, so the page's CSP does not block it) finds no serious or
 * critical violation (`axe: 'all'`: no violation of any impact), and no wording a reviewer trips
 * over (`wordingFindings`). A full-page screenshot is kept in `shots` as `<name>-<width>.png`.
 */
export async function checkPageAtWidths(
  page: Page,
  url: string,
  {
    name,
    shots,
    widths = [1280, 375],
    axe = 'serious',
  }: { name: string; shots: string; widths?: readonly number[]; axe?: 'serious' | 'all' },
): Promise<void> {
  mkdirSync(shots, { recursive: true });
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(url);
    await page.waitForLoadState('networkidle');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${url} at ${width}px is wider than the screen`).toBeLessThanOrEqual(0);
    await page.evaluate(AXE_SOURCE);
    const violations = (await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
      return (await axe.run()).violations;
    })) as AxeViolation[];
    const bad = violations
      .filter((v) => axe === 'all' || v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
    expect(bad, `${url} at ${width}px`).toEqual([]);
    expect(await wordingFindings(page), `${url} at ${width}px`).toEqual([]);
    await page.screenshot({ path: `${shots}/${name}-${width}.png`, fullPage: true });
  }
}
