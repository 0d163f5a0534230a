import { Type } from '@sinclair/typebox';

/** A whole number of at least 1 in the query (`page`, `limit`); 9 digits at most. */
function positiveInteger(name: string, description: string) {
  return Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 999_999_999,
      description,
      'x-message': `${name} must be a whole number of at least 1.`,
    }),
  );
}

/** The `page` and `limit` query parameters of a list of `defaultLimit` per page, `maxLimit` at most. */
export function pageQuery(defaultLimit: number, maxLimit: number) {
  return {
    page: positiveInteger('page', 'Default 1'),
    limit: positiveInteger('limit', `Default ${defaultLimit}, at most ${maxLimit}`),
  };
}

/** The page asked for (default 1) and its size (the default, never over `maxLimit`). */
export function pageAsked(
  query: { page?: number; limit?: number },
  defaultLimit: number,
  maxLimit: number,
): { page: number; limit: number } {
  return { page: query.page ?? 1, limit: Math.min(query.limit ?? defaultLimit, maxLimit) };
}

/**
 * Numbered pages of the auth side's lists (a user's security events, the administration's users):
 * the `data.pagination` object of their envelopes, its schema, and how it is worked out.
 */
export interface PagePagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
  hasMore: boolean;
  nextPage: number | null;
  prevPage: number | null;
}

/** The response schema of `PagePagination`, for an endpoint's `response`. */
export const PagePaginationSchema = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  totalPages: Type.Integer(),
  hasMore: Type.Boolean(),
  nextPage: Type.Union([Type.Integer(), Type.Null()]),
  prevPage: Type.Union([Type.Integer(), Type.Null()]),
});

/** Page `page` of `limit` rows out of `total`; a page past the end points back to the last one. */
export function pagePagination(page: number, limit: number, total: number): PagePagination {
  const totalPages = Math.ceil(total / limit);
  const hasMore = page < totalPages;
  return {
    page,
    limit,
    total,
    totalPages,
    hasMore,
    nextPage: hasMore ? page + 1 : null,
    prevPage: page > 1 ? Math.min(page - 1, Math.max(totalPages, 1)) : null,
  };
}
