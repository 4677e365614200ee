export interface Page<T> {
  data: T[];
  pagination: { page: number; limit: number; totalItems: number; totalPage: number };
}
