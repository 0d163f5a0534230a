import type { ResourceConfig, Verb } from '../resource/types.ts';

/** `posts` → `post`, `categories` → `category`, `boxes` → `box`, `addresses` → `address`. */
export function singularOf(plural: string): string {
  const words = plural.split(' ');
  const last = words.pop()!;
  let one = last;
  if (/[^aeiou]ies$/i.test(last)) one = `${last.slice(0, -3)}y`;
  else if (/(?:ss|x|z|ch|sh|us)es$/i.test(last)) one = last.slice(0, -2);
  else if (/[^su]s$/i.test(last)) one = last.slice(0, -1);
  return [...words, one].join(' ');
}

/** "a post", "an entry", "a user": the article by the first letter (a label can spell its own). */
function withArticle(noun: string): string {
  return /^(?:[aeio]|u(?![sn]i|sa|se|su|r))/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** The words a resource's operations use: its `labels`, else derived from its name. */
export function labelsOf(resource: Pick<ResourceConfig, 'name' | 'labels'>): {
  singular: string;
  plural: string;
} {
  const plural = resource.labels?.plural ?? resource.name.replace(/[_-]+/g, ' ');
  // "my posts" lists mine; one of them is "a post".
  const one = plural.replace(/^(?:my|our|your|their) (?=\S)/i, '');
  return { plural, singular: resource.labels?.singular ?? singularOf(one) };
}

/** Plain-English operation summaries: "List posts", "Get a post", "Create a post", … */
export function operationSummary(
  resource: Pick<ResourceConfig, 'name' | 'labels'>,
  verb: Verb,
  target: 'collection' | 'item',
): string {
  const { singular, plural } = labelsOf(resource);
  if (verb === 'get') return target === 'collection' ? `List ${plural}` : `Get ${withArticle(singular)}`;
  const action = { post: 'Create', put: 'Replace', patch: 'Update', delete: 'Delete' }[verb];
  return `${action} ${withArticle(singular)}`;
}
