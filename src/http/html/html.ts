// The template lives in core/html.ts, so mail (below http) renders with it too.
export * from '../../core/html.ts';
