/**
 * The Domain Research Suite pool as the tests expect it (CONTRACT's product table): its products'
 * ids and names in the order the platform lists them. An oracle of the tests, not read from the
 * product code.
 */
export const RESEARCH_POOL = [
  [14, 'Domain Research Suite'],
  [27, 'Screenshot API'],
  [101, 'Brand Alert API'],
  [102, 'Registrant Alert API'],
  [103, 'Reverse WHOIS API'],
  [104, 'WHOIS History API'],
  [105, 'Reverse IP API'],
  [106, 'Reverse MX API'],
  [107, 'Reverse NS API'],
  [108, 'Subdomains Lookup API'],
  [109, 'Domains & Subdomains Discovery API'],
] as const;

/** The pool's product names, in order. */
export const RESEARCH_POOL_NAMES: string[] = RESEARCH_POOL.map(([, name]) => name);
