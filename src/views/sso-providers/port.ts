import type { Provider } from '../../domain/sso.ts';

/** The single sign-on providers configured through the API, client secrets included (the API
 *  never answers them). The one configured by environment variables is not here. */
export interface SsoProvidersWriter {
  saved(provider: Provider & { saved_at: string }): void;
  deleted(id: string): void;
}

export interface SsoProvidersQueries {
  /** Every provider, by id. */
  list(): Promise<(Provider & { saved_at: string })[]>;
  get(id: string): Promise<(Provider & { saved_at: string }) | null>;
}
