import { Type } from '@sinclair/typebox';

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
