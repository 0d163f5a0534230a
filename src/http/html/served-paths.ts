/**
 * The GET paths this server answers (route patterns, relative to where Citadel is mounted), so a
 * page links only to what exists: a left-out plugin's pages disappear from every other page's links.
 */
export class ServedPaths {
  private readonly exact = new Set<string>();
  private readonly patterns: RegExp[] = [];

  /** Record a route's URL pattern (`/oauth/:provider`, `/docs/ui/assets/:file`). */
  add(pattern: string): void {
    if (!/[:*]/.test(pattern)) {
      this.exact.add(pattern);
      return;
    }
    const source = pattern
      .split('/')
      .map((segment) =>
        segment === '*'
          ? '.*'
          : segment.startsWith(':')
            ? '[^/]+'
            : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    this.patterns.push(new RegExp(`^${source}$`));
  }

  /** Whether a link to `path` (its query string aside) reaches a route. */
  has(path: string): boolean {
    const bare = path.split(/[?#]/)[0] ?? path;
    return this.exact.has(bare) || this.patterns.some((pattern) => pattern.test(bare));
  }
}
