/**
 * The one name-search rule (stores and products alike): accents and case ignored, substring
 * matches first, then typo-tolerant trigram word similarity. `column` is a column reference
 * written by the calling module; the user's text only ever travels as bound parameters.
 */
export function nameSearch(column: string, q: string) {
  const term = q.trim();
  const literal = term.replace(/[\\%_]/g, '\\$&'); // the user's % and _ are not wildcards
  return {
    match: `(search_text(${column}) like '%' || search_text(?) || '%' or search_text(?) <% search_text(${column}))`,
    matchParams: [literal, term],
    rank: `(search_text(${column}) like search_text(?) || '%') desc, word_similarity(search_text(?), search_text(${column})) desc`,
    rankParams: [literal, term],
  };
}
