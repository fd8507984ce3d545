/** Largest id that fits the catalogue's and the accounts' integer columns. */
export const MAX_ID = 2_147_483_647;
