/** The ads as the API answers them, read as views (no hydration): the home screen asks on every open. */
import { EntityManager } from '@mikro-orm/postgresql';
import { activeWindowSql } from '../../common/active-window';
import { asViews, View, viewColumns } from '../../common/row-views';
import { executePrepared, textsBuiltOnce } from '../../common/entity-manager';
import { Ad } from './ad.entity';

/** The live ads' text: code only, one key, built once (textsBuiltOnce). */
const adsTexts = textsBuiltOnce();

/**
 * Switched-on ads inside their window, in display order: no value to bind, the window is
 * PostgreSQL's `now()` (active-window.ts), evaluated when the statement runs, prepared or not
 * (the start of its transaction). The twin (scripts/bench-twins/app.ts) sends this text too.
 */
export function activeAdsSql(em: EntityManager): string {
  return adsTexts(
    'active',
    () => `select ${viewColumns(em, Ad, 'a')} from ads a where a.is_active and ${activeWindowSql('a')} order by a.sort_order asc, a.id asc`,
  );
}

/**
 * Switched-on ads inside their window, in display order (spec §2.3). One prepared statement
 * (`executePrepared`: parsed once per pooled connection).
 */
export async function activeAdViews(em: EntityManager): Promise<View<Ad>[]> {
  return asViews(em, Ad, await executePrepared(em, activeAdsSql(em), []));
}
