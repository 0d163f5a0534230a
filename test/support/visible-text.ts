/**
 * The texts a person reads on a page Citadel renders: each text node (scripts, styles and `<code>`
 * aside: a scope, a header, an algorithm are the same in every language) and the attributes shown
 * or spoken (`title`, `placeholder`, `aria-label`, `alt`, a submit input's `value`), entities
 * decoded and white space collapsed. Citadel's own markup is regular (its `html` template writes
 * it), so a small tokenizer reads it without a DOM.
 */
export function visibleTexts(markup: string): Set<string> {
  const texts = new Set<string>();
  const add = (text: string) => {
    const clean = decodeEntities(text).replace(/\s+/g, ' ').trim();
    if (clean !== '') texts.add(clean);
  };
  const body = markup
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|template|code)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ');
  for (const piece of body.split(/(<[^>]*>)/)) {
    if (!piece.startsWith('<')) {
      add(piece);
      continue;
    }
    const attributes = new Map<string, string>();
    for (const [, name, , double, single] of piece.matchAll(/([\w:-]+)\s*=\s*("([^"]*)"|'([^']*)')/g))
      attributes.set(name!.toLowerCase(), double ?? single ?? '');
    for (const name of ['title', 'placeholder', 'aria-label', 'alt'])
      if (attributes.has(name)) add(attributes.get(name)!);
    const type = attributes.get('type')?.toLowerCase();
    if (/^<input\b/i.test(piece) && (type === 'submit' || type === 'button' || type === 'reset'))
      add(attributes.get('value') ?? '');
  }
  return texts;
}

/** The few entities the `html` template writes, and numeric ones. */
function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}
