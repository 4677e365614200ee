/** SPEC 4.5: a browser-side event is an orphan when no backend event of the same project carries
 *  its request_id within this window, either side of its time. */
export const ORPHAN_WINDOW_MS = 2 * 60 * 1000;

export const withinWindow = (a: number, b: number): boolean => Math.abs(a - b) <= ORPHAN_WINDOW_MS;
