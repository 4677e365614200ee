/** SPEC 2.4: a page of a list, and where it stands in the whole. */
export interface Page<T> {
  data: T[];
  pagination: { page: number; limit: number; totalItems: number; totalPage: number };
}

/** Which page of a list is asked for: 1-based, `limit` items a page. */
export interface PageRequest {
  page: number;
  limit: number;
}

export const pageOf = <T>(data: T[], { page, limit }: PageRequest, totalItems: number): Page<T> => ({
  data,
  pagination: { page, limit, totalItems, totalPage: Math.ceil(totalItems / limit) },
});

export const emptyPage = <T>(request: PageRequest): Page<T> => pageOf([], request, 0);

/** How many items come before the page. */
export const offsetOf = ({ page, limit }: PageRequest): number => (page - 1) * limit;
