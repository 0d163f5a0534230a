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
 * A page as a person sees it, at each width (1280 and 375 px by default): nothing wider than the
 * screen, and axe (injected after load, so the page's CSP does not block it) finds no serious or
 * critical violation. A full-page screenshot is kept in `shots` as `<name>-<width>.png`.
 */
export async function checkPageAtWidths(
  page: Page,
  url: string,
  { name, shots, widths = [1280, 375] }: { name: string; shots: string; widths?: readonly number[] },
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
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
    expect(bad, `${url} at ${width}px`).toEqual([]);
    await page.screenshot({ path: `${shots}/${name}-${width}.png`, fullPage: true });
  }
}
